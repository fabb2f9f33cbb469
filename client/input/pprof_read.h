/* pprof_read: a pprof profile (profile.proto, gzip-compressed or not:
 * Go's CPU and heap profiles, staprelay's own exports, any pprof
 * writer's) into the stack sink, so fold, flame, top, diff, heatmap,
 * graph and annotate read it like any other input.
 *
 * One sample type is read: --sample-index (a number or a type name, as
 * pprof takes it), else the profile's default_sample_type, else the
 * last type -- pprof's own choice.  A sample's stack is its locations
 * root first, each location's lines outermost first (the inlined
 * functions after the function they were inlined into), each named by
 * its function (';' as ':'); a location without a function is named
 * "[FILE]" after its mapping's file, or "<unknown>", as pprof names
 * it.  Zero values are skipped (a heap profile's freed allocations);
 * negative ones (pprof's -diff_base results) are counted as ignored.
 * Labels pid, tid (numbers), comm, host (strings) and timestamp_ns
 * (staprelay's and perf_data_converter's per-sample time) go with the
 * sample (stack_context); timestamp_ns makes it a timed sample.
 *
 * The profile is untrusted: pprof_codec checks every reference before
 * any is followed; a stack longer than PPROF_MAX_STACK_BYTES is
 * ignored (counted), and a profile whose stacks add up to more than
 * PPROF_MAX_FOLDED_BYTES is refused, so no small file expands without
 * bound. */
#ifndef STAPRELAY_PPROF_READ_H
#define STAPRELAY_PPROF_READ_H

#include <stdio.h>
#include "client/input/input.h"
#include "client/stack/stacksink.h"

#define PPROF_MAX_STACK_BYTES  ((size_t)1 << 20)
#define PPROF_MAX_FOLDED_BYTES ((size_t)1 << 30)

/* Read the profile in buf[0..n) into the sink (the sink's column,
 * strip-hex and observers apply).  st->ignored counts samples not used,
 * st->event gets "TYPE (UNIT)" of the values read, st->stacks the
 * samples delivered.  Returns 0, or -1 with a message in err. */
int pprof_read_buffer(const uint8_t *buf, size_t n, const input_options *opt,
                      stack_sink *sink, input_stats *st, strbuf *err);

/* Read a whole stream whose first byte (>= 0) was already taken. */
int pprof_read_stream(FILE *fp, int first, const input_options *opt,
                      stack_sink *sink, input_stats *st, strbuf *err);

#endif
