/* speedscope: export a stacktab as speedscope's JSON file format
 * (https://www.speedscope.app/file-format-schema.json): one "sampled"
 * profile whose samples are stacks of indices into shared.frames, root
 * first, with their weights.  Where every sample had a timestamp (perf
 * script text, PCP records) and a timeline recorded them, the samples
 * are written one by one in time order (adjacent identical ones
 * merged), so speedscope's "Time Order" view shows the profile as it
 * happened; otherwise each distinct stack once with its total. */
#ifndef STAPRELAY_SPEEDSCOPE_H
#define STAPRELAY_SPEEDSCOPE_H

#include <stdio.h>
#include "client/stack/stacktab.h"

#include <stdbool.h>
#include <stdint.h>

/* The samples in arrival order with their times: a stack_sample_fn
 * (stacksink.h) to install as input_options.on_sample. */
typedef struct speedscope_timeline {
    struct ss_sample *v;
    size_t n, cap;
    bool   untimed;       /* a sample without a time was seen */
} speedscope_timeline;

void speedscope_timeline_observe(void *arg, size_t entry, int col,
                                 double weight, int64_t when_ns);
void speedscope_timeline_free(speedscope_timeline *tl);

/* speedscope's ValueUnit for a count name: "nanoseconds" for ns (the
 * unit of --period on clock events), else "none" (samples). */
const char *speedscope_unit(const char *countname);

/* Column col of tab; name is the profile name; unit is speedscope's
 * ValueUnit ("none", "nanoseconds", ...); tl, when not NULL and every
 * sample of col had a time, gives the time order.  Returns 0 or -1. */
int speedscope_write(FILE *out, const stacktab *tab, int col,
                     const char *name, const char *unit,
                     const speedscope_timeline *tl);

#endif
