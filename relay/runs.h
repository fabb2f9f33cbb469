/* runs: on-demand runs of bundled scripts (docs/runs.md).  Owns the
 * request grammar ("SCRIPT key=value ..."), the policy from the config
 * (which scripts, how long, how many at once), the queue, the child
 * processes (`staprelay run SCRIPT ...`, no shell, argv built from the
 * validated request) and each run's history.  The host (the PMDA) turns
 * pmstore values into runs_request/runs_stop calls and publishes the list;
 * nothing here knows PCP.  Everything runs on the relay's libev loop. */
#ifndef STAPRELAY_RUNS_H
#define STAPRELAY_RUNS_H

#include "relay/config.h"
#include "relay/log.h"

#include <ev.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct relay;

typedef enum { RUN_QUEUED, RUN_RUNNING, RUN_DONE, RUN_FAILED, RUN_STOPPED } run_state;

typedef struct run run;   /* opaque: read it through run_json */

typedef struct runs {
    struct ev_loop *loop;
    const runs_config *cfg;  /* borrowed from the relay's config */
    char *command;           /* the staprelay command (owned) */
    char *directory;         /* --dir for the perf backend (owned) */
    log_sink log;
    const struct relay *relay; /* where runs' sources appear (borrowed; the
                                * host sets it once the relay exists) */
    run **v;                 /* oldest request first */
    size_t n;
    uint64_t requests;       /* store requests seen */
    uint64_t refusals;       /* of which refused */
    uint64_t generation;     /* bumps whenever the list or a run changes */
    char last[320];          /* "accepted: NAME" or "refused: REASON" */
} runs;

/* command and directory are copied.  log may be NULL. */
runs *runs_new(struct ev_loop *loop, const runs_config *cfg, const char *command,
               const char *directory, const log_sink *log);
/* Stops every run (SIGTERM to its process group, SIGKILL after a short
 * grace) and frees everything. */
void runs_free(runs *rs);

/* Ask for a run.  Returns 0 (accepted: queued, started from the loop) or
 * a negative errno: -EPERM (runs disabled, script not allowed), -EINVAL
 * (malformed), -ERANGE (duration over the maximum), -EBUSY (queue full),
 * -ENOMEM.  rs->last says what happened, and a refusal is logged. */
int runs_request(runs *rs, const char *text);
/* A request the host could not even read (not a string): counted, logged
 * and shown like any refusal.  Returns rc. */
int runs_reject(runs *rs, int rc, const char *why);
/* End a queued or running run early.  0, or -ESRCH if there is no such
 * run still active. */
int runs_stop(runs *rs, const char *name);

/* Record the event streams of running runs whose prefix has a source now
 * in rs->relay (runs also look when a run names its prefix and when it
 * ends).  Call after each namespace change. */
void runs_note_sources(runs *rs);

size_t runs_count(const runs *rs);
const char *runs_name(const runs *rs, size_t i);
/* The run as one JSON object (docs/runs.md), kept up to date by the loop.
 * The string is owned by the run and valid until its next change. */
const char *runs_json(const runs *rs, size_t i);
run_state runs_state(const runs *rs, size_t i);
const char *run_state_name(run_state st);

#endif
