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
 * minutes at a time for a bounded window. */
#ifndef STAPRELAY_PMSERIES_H
#define STAPRELAY_PMSERIES_H

#include <stdint.h>
#include "client/input/pcp_counters.h"
#include "common/strbuf.h"

#define PMSERIES_DEFAULT_URL "http://localhost:44322"

typedef struct pmseries_query {
    const char      *url;        /* pmproxy, e.g. http://localhost:44322 */
    const char      *query;
    pcp_counter_kind kind;       /* what a bare name stands for */
    int64_t          lo_ns, hi_ns;   /* window, INT64_MIN/MAX: unbounded */
} pmseries_query;

typedef struct pmseries_stats {
    uint64_t series;       /* sources (hosts) matched */
    uint64_t sets, samples, outside, merged, no_end;
    uint64_t requests, bytes;
} pmseries_stats;

/* A sample: the host it came from, its folded stack, weight and time. */
typedef void (*pmseries_fn)(void *arg, const char *host, const char *folded,
                            size_t len, double weight, int64_t when_ns);

/* Returns 0, or 1 with a message in err (pmproxy unreachable, an HTTP or
 * query error, no series). */
int pmseries_read(const pmseries_query *q, pmseries_fn fn, void *arg,
                  pmseries_stats *st, strbuf *err);

/* The expression actually asked: the query with its metric name turned
 * into the counter's (pcp_counter_name), labels and the rest kept. */
void pmseries_counter_query(const char *query, pcp_counter_kind kind,
                            const char *suffix, strbuf *out);

#endif
