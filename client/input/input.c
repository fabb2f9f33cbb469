/* input: format detection and the read loop (see input.h). */
#include "client/input/input.h"

#include <ctype.h>
#include <errno.h>
#include <string.h>

#include "client/input/collapse_stap.h"
#include "client/input/folded.h"
#include "client/input/linereader.h"
#include "client/stack/stacksink.h"

#define DETECT_LINES 400
#define DETECT_BYTES (256 * 1024)

const char *input_format_name(input_format f)
{
    switch (f) {
    case INPUT_FOLDED: return "folded";
    case INPUT_PERF:   return "perf";
    case INPUT_STAP:   return "stap";
    default:           return "auto";
    }
}

bool input_format_parse(const char *name, input_format *out)
{
    static const struct { const char *n; input_format f; } names[] = {
        { "auto", INPUT_AUTO }, { "folded", INPUT_FOLDED },
        { "perf", INPUT_PERF }, { "perf-script", INPUT_PERF },
        { "stap", INPUT_STAP }, { "systemtap", INPUT_STAP },
    };
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (strcmp(name, names[i].n) == 0) {
            *out = names[i].f;
            return true;
        }
    return false;
}

/* " 0xffffffff8103ce3b : sym+0xb/0xd [kernel]", a bare address, or one
 * with only a module ("0x7f.. [libc.so.6+0x2b3c]") or "(inexact)" */
static bool is_stap_frame(const char *s, size_t n)
{
    size_t i = 0;
    while (i < n && isspace((unsigned char)s[i]))
        i++;
    if (i + 2 >= n || s[i] != '0' || (s[i + 1] != 'x' && s[i + 1] != 'X'))
        return false;
    i += 2;
    size_t d = i;
    while (i < n && isxdigit((unsigned char)s[i]))
        i++;
    if (i == d)
        return false;
    while (i < n && s[i] == ' ')
        i++;
    if (i == n || s[i] == '\r')
        return true;
    if (s[i] == '[' || s[i] == '(')
        return s[i - 1] == ' ';
    return s[i] == ':' && i + 1 < n && s[i + 1] == ' ';
}

/* indented "hex sym (module)" without a 0x prefix */
static bool is_perf_frame(const char *s, size_t n)
{
    if (n == 0 || !isspace((unsigned char)s[0]))
        return false;
    perf_frame f;
    if (!perf_parse_frame(s, n, &f))
        return false;
    for (size_t i = 0; i < f.pc_len; i++)
        if (!isxdigit((unsigned char)f.pc[i]))
            return false;
    return true;
}

input_format input_detect(const char *const *lines, const size_t *lens,
                          size_t n)
{
    size_t perf = 0, stap = 0, folded = 0, perf_header = 0;
    for (size_t i = 0; i < n; i++) {
        const char *s = lines[i];
        size_t len = lens[i];
        if (len == 0)
            continue;
        if (s[0] == '#') {
            if (len > 2 && strncmp(s, "# ========", 10) == 0)
                perf_header++;
            continue;
        }
        if (is_stap_frame(s, len)) {
            stap++;
            continue;
        }
        if (is_perf_frame(s, len)) {
            perf++;
            continue;
        }
        folded_line fl;
        if (!isspace((unsigned char)s[0]) && folded_parse(s, len, &fl)
            && fl.stack_len > 0)
            folded++;
    }
    if (perf > 0 && perf >= stap)
        return INPUT_PERF;
    if (stap > 0)
        return INPUT_STAP;
    if (folded == 0 && perf_header > 0)
        return INPUT_PERF;
    return INPUT_FOLDED;
}

int input_read_stream(FILE *fp, const input_options *opt, stacktab *tab,
                      input_stats *st)
{
    linereader lr;
    lr_init(&lr, fp);
    input_format fmt = opt->format;
    if (fmt == INPUT_AUTO) {
        size_t nq = lr_fill(&lr, DETECT_LINES, DETECT_BYTES);
        const char *lines[DETECT_LINES];
        size_t lens[DETECT_LINES];
        for (size_t i = 0; i < nq; i++)
            lines[i] = lr_queued(&lr, i, &lens[i]);
        fmt = input_detect(lines, lens, nq);
    }
    st->format = fmt;

    stack_sink sink;
    stack_sink_init(&sink, tab, opt->col, opt->strip_hex);
    stack_sink_observe(&sink, opt->on_sample, opt->on_sample_arg);
    perf_collapser *pc = NULL;
    stap_collapser *sc = NULL;
    if (fmt == INPUT_PERF)
        pc = perf_collapser_new(&opt->perf, &sink);
    else if (fmt == INPUT_STAP)
        sc = stap_collapser_new(&sink);

    const char *line;
    ssize_t n;
    uint64_t folded_ignored = 0;
    while ((n = lr_next(&lr, &line)) >= 0) {
        st->lines++;
        if (pc)
            perf_collapser_line(pc, line, (size_t)n);
        else if (sc)
            stap_collapser_line(sc, line, (size_t)n);
        else if (!folded_feed(&sink, line, (size_t)n))
            folded_ignored++;
    }
    if (pc) {
        perf_collapser_finish(pc);
        st->ignored += perf_collapser_ignored(pc);
        st->filtered += perf_collapser_filtered(pc);
        snprintf(st->event, sizeof st->event, "%s", perf_collapser_event(pc));
        perf_collapser_free(pc);
    } else if (sc) {
        stap_collapser_finish(sc);
        st->ignored += stap_collapser_ignored(sc);
        stap_collapser_free(sc);
    } else {
        st->ignored += folded_ignored;
    }
    st->stacks += sink.stacks;
    stack_sink_free(&sink);
    lr_free(&lr);
    return 0;
}

int input_read_path(const char *path, const input_options *opt,
                    stacktab *tab, input_stats *st, strbuf *err)
{
    if (path == NULL || strcmp(path, "-") == 0)
        return input_read_stream(stdin, opt, tab, st);
    FILE *fp = fopen(path, "r");
    if (fp == NULL) {
        sb_printf(err, "%s: %s", path, strerror(errno));
        return -1;
    }
    int rc = input_read_stream(fp, opt, tab, st);
    if (ferror(fp)) {
        sb_printf(err, "%s: read error", path);
        rc = -1;
    }
    fclose(fp);
    return rc;
}
