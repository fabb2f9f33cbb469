/* exec: non-blocking child processes for data-exec. */
#include "relay/exec.h"

#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

struct exec_job {
    struct ev_loop *loop;
    ev_io out_w, err_w;
    ev_timer timer_w;
    ev_child child_w;
    pid_t pid;
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

/* In the child: never returns. */
static void child_exec(char *const argv[], const exec_opts *o, int out_w, int err_w)
{
    /* The parent's handlers (libev's, Check's) must not run here: a
     * signal sent before exec would act on the parent's state.  Signals
     * are blocked from before the fork until every handler is reset. */
    for (int sig = 1; sig < NSIG; sig++)
        signal(sig, SIG_DFL);
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, NULL);
    setsid();
    if (o->parent_death_signal != 0)
        prctl(PR_SET_PDEATHSIG, o->parent_death_signal);
    int devnull = open("/dev/null", O_RDONLY);
    if (devnull < 0 || dup2(devnull, 0) < 0 || dup2(out_w, 1) < 0 || dup2(err_w, 2) < 0)
        _exit(126);
    /* Nothing of the PMDA (pmcd's pipe, state files) leaks into the command. */
    close_range(3, ~0U, 0);
    if (o->cwd != NULL && chdir(o->cwd) != 0) {
        dprintf(2, "cannot chdir to %s: %s", o->cwd, strerror(errno));
        _exit(126);
    }
    if (o->drop_privileges) {
        if (setgroups(0, NULL) != 0 || setgid(o->gid) != 0 || setuid(o->uid) != 0) {
            dprintf(2, "cannot switch to uid %d: %s", (int)o->uid, strerror(errno));
            _exit(126);
        }
    }
    execvpe(argv[0], argv, o->env != NULL ? o->env : clean_env);
    dprintf(2, "cannot execute %s: %s", argv[0], strerror(errno));
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

static void job_kill(exec_job *j)
{
    if (!j->exited)
        kill(-j->pid, SIGKILL);
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

pid_t exec_spawn(char *const argv[], const exec_opts *opts, int out_fd, int err_fd,
                 char *err, size_t errlen)
{
    sigset_t all, old;
    sigfillset(&all);
    sigprocmask(SIG_SETMASK, &all, &old);
    pid_t pid = fork();
    if (pid == 0)
        child_exec(argv, opts, out_fd, err_fd);
    int saved = errno;
    sigprocmask(SIG_SETMASK, &old, NULL);
    errno = saved;
    if (pid < 0)
        snprintf(err, errlen, "fork: %s", strerror(errno));
    return pid;
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
    pid_t pid = exec_spawn(argv, opts, outp[1], errp[1], err, errlen);
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

void exec_cancel(exec_job *j)
{
    if (j == NULL)
        return;
    if (!j->exited) {
        kill(-j->pid, SIGKILL);
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
