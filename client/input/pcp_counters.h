/* pcp_counters: pmdastaprelay's counters as samples, whatever brought
 * their values -- an archive record, a live fetch or pmseries through
 * pmproxy (pmseries.h) -- so every path gives the same stacks.
 *
 *   <event>.stacks     one instance per stack (docs/formats.md, "Stack
 *                      instance names"), plus [other]: each increment
 *                      (counterdelta.h) is that many samples of the stack
 *                      the name decodes to, at the time of its value set;
 *   <event>.subsecond  50 buckets "LO-HI" (ms) with <event>.subsecond_end,
 *                      the second before which the histogram is complete:
 *                      the increments between two sets whose ends are A
 *                      and B are the samples of seconds A .. B-1, placed
 *                      at column A + LO ms (one second per logged value
 *                      when logged every second; otherwise all land in
 *                      column B-1 and are counted as merged).  Their
 *                      stack is PCP_SUBSECOND_STACK: the histogram has
 *                      none.
 *
 * Windows: a .stacks increment over (prev, now] counts when lo <= prev
 * and now <= hi; a .subsecond increment when its column's time lies in
 * [lo, hi] (records count by their own time the same way). */
#ifndef STAPRELAY_PCP_COUNTERS_H
#define STAPRELAY_PCP_COUNTERS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "client/input/counterdelta.h"

#define PCP_SUBSECOND_STACK "[subsecond histogram]"
/* No .subsecond_end value in a set. */
#define PCP_NO_END INT64_MIN

typedef enum { PCP_COUNTER_STACKS, PCP_COUNTER_SUBSECOND } pcp_counter_kind;

/* A sample the counter stands for: folded stack, weight, time (ns). */
typedef void (*pcp_counter_fn)(void *arg, const char *folded, size_t len,
                               double weight, int64_t when_ns);

typedef struct pcp_counter_stats {
    uint64_t sets;          /* value sets read (baseline included) */
    uint64_t samples;       /* weight delivered */
    uint64_t outside;       /* weight outside the window */
    uint64_t merged;        /* .subsecond weight of sets more than a second apart */
    uint64_t no_end;        /* .subsecond sets without .subsecond_end */
    uint64_t bad_names;     /* .subsecond instances not named LO-HI */
} pcp_counter_stats;

typedef struct pcp_counter pcp_counter;

/* u32: the counter is 32 bits (it wraps). */
pcp_counter *pcp_counter_new(pcp_counter_kind kind, bool u32,
                             int64_t lo_ns, int64_t hi_ns,
                             pcp_counter_fn fn, void *arg);
void pcp_counter_free(pcp_counter *c);
void pcp_counter_window(pcp_counter *c, int64_t lo_ns, int64_t hi_ns);

/* One value set: begin, the values (and for .subsecond the set's
 * .subsecond_end, in seconds), end. */
void pcp_counter_begin(pcp_counter *c, int64_t when_ns);
void pcp_counter_value(pcp_counter *c, const char *name, uint64_t value);
void pcp_counter_end_second(pcp_counter *c, int64_t end_s);
void pcp_counter_end(pcp_counter *c);

const pcp_counter_stats *pcp_counter_stats_of(const pcp_counter *c);

/* The counter metric a name stands for: "X.stacks" or "X.subsecond"
 * itself, else X with that suffix. */
void pcp_counter_name(const char *name, pcp_counter_kind kind, char *out,
                      size_t outlen);

#endif
