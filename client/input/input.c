/* input: format detection and the read loop (see input.h). */
#include "client/input/input.h"

#include <ctype.h>
#include <errno.h>
#include <string.h>
#include <sys/stat.h>

#include "client/input/collapse_stap.h"
#include "common/frames.h"
#include "common/perf_header.h"
#include "client/input/folded.h"
#include "client/input/linereader.h"
#include "client/input/pprof_read.h"
#include "client/stack/stacksink.h"
#include "client/util/utf8.h"

#define DETECT_LINES 400
#define DETECT_BYTES (256 * 1024)

const char *input_format_name(input_format f)
{
    switch (f) {
    case INPUT_FOLDED: return "folded";
    case INPUT_PERF:   return "perf";
    case INPUT_STAP:   return "stap";
    case INPUT_PPROF:  return "pprof";
    default:           return "auto";
    }
}

bool input_format_parse(const char *name, input_format *out)
{
    static const struct { const char *n; input_format f; } names[] = {
        { "auto", INPUT_AUTO }, { "folded", INPUT_FOLDED },
        { "perf", INPUT_PERF }, { "perf-script", INPUT_PERF },
        { "stap", INPUT_STAP }, { "systemtap", INPUT_STAP },
        { "pprof", INPUT_PPROF },
    };
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (strcmp(name, names[i].n) == 0) {
            *out = names[i].f;
            return true;
        }
    return false;
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
        frame_line f;
        if (frame_parse(s, len, &f)) {     /* the grammar says which */
            stap += f.kind == FRAME_STAP;
            perf += f.kind == FRAME_PERF;
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

/* Bytes of the lines that text does not hold: control bytes other than
 * tab, CR, VT and FF, and bytes of invalid UTF-8; *nul set on a NUL. */
static size_t odd_bytes(const char *s, size_t n, bool *nul)
{
    size_t odd = 0;
    for (size_t i = 0; i < n;) {
        unsigned char c = (unsigned char)s[i];
        if (c >= 0x80) {
            uint32_t cp;
            size_t len = utf8_decode(s + i, n - i, &cp);
            if (len == 0) {
                odd++;
                i++;
            } else {
                i += len;
            }
            continue;
        }
        if (c == 0)
            *nul = true;
        if ((c < 0x20 && c != '\t' && c != '\r' && c != '\v' && c != '\f')
            || c == 0x7f)
            odd++;
        i++;
    }
    return odd;
}

/* A perf script sample header: as perf prints it, with a time (perf
 * pads the comm with blanks on the left without -g). */
static bool perf_sample_header(const char *s, size_t n)
{
    while (n > 0 && (*s == ' ' || *s == '\t')) {
        s++;
        n--;
    }
    perf_header h;
    return n > 0 && perf_header_parse(s, n, &h) && h.has_time;
}

bool input_check(const char *const *lines, const size_t *lens, size_t n,
                 input_format asked, input_format *fmt, strbuf *why)
{
    if (n > 0 && lens[0] >= 8 && (memcmp(lines[0], "PERFILE2", 8) == 0
                                  || memcmp(lines[0], "2ELIFREP", 8) == 0)) {
        sb_adds(why, "a perf.data file, which is binary: read what "
                "`perf script -i FILE` prints (perf script -i FILE > "
                "FILE.txt, or through a pipe)");
        return false;
    }
    size_t bytes = 0, odd = 0;
    bool nul = false;
    for (size_t i = 0; i < n; i++) {
        bytes += lens[i] + 1;
        odd += odd_bytes(lines[i], lens[i], &nul);
    }
    if (nul || odd * 100 > bytes) {
        sb_adds(why, "not text (binary data): expected folded stacks, "
                "perf script output, SystemTap backtraces or a gzipped "
                "pprof profile");
        return false;
    }
    size_t frames = 0, headers = 0, folded = 0, text = 0;
    for (size_t i = 0; i < n; i++) {
        const char *s = lines[i];
        size_t len = lens[i];
        if (len == 0 || s[0] == '#')
            continue;
        text++;
        frame_line f;
        folded_line fl;
        if (frame_parse(s, len, &f))
            frames++;
        else if (!isspace((unsigned char)s[0]) && folded_parse(s, len, &fl)
                 && fl.stack_len > 0)
            folded++;
        else if (perf_sample_header(s, len))
            headers++;
    }
    input_format guess = asked == INPUT_AUTO ? input_detect(lines, lens, n)
                                             : asked;
    if (frames == 0 && headers > 0 && folded == 0
        && (guess == INPUT_PERF || guess == INPUT_FOLDED)) {
        sb_adds(why, "perf script output without call chains (sample "
                "headers, no frame lines): record with perf record -g "
                "(or --call-graph dwarf)");
        return false;
    }
    if (asked == INPUT_AUTO && frames == 0 && text > 0 && folded * 2 < text) {
        sb_printf(why, "not a profile: %zu of %zu lines looked at are "
                  "folded stacks (\"a;b;c COUNT\"), none is a perf script "
                  "or SystemTap frame", folded, text);
        return false;
    }
    *fmt = guess;
    return true;
}

/* A pprof profile: asked for, or gzip's first byte (0x1f is no text). */
static int read_pprof(FILE *fp, int first, const input_options *opt,
                      stacktab *tab, input_stats *st, strbuf *err)
{
    stack_sink sink;
    stack_sink_init(&sink, tab, opt->col, opt->strip_hex);
    stack_sink_observe(&sink, opt->on_sample, opt->on_sample_arg);
    stack_sink_observe_detail(&sink, opt->on_detail, opt->on_detail_arg);
    stack_sink_filter(&sink, opt->filter);
    input_stats one;
    memset(&one, 0, sizeof one);
    int rc = pprof_read_stream(fp, first, opt, &sink, &one, err);
    st->ignored += one.ignored;
    st->stacks += one.stacks;
    st->format = INPUT_PPROF;
    memcpy(st->event, one.event, sizeof st->event);
    stack_sink_free(&sink);
    return rc;
}

int input_read_stream(FILE *fp, const input_options *opt, stacktab *tab,
                      input_stats *st, strbuf *err)
{
    struct stat sst;
    if (fstat(fileno(fp), &sst) == 0 && S_ISDIR(sst.st_mode)) {
        sb_adds(err, "is a directory (name the profile files in it)");
        return -1;
    }
    int first = getc(fp);
    if (first == 0x1f || (opt->format == INPUT_PPROF && first != EOF))
        return read_pprof(fp, first, opt, tab, st, err);
    if (first != EOF)
        ungetc(first, fp);
    if (opt->format == INPUT_PPROF) {
        sb_adds(err, "empty input (expected a pprof profile)");
        return -1;
    }
    linereader lr;
    lr_init(&lr, fp);
    input_format fmt;
    {
        size_t nq = lr_fill(&lr, DETECT_LINES, DETECT_BYTES);
        const char *lines[DETECT_LINES];
        size_t lens[DETECT_LINES];
        for (size_t i = 0; i < nq; i++)
            lines[i] = lr_queued(&lr, i, &lens[i]);
        if (!input_check(lines, lens, nq, opt->format, &fmt, err)) {
            lr_free(&lr);
            return -1;
        }
    }
    st->format = fmt;

    stack_sink sink;
    stack_sink_init(&sink, tab, opt->col, opt->strip_hex);
    stack_sink_observe(&sink, opt->on_sample, opt->on_sample_arg);
    stack_sink_observe_detail(&sink, opt->on_detail, opt->on_detail_arg);
    stack_sink_filter(&sink, opt->filter);
    perf_collapser *pc = NULL;
    stap_collapser *sc = NULL;
    frame_opts fo = perf_frame_opts(&opt->perf);
    if (fmt == INPUT_PERF)
        pc = perf_collapser_new(&opt->perf, &sink);
    else if (fmt == INPUT_STAP)
        sc = stap_collapser_new(&fo, &sink);

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
    bool is_stdin = path == NULL || strcmp(path, "-") == 0;
    const char *name = is_stdin ? "stdin" : path;
    FILE *fp = is_stdin ? stdin : fopen(path, "r");
    if (fp == NULL) {
        sb_printf(err, "%s: %s", path, strerror(errno));
        return -1;
    }
    strbuf why = STRBUF_INIT;
    int rc = input_read_stream(fp, opt, tab, st, &why);
    if (rc != 0)
        sb_printf(err, "%s: %s", name, why.buf ? why.buf : "read error");
    sb_free(&why);
    if (fp == stdin) {
        if (rc == 0 && ferror(fp)) {
            sb_printf(err, "%s: read error", name);
            rc = -1;
        }
        return rc;
    }
    if (rc == 0 && ferror(fp)) {
        sb_printf(err, "%s: read error", path);
        rc = -1;
    }
    fclose(fp);
    return rc;
}
