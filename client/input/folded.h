/* folded: flamegraph.pl's folded-stack line format, "f1;f2;leaf COUNT"
 * with an optional second count column (differential input). */
#ifndef STAPRELAY_FOLDED_H
#define STAPRELAY_FOLDED_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include "client/stack/stacksink.h"
#include "client/stack/stacktab.h"

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

/* Write a count as folded text: integers without a fraction, others
 * with the shortest exact decimal. */
void folded_print_count(FILE *out, double v);

/* The table as folded text sorted bytewise (what the collapsers print),
 * with the second count column when two is set.  Returns 0, or -1 on a
 * write error. */
int folded_write(FILE *out, const stacktab *tab, bool two);
/* The same; with elided_only, only the stacks present on one side only
 * (diff --elided --folded: what the elided graph draws). */
int folded_write_where(FILE *out, const stacktab *tab, bool two,
                       bool elided_only);
/* How many stacks are present on one side only. */
size_t folded_count_elided(const stacktab *tab);

#endif
