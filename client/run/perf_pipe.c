/* perf_pipe: see perf_pipe.h. */
#include "client/run/perf_pipe.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "client/run/child.h"
#include "common/strbuf.h"

#define PIPE_FLUSH 0.5    /* seconds between data.json writes */
#define LAST_READ_WAIT   30.0   /* s the last data.json may wait for a known reader */
#define LAST_READ_UNSEEN  2.0   /* ... for a reader never seen */

/* C runs as the process followed (sh execs it: its pid is C's). */
static pid_t start_command(const char *cmd)
{
    strbuf sb = STRBUF_INIT;
    sb_printf(&sb, "exec %s", cmd);
    const char *argv[] = { "sh", "-c", sb.buf, NULL };
    child_spawn_opts so = {.in = -1, .out = -1, .err = -1, .extra_fd = -1};
    pid_t p = child_spawn((char *const *)argv, &so);
    sb_free(&sb);
    return p;
}

/* Whole lines of buf go to on_line; a partial last one waits in line. */
static void feed_lines(const perf_pipe *pp, strbuf *line, const char *buf, size_t n)
{
    size_t off = 0;
    while (off < n) {
        const char *nl = memchr(buf + off, '\n', n - off);
        if (nl == NULL) {
            sb_add(line, buf + off, n - off);
            return;
        }
        size_t len = (size_t)(nl - (buf + off));
        if (line->len) {
            sb_add(line, buf + off, len);
            pp->on_line(pp->arg, line->buf, line->len);
            sb_reset(line);
        } else {
            pp->on_line(pp->arg, buf + off, len);
        }
        off += len + 1;
    }
}

const char **perf_pipe_script_argv(const char *const *script_argv)
{
    size_t n = 0;
    while (script_argv[n])
        n++;
    const char **v = calloc(n + 3, sizeof *v);
    if (v == NULL)
        return NULL;
    size_t k = 0;
    char *stdbuf = child_which("stdbuf");
    if (stdbuf) {
        v[k++] = "stdbuf";
        v[k++] = "-oL";
    }
    free(stdbuf);
    for (size_t i = 0; i < n; i++)
        v[k++] = script_argv[i];
    return v;
}

/* One run of the pipeline: what perf_pipe_run's steps share. */
typedef struct pipe_run {
    const perf_pipe *pp;
    const run_opts *o;
    int logfd, devnull;
    int rec_pipe[2], scr_pipe[2];   /* perf record | perf script | us */
    int ctl_pipe[2], ack_pipe[2];   /* perf record's --control */
    const char **sv;
    pid_t rec, scr, cmd;
    int in;                         /* what the lines come from */
    double deadline, next_flush, stop_at;
    bool stopping;                  /* we ended the run (and asked perf to) */
    bool killed;                    /* a second Ctrl-C, or perf hung */
    bool flush_failed;              /* said once */
    int stops_seen;                 /* Ctrl-Cs when we began stopping */
    int read_errno;                 /* why the reading ended, if it failed */
} pipe_run;

static void close_fd(int *fd)
{
    if (*fd >= 0)
        close(*fd);
    *fd = -1;
}

/* Start perf record | perf script (and the --control handshake's ping);
 * -1 with the reason on stderr. */
static int start_perf(pipe_run *r)
{
    const perf_pipe *pp = r->pp;
    bool control = pp->on_ready != NULL;
    r->sv = perf_pipe_script_argv(pp->script_argv);
    if (r->sv == NULL || pipe2(r->rec_pipe, O_CLOEXEC) != 0 ||
        pipe2(r->scr_pipe, O_CLOEXEC) != 0 ||
        (control && (pipe2(r->ctl_pipe, O_CLOEXEC) != 0 || pipe2(r->ack_pipe, O_CLOEXEC) != 0))) {
        fprintf(stderr, "staprelay run: cannot start perf: %s\n", strerror(errno));
        return -1;
    }
    int control_fds[2] = { r->ctl_pipe[0], r->ack_pipe[1] };
    int user_out = pp->record_stdout_fd9 ? fcntl(1, F_DUPFD_CLOEXEC, 3) : -1;
    child_spawn_opts ro = {.in = r->devnull, .out = r->rec_pipe[1], .err = r->logfd,
                           .extra_fd = user_out, .control = control ? control_fds : NULL};
    child_spawn_opts so = {.in = r->rec_pipe[0], .out = r->scr_pipe[1], .err = r->logfd,
                           .extra_fd = -1};
    r->rec = child_spawn((char *const *)pp->record_argv, &ro);
    r->scr = r->rec > 0 ? child_spawn((char *const *)r->sv, &so) : -1;
    int e = errno;
    close_fd(&user_out);
    close_fd(&r->rec_pipe[0]);
    close_fd(&r->rec_pipe[1]);
    close_fd(&r->scr_pipe[1]);
    close_fd(&r->ctl_pipe[0]);
    close_fd(&r->ack_pipe[1]);
    if (r->rec < 0 || r->scr < 0) {
        fprintf(stderr, "staprelay run: cannot start perf: %s\n", strerror(e));
        if (r->rec > 0)
            child_stop(r->rec, SIGINT, 2);
        r->rec = -1;
        return -1;
    }
    r->in = r->scr_pipe[0];
    /* read when perf reaches its main loop; our end stays open until
     * perf is gone (its end at EOF would be a command stream ended) */
    if (control && write(r->ctl_pipe[1], "ping\n", 5) != 5)
        fprintf(stderr, "staprelay run: cannot ask perf when it samples: %s\n", strerror(errno));
    return 0;
}

/* Should the run end now (o's end conditions)?  cmd is reaped here. */
static bool run_over(pipe_run *r)
{
    const run_opts *o = r->o;
    bool cmd_done = r->cmd > 0 && waitpid(r->cmd, NULL, WNOHANG) == r->cmd;
    if (cmd_done)
        r->cmd = -1;
    /* perf record -p ends by itself when the process does */
    bool pid_gone = !r->pp->record_follows && o->pid && kill((pid_t)o->pid, 0) != 0 &&
                    errno == ESRCH;
    return child_stop_requested() || (r->deadline > 0 && child_now() >= r->deadline) ||
           cmd_done || pid_gone;
}

static void begin_stopping(pipe_run *r)
{
    r->stopping = true;
    r->stop_at = child_now();
    r->stops_seen = child_stop_requested();
    if (r->rec > 0)
        kill(r->rec, SIGINT);          /* perf record flushes and exits */
}

/* Once a loop: the end conditions, the kill of a perf that does not
 * stop, and the half-second publication. */
static void tick(pipe_run *r)
{
    double now = child_now();
    if (!r->stopping && run_over(r)) {
        begin_stopping(r);
    } else if (r->stopping && r->rec > 0 && !r->killed &&
               (child_stop_requested() > r->stops_seen || now - r->stop_at > 10)) {
        r->killed = true;
        kill(-r->rec, SIGKILL);
        kill(-r->scr, SIGKILL);
    }
    if (now >= r->next_flush) {
        char err[1024];
        if (perf_source_flush(r->pp->src, err, sizeof err) != 0 && !r->flush_failed) {
            fprintf(stderr, "staprelay run: %s\n", err);
            r->flush_failed = true;
        }
        r->next_flush = now + PIPE_FLUSH;
    }
}

/* perf's answer on its --control ack fd: on_ready once it said "ack";
 * the fd is closed then, or when perf closed it without (perf exited:
 * its status tells why). */
static void take_ack(pipe_run *r)
{
    char buf[64];
    ssize_t n = read(r->ack_pipe[0], buf, sizeof buf);
    if (n < 0 && (errno == EINTR || errno == EAGAIN))
        return;
    close_fd(&r->ack_pipe[0]);
    if (n >= 3 && memcmp(buf, "ack", 3) == 0)
        r->pp->on_ready(r->pp->arg);
}

/* --cmd for a script that follows it: started with perf's first lines. */
static void start_target(pipe_run *r)
{
    const perf_pipe *pp = r->pp;
    if (!pp->target || !r->o->cmd || r->cmd >= 0 || *pp->target || r->stopping)
        return;
    r->cmd = start_command(r->o->cmd);
    if (r->cmd < 0) {
        fprintf(stderr, "staprelay run: cannot start %s: %s\n", r->o->cmd, strerror(errno));
        begin_stopping(r);
    }
    *pp->target = r->cmd;
}

/* Read the lines until they end (or, from a trace_pipe, until what it
 * holds is read once stopping). */
static void read_lines(pipe_run *r)
{
    bool trace = r->rec < 0;
    strbuf line = STRBUF_INIT;
    char buf[65536];
    for (;;) {
        tick(r);
        struct pollfd pfd[2] = {{ .fd = r->in, .events = POLLIN },
                                { .fd = r->ack_pipe[0], .events = POLLIN }};
        int n = poll(pfd, r->ack_pipe[0] >= 0 ? 2 : 1, r->stopping && trace ? 0 : 100);
        if (n < 0 && errno != EINTR) {
            r->read_errno = errno;
            break;
        }
        /* trace_pipe has no end: once stopping, what it holds is read */
        if (n == 0 && r->stopping && trace)
            break;
        if (n <= 0)
            continue;
        if (r->ack_pipe[0] >= 0 && pfd[1].revents)
            take_ack(r);
        if (!(pfd[0].revents & (POLLIN | POLLHUP | POLLERR)))
            continue;
        ssize_t got = read(r->in, buf, sizeof buf);
        if (got < 0 && errno == EAGAIN && r->stopping && trace)
            break;
        if (got < 0 && (errno == EINTR || errno == EAGAIN))
            continue;
        if (got <= 0) {
            r->read_errno = got < 0 ? errno : 0;
            break;
        }
        start_target(r);
        feed_lines(r->pp, &line, buf, (size_t)got);
    }
    if (line.len)
        r->pp->on_line(r->pp->arg, line.buf, line.len);
    sb_free(&line);
    if (r->pp->on_end)
        r->pp->on_end(r->pp->arg);
}

/* The PMDA must have read the last data.json before the source goes, or
 * its records are lost with nobody counting them.  However long a loaded
 * machine takes, within bounds: once a reader has been seen, up to
 * LAST_READ_WAIT (and say so when it did not come); with none seen yet
 * (a private --dir nobody reads, a PMDA not yet looking), briefly. */
static void await_last_read(perf_source *src)
{
    if (src->flushes <= 1)
        return;   /* only the first, empty data.json: nothing to read */
    int got = perf_source_wait_read(src, src->ever_read ? LAST_READ_WAIT : LAST_READ_UNSEEN);
    if (got < 0)
        usleep((useconds_t)(LAST_READ_UNSEEN * 1e6));   /* cannot tell: give it time */
    else if (got == 0 && src->ever_read)
        fprintf(stderr, "staprelay run: the last records were not read within %.0f s of "
                "the end (is pmdastaprelay running?); they may be lost\n", LAST_READ_WAIT);
}

/* Stop perf (unless it ended by itself), publish a last time and say how
 * the run ended.  Returns the run's status. */
static int finish(pipe_run *r)
{
    const run_opts *o = r->o;
    close_fd(&r->scr_pipe[0]);
    close_fd(&r->ack_pipe[0]);
    /* Our input ended before we asked perf to stop: the command (or
     * process) finished, and perf record is still writing its last
     * records and exiting -- let it, rather than signal it and take the
     * signal for a failure.  Only if it does not exit in time is it
     * stopped, and then its status says nothing about the run. */
    int rst = 0;
    bool exited = false;
    if (r->rec > 0) {
        exited = !r->stopping && child_wait_exit(r->rec, 10, &rst);
        if (!exited)
            rst = child_stop(r->rec, SIGINT, 5);
        child_stop(r->scr, SIGINT, 5);
    }
    close_fd(&r->ctl_pipe[1]);
    char err[1024];
    bool flushed = perf_source_flush(r->pp->src, err, sizeof err) == 0;
    if (!flushed)
        fprintf(stderr, "staprelay run: %s\n", err);
    int rc = r->flush_failed || !flushed ? RUN_EXIT_FAILED : RUN_EXIT_OK;
    if (r->rec < 0 && !r->stopping) {
        fprintf(stderr, "staprelay run: reading the trace failed: %s\n",
                r->read_errno ? strerror(r->read_errno) : "it ended");
        rc = RUN_EXIT_FAILED;
    } else if (exited && !(WIFEXITED(rst) && WEXITSTATUS(rst) == 0)) {
        /* a non-zero exit of its own is a failure (no permission, bad
         * pid...); after we asked it to stop, its status does not matter */
        child_show_log(r->logfd, "perf");
        fprintf(stderr, "staprelay run: perf failed (%s)\n",
                WIFEXITED(rst) ? "perf record exited early" : "perf record was killed");
        rc = RUN_EXIT_FAILED;
    } else if (!r->stopping && r->pp->record_follows && o->pid) {
        fprintf(stderr, "staprelay run: process %ld exited\n", o->pid);
    } else if (!r->stopping && r->pp->record_follows && o->cmd) {
        fprintf(stderr, "staprelay run: the command finished\n");
    }
    if (!r->killed && child_stop_requested() <= r->stops_seen)
        await_last_read(r->pp->src);
    return rc;
}

int perf_pipe_run(const perf_pipe *pp, const run_opts *o)
{
    pipe_run r = {
        .pp = pp, .o = o, .rec_pipe = { -1, -1 }, .scr_pipe = { -1, -1 },
        .ctl_pipe = { -1, -1 }, .ack_pipe = { -1, -1 }, .rec = -1, .scr = -1, .cmd = -1,
        .in = pp->fd,
    };
    r.logfd = child_tmp_log("perf");
    r.devnull = open("/dev/null", O_RDONLY | O_CLOEXEC);
    int rc = RUN_EXIT_FAILED;
    if (pp->record_argv == NULL || start_perf(&r) == 0) {
        double start = child_now();
        r.deadline = o->duration > 0 ? start + o->duration : 0;
        r.next_flush = start + PIPE_FLUSH;
        read_lines(&r);
        rc = finish(&r);
    }
    if (r.cmd > 0)
        child_stop(r.cmd, SIGTERM, 2);
    int *fds[] = { &r.rec_pipe[0], &r.rec_pipe[1], &r.scr_pipe[0], &r.scr_pipe[1],
                   &r.ctl_pipe[0], &r.ctl_pipe[1], &r.ack_pipe[0], &r.ack_pipe[1],
                   &r.logfd, &r.devnull };
    for (size_t i = 0; i < sizeof fds / sizeof fds[0]; i++)
        close_fd(fds[i]);
    free(r.sv);
    return rc;
}
