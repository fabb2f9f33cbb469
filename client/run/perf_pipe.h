/* perf_pipe: the loop of the perf backends that read trace text line by
 * line: `perf record ... -o - | perf script -i - ...` (run_offcpu.c), or
 * a tracefs instance's trace_pipe (run_iolat.c).  It owns the two perf
 * processes and the loop: lines go to the backend as they arrive, the
 * backend's source is published every half second, and the run ends on
 * -T, Ctrl-C, --cmd's exit or --pid's exit; then perf stops (or what
 * trace_pipe holds is read), the last lines are read, the source is
 * published a last time and the PMDA is given a poll to read it. */
#ifndef STAPRELAY_PERF_PIPE_H
#define STAPRELAY_PERF_PIPE_H

#include <stddef.h>

#include "client/run/perf_source.h"
#include "client/run/run.h"

typedef void (*perf_pipe_line_fn)(void *arg, const char *s, size_t n);

typedef struct perf_pipe {
    const char *const *record_argv;  /* perf record ... -o - (NULL-ended);
                                      * NULL: read fd instead */
    int fd;                          /* without record_argv: lines from here
                                      * (non-blocking; not closed) */
    const char *const *script_argv;  /* perf script -i - ...: run under
                                      * stdbuf -oL where it exists, so
                                      * lines come as perf reads them */
    perf_source *src;                /* published every half second */
    perf_pipe_line_fn on_line;       /* each line, without its newline */
    void (*on_end)(void *arg);       /* after the last line, before the last
                                      * publication (NULL: nothing) */
    void *arg;
    /* --cmd: the command is started once perf's first lines arrive (so
     * its first events are seen) and its pid is stored here; NULL for a
     * script that follows no process */
    long *target;
} perf_pipe;

/* Run the pipeline until the run ends.  Returns RUN_EXIT_OK, or
 * RUN_EXIT_FAILED with perf's own words on stderr. */
int perf_pipe_run(const perf_pipe *pp, const run_opts *o);

#endif
