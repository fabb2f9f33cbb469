/* collapse_perf: turns `perf script` text into folded stacks with
 * stackcollapse-perf.pl's rules for samples: comm (or comm-PID,
 * comm-PID/TID) as the root frame, only the first event type seen,
 * weights from the sample period when perf printed one.  Headers are
 * read by common/perf_header and frames named by common/frames (the
 * grammar the relay uses too), with _[k]/_[j] when asked for and _[i]
 * on inlined frames.  Line driven, so input is streamed. */
#ifndef STAPRELAY_COLLAPSE_PERF_H
#define STAPRELAY_COLLAPSE_PERF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "client/stack/stacksink.h"
#include "common/frames.h"

typedef struct perf_options {
    bool include_pid;      /* --pid: root is comm-PID */
    bool include_tid;      /* --tid: root is comm-PID/TID */
    bool annotate_kernel;  /* --kernel: _[k] on kernel frames */
    bool annotate_jit;     /* --jit: _[j] on /tmp/perf-N.map frames */
    bool include_addrs;    /* --addrs: [unknown] frames get <pc> */
} perf_options;

/* The frame options the perf options ask for (SystemTap input reads
 * --kernel too). */
frame_opts perf_frame_opts(const perf_options *opt);

typedef struct perf_collapser perf_collapser;

perf_collapser *perf_collapser_new(const perf_options *opt, stack_sink *sink);
void perf_collapser_free(perf_collapser *pc);
void perf_collapser_line(perf_collapser *pc, const char *s, size_t n);
/* Flush a final sample not followed by a blank line. */
void perf_collapser_finish(perf_collapser *pc);
uint64_t perf_collapser_ignored(const perf_collapser *pc);
/* The event type being kept ("" until one is seen), and how many
 * samples of other types were skipped. */
const char *perf_collapser_event(const perf_collapser *pc);
uint64_t perf_collapser_filtered(const perf_collapser *pc);
/* The time perf printed in the header of the sample being delivered
 * (valid inside the sink's callbacks); false when it printed none. */
bool perf_collapser_sample_time(const perf_collapser *pc, int64_t *ns);

/* What a perf sample's period measures, as a pprof sample type: the
 * software clocks (cpu-clock, task-clock) count nanoseconds of CPU
 * ("cpu", "nanoseconds"); any other event counts itself (EVENT,
 * "count").  event is the event name without modifiers. */
void perf_weight_type(const char *event, const char **type,
                      const char **unit);

#endif
