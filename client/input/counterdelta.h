/* counterdelta: what a counter with an instance domain counted between
 * its successive value sets -- the one rule by which every reader of
 * pmdastaprelay's .stacks and .subsecond counters (archives, a farm, live
 * pmcds, pmseries through pmproxy) turns values into samples, so that the
 * same data gives the same folded stacks on every path.
 *
 * A value set is every instance that had a value at one time (an archive
 * record, a fetch, a pmseries timestamp); sets without any value do not
 * count as sets.  The first set is the baseline.  For each later set,
 * each instance's increment is
 *   - its value minus its value in the previous set, when it had one there
 *     and the value did not go down;
 *   - for a 32-bit counter that went down by more than 2^31: the wrap,
 *     value + 2^32 - previous (PCP's counter rule);
 *   - otherwise its whole value: an instance absent from the previous set
 *     entered the counter since, from zero (pmdastaprelay's contract), and
 *     one that went down restarted (the PMDA did).
 * Increments of zero are not reported.  An instance that left carries
 * nothing over: it may come back only from zero. */
#ifndef STAPRELAY_COUNTERDELTA_H
#define STAPRELAY_COUNTERDELTA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct counterdelta counterdelta;

/* increment of instance `name` over (prev_ns, now_ns] */
typedef void (*counterdelta_fn)(void *arg, const char *name, uint64_t inc,
                                int64_t prev_ns, int64_t now_ns);

counterdelta *counterdelta_new(bool u32);
void counterdelta_free(counterdelta *cd);

/* One set: begin, the values, end (which reports the increments when
 * there was a previous set).  A set with no value is ignored. */
void counterdelta_begin(counterdelta *cd, int64_t when_ns);
void counterdelta_value(counterdelta *cd, const char *name, uint64_t value);
void counterdelta_end(counterdelta *cd, counterdelta_fn fn, void *arg);

/* Forget everything: the next set is a baseline again. */
void counterdelta_reset(counterdelta *cd);
/* Sets seen since the last reset (the baseline included). */
uint64_t counterdelta_sets(const counterdelta *cd);
/* Names held: those of the last set, and at most as many again (+64)
 * that have left. */
size_t counterdelta_names(const counterdelta *cd);

#endif
