/* child: the child processes of `staprelay run` -- spawn, stop in order,
 * logs, which -- and the run's clock and stop requests they are timed
 * and stopped by.  Every backend (backend_stap.c, perf_pipe.c) starts
 * and stops its processes here, so one set of rules holds for all: each
 * child runs in a process group of its own (Ctrl-C reaches only us, and
 * we stop the children in the order the backend needs), with the
 * signals we catch set back to their defaults.  Knows nothing of
 * scripts or backends. */
#ifndef STAPRELAY_CHILD_H
#define STAPRELAY_CHILD_H

#include <stdbool.h>
#include <sys/types.h>

/* ---- the run's clock and stop requests ---------------------------------- */

/* Catch SIGINT/SIGTERM/SIGHUP (util/stopsig, the client's one stop
 * handler) and ignore SIGPIPE: a reader that goes costs a write error. */
void child_signals_install(void);
/* How many SIGINT/SIGTERM/SIGHUP arrived since child_signals_install():
 * one asks the children to stop in order, a second to hurry. */
int child_stop_requested(void);
/* Monotonic seconds (deadlines, grace periods). */
double child_now(void);

/* ---- processes ---------------------------------------------------------- */

/* Full path of an executable in $PATH, malloc'd, or NULL. */
char *child_which(const char *prog);
/* How a child starts: fds to put on 0, 1, 2 (-1: inherit), extra_fd as
 * fd 9 when >= 0, preload prepended to LD_PRELOAD when set, in cwd when
 * set. */
typedef struct child_spawn_opts {
    int in, out, err;
    int extra_fd;
    /* perf record's --control fd:10,11 when set: {the end it reads
     * commands from, the end it writes its acks to}, put on fds 10, 11 */
    const int *control;
    const char *preload;
    const char *cwd;            /* the child's directory (NULL: ours) */
    /* keep SIGPIPE ignored (stapbpf: a FIFO reader that gives up early
     * must cost it a write error, not its life); default: SIG_DFL */
    bool sigpipe_ignored;
} child_spawn_opts;
/* Start argv (searched in PATH) in its own process group.  Returns the
 * pid or -1. */
pid_t child_spawn(char *const argv[], const child_spawn_opts *o);
/* Send sig to pid's process group and wait for it to exit, escalating
 * to SIGKILL after grace seconds.  Returns the wait status. */
int child_stop(pid_t pid, int sig, double grace);
/* Wait up to grace seconds for pid to exit by itself; true with its
 * status when it did (it is reaped), false when it still runs. */
bool child_wait_exit(pid_t pid, double grace, int *status);

/* ---- logs --------------------------------------------------------------- */

/* An anonymous log file for a child's stderr (/tmp/staprelay-TAG.*,
 * unlinked, close-on-exec), or -1. */
int child_tmp_log(const char *tag);
/* Copy the log to stderr under "staprelay run: WHAT said:" (nothing
 * when it is empty). */
void child_show_log(int fd, const char *what);

#endif
