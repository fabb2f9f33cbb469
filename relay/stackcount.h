/* stackcount: the <event>.stacks counter of one event stream -- samples per
 * distinct stack, in the shape grafana-pcp's flame graph reads, with an
 * instance domain that changes rarely and in batches, so a pmlogger farm
 * and pmseries can afford it (docs/formats.md, "The stacks counter").
 *
 * Every stack seen is a candidate, tracked by its folded form with the
 * weight it gathered since the last refresh and a score (that weight plus
 * half the previous score).  Rows -- what clients see -- change only at a
 * refresh: the at most max_stacks candidates with the highest score are
 * kept (a kept stack outranks a newcomer unless the newcomer scores a
 * quarter more; equal scores go by name), plus the one row STACKNAME_OTHER
 * that counts the samples of every other stack.  A refresh applies its
 * choice only when it takes a free row or what comes in outscores what
 * goes by 2 % of all the candidates' score: the long tail of a profile
 * swaps places all the time, and each change costs a version 2 archive a
 * copy of the whole domain.  Between refreshes a kept stack counts its
 * samples at once; any other stack's samples wait (its pending weight)
 * and at the refresh go to its new row (a stack kept for the first time
 * starts with them) or to STACKNAME_OTHER.  A stack that drops out stays
 * as a frozen row (its samples then go to the others) until the next
 * refresh that adds rows, at least a period later, so a client fetching at
 * least once per period sees its final value.  Every row's value only
 * grows; a row that appears starts from the samples it gathered since the
 * previous refresh, none of which any other row counted: the sum of every
 * row's increments is every sample.
 *
 * Refreshes run from stackcount_tick: the first at the first tick after a
 * stack arrived, then after 1, 2, 4 ... seconds, doubling up to `refresh`,
 * so the first stacks show at once and the domain then settles.  A kept
 * stack without samples for `expiry` seconds drops out, without a frozen
 * period, at the next refresh that adds rows.  Candidates are bounded too
 * (max_candidates): when full, the lowest-scored tenth of the ones not
 * kept is forgotten (their pending weight goes to STACKNAME_OTHER at once).
 * Rows: at most 2 max_stacks + 1. */
#ifndef STAPRELAY_STACKCOUNT_H
#define STAPRELAY_STACKCOUNT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct stackcount_row {
    const char *name;    /* instance name (stackname_encode form) */
    uint64_t count;      /* cumulative weight */
} stackcount_row;

typedef struct stackcount_limits {
    size_t max_stacks;       /* rows besides STACKNAME_OTHER (>= 1) */
    size_t max_candidates;   /* distinct stacks tracked (>= max_stacks) */
    double refresh;          /* seconds between refreshes, at most */
    double expiry;           /* seconds a kept stack may go without samples */
} stackcount_limits;

typedef struct stackcount stackcount;

stackcount *stackcount_new(const stackcount_limits *lim);
void stackcount_free(stackcount *t);

/* Add weight to the stack (folded form) at time now (seconds).  Returns
 * -1 without memory (the weight then goes to STACKNAME_OTHER), else 0. */
int stackcount_add(stackcount *t, const char *folded, uint64_t weight, double now);
/* Run a refresh when one is due (the host calls it every poll, and right
 * after a read that added stacks, so the first stacks show with their
 * records). */
void stackcount_tick(stackcount *t, double now);

/* The rows: STACKNAME_OTHER is the last. */
size_t stackcount_size(const stackcount *t);
const stackcount_row *stackcount_entry(const stackcount *t, size_t i);
/* Changes whenever the set of rows changes (at refreshes only). */
uint64_t stackcount_generation(const stackcount *t);
/* Stacks let go so far: rows removed, candidates forgotten for room and
 * stacks too large to track. */
uint64_t stackcount_evicted(const stackcount *t);
/* Distinct stacks tracked now. */
size_t stackcount_candidates(const stackcount *t);
/* Bytes the candidates may take (keys, row names, bookkeeping); SIZE_MAX
 * at first.  Past it the least weighty candidates that are not rows are
 * forgotten, a stack larger than the bound alone is never tracked (its
 * samples go to STACKNAME_OTHER; counted as evicted), and a refresh keeps
 * only as many rows as fit in half of it.  Counts saturate at UINT64_MAX. */
void stackcount_set_max_bytes(stackcount *t, size_t max_bytes);
size_t stackcount_bytes(const stackcount *t);
/* When the next refresh is due (seconds; < 0: none yet). */
double stackcount_next_refresh(const stackcount *t);

#endif
