/* collapse_stap: SystemTap backtraces → folded (see collapse_stap.h). */
#include "client/input/collapse_stap.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "common/xalloc.h"

struct collapse_stap {
    stack_sink *sink;
    stackfold   frames;        /* the stack so far, leaf first */
    size_t      pending_lines; /* frame lines since the last count */
    strbuf      stack;
    uint64_t    ignored;
};

collapse_stap *collapse_stap_new(const frame_opts *opt, stack_sink *sink)
{
    collapse_stap *sc = xcalloc(1, sizeof *sc);
    sc->sink = sink;
    stackfold_init(&sc->frames, opt, false);
    return sc;
}

void collapse_stap_free(collapse_stap *sc)
{
    if (sc == NULL)
        return;
    stackfold_free(&sc->frames);
    sb_free(&sc->stack);
    free(sc);
}

uint64_t collapse_stap_ignored(const collapse_stap *sc) { return sc->ignored; }

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

void collapse_stap_line(collapse_stap *sc, const char *s, size_t n)
{
    if (blank(s, n))
        return;
    double count;
    if (count_line(s, n, &count)) {
        if (stackfold_count(&sc->frames) == 0) {
            sc->ignored++;       /* a count with no stack */
        } else {
            sb_reset(&sc->stack);
            stackfold_write(&sc->frames, &sc->stack);
            stack_context ctx = {
                .pid = -1, .tid = -1, .time_ns = STACK_TIME_UNKNOWN,
                .samples = count, .frames = &sc->frames,
            };
            stack_sink_add_ctx(sc->sink, sc->stack.buf, sc->stack.len,
                               count, -1, STACK_TIME_UNKNOWN, &ctx);
        }
        stackfold_reset(&sc->frames);
        sc->pending_lines = 0;
        return;
    }
    if (stackfold_line(&sc->frames, s, n) == FRAME_NONE)
        sc->ignored++;           /* not a frame: left out, counted */
    else
        sc->pending_lines++;
}

void collapse_stap_finish(collapse_stap *sc)
{
    sc->ignored += sc->pending_lines;
    stackfold_reset(&sc->frames);
    sc->pending_lines = 0;
}
