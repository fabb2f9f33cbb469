/* collapse_stap: SystemTap backtrace text (print_backtrace(),
 * print_ubacktrace(), sprint_* ... leaf first) into folded stacks, with
 * stackcollapse-stap.pl's framing: a line holding only a number ends a
 * stack and gives its count.  Frames are named by common/frames -- the
 * grammar the relay uses, so a stack read here folds to the frames the
 * relay publishes for the same text (with the same marks asked for).
 * Unlike the Perl script it streams; a line that is neither a frame nor
 * a count is counted as ignored, not taken for a frame. */
#ifndef STAPRELAY_COLLAPSE_STAP_H
#define STAPRELAY_COLLAPSE_STAP_H

#include <stddef.h>
#include <stdint.h>
#include "client/stack/stacksink.h"
#include "common/frames.h"

typedef struct collapse_stap collapse_stap;

collapse_stap *collapse_stap_new(const frame_opts *opt, stack_sink *sink);
void collapse_stap_free(collapse_stap *sc);
void collapse_stap_line(collapse_stap *sc, const char *s, size_t n);
/* Frames left without a count line are dropped and counted as ignored. */
void collapse_stap_finish(collapse_stap *sc);
uint64_t collapse_stap_ignored(const collapse_stap *sc);

#endif
