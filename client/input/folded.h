/* folded: reads flamegraph.pl's folded-stack line format, "f1;f2;leaf
 * COUNT" with an optional second count column (differential input);
 * render/folded_out.h writes it. */
#ifndef STAPRELAY_FOLDED_H
#define STAPRELAY_FOLDED_H

#include <stdbool.h>
#include <stddef.h>
#include "client/stack/stacksink.h"

typedef struct folded_line {
    const char *stack;     /* points into the parsed line */
    size_t      stack_len;
    double      count[2];
    int         ncols;     /* 1 or 2 */
} folded_line;

/* Parse one line; false if it is not "STACK<ws>COUNT[<ws>COUNT]".
 * COUNT is \d+(\.\d*)? as in flamegraph.pl. */
bool folded_parse(const char *s, size_t n, folded_line *out);

/* Feed one line into the sink; returns false if it was ignored. */
bool folded_feed(stack_sink *sink, const char *s, size_t n);

#endif
