/* collapse_stap: SystemTap backtrace text (print_backtrace() /
 * print_ustack() style, leaf first) into folded stacks, with
 * stackcollapse-stap.pl's rules: a line holding only a number ends a
 * stack and gives its count; a frame line loses leading blanks, then
 * everything from its last '+' (offset/size, module, "(inexact)"), then
 * everything up to " : " (the address); an empty frame becomes "-".
 * Unlike the Perl script it streams, and it turns ';' inside a frame
 * into ':' so the folded form stays well formed. */
#ifndef STAPRELAY_COLLAPSE_STAP_H
#define STAPRELAY_COLLAPSE_STAP_H

#include <stddef.h>
#include <stdint.h>
#include "client/stack/stacksink.h"

typedef struct stap_collapser stap_collapser;

stap_collapser *stap_collapser_new(stack_sink *sink);
void stap_collapser_free(stap_collapser *sc);
void stap_collapser_line(stap_collapser *sc, const char *s, size_t n);
/* Frames left without a count line are dropped and counted as ignored. */
void stap_collapser_finish(stap_collapser *sc);
uint64_t stap_collapser_ignored(const stap_collapser *sc);

/* Exposed for tests: the frame name of one backtrace line, appended. */
void stap_frame_name(strbuf *out, const char *s, size_t n);

#endif
