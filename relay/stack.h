/* stack: canonicalise one stack to folded form, once, in the relay.
 *
 * Input is SystemTap backtrace text (print_backtrace, sprint_ubacktrace,
 * sprint_ustack: one frame per line, leaf first, " 0xADDR : sym+off/size
 * [module]", bare addresses, "(inexact)" suffixes) or an already folded
 * stack ("root;...;leaf", no newline).  Output is folded: root first,
 * frames joined by ';', offsets stripped, ';' inside a name turned into
 * ':', kernel frames suffixed "_[k]" (flamegraph.pl's annotation). */
#ifndef STAPRELAY_STACK_H
#define STAPRELAY_STACK_H

#include <stddef.h>

/* Returns a malloc'd folded stack, or NULL with a reason in err when no
 * frame could be parsed.  *nframes gets the frame count. */
char *stack_fold(const char *text, size_t *nframes, char *err, size_t errlen);

/* The same stack for grafana-pcp's flame graph: frames root first joined
 * by ',' with whitespace and ',' inside frames replaced, so the whole name
 * is one word (PCP matches instance names by their first word). */
char *stack_instance_name(const char *folded);

#endif
