/* perf_pipe: the one process runner of the perf backend's scripts,
 * which read trace text line by line: `perf record ... -o - | perf
 * script -i - ...` (script_profile.c, script_offcpu.c), or a tracefs
 * instance's trace_pipe (script_iolat.c).  It owns the two perf
 * processes (child.h) and the loop: lines go to the script as they
 * arrive, the script's source is published every half second, and the
 * run ends on -T, Ctrl-C, --cmd's exit or --pid's exit (or, when perf
 * record follows them itself, when its output ends); then perf stops
 * (or what trace_pipe holds is read), the last lines are read, the
 * source is published a last time and the PMDA is given a poll to read
 * it.  A second Ctrl-C, or a perf that does not stop within 10 s, kills
 * the perf processes. */
#ifndef STAPRELAY_PERF_PIPE_H
#define STAPRELAY_PERF_PIPE_H

#include <stdbool.h>
#include <stddef.h>

#include "client/run/perf_source.h"
#include "client/run/run.h"

/* The words of perf record's --control option, for record_argv when
 * on_ready is set: perf_pipe puts the two ends on fds 10 and 11. */
#define PERF_PIPE_CONTROL "--control", "fd:10,11"

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
    /* perf record follows --pid or --cmd itself (-p PID, -- CMD) and
     * ends when they do: the run ends with its output, which is said,
     * and perf record is let exit by itself */
    bool record_follows;
    /* perf record gets our stdout as fd 9: the output of a command it
     * starts itself (`exec 1>&9 9>&-; CMD`), not the pipe */
    bool record_stdout_fd9;
    /* non-NULL: record_argv holds PERF_PIPE_CONTROL; perf record is sent
     * a "ping" once it runs, and its "ack" -- from its main loop, after
     * it enabled its events -- calls on_ready(arg) once */
    void (*on_ready)(void *arg);
} perf_pipe;

/* perf script's argv as perf_pipe runs it: behind stdbuf -oL where that
 * exists (malloc'd array of borrowed strings, NULL-ended), or NULL. */
const char **perf_pipe_script_argv(const char *const *script_argv);
/* Run the pipeline until the run ends.  Returns RUN_EXIT_OK, or
 * RUN_EXIT_FAILED with perf's own words on stderr (it failed, or the
 * source could not be published). */
int perf_pipe_run(const perf_pipe *pp, const run_opts *o);

#endif
