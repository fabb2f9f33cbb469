/* pprof_write: the samples of any input as a pprof profile
 * (profile.proto, gzip-compressed: `--format pprof`).
 *
 * A builder watches every sample as the inputs deliver it (a
 * stack_detail_fn on the stack sink), so it sees what the folded stack
 * table forgets: each sample's process, thread, host and time, and
 * where each frame is.  What it writes:
 *   - functions: one per frame name, named exactly as the folded frame
 *     (so `go tool pprof -top` lists what `staprelay top` lists, marks
 *     such as _[k] included); the process (comm) and host root frames
 *     are frames like any other, as in the folded stacks;
 *   - locations: one per (mapping, address, function) where the input
 *     gave an address (perf script's PC, SystemTap's address), the
 *     functions of one input line (perf's inlined a->b) as one
 *     location's lines; one per function where it gave none;
 *   - source lines: where the binary is here with DWARF lines, each
 *     addressed location's line (its innermost function's) and that
 *     function's file, by dwarf_frame_line, the rule annotate uses;
 *   - mappings: one per module or DSO named in the input, its range the
 *     lowest to the highest address seen in it (has_functions set: the
 *     names are already resolved; has_filenames/has_line_numbers where
 *     lines were found), the sampled program's first (pprof's main
 *     binary): the one the samples' comm names, else the heaviest that
 *     is no shared library;
 *   - sample types: "samples"/"count", plus what the weights measure
 *     when they are not sample counts ("cpu"/"nanoseconds" for perf's
 *     cpu-clock and task-clock periods, EVENT/"count" for other perf
 *     events, an imported profile's own type), the weight's type as
 *     default_sample_type; two-column (differential) input gives
 *     "before" and "after";
 *   - labels: pid, tid (numbers), comm, host (strings) where the input
 *     has them, and with sample_times timestamp_ns, the sample's time in
 *     nanoseconds as the input gave it (perf_data_converter's label);
 *   - time_nanos: the first sample's time when it is one since the epoch
 *     (after 2001: PCP records are; perf's clock usually counts from
 *     boot), duration_nanos: first to last sample.
 * Samples with the same locations and labels are merged.  pprof values
 * are integers: weights that are not are rounded (reported). */
#ifndef STAPRELAY_PPROF_WRITE_H
#define STAPRELAY_PPROF_WRITE_H

#include <stdbool.h>
#include <stdio.h>
#include "client/stack/stacksink.h"
#include "common/strbuf.h"

typedef struct pprof_builder pprof_builder;

pprof_builder *pprof_builder_new(bool sample_times);
void pprof_builder_free(pprof_builder *b);

/* The observer to install (stack_sink_observe_detail, input_options's
 * on_detail) with the builder as its argument. */
void pprof_builder_observe(void *builder, const char *stack, size_t len,
                           double weight, int col, int64_t when_ns,
                           const stack_context *ctx);

/* Write the profile, gzip-compressed.  comment (or NULL) goes into the
 * profile's comments.  Notes (rounded weights, mixed weight types) are
 * appended to notes.  Returns 0, or -1 on a write error. */
int pprof_builder_write(pprof_builder *b, FILE *out, const char *comment,
                        strbuf *notes);

#endif
