/* stack: SystemTap backtraces, perf script frames and folded stacks to
 * canonical folded form (see stack.h).  The frame grammar is
 * common/frames; what is the relay's own is which text is one stack,
 * which line is refused and why, and what a cut last line is. */
#include "relay/stack.h"

#include <ctype.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/frames.h"

/* The relay marks every kernel and JIT frame (flamegraph.pl's
 * annotations); perf's [unknown] frames keep no address. */
static const frame_opts relay_frames = {
    .mark_kernel = true,
    .mark_jit = true,
    .perf_addrs = false,
};

static void not_a_frame(char *err, size_t errlen, size_t lineno, const char *s, size_t n)
{
    char ex[33];
    size_t k = n < 32 ? n : 29;
    for (size_t i = 0; i < k; i++)
        ex[i] = isprint((unsigned char)s[i]) ? s[i] : '?';
    ex[k] = '\0';
    snprintf(err, errlen, "line %zu is not a frame: \"%s%s\"", lineno, ex,
             n < 32 ? "" : "...");
}

/* [s, s+n) without blanks at either end. */
static const char *trimmed(const char *s, size_t *n)
{
    while (*n > 0 && isspace((unsigned char)s[0])) {
        s++;
        (*n)--;
    }
    while (*n > 0 && isspace((unsigned char)s[*n - 1]))
        (*n)--;
    return s;
}

static bool blank_from(const char *p, const char *end)
{
    size_t n = (size_t)(end - p);
    trimmed(p, &n);
    return n == 0;
}

/* Backtrace text, one frame line per line, leaf first.  Returns 0, or
 * -1 with err set.  SystemTap's sprint_* functions cut their text at
 * MAXSTRINGLEN, so the last line may be a frame cut short (with a
 * newline after it when a tapset splits the text into lines and
 * re-terminates them, as staprelay.stpm does): it is dropped when it
 * could be one. */
static int fold_lines(const char *text, size_t len, stackfold *sf, char *err, size_t errlen)
{
    const char *p = text, *end = text + len;
    for (size_t lineno = 1; p < end; lineno++) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        size_t n = (size_t)((nl ? nl : end) - p);
        const char *l = trimmed(p, &n);
        p = nl ? nl + 1 : end;
        if (n == 0 || stackfold_line(sf, l, n) != FRAME_NONE)
            continue;
        if (blank_from(p, end) && stackfold_count(sf) > 0 && frame_line_cut_short(l, n))
            break;
        not_a_frame(err, errlen, lineno, l, n);
        return -1;
    }
    return 0;
}

char *stack_fold(const char *text, size_t *nframes, char *err, size_t errlen)
{
    stackfold sf;
    stackfold_init(&sf, &relay_frames, true);
    size_t n = strlen(text);
    const char *t = trimmed(text, &n);
    bool lines = memchr(t, '\n', n) != NULL;
    int rc = 0;
    if (lines) {
        rc = fold_lines(t, n, &sf, err, errlen);
    } else if (n > 0 && memchr(t, ';', n) == NULL) {
        /* one line: folded, unless it is a frame line (a lone SystemTap
         * or perf frame, with or without its newline) */
        frame_line fl;
        if (frame_parse(t, n, &fl)) {
            stackfold_add(&sf, &fl);
        } else if (frame_line_addressed(t, n)) {
            not_a_frame(err, errlen, 1, t, n);
            rc = -1;
        } else {
            stackfold_folded(&sf, t, n);
        }
    } else {
        stackfold_folded(&sf, t, n);
    }
    char *out = NULL;
    *nframes = stackfold_count(&sf);
    if (rc == 0 && sf.failed) {
        snprintf(err, errlen, "out of memory");
    } else if (rc == 0 && *nframes == 0) {
        snprintf(err, errlen, "stack has no frames");
    } else if (rc == 0) {
        strbuf sb = STRBUF_INIT_SOFT;
        if (!stackfold_write(&sf, &sb))
            snprintf(err, errlen, "out of memory");
        out = sb_steal(&sb);
    }
    stackfold_free(&sf);
    return out;
}

/* ---- instance names -------------------------------------------------- */

/* Bytes that would split the name (blanks: PCP's first-word rule; ',':
 * grafana-pcp's frame separator) or make the escape ambiguous ('%'). */
static bool escaped(unsigned char c)
{
    return c == '%' || c == ',' || c <= 0x20 || c == 0x7f;
}

char *stack_instance_name(const char *folded)
{
    size_t n = 1;
    for (const char *c = folded; *c; c++)
        n += escaped((unsigned char)*c) ? 3 : 1;
    char *out = malloc(n);
    if (out == NULL)
        return NULL;
    static const char hex[] = "0123456789ABCDEF";
    size_t k = 0;
    for (const char *c = folded; *c; c++) {
        unsigned char u = (unsigned char)*c;
        if (u == ';') {
            out[k++] = ',';
        } else if (escaped(u)) {
            out[k++] = '%';
            out[k++] = hex[u >> 4];
            out[k++] = hex[u & 15];
        } else {
            out[k++] = (char)u;
        }
    }
    out[k] = '\0';
    return out;
}
