/* folded_out: writes a stack table as flamegraph.pl's folded text,
 * "f1;f2;leaf COUNT[ COUNT]", sorted bytewise as the collapsers print
 * it (input/folded.h reads it back). */
#ifndef STAPRELAY_FOLDED_OUT_H
#define STAPRELAY_FOLDED_OUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include "client/stack/stacktab.h"

/* Write a count as folded text: whole counts in full digits, whatever
 * their size (folded text has no exponents), others by the one exact
 * number rule (num_text in common/strbuf.h). */
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
