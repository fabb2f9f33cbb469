/* stack: canonicalise one stack to folded form, once, in the relay.
 *
 * Accepted input (docs/formats.md, "Stacks", has the grammar):
 *   - SystemTap backtrace text, one frame per line, leaf first: the
 *     shapes _stp_snprint_addr prints for print_backtrace/print_ubacktrace
 *     (" 0xADDR : sym+0xOFF/0xSIZE [module]"), sprint_backtrace/
 *     sprint_ubacktrace ("sym+0xOFF [module]"), print_syms/sprint_ustack
 *     (" 0xADDR : sym+0xOFF/0xSIZE [module]"), unresolved frames
 *     ("0xADDR [module+0xOFF/0xSIZE]", "0xADDR"), " (inexact)" suffixes,
 *     "Returning from: "/"Returning to  : " prefixes; "<no ... backtrace
 *     ...>" lines carry no frame and are skipped;
 *   - perf script frame lines ("\t ADDR sym+0xOFF (dso)"), collapsed the
 *     way stackcollapse-perf.pl does;
 *   - an already folded stack ("root;...;leaf", one line).
 * A multi-line stack with a line outside these shapes is refused, with a
 * reason naming the line.  Output is folded: root first, frames joined by
 * ';', offsets and addresses of resolved frames stripped, ';' inside a
 * name turned into ':', kernel frames suffixed "_[k]" (flamegraph.pl's
 * annotation). */
#ifndef STAPRELAY_STACK_H
#define STAPRELAY_STACK_H

#include <stddef.h>

/* Returns a malloc'd folded stack, or NULL with a reason in err (a line
 * that is not a frame, no frame at all, out of memory).  *nframes gets
 * the frame count. */
char *stack_fold(const char *text, size_t *nframes, char *err, size_t errlen);

/* The same stack as one instance name for grafana-pcp's flame graph:
 * frames root first joined by ','.  So the name is one word (PCP matches
 * instance names by their first word) and distinct stacks never share a
 * name, '%', ',' and every blank or control byte inside a frame are
 * percent-escaped ("%25", "%2C", "%20", ...): the mapping is injective. */
char *stack_instance_name(const char *folded);

#endif
