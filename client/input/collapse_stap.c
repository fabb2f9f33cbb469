/* collapse_stap: SystemTap backtraces → folded (see collapse_stap.h). */
#include "client/input/collapse_stap.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "common/xalloc.h"

struct stap_collapser {
    stack_sink *sink;
    strbuf      frames;    /* frames leaf first, each NUL-terminated */
    size_t     *off;
    size_t      nframes, cap;
    size_t      pending_lines;
    strbuf      stack;
    uint64_t    ignored;
};

stap_collapser *stap_collapser_new(stack_sink *sink)
{
    stap_collapser *sc = xcalloc(1, sizeof *sc);
    sc->sink = sink;
    return sc;
}

void stap_collapser_free(stap_collapser *sc)
{
    if (sc == NULL)
        return;
    sb_free(&sc->frames);
    sb_free(&sc->stack);
    free(sc->off);
    free(sc);
}

uint64_t stap_collapser_ignored(const stap_collapser *sc) { return sc->ignored; }

static size_t trim_end(const char *s, size_t b, size_t e)
{
    while (e > b && isspace((unsigned char)s[e - 1]))
        e--;
    return e;
}

/* [b, e) without a final " (inexact)" and blanks. */
static size_t drop_inexact(const char *s, size_t b, size_t e)
{
    static const char mark[] = "(inexact)";
    size_t m = sizeof mark - 1;
    e = trim_end(s, b, e);
    if (e - b >= m && memcmp(s + e - m, mark, m) == 0)
        e = trim_end(s, b, e - m);
    return e;
}

/* Where the final " [module]" of [b, e) starts (its '['), or e. */
static size_t module_start(const char *s, size_t b, size_t e)
{
    if (e == b || s[e - 1] != ']')
        return e;
    for (size_t i = e - 1; i-- > b + 1;)
        if (s[i] == '[' && s[i - 1] == ' ')
            return i;
    return e;
}

void stap_frame_name(strbuf *out, const char *s, size_t n)
{
    size_t b = 0;
    while (b < n && isspace((unsigned char)s[b]))
        b++;
    size_t e = drop_inexact(s, b, n);
    /* The Perl cuts from the last '+' of the line, which is in the
     * module when its name has one ("[/usr/lib/libstdc++.so.6]"), so we
     * take the module off first.  A module holding the offset
     * ("0xADDR [libc.so.6+0x2b3c]": no symbol) stays, without the
     * offset and with its ']' (the Perl leaves "0xADDR [libc.so.6"). */
    size_t m = module_start(s, b, e);
    size_t plus = 0;
    for (size_t i = e; i-- > m;)
        if (s[i] == '+' && i + 2 < e && s[i + 1] == '0' && s[i + 2] == 'x') {
            plus = i;
            break;
        }
    bool symbol = false;
    for (size_t i = b; i + 3 <= m && !symbol; i++)
        symbol = memcmp(s + i, " : ", 3) == 0;
    if (m < e && plus > m && !symbol) {
        for (size_t i = b; i < plus; i++)
            sb_addc(out, s[i] == ';' ? ':' : s[i]);
        sb_addc(out, ']');
        return;
    }
    if (m < e)
        e = trim_end(s, b, m);
    for (size_t i = e; i-- > b;)       /* s/\+[^+]*$// */
        if (s[i] == '+') {
            e = i;
            break;
        }
    for (size_t i = e; i >= b + 3; i--) /* s/.* : // (greedy: last one) */
        if (s[i - 1] == ' ' && s[i - 2] == ':' && s[i - 3] == ' ') {
            b = i;
            break;
        }
    if (e <= b) {
        sb_addc(out, '-');
        return;
    }
    for (size_t i = b; i < e; i++)
        sb_addc(out, s[i] == ';' ? ':' : s[i]);
}

/* ^\s*\d+$, and (unlike the Perl) trailing blanks or a CR allowed */
static bool count_line(const char *s, size_t n, double *count)
{
    size_t i = 0;
    while (i < n && isspace((unsigned char)s[i]))
        i++;
    size_t d = i;
    while (i < n && isdigit((unsigned char)s[i]))
        i++;
    size_t de = i;
    while (i < n && isspace((unsigned char)s[i]))
        i++;
    if (de == d || i != n)
        return false;
    char buf[32];
    size_t len = de - d < 31 ? de - d : 31;
    memcpy(buf, s + d, len);
    buf[len] = '\0';
    *count = strtod(buf, NULL);
    return true;
}

static bool blank(const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (!isspace((unsigned char)s[i]))
            return false;
    return true;
}

void stap_collapser_line(stap_collapser *sc, const char *s, size_t n)
{
    if (blank(s, n))
        return;
    double count;
    if (count_line(s, n, &count)) {
        if (sc->nframes == 0) {
            sc->ignored++;       /* a count with no stack */
            return;
        }
        sb_reset(&sc->stack);
        for (size_t i = sc->nframes; i-- > 0;) {
            if (i + 1 != sc->nframes)
                sb_addc(&sc->stack, ';');
            sb_adds(&sc->stack, sc->frames.buf + sc->off[i]);
        }
        stack_sink_add(sc->sink, sc->stack.buf, sc->stack.len, count, -1);
        sb_reset(&sc->frames);
        sc->nframes = 0;
        sc->pending_lines = 0;
        return;
    }
    if (sc->nframes == sc->cap) {
        sc->cap = sc->cap ? sc->cap * 2 : 64;
        sc->off = xrealloc(sc->off, sc->cap * sizeof *sc->off);
    }
    sc->off[sc->nframes++] = sc->frames.len;
    stap_frame_name(&sc->frames, s, n);
    sb_addc(&sc->frames, '\0');
    sc->pending_lines++;
}

void stap_collapser_finish(stap_collapser *sc)
{
    sc->ignored += sc->pending_lines;
    sb_reset(&sc->frames);
    sc->nframes = 0;
    sc->pending_lines = 0;
}
