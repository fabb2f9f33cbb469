/* stacksink: where input modules deliver collapsed stacks.  Wraps a
 * stacktab with the per-input policy that is not the parser's business:
 * which weight column to fill and optional hex-address normalisation
 * (difffolded.pl -s).  Every input module -- folded, perf, stap, and
 * later PCP event records -- ends in stack_sink_add(). */
#ifndef STAPRELAY_STACKSINK_H
#define STAPRELAY_STACKSINK_H

#include <stdbool.h>
#include <stdint.h>
#include "client/stacktab.h"
#include "client/strbuf.h"

typedef struct stack_sink {
    stacktab *tab;       /* not owned */
    int       col;       /* column for single-count input */
    bool      strip_hex; /* rewrite 0x[0-9a-f]+ as 0x... */
    uint64_t  stacks;    /* stacks delivered */
    strbuf    scratch;
} stack_sink;

void stack_sink_init(stack_sink *s, stacktab *tab, int col, bool strip_hex);
void stack_sink_free(stack_sink *s);
/* Deliver one folded stack with a weight; col < 0 means the sink's own
 * column. */
void stack_sink_add(stack_sink *s, const char *stack, size_t len,
                    double weight, int col);

#endif
