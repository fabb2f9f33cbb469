/* hotcold: Brendan Gregg's hot/cold flame graph -- on-CPU samples and
 * off-CPU blocked time of the same threads in one graph, in ns.
 *
 * A collector watches every sample the inputs deliver (a
 * stack_detail_fn, with its context: stacksink.h).  A sample weighed
 * by time (its context's weight_unit "nanoseconds": an off-CPU block
 * weighed by its duration) is off-CPU; any other is on-CPU and stands
 * for ctx->samples (else its weight) periods of the sampling clock,
 * period_ns each.  Each is kept per thread (host, pid, tid as known).
 *
 * The window: from the earliest start (a block's time minus its
 * duration, a sample's time minus its periods) to the latest time of
 * any sample.  The normalisation (Gregg's proposed fix): a thread whose
 * on- plus off-CPU time T exceeds the window W has each of its weights
 * scaled by W / T, so every thread counts at most 1 s per second of
 * the window; a thread within it is left as it is.  Without sample
 * times there is no window and nothing is scaled.
 *
 * The result goes into a stack table with the part as the root frame:
 * HOTCOLD_ON ";" stack or HOTCOLD_OFF ";" stack (palette.h's hotcold
 * palette draws the second's frames cool). */
#ifndef STAPRELAY_HOTCOLD_H
#define STAPRELAY_HOTCOLD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "client/stack/stacksink.h"
#include "client/stack/stacktab.h"

#define HOTCOLD_ON  "oncpu"
#define HOTCOLD_OFF "offcpu"

typedef struct hotcold hotcold;

/* A collector whose on-CPU samples weigh period_ns (> 0) each. */
hotcold *hotcold_new(double period_ns);
void     hotcold_free(hotcold *hc);

/* The stack_detail_fn to install (arg: the collector). */
void hotcold_observe(void *arg, const char *stack, size_t len, double weight,
                     int col, int64_t when_ns, const stack_context *ctx);

/* The window in ns (0 when no sample had a time), the threads seen,
 * and of those the ones scaled down. */
int64_t hotcold_window_ns(const hotcold *hc);
size_t  hotcold_threads(const hotcold *hc);
size_t  hotcold_scaled(const hotcold *hc);
/* Samples seen of the on-CPU (off false) or off-CPU part. */
uint64_t hotcold_samples(const hotcold *hc, bool off);

/* Add the normalised, marked stacks to out's column 0. */
void hotcold_fill(const hotcold *hc, stacktab *out);

#endif
