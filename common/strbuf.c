/* strbuf: growable byte buffer (see strbuf.h). */
#include "common/strbuf.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/xalloc.h"

void sb_free(strbuf *sb)
{
    free(sb->buf);
    sb->buf = NULL;
    sb->len = sb->cap = 0;
}

void sb_reset(strbuf *sb)
{
    sb->len = 0;
    if (sb->buf)
        sb->buf[0] = '\0';
}

bool sb_reserve_grow(strbuf *sb, size_t extra)
{
    if (sb->failed)
        return false;
    /* a size past SIZE_MAX is one no allocator grants: ask for SIZE_MAX */
    size_t need = extra < SIZE_MAX - sb->len ? sb->len + extra + 1 : SIZE_MAX;
    if (need <= sb->cap)
        return true;
    size_t cap = sb->cap ? sb->cap : 64;
    while (cap < need)
        cap = cap <= SIZE_MAX / 2 ? cap * 2 : need;
    if (!sb->soft) {
        sb->buf = xrealloc(sb->buf, cap);
    } else {
        char *p = realloc(sb->buf, cap);
        if (p == NULL) {
            sb->failed = true;
            return false;
        }
        sb->buf = p;
    }
    sb->cap = cap;
    return true;
}

void sb_vprintf(strbuf *sb, const char *fmt, va_list ap)
{
    va_list ap2;
    va_copy(ap2, ap);
    char small[256];
    int n = vsnprintf(small, sizeof small, fmt, ap);
    if (n < 0) {
        va_end(ap2);
        return;
    }
    if ((size_t)n < sizeof small) {
        sb_add(sb, small, (size_t)n);
    } else if (sb_reserve(sb, (size_t)n)) {
        vsnprintf(sb->buf + sb->len, (size_t)n + 1, fmt, ap2);
        sb->len += (size_t)n;
    }
    va_end(ap2);
}

void sb_printf(strbuf *sb, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    sb_vprintf(sb, fmt, ap);
    va_end(ap);
}

char *sb_steal(strbuf *sb)
{
    char *p = NULL;
    if (sb->buf != NULL || sb_reserve(sb, 0))
        p = sb->failed ? NULL : sb->buf;
    if (p == NULL)
        free(sb->buf);
    sb->buf = NULL;
    sb->len = sb->cap = 0;
    return p;
}

const char *num_text(char buf[NUM_TEXT_MAX], double v)
{
    if (v == floor(v) && fabs(v) < 9.007199254740992e15) {
        snprintf(buf, NUM_TEXT_MAX, "%.0f", v);
        return buf;
    }
    for (int digits = 15; digits < 17; digits++) {
        snprintf(buf, NUM_TEXT_MAX, "%.*g", digits, v);
        if (strtod(buf, NULL) == v)
            return buf;
    }
    snprintf(buf, NUM_TEXT_MAX, "%.17g", v);
    return buf;
}

void sb_addnum(strbuf *sb, double v)
{
    char buf[NUM_TEXT_MAX];
    sb_adds(sb, num_text(buf, v));
}

const char *num_thousands(char *buf, size_t size, double v)
{
    char digits[64];
    snprintf(digits, sizeof digits, "%.0f", v);
    const char *d = digits;
    size_t o = 0;
    if (*d == '-') {
        buf[o++] = '-';
        d++;
    }
    size_t n = strlen(d);
    for (size_t i = 0; i < n && o + 2 < size; i++) {
        if (i > 0 && (n - i) % 3 == 0)
            buf[o++] = ',';
        buf[o++] = d[i];
    }
    buf[o] = '\0';
    return buf;
}
