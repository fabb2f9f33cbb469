/* libFuzzer target: the client's file parsers (perf script text,
 * SystemTap backtrace text, folded stacks), each fed the input line by
 * line as `staprelay fold` streams a file, into one stack table. */
#include "client/input/collapse_perf.h"
#include "client/input/collapse_stap.h"
#include "client/input/folded.h"
#include "client/stack/stacksink.h"
#include "client/stack/stacktab.h"

#include <stdint.h>
#include <string.h>

typedef void (*line_fn)(void *arg, const char *s, size_t n);

static void each_line(const uint8_t *data, size_t size, line_fn fn, void *arg)
{
    const char *p = (const char *)data, *end = p + size;
    while (p < end) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        size_t n = nl != NULL ? (size_t)(nl - p) : (size_t)(end - p);
        fn(arg, p, n);
        p += n + (nl != NULL);
    }
}

static void perf_line(void *arg, const char *s, size_t n) { collapse_perf_line(arg, s, n); }
static void stap_line(void *arg, const char *s, size_t n) { collapse_stap_line(arg, s, n); }
static void folded_line_fn(void *arg, const char *s, size_t n) { folded_feed(arg, s, n); }

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    stacktab *tab = stacktab_new();
    stack_sink sink;
    stack_sink_init(&sink, tab, 0, size > 0 && (data[0] & 1));

    perf_options po = {.include_pid = size > 1 && (data[1] & 1),
                       .include_tid = size > 1 && (data[1] & 2),
                       .no_comm = size > 1 && (data[1] & 8),
                       .no_marks = size > 1 && (data[1] & 16),
                       .kernel_marks = size > 1 && (data[1] & 32),
                       .jit_marks = size > 1 && (data[1] & 64),
                       .include_addrs = size > 1 && (data[1] & 4)};
    collapse_perf *pc = collapse_perf_new(&po, &sink);
    each_line(data, size, perf_line, pc);
    collapse_perf_finish(pc);
    collapse_perf_free(pc);

    frame_opts fo = perf_frame_opts(&po);
    collapse_stap *sc = collapse_stap_new(&fo, &sink);
    each_line(data, size, stap_line, sc);
    collapse_stap_finish(sc);
    collapse_stap_free(sc);

    each_line(data, size, folded_line_fn, &sink);

    stack_sink_free(&sink);
    stacktab_free(tab);
    return 0;
}
