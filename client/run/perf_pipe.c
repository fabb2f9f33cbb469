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

#include "common/strbuf.h"

#define PIPE_FLUSH 0.5    /* seconds between data.json writes */

/* C runs as the process followed (sh execs it: its pid is C's). */
static pid_t start_command(const char *cmd)
{
    strbuf sb = STRBUF_INIT;
    sb_printf(&sb, "exec %s", cmd);
    const char *argv[] = { "sh", "-c", sb.buf, NULL };
    run_spawn_opts so = {.in = -1, .out = -1, .err = -1, .extra_fd = -1};
    pid_t p = run_spawn((char *const *)argv, &so);
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

/* perf script's argv, behind stdbuf -oL where it exists (malloc'd
 * array of borrowed strings). */
static const char **script_argv(const perf_pipe *pp)
{
    size_t n = 0;
    while (pp->script_argv[n])
        n++;
    const char **v = calloc(n + 3, sizeof *v);
    if (v == NULL)
        return NULL;
    size_t k = 0;
    char *stdbuf = run_which("stdbuf");
    if (stdbuf) {
        v[k++] = "stdbuf";
        v[k++] = "-oL";
    }
    free(stdbuf);
    for (size_t i = 0; i < n; i++)
        v[k++] = pp->script_argv[i];
    return v;
}

/* Should the run end now (o's end conditions)?  cmd is reaped here. */
static bool run_over(const run_opts *o, pid_t *cmd, double deadline)
{
    bool cmd_done = *cmd > 0 && waitpid(*cmd, NULL, WNOHANG) == *cmd;
    if (cmd_done)
        *cmd = -1;
    bool pid_gone = o->pid && kill((pid_t)o->pid, 0) != 0 && errno == ESRCH;
    return run_stop_requested() || (deadline > 0 && run_now() >= deadline) || cmd_done ||
           pid_gone;
}

int perf_pipe_run(const perf_pipe *pp, const run_opts *o)
{
    char err[1024];
    int rc = RUN_EXIT_FAILED;
    int rec_pipe[2] = { -1, -1 }, scr_pipe[2] = { -1, -1 };
    int logfd = run_tmp_log("perf");
    int devnull = open("/dev/null", O_RDONLY | O_CLOEXEC);
    const char **sv = NULL;
    pid_t rec = -1, scr = -1, cmd = -1;
    int in = pp->fd;
    if (pp->record_argv == NULL)
        goto read_lines;
    sv = script_argv(pp);
    if (sv == NULL || pipe2(rec_pipe, O_CLOEXEC) != 0 || pipe2(scr_pipe, O_CLOEXEC) != 0) {
        fprintf(stderr, "staprelay run: cannot start perf: %s\n", strerror(errno));
        goto out;
    }
    run_spawn_opts ro = {.in = devnull, .out = rec_pipe[1], .err = logfd, .extra_fd = -1};
    run_spawn_opts so = {.in = rec_pipe[0], .out = scr_pipe[1], .err = logfd, .extra_fd = -1};
    rec = run_spawn((char *const *)pp->record_argv, &ro);
    scr = rec > 0 ? run_spawn((char *const *)sv, &so) : -1;
    close(rec_pipe[0]);
    close(rec_pipe[1]);
    close(scr_pipe[1]);
    rec_pipe[0] = rec_pipe[1] = scr_pipe[1] = -1;
    if (rec < 0 || scr < 0) {
        fprintf(stderr, "staprelay run: cannot start perf: %s\n", strerror(errno));
        if (rec > 0)
            run_stop_child(rec, SIGINT, 2);
        goto out;
    }
    in = scr_pipe[0];
read_lines:;

    double start = run_now(), deadline = o->duration > 0 ? start + o->duration : 0;
    double next_flush = start + PIPE_FLUSH, stop_at = 0;
    bool stopping = false;
    strbuf line = STRBUF_INIT;
    char buf[65536];
    for (;;) {
        double now = run_now();
        if (!stopping && run_over(o, &cmd, deadline)) {
            stopping = true;
            stop_at = now;
            if (rec > 0)
                kill(rec, SIGINT);
        } else if (stopping && rec > 0 && now - stop_at > 10) {
            kill(-rec, SIGKILL);
            kill(-scr, SIGKILL);
        }
        if (now >= next_flush) {
            if (perf_source_flush(pp->src, err, sizeof err) != 0)
                fprintf(stderr, "staprelay run: %s\n", err);
            next_flush = now + PIPE_FLUSH;
        }
        struct pollfd pfd = { .fd = in, .events = POLLIN };
        int r = poll(&pfd, 1, stopping && rec < 0 ? 0 : 100);
        if (r < 0 && errno != EINTR)
            break;
        /* trace_pipe has no end: once stopping, what it holds is read */
        if (r == 0 && stopping && rec < 0)
            break;
        if (r <= 0)
            continue;
        ssize_t n = read(in, buf, sizeof buf);
        if (n < 0 && errno == EAGAIN && stopping && rec < 0)
            break;
        if (n < 0 && (errno == EINTR || errno == EAGAIN))
            continue;
        if (n <= 0)
            break;
        if (pp->target && o->cmd && cmd < 0 && !*pp->target && !stopping) {
            cmd = start_command(o->cmd);
            if (cmd < 0) {
                fprintf(stderr, "staprelay run: cannot start %s: %s\n", o->cmd, strerror(errno));
                stopping = true;
                stop_at = run_now();
                kill(rec, SIGINT);
            }
            *pp->target = cmd;
        }
        feed_lines(pp, &line, buf, (size_t)n);
    }
    if (line.len)
        pp->on_line(pp->arg, line.buf, line.len);
    sb_free(&line);
    int rst = 0;
    if (rec > 0) {
        rst = run_stop_child(rec, SIGINT, 5);
        run_stop_child(scr, SIGINT, 5);
    }
    if (perf_source_flush(pp->src, err, sizeof err) != 0)
        fprintf(stderr, "staprelay run: %s\n", err);
    if (rec < 0 && !stopping) {
        fprintf(stderr, "staprelay run: reading the trace failed: %s\n", strerror(errno));
    } else if (!stopping && !(WIFEXITED(rst) && WEXITSTATUS(rst) == 0)) {
        run_show_log(logfd, "perf");
        fprintf(stderr, "staprelay run: perf record failed\n");
    } else {
        rc = RUN_EXIT_OK;
    }
    if (pp->src->written > 0)
        usleep(1200 * 1000);          /* the PMDA reads the last data.json */
out:
    if (cmd > 0)
        run_stop_child(cmd, SIGTERM, 2);
    for (int i = 0; i < 2; i++) {
        if (rec_pipe[i] >= 0)
            close(rec_pipe[i]);
        if (scr_pipe[i] >= 0)
            close(scr_pipe[i]);
    }
    if (logfd >= 0)
        close(logfd);
    if (devnull >= 0)
        close(devnull);
    free(sv);
    return rc;
}
