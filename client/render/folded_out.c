/* folded_out: a stack table as folded text (see folded_out.h). */
#include "client/render/folded_out.h"

#include <math.h>
#include <stdlib.h>

#include "common/strbuf.h"

/* Whole counts in full digits whatever their size: num_text writes 2^53
 * and more with an exponent, which folded text (like flamegraph.pl's
 * grammar) cannot read back.  A count beyond 2^53 is the double it was
 * read as, written exactly, and reads back as the same double. */
void folded_print_count(FILE *out, double v)
{
    if (v == floor(v) && isfinite(v)) {
        fprintf(out, "%.0f", v);
        return;
    }
    char buf[NUM_TEXT_MAX];
    fputs(num_text(buf, v), out);
}

int folded_write(FILE *out, const stacktab *tab, bool two)
{
    return folded_write_where(out, tab, two, false);
}

size_t folded_count_elided(const stacktab *tab)
{
    size_t n = 0;
    for (size_t i = 0; i < stacktab_size(tab); i++) {
        const stack_entry *e = stacktab_entry(tab, i);
        n += (e->count[0] > 0) != (e->count[1] > 0);
    }
    return n;
}

int folded_write_where(FILE *out, const stacktab *tab, bool two,
                       bool elided_only)
{
    size_t *order = stacktab_sorted(tab, STACK_ORDER_BYTES);
    for (size_t i = 0; i < stacktab_size(tab); i++) {
        const stack_entry *e = stacktab_entry(tab, order[i]);
        if (elided_only && (e->count[0] > 0) == (e->count[1] > 0))
            continue;
        fwrite(e->stack, 1, e->len, out);
        fputc(' ', out);
        folded_print_count(out, e->count[0]);
        if (two) {
            fputc(' ', out);
            folded_print_count(out, e->count[1]);
        }
        fputc('\n', out);
    }
    free(order);
    return ferror(out) ? -1 : 0;
}
