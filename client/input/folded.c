/* folded: parse folded stack lines (see folded.h). */
#include "client/input/folded.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

/* Match the trailing "<ws>\d+(\.\d*)?" of s[0..n); on success set
 * *stack_end to the position of that whitespace and *value. */
static bool trailing_count(const char *s, size_t n, size_t *stack_end,
                           double *value)
{
    size_t i = n;
    while (i > 0 && !isspace((unsigned char)s[i - 1]))
        i--;
    if (i == 0 || i == n)
        return false;
    size_t j = i, digits = 0;
    while (j < n && isdigit((unsigned char)s[j])) {
        j++;
        digits++;
    }
    if (digits == 0)
        return false;
    if (j < n && s[j] == '.') {
        j++;
        while (j < n && isdigit((unsigned char)s[j]))
            j++;
    }
    if (j != n)
        return false;
    /* the whole count, however many digits (a cut one would be another number) */
    char small[64], *buf = n - i < sizeof(small) ? small : malloc(n - i + 1);
    if (buf == NULL)
        return false;
    memcpy(buf, s + i, n - i);
    buf[n - i] = '\0';
    *value = strtod(buf, NULL);
    if (buf != small)
        free(buf);
    *stack_end = i - 1;
    return true;
}

bool folded_parse(const char *s, size_t n, folded_line *out)
{
    size_t end;
    double v;
    if (!trailing_count(s, n, &end, &v))
        return false;
    out->count[0] = v;
    out->ncols = 1;
    size_t end2;
    double v2;
    if (trailing_count(s, end, &end2, &v2)) {
        out->count[0] = v2;
        out->count[1] = v;
        out->ncols = 2;
        end = end2;
    }
    while (end > 0 && isspace((unsigned char)s[end - 1]))
        end--;
    out->stack = s;
    out->stack_len = end;
    return true;
}

bool folded_feed(stack_sink *sink, const char *s, size_t n)
{
    folded_line fl;
    if (!folded_parse(s, n, &fl))
        return false;
    if (fl.ncols == 2) {
        stack_sink_add(sink, fl.stack, fl.stack_len, fl.count[0], 0);
        stack_sink_add(sink, fl.stack, fl.stack_len, fl.count[1], 1);
    } else {
        stack_sink_add(sink, fl.stack, fl.stack_len, fl.count[0], -1);
    }
    return true;
}
