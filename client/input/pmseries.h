/* pmseries: pmdastaprelay's counters of a fleet, from pmseries (Valkey or
 * Redis) through pmproxy's REST API (pmwebapi(3)), as samples -- the same
 * samples an archive of the same data gives (pcp_counters.h: one rule for
 * every path).
 *
 * The query is a pmseries expression naming the metric, optionally with
 * label filters: "staprelay.staprelay_profile.samples" or
 * "staprelay.staprelay_profile.samples{hostname==\"web1\"}".  The name
 * stands for its .stacks counter (or .subsecond, for a heat map) unless
 * it names one.  Every series the query matches is one source (a host);
 * its value sets are its values grouped by timestamp, in time order.
 * Requests: /series/query (the series), /series/instances (instance
 * names), /series/labels of one instance series each (the hostname:
 * pmseries keeps context labels there, while PCP 6.0.3 drops those of a
 * metric with an instance domain), /series/descs (for .subsecond, which
 * .subsecond_end series is the same source's) and /series/values, ten
 * minutes at a time for a bounded window.
 *
 * The .stacks counter is read sparsely: /series/values with interval=STEP
 * (pmproxy returns the stored set last before each step, and the first
 * and last of the range), then every set between two read sets A and B
 * only where the counter may have counted differently between them than
 * from A to B: where their instances differ or a value went down
 * (pmseries_must_read_between), where the window's edge falls, and where
 * the agent or the stream may have restarted (its
 * staprelay.control.events.received went down, or was not logged: a
 * restart of a young stream need not lower any value of the counter).
 * pmdastaprelay changes the counter's instances only at refreshes,
 * stacks_refresh (600 s) apart once started, so with STEP at most
 * stacks_refresh less the logging interval, at most one change falls
 * between A and B, and a change shows as instances that differ
 * (docs/fleet.md). */
#ifndef STAPRELAY_PMSERIES_H
#define STAPRELAY_PMSERIES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "client/input/pcp_counters.h"
#include "common/strbuf.h"

#define PMSERIES_DEFAULT_URL "http://localhost:44322"

typedef struct pmseries_query {
    const char      *url;        /* pmproxy, e.g. http://localhost:44322 */
    const char      *query;
    pcp_counter_kind kind;       /* what a bare name stands for */
    int64_t          lo_ns, hi_ns;   /* window, INT64_MIN/MAX: unbounded */
    int64_t          step_ms;    /* .stacks: sparse reads STEP apart; 0: all */
} pmseries_query;

#define PMSERIES_DEFAULT_STEP_MS 300000   /* half the default stacks_refresh */

typedef struct pmseries_stats {
    uint64_t series;       /* sources (hosts) matched */
    uint64_t sets, samples, outside, merged, no_end;
    uint64_t requests, bytes;
    uint64_t reread;       /* spans between sparse sets read in full */
} pmseries_stats;

/* A sample: the host it came from, its folded stack, weight and time. */
typedef void (*pmseries_fn)(void *arg, const char *host, const char *folded,
                            size_t len, double weight, int64_t when_ns);

/* Returns 0, or 1 with a message in err (pmproxy unreachable, an HTTP or
 * query error, no series). */
int pmseries_read(const pmseries_query *q, pmseries_fn fn, void *arg,
                  pmseries_stats *st, strbuf *err);

/* A value read: its source (series), time, instance (an index) and
 * value; a set is the values of one series at one time. */
typedef struct pmseries_value {
    size_t   series;
    int64_t  ns;
    long     inst;      /* -1: a .subsecond_end value */
    uint64_t v;
} pmseries_value;

/* Whether the sets between two sets A and B of one .stacks series
 * (each sorted by instance) must be read: unless A and B have the same
 * instances and no value went down, the increments from A to B are those
 * of every set between them (counterdelta.h's rule: an instance that
 * left and came back, or an agent that restarted, shows as a different
 * instance set or a value that went down). */
bool pmseries_must_read_between(const pmseries_value *a, size_t na,
                                const pmseries_value *b, size_t nb);

/* The expression actually asked: the query with its metric name turned
 * into the counter's (pcp_counter_name), labels and the rest kept. */
void pmseries_counter_query(const char *query, pcp_counter_kind kind,
                            const char *suffix, strbuf *out);

#endif
