/* collapse_stap: SystemTap backtraces → folded (see collapse_stap.h). */
#include "client/input/collapse_stap.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "common/xalloc.h"

struct stap_collapser {
    stack_sink *sink;
    stackfold   frames;        /* the stack so far, leaf first */
    size_t      pending_lines; /* frame lines since the last count */
    strbuf      stack;
    uint64_t    ignored;
};

stap_collapser *stap_collapser_new(const frame_opts *opt, stack_sink *sink)
{
    stap_collapser *sc = xcalloc(1, sizeof *sc);
    sc->sink = sink;
    stackfold_init(&sc->frames, opt, false);
    return sc;
}

void stap_collapser_free(stap_collapser *sc)
{
    if (sc == NULL)
        return;
    stackfold_free(&sc->frames);
    sb_free(&sc->stack);
    free(sc);
}

uint64_t stap_collapser_ignored(const stap_collapser *sc) { return sc->ignored; }

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

void stap_collapser_finish(stap_collapser *sc)
{
    sc->ignored += sc->pending_lines;
    stackfold_reset(&sc->frames);
    sc->pending_lines = 0;
}
