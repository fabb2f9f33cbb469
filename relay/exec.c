/* exec: non-blocking child processes for data-exec. */
#include "relay/exec.h"
#include "relay/reaper.h"

#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sched.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

typedef enum { MODE_GROUP, MODE_PIDNS, MODE_REAPER } exec_mode;

/* After a reaper is asked to stop, how long before it is killed too. */
#define REAPER_GRACE 2.0

struct exec_job {
    struct ev_loop *loop;
    ev_io out_w, err_w;
    ev_timer timer_w;
    ev_child child_w;
    pid_t pid;
    exec_mode mode;
    bool stopping;          /* a reaper was asked to stop */
    int out_fd, err_fd;
    bool exited;
    exec_result res;
    size_t cap, max;
    size_t errlen;
    exec_done_fn done;
    void *arg;
};

static char *const clean_env[] = {
    "PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
    "LANG=C",
    "LC_ALL=C",
    NULL,
};

/* In the child: what every command gets before anything else.  The
 * parent's handlers (libev's, Check's) must not run here: a signal sent
 * before exec would act on the parent's state.  Signals stay blocked
 * (from before the fork) until the command is about to run. */
static void child_plumbing(const exec_opts *o, int out_w, int err_w)
{
    for (int sig = 1; sig < NSIG; sig++)
        signal(sig, SIG_DFL);
    setsid();
    if (o->parent_death_signal != 0)
        prctl(PR_SET_PDEATHSIG, o->parent_death_signal);
    int devnull = open("/dev/null", O_RDONLY);
    if (devnull < 0 || dup2(devnull, 0) < 0 || dup2(out_w, 1) < 0 || dup2(err_w, 2) < 0)
        _exit(126);
    /* Nothing of the PMDA (pmcd's pipe, state files) leaks into the command. */
    close_range(3, ~0U, 0);
}

typedef struct command {
    char *const *argv;
    const exec_opts *o;
} command;

/* In the child: become the command.  Never returns. */
static void child_command(void *arg)
{
    const command *c = arg;
    const exec_opts *o = c->o;
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, NULL);
    if (o->cwd != NULL && chdir(o->cwd) != 0) {
        dprintf(2, "cannot chdir to %s: %s", o->cwd, strerror(errno));
        _exit(126);
    }
    if (o->drop_privileges) {
        /* the limit counts every process of the uid: set while still root */
        struct rlimit nproc = {o->max_processes, o->max_processes};
        if ((o->max_processes > 0 && setrlimit(RLIMIT_NPROC, &nproc) != 0) ||
            setgroups(0, NULL) != 0 || setgid(o->gid) != 0 || setuid(o->uid) != 0) {
            dprintf(2, "cannot switch to uid %d: %s", (int)o->uid, strerror(errno));
            _exit(126);
        }
    }
    execvpe(c->argv[0], c->argv, o->env != NULL ? o->env : clean_env);
    dprintf(2, "cannot execute %s: %s", c->argv[0], strerror(errno));
    _exit(127);
}

static void job_close_pipes(exec_job *j)
{
    if (j->out_fd >= 0) {
        ev_io_stop(j->loop, &j->out_w);
        close(j->out_fd);
        j->out_fd = -1;
    }
    if (j->err_fd >= 0) {
        ev_io_stop(j->loop, &j->err_w);
        close(j->err_fd);
        j->err_fd = -1;
    }
}

static void job_release(exec_job *j)
{
    job_close_pipes(j);
    ev_timer_stop(j->loop, &j->timer_w);
    ev_child_stop(j->loop, &j->child_w);
    free(j->res.out);
    free(j);
}

static void job_maybe_finish(exec_job *j)
{
    if (!j->exited || j->out_fd >= 0 || j->err_fd >= 0)
        return;
    exec_result res = j->res;
    res.out[res.len] = '\0';
    j->res.out = NULL;
    exec_done_fn done = j->done;
    void *arg = j->arg;
    job_release(j);
    done(arg, &res);
    free(res.out);
}

/* Kill the command and everything it started: a PID namespace dies with
 * its first process; a reaper kills its tree when asked, and is killed
 * itself (with its group) if it has not gone after a grace period. */
static void job_kill(exec_job *j)
{
    if (!j->exited) {
        if (j->mode == MODE_PIDNS) {
            kill(j->pid, SIGKILL);
        } else if (j->mode == MODE_REAPER && !j->stopping) {
            kill(j->pid, SIGTERM);
            j->stopping = true;
            ev_timer_stop(j->loop, &j->timer_w);
            ev_timer_set(&j->timer_w, REAPER_GRACE, 0.);
            ev_timer_start(j->loop, &j->timer_w);
        } else {
            kill(-j->pid, SIGKILL);
        }
    }
    /* A daemonised grandchild may keep the pipe open: stop reading now. */
    job_close_pipes(j);
}

static void on_out(struct ev_loop *loop, ev_io *w, int revents)
{
    (void)loop; (void)revents;
    exec_job *j = w->data;
    for (;;) {
        if (j->cap - j->res.len < 4096) {
            if (j->cap > j->max) {
                j->res.too_big = true;
                job_kill(j);
                job_maybe_finish(j);
                return;
            }
            /* grow, but never far past the limit: a flood is detected at
             * max + 4 KiB instead of holding up to twice max_output */
            size_t ncap = j->cap * 2;
            if (ncap > j->max + 4096)
                ncap = j->max + 4096;
            char *nb = realloc(j->res.out, ncap + 1);
            if (nb == NULL) {
                j->res.too_big = true;
                job_kill(j);
                job_maybe_finish(j);
                return;
            }
            j->res.out = nb;
            j->cap = ncap;
        }
        ssize_t n = read(j->out_fd, j->res.out + j->res.len, j->cap - j->res.len);
        if (n > 0) {
            j->res.len += (size_t)n;
            continue;
        }
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0 && errno == EAGAIN)
            return;
        ev_io_stop(j->loop, &j->out_w);
        close(j->out_fd);
        j->out_fd = -1;
        job_maybe_finish(j);
        return;
    }
}

static void on_err(struct ev_loop *loop, ev_io *w, int revents)
{
    (void)loop; (void)revents;
    exec_job *j = w->data;
    char sink[4096];
    for (;;) {
        ssize_t n = read(j->err_fd, sink, sizeof(sink));
        if (n > 0) {
            size_t room = sizeof(j->res.errtext) - 1 - j->errlen;
            size_t take = (size_t)n < room ? (size_t)n : room;
            memcpy(j->res.errtext + j->errlen, sink, take);
            j->errlen += take;
            j->res.errtext[j->errlen] = '\0';
            continue;
        }
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0 && errno == EAGAIN)
            return;
        ev_io_stop(j->loop, &j->err_w);
        close(j->err_fd);
        j->err_fd = -1;
        job_maybe_finish(j);
        return;
    }
}

static void on_timeout(struct ev_loop *loop, ev_timer *w, int revents)
{
    (void)loop; (void)revents;
    exec_job *j = w->data;
    if (j->stopping) {
        kill(-j->pid, SIGKILL);   /* the reaper did not stop in time */
        return;
    }
    j->res.timed_out = true;
    job_kill(j);
    job_maybe_finish(j);
}

static void on_child(struct ev_loop *loop, ev_child *w, int revents)
{
    (void)revents;
    exec_job *j = w->data;
    ev_child_stop(loop, w);
    j->exited = true;
    j->res.wait_status = w->rstatus;
    /* Reap stragglers of the group too, so nothing is left behind. */
    kill(-j->pid, SIGKILL);
    job_maybe_finish(j);
}

/* A child as first process of a new PID namespace: fork's semantics
 * (raw clone without a new stack), pid 1 in its namespace. */
static pid_t fork_pidns(void)
{
    return (pid_t)syscall(SYS_clone, CLONE_NEWPID | SIGCHLD, NULL, NULL, NULL, NULL);
}

static pid_t spawn(char *const argv[], const exec_opts *opts, int out_fd, int err_fd,
                   exec_mode *mode, char *err, size_t errlen)
{
    command c = {argv, opts};
    pid_t parent = getpid();
    sigset_t all, old;
    sigfillset(&all);
    sigprocmask(SIG_SETMASK, &all, &old);
    pid_t pid = -1;
    *mode = MODE_GROUP;
    if (opts->containment == EXEC_CONTAIN) {
        pid = fork_pidns();
        if (pid >= 0)
            *mode = MODE_PIDNS;
        /* not allowed here (no CAP_SYS_ADMIN, a container's seccomp, the
         * namespace limit): the reaper alone, which needs nothing */
    }
    if (pid < 0) {
        pid = fork();
        if (opts->containment != EXEC_PLAIN)
            *mode = MODE_REAPER;
    }
    if (pid == 0) {
        child_plumbing(opts, out_fd, err_fd);
        if (*mode == MODE_GROUP)
            child_command(&c);
        /* contained: a reaper of ours between us and the command */
        reaper_run(child_command, &c, parent);
    }
    int saved = errno;
    sigprocmask(SIG_SETMASK, &old, NULL);
    errno = saved;
    if (pid < 0)
        snprintf(err, errlen, "fork: %s", strerror(errno));
    return pid;
}

pid_t exec_spawn(char *const argv[], const exec_opts *opts, int out_fd, int err_fd,
                 char *err, size_t errlen)
{
    exec_mode mode;
    return spawn(argv, opts, out_fd, err_fd, &mode, err, errlen);
}

exec_job *exec_start(struct ev_loop *loop, char *const argv[], const exec_opts *opts,
                     exec_done_fn done, void *arg, char *err, size_t errlen)
{
    int outp[2], errp[2];
    if (pipe2(outp, O_CLOEXEC) != 0) {
        snprintf(err, errlen, "pipe: %s", strerror(errno));
        return NULL;
    }
    if (pipe2(errp, O_CLOEXEC) != 0) {
        snprintf(err, errlen, "pipe: %s", strerror(errno));
        close(outp[0]);
        close(outp[1]);
        return NULL;
    }
    exec_job *j = calloc(1, sizeof(*j));
    if (j != NULL) {
        j->cap = 16384;
        j->res.out = malloc(j->cap + 1);
    }
    if (j == NULL || j->res.out == NULL) {
        snprintf(err, errlen, "out of memory");
        free(j);
        close(outp[0]); close(outp[1]); close(errp[0]); close(errp[1]);
        return NULL;
    }
    exec_mode mode;
    pid_t pid = spawn(argv, opts, outp[1], errp[1], &mode, err, errlen);
    close(outp[1]);
    close(errp[1]);
    if (pid < 0) {
        close(outp[0]);
        close(errp[0]);
        free(j->res.out);
        free(j);
        return NULL;
    }
    j->loop = loop;
    j->pid = pid;
    j->mode = mode;
    j->out_fd = outp[0];
    j->err_fd = errp[0];
    j->max = opts->max_output;
    j->done = done;
    j->arg = arg;
    fcntl(j->out_fd, F_SETFL, O_NONBLOCK);
    fcntl(j->err_fd, F_SETFL, O_NONBLOCK);
    ev_io_init(&j->out_w, on_out, j->out_fd, EV_READ);
    ev_io_init(&j->err_w, on_err, j->err_fd, EV_READ);
    ev_timer_init(&j->timer_w, on_timeout, opts->timeout, 0.);
    ev_child_init(&j->child_w, on_child, pid, 0);
    j->out_w.data = j->err_w.data = j->timer_w.data = j->child_w.data = j;
    ev_child_start(loop, &j->child_w);
    ev_io_start(loop, &j->out_w);
    ev_io_start(loop, &j->err_w);
    ev_timer_start(loop, &j->timer_w);
    return j;
}

/* Wait up to seconds for pid; true when it was reaped. */
static bool reap_within(pid_t pid, double seconds)
{
    for (int i = 0; i < (int)(seconds * 100); i++) {
        pid_t r = waitpid(pid, NULL, WNOHANG);
        if (r == pid || (r < 0 && errno == ECHILD))
            return true;
        struct timespec ts = {0, 10 * 1000 * 1000};
        nanosleep(&ts, NULL);
    }
    return false;
}

void exec_cancel(exec_job *j)
{
    if (j == NULL)
        return;
    if (!j->exited) {
        if (j->mode == MODE_REAPER) {
            /* the reaper kills its whole tree, then exits */
            kill(j->pid, SIGTERM);
            if (!reap_within(j->pid, REAPER_GRACE))
                kill(-j->pid, SIGKILL);
        } else {
            kill(j->mode == MODE_PIDNS ? j->pid : -j->pid, SIGKILL);
        }
        /* The child is gone within moments; reap it so no zombie stays. */
        waitpid(j->pid, NULL, 0);
    }
    job_release(j);
}

void exec_describe(const exec_result *res, double timeout, char *buf, size_t buflen)
{
    char errtext[sizeof(res->errtext)];
    size_t k = 0;
    for (const char *p = res->errtext; *p && k + 1 < sizeof(errtext); p++)
        errtext[k++] = (*p == '\n' || *p == '\r' || *p == '\t') ? ' ' : *p;
    while (k > 0 && errtext[k - 1] == ' ')
        k--;
    errtext[k] = '\0';
    if (res->timed_out)
        snprintf(buf, buflen, "data-exec killed after the %.3gs time-out", timeout);
    else if (res->too_big)
        snprintf(buf, buflen, "data-exec output larger than max_document_size; killed");
    else if (WIFEXITED(res->wait_status) && WEXITSTATUS(res->wait_status) != 0)
        snprintf(buf, buflen, "data-exec exit status %d%s%s", WEXITSTATUS(res->wait_status),
                 k ? ": " : "", errtext);
    else if (WIFSIGNALED(res->wait_status))
        snprintf(buf, buflen, "data-exec killed by signal %d%s%s", WTERMSIG(res->wait_status),
                 k ? ": " : "", errtext);
    else
        snprintf(buf, buflen, "data-exec ok");
}
