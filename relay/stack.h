/* stack: canonicalise one stack to folded form, once, in the relay.
 *
 * The frame grammar -- the SystemTap and perf line shapes, the names and
 * the _[k]/_[j]/_[i] marks -- is common/frames, shared with the client
 * (docs/formats.md, "Stacks", has it in prose); the relay marks kernel
 * and JIT frames always.  What is the relay's own:
 *   - a stack is SystemTap backtrace text or perf script frame lines,
 *     one frame per line, leaf first, or one already folded line
 *     ("root;...;leaf"); a single line without ';' that is a frame line
 *     is a one-frame backtrace, one that starts like a frame line (an
 *     address, "Returning ") but is none is refused;
 *   - a multi-line stack with a line outside the grammar is refused with
 *     a reason naming the line, except a last line that could be a frame
 *     cut short at SystemTap's MAXSTRINGLEN, which is dropped;
 *   - folded frames are trimmed and empty ones dropped.
 * Output is folded: root first, frames joined by ';'. */
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
