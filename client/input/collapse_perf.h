/* collapse_perf: turns `perf script` text into folded stacks.  The
 * stack assembly is the one every input shares (staprelay(1), "Stacks
 * the same on every path"): comm (or comm-PID, comm-PID/TID) as the
 * root frame unless no_comm, as stackcollapse-perf.pl and the PCP
 * inputs (pcp_events.h) put it; kernel frames _[k] and JIT frames _[j]
 * as the relay marks them, unless no_marks; each sample weighs 1 (a
 * sample, as a PCP record counts them) unless period asks for perf's
 * period (stackcollapse-perf.pl's weights).  Only the first event type
 * seen is kept.  Headers are read by common/perf_header and frames
 * named by common/frames (the grammar the relay uses too), _[i] on
 * inlined frames always.  Line driven, so input is streamed. */
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
    bool no_comm;          /* --no-comm: no process root frame */
    bool no_marks;         /* --no-marks: no _[k] / _[j] by default */
    bool kernel_marks;     /* --kernel (--all): _[k] even with no_marks */
    bool jit_marks;        /* --jit (--all): _[j] even with no_marks */
    bool period;           /* --period: weigh by perf's period */
    bool include_addrs;    /* --addrs: [unknown] frames get <pc> */
} perf_options;

/* The frame options the perf options ask for (SystemTap input too):
 * both marks unless no_marks; each of kernel_marks and jit_marks adds
 * its own mark back, whatever the order of the options, so --no-marks
 * --jit is stackcollapse-perf.pl --jit (JIT frames marked, kernel
 * frames not). */
frame_opts perf_frame_opts(const perf_options *opt);

/* What a period counts for perf event EVENT ("cpu-clock:ppp"): "ns"
 * for the clock events, else the event's name ("cycles"). */
const char *perf_period_unit(const char *event, char *buf, size_t size);

typedef struct collapse_perf collapse_perf;

collapse_perf *collapse_perf_new(const perf_options *opt, stack_sink *sink);
void collapse_perf_free(collapse_perf *pc);
void collapse_perf_line(collapse_perf *pc, const char *s, size_t n);
/* Flush a final sample not followed by a blank line. */
void collapse_perf_finish(collapse_perf *pc);
uint64_t collapse_perf_ignored(const collapse_perf *pc);
/* The event type being kept ("" until one is seen), and how many
 * samples of other types were skipped. */
const char *collapse_perf_event(const collapse_perf *pc);
uint64_t collapse_perf_filtered(const collapse_perf *pc);
/* The time perf printed in the header of the sample being delivered
 * (valid inside the sink's callbacks); false when it printed none. */
bool collapse_perf_sample_time(const collapse_perf *pc, int64_t *ns);

/* What a perf sample's period measures, as a pprof sample type: the
 * software clocks (cpu-clock, task-clock) count nanoseconds of CPU
 * ("cpu", "nanoseconds"); any other event counts itself (EVENT,
 * "count").  event is the event name without modifiers. */
void perf_weight_type(const char *event, const char **type,
                      const char **unit);

#endif
