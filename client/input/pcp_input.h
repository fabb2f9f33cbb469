/* pcp_input: stack samples from PCP event records, live from pmcd
 * (-h HOST[:PORT], repeatable) or replayed from archives (-a ARCHIVE,
 * repeatable), delivered through the same stack_sink as files.
 *
 * Metric names: "staprelay.p.e" means its "staprelay.p.e.records"; a
 * name that already is an event metric is used as it is.
 *
 * Live: each context's first fetch registers it with the PMDA's event
 * queue; then one fetch every interval (-t, default 1 s) until -T
 * (pmParseTimeWindow syntax, relative to now) or SIGINT/SIGTERM, which
 * end collection with one last fetch.  A live window holds exactly the
 * records whose own timestamps lie between the start and -T (or the
 * signal): older ones a replaying event metric hands a new client are
 * left out and counted, and after -T fetches go on every quarter
 * second, at most 2 s, until a record stamped after the end shows that
 * those inside it have all arrived.
 *
 * A live metric that is not there yet (a source that `staprelay run`
 * just started, which the PMDA has not discovered) is waited for, up to
 * --wait (PCP_WAIT_DEFAULT) seconds, with a line on stderr; then the
 * lookup's error.  A metric whose values vanish (the source went away:
 * no value, or the PMDA's error for it) is said on stderr, and again when
 * it comes back.  A connection that fails is reconnected every second
 * (libpcp's PMCD_RECONNECT_TIMEOUT back-off, set to 1 s unless the user
 * set it), between rounds too, so pmcd's return is noticed within a
 * second or two; what was fetched before stays.
 *
 * Archive: every archive record is read in order (pmFetchArchive); each
 * event record is kept when its own timestamp (not the fetch time at
 * which pmlogger stored it) lies in the -S/-T window, parsed by
 * pmParseTimeWindow against that archive's bounds.
 *
 * Runs (--run NAME, docs/runs.md): the run is looked up in
 * staprelay.control.runs (one source only).  Live: while it is queued,
 * or running without an event metric yet, its state is polled every
 * interval; then its first event metric (or the one named) is fetched
 * every interval, records kept only inside the run's window
 * (pcp_run_window), until the state is done, failed or stopped and a
 * fetch at least half a second after that brought no record of the run.
 * Archive: the last recorded value of the run gives the event metric
 * and the window (-S/-T, when given, replace the window).
 *
 * Counters (pcp_counters.h): when a name has no event metric (an archive
 * of a farm logs the counters, not the records), "X" stands for
 * pmdastaprelay's counter X.stacks (po->counter PCP_COUNTER_STACKS: flame,
 * top, diff, fold) or X.subsecond (PCP_COUNTER_SUBSECOND: heatmap); naming
 * X.stacks or X.subsecond picks the counter even where records exist.
 *
 * Farms: each -a may be an archive, a directory of one host's archives
 * or a farm directory of one sub-directory per host (farm.h).  With
 * several archives, -S/-T are read once against the span of all of them
 * (diff's two sides each against its own), so every host gets the same
 * window.
 *
 * pmseries (--series QUERY, pmseries.h): the counters of every host the
 * query matches, through pmproxy's REST API; -S/-T are PCP times
 * relative to now (-S -1hour) or absolute (@10:00). */
#ifndef STAPRELAY_PCP_INPUT_H
#define STAPRELAY_PCP_INPUT_H

#include <stdbool.h>
#include <stdint.h>
#include "client/input/input.h"
#include "client/input/pcp_counters.h"
#include "client/input/pcp_runs.h"
#include "client/stack/stacktab.h"
#include "common/strbuf.h"

#define PCP_MAX_SOURCES 64
#define PCP_MAX_METRICS 16
#define PCP_WAIT_DEFAULT 30.0   /* s: --wait's default */
/* libpcp's text of an error in a buffer of the calling block: the plain
 * pmErrStr shares one static buffer between threads (staprelay web reads
 * PCP in its collector and its handler threads).  Needs <pcp/pmapi.h>. */
#define PCP_ERR_STR(e) pmErrStr_r((e), (char[PM_MAXERRMSGLEN]){ 0 }, PM_MAXERRMSGLEN)

/* What a record with a duration weighs (--weight): its time in ns (the
 * default, PCP_WEIGH_DEFAULT, but heatmap's, which counts blocks), or
 * the events (its count, 1 by default).  Records without a duration
 * weigh their count either way. */
typedef enum { PCP_WEIGH_DEFAULT = 0, PCP_WEIGH_TIME, PCP_WEIGH_EVENTS } pcp_weigh;

typedef struct pcp_options {
    const char *hosts[PCP_MAX_SOURCES];
    int         nhosts;
    const char *archives[PCP_MAX_SOURCES];
    int         narchives;
    const char *metrics[PCP_MAX_METRICS];   /* --metric or arguments */
    int         nmetrics;
    const char *interval;   /* -t; NULL: 1 second */
    const char *start;      /* -S (archives only) */
    const char *finish;     /* -T */
    bool        by_host;    /* --by-host: host name as the root frame */
    bool        by_state;   /* --by-state: an off-CPU block's class as a
                             * frame (after the host's) */
    bool        keep_state; /* each record's class in its context, no
                             * frame (staprelay web: the URL's state=) */
    pcp_weigh   weigh;      /* --weight time|events */
    double      wait_s;     /* --wait: live, how long a metric that is not
                             * there yet is waited for */
    bool        wait_set;   /* false: PCP_WAIT_DEFAULT */
    pcp_counter_kind counter;   /* what X falls back to without records */
    const char *series;     /* --series QUERY (pmseries through pmproxy) */
    const char *pmproxy;    /* --pmproxy URL; NULL: $PCP_PMPROXY_URL or
                             * http://localhost:44322 */
    bool        col_per_source; /* source i fills stacktab column i (diff) */
    const char *run;        /* --run NAME: that run's records (one source;
                             * the metric defaults to its first event) */
    pcp_run    *run_info;   /* optional: receives the run as last seen,
                             * all zero if it was never read (caller
                             * pcp_run_free()s it) */
    /* Live streaming hooks (staprelay live), optional.  on_stack gets
     * each sample's folded stack instead of the table (which may then
     * be NULL) -- an event record's goes to the input options'
     * on_detail instead, with its context, when that is set too
     * (staprelay web keeps pid, tid, comm, host); on_round runs after every round of fetches (the first,
     * registering one and the last one included) with 0 when every
     * source answered, else the first fetch error; a nonzero return
     * ends collection as -T does.  With on_round set, a failed fetch
     * is left to it to report, and a source that failed is reconnected
     * (libpcp's pmReconnectContext back-off) before its next fetch. */
    void      (*on_stack)(void *arg, const char *stack, size_t len,
                          double weight, int64_t when_ns);
    int       (*on_round)(void *arg, int status);
    /* What collection says (a metric waited for, a source gone or back,
     * a run's state), one line without "staprelay CMD: ", instead of
     * stderr (staprelay web's notices); optional */
    void      (*on_notice)(void *arg, const char *text);
    /* --run: each value of the run read from staprelay.control.runs
     * (every poll, live; the one used, archive), valid during the call
     * (staprelay web's runs list); optional */
    void      (*on_run)(void *arg, const pcp_run *r);
    void       *hook_arg;
    bool        progress;   /* live: a one-line status on stderr (a
                             * terminal) each round, erased at the end */
} pcp_options;

typedef struct pcp_stats {
    uint64_t counted;    /* samples the counters stand for */
    uint64_t counter_sets;   /* counter value sets read */
    uint64_t merged;     /* .subsecond samples of sets more than 1 s apart */
    uint64_t no_end;     /* .subsecond samples without .subsecond_end */
    uint64_t records;    /* event records seen (MISSED ones excluded) */
    uint64_t stacks;     /* samples delivered to the stack table */
    uint64_t timed;      /* of those, weighed by their duration (ns) */
    uint64_t missed;     /* records the PMDA reported lost */
    uint64_t ignored;    /* records without a (usable) stack or count */
    uint64_t outside;    /* records outside the -S/-T or run window */
    uint64_t outside_late;   /* live: of those, stamped after -T (the
                              * drain fetches until one arrives) */
    bool     run_window; /* the window was the run's, not -S/-T */
    bool     live_window;/* live: the window from the start to -T */
    uint64_t fetches;
    bool     interrupted;
} pcp_stats;

/* True when -h, -a or --series was given. */
bool pcp_options_active(const pcp_options *po);

/* Check the option combination and syntax that needs no PCP context
 * (-h with -a, -S without -a, -t with -a, -t syntax).  Returns 0, or -1
 * with a message in err. */
int pcp_options_check(const pcp_options *po, strbuf *err);

/* The one -S/-T window rule (archives; staprelay web's selections):
 * start and finish (either may be NULL: unbounded) in PCP time syntax,
 * read by pmParseTimeWindow against the span [first_ns, last_ns] of
 * what is read; a record belongs when its own time t has
 * lo <= t <= hi.  0, or -1 with the reason in err. */
int  pcp_window_parse(const char *start, const char *finish,
                      int64_t first_ns, int64_t last_ns, int64_t *lo_ns,
                      int64_t *hi_ns, strbuf *err);
bool pcp_window_holds(int64_t lo_ns, int64_t hi_ns, int64_t t_ns);

/* "X" -> candidates to try in order: X itself, then X.records. */
void pcp_metric_candidates(const char *name, strbuf *first, strbuf *second);

/* Read every source into the table (in->col, in->strip_hex,
 * in->perf.include_pid / include_tid, in->on_sample).  Warnings go to
 * stderr prefixed with "staprelay CMD: ".  Returns 0, 1 (a source could
 * not be read) or 2 (usage error), with a message in err. */
int pcp_input_read(const pcp_options *po, const input_options *in,
                   const char *cmd, stacktab *tab, pcp_stats *st,
                   strbuf *err);

#endif
