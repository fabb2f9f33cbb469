/* exec: run a data-exec command without a shell and without blocking the
 * loop.  The child gets a new session, /dev/null on stdin, no inherited
 * descriptors, a clean environment, and optionally another uid/gid and a
 * limit on the processes that uid may have (RLIMIT_NPROC).  Its stdout is
 * collected through libev up to a size cap; after the time-out it is
 * killed.  Contained (exec_start's commands): every descendant dies with
 * it, however it escaped the process group (a new session, a double
 * fork): the command runs as the first process of a PID namespace of its
 * own where the kernel allows, else under a reaper (relay/reaper.h).  The
 * done callback always fires exactly once (unless cancelled). */
#ifndef STAPRELAY_EXEC_H
#define STAPRELAY_EXEC_H

#include <ev.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

typedef enum {
    EXEC_PLAIN = 0,        /* a process group, killed as one (exec_spawn) */
    EXEC_CONTAIN,          /* a PID namespace where possible, else a reaper */
    EXEC_CONTAIN_REAPER,   /* always the reaper (no PID namespace) */
} exec_containment;

typedef struct exec_opts {
    const char *cwd;        /* NULL: leave as is */
    bool drop_privileges;   /* run as uid/gid below */
    uid_t uid;
    gid_t gid;
    double timeout;         /* seconds */
    size_t max_output;      /* bytes of stdout kept; more is an error */
    char *const *env;       /* NULL: PATH, LANG=C and LC_ALL=C only */
    int parent_death_signal;/* 0, or a signal the child gets if we die */
    exec_containment containment;
    unsigned long max_processes; /* RLIMIT_NPROC with drop_privileges (0: none) */
} exec_opts;

typedef struct exec_result {
    int wait_status;        /* from waitpid; valid when exited */
    bool timed_out;
    bool too_big;
    char *out;              /* stdout, NUL-terminated; owned by the callback */
    size_t len;
    char errtext[256];      /* start of stderr, NUL-terminated */
} exec_result;

typedef void (*exec_done_fn)(void *arg, exec_result *res);
typedef struct exec_job exec_job;

/* Start argv[0] (searched in a fixed PATH).  Returns NULL and a reason in
 * err when the command could not be started at all. */
exec_job *exec_start(struct ev_loop *loop, char *const argv[], const exec_opts *opts,
                     exec_done_fn done, void *arg, char *err, size_t errlen);

/* The fork and exec under exec_start, for callers that read the child
 * themselves: stdout goes to out_fd, stderr to err_fd (the caller closes
 * both in the parent).  Returns the pid, or -1 and a reason in err. */
pid_t exec_spawn(char *const argv[], const exec_opts *opts, int out_fd, int err_fd,
                 char *err, size_t errlen);

/* Kill the command and release the job; the callback does not fire. */
void exec_cancel(exec_job *job);

/* Describe a finished result in one line ("exit status 3: <stderr>"). */
void exec_describe(const exec_result *res, double timeout, char *buf, size_t buflen);

#endif
