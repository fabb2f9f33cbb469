/* pcp_runs: a run of staprelay.control.runs (docs/runs.md) as the client
 * sees it.  The value of the metric's instance NAME is one JSON object:
 *
 *   {"name": "...", "script": "...", "request": "...", "state": "done",
 *    "reason": "", "queued": 1796000523.1, "started": 1796000523.2,
 *    "ended": 1796000544.0, "prefix": "...", "events": ["a.b.records"]}
 *
 * Parsing rules (the value comes from another host: nothing in it is
 * trusted): it must be an object; "state" is required and one of
 * queued, running, done, failed, stopped; every other member is
 * optional (a missing one is "", 0 or []), but one that is present
 * with the wrong type is an error, as are times that are negative, not
 * finite or past the year 2286, "ended" before "started", and event
 * names that are not PCP metric names.  Unknown members are ignored.
 *
 * The pieces here need no PCP context (unit tested); pcp_follow.c does
 * the fetching. */
#ifndef STAPRELAY_PCP_RUNS_H
#define STAPRELAY_PCP_RUNS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "common/strbuf.h"

#ifndef PCP_RUNS_METRIC     /* -D for a test build against a stand-in */
#define PCP_RUNS_METRIC "staprelay.control.runs"
#endif
#define PCP_RUN_MAX_EVENTS 16

typedef enum {
    PCP_RUN_QUEUED,
    PCP_RUN_RUNNING,
    PCP_RUN_DONE,
    PCP_RUN_FAILED,
    PCP_RUN_STOPPED,
} pcp_run_state;

typedef struct pcp_run {
    char         *name, *script, *request, *reason, *prefix;  /* never NULL */
    pcp_run_state state;
    double        queued, started, ended;   /* epoch seconds, 0: not yet */
    char         *events[PCP_RUN_MAX_EVENTS];
    int           nevents;                  /* more are ignored */
} pcp_run;

/* Parse one value.  Returns 0, or -1 with a message in err (and *r
 * zeroed: pcp_run_free is still safe). */
int pcp_run_parse(const char *json, size_t len, pcp_run *r, strbuf *err);
void pcp_run_free(pcp_run *r);

const char *pcp_run_state_name(pcp_run_state s);
/* done, failed or stopped: nothing more will be recorded. */
bool pcp_run_terminal(const pcp_run *r);

/* The run's records, in ns since the epoch: those stamped from half a
 * second before "started" (the times may be rounded) to "ended" plus a
 * tenth of a second (INT64_MAX while it has not ended).  A run that has
 * not started has no lower bound.  Records of an earlier or later run of
 * the same script (same event metric, replayed from the same queue) lie
 * outside. */
#define PCP_RUN_SLACK_BEFORE_NS 500000000LL
#define PCP_RUN_SLACK_AFTER_NS  100000000LL
void pcp_run_window(const pcp_run *r, int64_t *lo_ns, int64_t *hi_ns);
/* Which window applies: live, always the run's (-T is when to give up,
 * not a window); an archive read with -S or -T (user_window) keeps the
 * user's window, parsed as without --run (returns false); else the
 * run's (returns true, with lo_ns and hi_ns set). */
bool pcp_run_choose_window(const pcp_run *r, bool live, bool user_window,
                           int64_t *lo_ns, int64_t *hi_ns);

/* True for a PCP metric name: components of [A-Za-z0-9_], each starting
 * with a letter, joined by '.', at most 255 bytes. */
bool pcp_metric_name_ok(const char *s);

/* Append s for a message: at most max bytes of it, control characters
 * and bytes >= 0x7f (other than well-formed UTF-8) as \xNN, so a value
 * from another host cannot drive the terminal. */
void pcp_run_text(strbuf *out, const char *s, size_t max);

#endif
