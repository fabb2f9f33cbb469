/* run_perf: the perf backend of `staprelay run profile`:
 *
 *   perf record --no-buffering -e cpu-clock -g -F HZ -k realtime --sample-cpu
 *               {-a | -p PID | -- sh -c CMD} -o -
 *     | stdbuf -oL perf script -i - -F comm,pid,tid,cpu,time,ip,sym,dso --ns
 *
 * read here line by line (perf_source.h) and published every 0.5 s as
 * PARENT/NAME/{metadata.json,data.json}, which pmdastaprelay relays when
 * PARENT is in its directory_list.
 *
 * With -p and -a, perf record also gets --control fd:10,11 and a "ping":
 * its "ack" comes from its main loop, after it enabled its events, and
 * is announced as "staprelay run: sampling".  Before that line a process
 * is not sampled yet, and one that execs then may keep its old name in
 * every sample: perf names a process it attaches to from /proc before it
 * enables its events, and the kernel reports an exec (a COMM record) only
 * to enabled events.  Whoever starts a workload stopped resumes it after
 * that line (qa 518, 516; make demo).  --cmd needs none of it: perf
 * starts the command itself, its events enabled on the exec. */
#include "client/run/run.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <pcp/pmapi.h>

#include "client/run/perf_source.h"
#include "common/strbuf.h"

#define FLUSH_INTERVAL 0.5

/* Wait up to grace seconds for pid to exit by itself; true with its
 * status when it did. */
static bool wait_exit(pid_t pid, double grace, int *status)
{
    double until = run_now() + grace;
    for (;;) {
        pid_t r = waitpid(pid, status, WNOHANG);
        if (r == pid)
            return true;
        if (r < 0 && errno != EINTR)
            return false;
        if (run_now() > until)
            return false;
        usleep(20000);
    }
}

static void close_pair(int fds[2])
{
    for (int i = 0; i < 2; i++)
        if (fds[i] >= 0)
            close(fds[i]);
}

/* perf's answer on its --control ack fd: true (and the fd closed) once
 * it said "ack", or when it closed the fd without (perf exited: its
 * status tells why). */
static bool take_ack(int *fd, bool *acked)
{
    char buf[64];
    ssize_t n = read(*fd, buf, sizeof buf);
    if (n < 0 && (errno == EINTR || errno == EAGAIN))
        return false;
    *acked = n >= 3 && memcmp(buf, "ack", 3) == 0;
    close(*fd);
    *fd = -1;
    return true;
}

static void on_sample(void *arg, const perf_sample *s)
{
    perf_source_add(arg, s);
}

const char *run_perf_parent(const run_opts *o, char *buf, size_t len)
{
    const char *parent = o->dir;
    if (parent == NULL) {
        const char *tmp = pmGetOptionalConfig("PCP_TMP_DIR");
        snprintf(buf, len, "%s/staprelay", tmp && *tmp ? tmp : "/var/lib/pcp/tmp");
        parent = buf;
    }
    struct stat st;
    if (stat(parent, &st) == 0)
        return parent;
    if (o->dir == NULL) {
        fprintf(stderr, "staprelay run: %s does not exist: pmdastaprelay's Install "
                "creates it and watches it (directory_list); install the PMDA, or "
                "give --dir DIR naming a directory it watches\n", parent);
        return NULL;
    }
    if (mkdir(parent, 0755) != 0) {
        fprintf(stderr, "staprelay run: cannot create %s: %s\n", parent, strerror(errno));
        return NULL;
    }
    return parent;
}

/* profile.stp over perf's cpu-clock samples with call graphs */
static int run_perf_profile(const run_script *s, const run_opts *o, const char *name)
{
    (void)s;
    long hz = o->hz ? o->hz : 99;
    char pbuf[4096];
    const char *parent = run_perf_parent(o, pbuf, sizeof pbuf);
    if (parent == NULL)
        return RUN_EXIT_FAILED;
    FILE *save = NULL;
    if (o->save && (save = fopen(o->save, "w")) == NULL) {
        fprintf(stderr, "staprelay run: --save %s: %s\n", o->save, strerror(errno));
        return RUN_EXIT_FAILED;
    }
    char err[1024];
    perf_source src;
    if (perf_source_open(&src, parent, name, hz, o->replay, err, sizeof err) != 0) {
        fprintf(stderr, "staprelay run: %s\n", err);
        if (save)
            fclose(save);
        return RUN_EXIT_FAILED;
    }

    /* perf record | perf script | us */
    int rec_pipe[2], scr_pipe[2];
    if (pipe2(rec_pipe, O_CLOEXEC) != 0 || pipe2(scr_pipe, O_CLOEXEC) != 0) {
        fprintf(stderr, "staprelay run: pipe: %s\n", strerror(errno));
        perf_source_close(&src, true);
        if (save)
            fclose(save);
        return RUN_EXIT_FAILED;
    }
    /* perf's --control: {its end for our commands, its end for acks} */
    int ctl_pipe[2] = {-1, -1}, ack_pipe[2] = {-1, -1};
    bool control = !o->cmd;
    if (control && (pipe2(ctl_pipe, O_CLOEXEC) != 0 || pipe2(ack_pipe, O_CLOEXEC) != 0)) {
        fprintf(stderr, "staprelay run: pipe: %s\n", strerror(errno));
        close_pair(ctl_pipe);
        close_pair(rec_pipe);
        close_pair(scr_pipe);
        perf_source_close(&src, true);
        if (save)
            fclose(save);
        return RUN_EXIT_FAILED;
    }
    int control_fds[2] = {ctl_pipe[0], ack_pipe[1]};
    int logfd = run_tmp_log("perf");
    int devnull = open("/dev/null", O_RDONLY | O_CLOEXEC);

    char hzs[32], pids[32];
    snprintf(hzs, sizeof hzs, "%ld", hz);
    snprintf(pids, sizeof pids, "%ld", o->pid);
    strbuf cmd = STRBUF_INIT;
    const char *rargv[32];
    size_t k = 0;
    rargv[k++] = "perf";
    rargv[k++] = "record";
    rargv[k++] = "--no-buffering";     /* records reach us as they happen */
    rargv[k++] = "-q";
    rargv[k++] = "-e";
    rargv[k++] = "cpu-clock";          /* profile.stp: perf.sw.cpu_clock */
    rargv[k++] = "-g";
    rargv[k++] = "-F";
    rargv[k++] = hzs;
    rargv[k++] = "-k";
    rargv[k++] = "realtime";           /* epoch timestamps */
    rargv[k++] = "--sample-cpu";
    if (o->kernel_only)
        rargv[k++] = "--kernel-callchains";
    if (o->user_only)
        rargv[k++] = "--user-callchains";
    rargv[k++] = "-o";
    rargv[k++] = "-";
    if (control) {
        rargv[k++] = "--control";
        rargv[k++] = "fd:10,11";
    }
    if (o->pid) {
        rargv[k++] = "-p";
        rargv[k++] = pids;
    } else if (o->cmd) {
        /* the command's output goes to our stdout (fd 9), not the pipe */
        sb_printf(&cmd, "exec 1>&9 9>&-; %s", o->cmd);
        rargv[k++] = "--";
        rargv[k++] = "sh";
        rargv[k++] = "-c";
        rargv[k++] = cmd.buf;
    } else {
        rargv[k++] = "-a";
    }
    rargv[k] = NULL;

    char *stdbuf = run_which("stdbuf");
    const char *sargv[16];
    k = 0;
    if (stdbuf) {                      /* perf script's stdio is line buffered */
        sargv[k++] = "stdbuf";
        sargv[k++] = "-oL";
    }
    sargv[k++] = "perf";
    sargv[k++] = "script";
    sargv[k++] = "-i";
    sargv[k++] = "-";
    sargv[k++] = "-F";
    sargv[k++] = "comm,pid,tid,cpu,time,ip,sym,dso";
    sargv[k++] = "--ns";
    sargv[k] = NULL;
    free(stdbuf);

    fprintf(stderr, "staprelay run: ");
    for (size_t i = 0; rargv[i]; i++)
        fprintf(stderr, "%s%s", i ? " " : "", rargv[i]);
    fprintf(stderr, " | ");
    for (size_t i = 0; sargv[i]; i++)
        fprintf(stderr, "%s%s", i ? " " : "", sargv[i]);
    fprintf(stderr, "\n");

    int user_out = o->cmd ? dup(1) : -1;
    /* fd 9 of perf record is the user's stdout, for --cmd */
    run_spawn_opts ro = {.in = devnull, .out = rec_pipe[1], .err = logfd, .extra_fd = user_out,
                         .control = control ? control_fds : NULL};
    run_spawn_opts so = {.in = rec_pipe[0], .out = scr_pipe[1], .err = logfd, .extra_fd = -1};
    pid_t rec = run_spawn((char *const *)rargv, &ro);
    pid_t scr = rec > 0 ? run_spawn((char *const *)sargv, &so) : -1;
    close(rec_pipe[0]);
    close(rec_pipe[1]);
    close(scr_pipe[1]);
    if (control) {
        close(ctl_pipe[0]);
        close(ack_pipe[1]);
    }
    /* read when perf reaches its main loop; our end stays open until
     * perf is gone (its end at EOF would be a command stream ended) */
    if (control && write(ctl_pipe[1], "ping\n", 5) != 5)
        fprintf(stderr, "staprelay run: cannot ask perf when it samples: %s\n", strerror(errno));
    if (user_out >= 0)
        close(user_out);
    if (devnull >= 0)
        close(devnull);
    sb_free(&cmd);
    if (rec < 0 || scr < 0) {
        fprintf(stderr, "staprelay run: cannot start perf: %s\n", strerror(errno));
        if (rec > 0)
            run_stop_child(rec, SIGKILL, 1);
        close(scr_pipe[0]);
        if (control) {
            close(ctl_pipe[1]);
            close(ack_pipe[0]);
        }
        perf_source_close(&src, true);
        if (save)
            fclose(save);
        return RUN_EXIT_FAILED;
    }

    fprintf(stderr, "staprelay run: samples (%ld Hz%s%s) go to %s\n"
            "staprelay run: metrics: pminfo -f staprelay.%s   events: pmevent -t 1 "
            "staprelay.%s.samples.records\n", hz,
            o->pid ? ", pid " : o->cmd ? ", command" : ", all CPUs",
            o->pid ? pids : "", src.dir, name, name);
    if (o->duration > 0)
        fprintf(stderr, "staprelay run: running for %g s (Ctrl-C stops it earlier)\n",
                o->duration);
    else
        fprintf(stderr, "staprelay run: running until Ctrl-C\n");

    perf_sampler ps;
    perf_sampler_init(&ps, on_sample, &src);
    ps.kernel_only = o->kernel_only;
    ps.user_only = o->user_only;

    double start = run_now();
    double deadline = o->duration > 0 ? start + o->duration : 0;
    double next_flush = start + FLUSH_INTERVAL;
    double stop_at = 0;
    bool stopping = false, killed = false, write_failed = false;
    int stops_seen = 0;
    strbuf line = STRBUF_INIT;
    char buf[65536];
    int fd = scr_pipe[0];
    for (;;) {
        double now = run_now();
        int sigs = run_stop_requested();
        if (!stopping && (sigs > 0 || (deadline > 0 && now >= deadline))) {
            stopping = true;
            stop_at = now;
            stops_seen = sigs;
            kill(rec, SIGINT);          /* perf record flushes and exits */
        } else if (stopping && !killed && (sigs > stops_seen || now - stop_at > 10)) {
            killed = true;              /* a second Ctrl-C, or perf hangs */
            kill(-rec, SIGKILL);
            kill(-scr, SIGKILL);
        }
        if (now >= next_flush) {
            if (perf_source_flush(&src, err, sizeof err) != 0 && !write_failed) {
                fprintf(stderr, "staprelay run: %s\n", err);
                write_failed = true;
            }
            next_flush = now + FLUSH_INTERVAL;
        }
        double wait = next_flush - now;
        if (!stopping && deadline > 0 && deadline - now < wait)
            wait = deadline - now;
        if (wait < 0)
            wait = 0;
        struct pollfd pfd[2] = {{ .fd = fd, .events = POLLIN },
                                { .fd = ack_pipe[0], .events = POLLIN }};
        int r = poll(pfd, ack_pipe[0] >= 0 ? 2 : 1, (int)(wait * 1000) + 1);
        if (r < 0) {
            if (errno == EINTR)
                continue;
            break;
        }
        bool acked = false;
        if (ack_pipe[0] >= 0 && pfd[1].revents && take_ack(&ack_pipe[0], &acked) && acked)
            fprintf(stderr, "staprelay run: sampling\n");
        if (!(pfd[0].revents & (POLLIN | POLLHUP | POLLERR)))
            continue;
        ssize_t n = read(fd, buf, sizeof buf);
        if (n < 0) {
            if (errno == EINTR || errno == EAGAIN)
                continue;
            break;
        }
        if (n == 0)
            break;
        if (save && fwrite(buf, 1, (size_t)n, save) != (size_t)n && !write_failed) {
            fprintf(stderr, "staprelay run: --save %s: %s\n", o->save, strerror(errno));
            write_failed = true;
        }
        size_t off = 0;
        while (off < (size_t)n) {
            char *nl = memchr(buf + off, '\n', (size_t)n - off);
            if (nl == NULL) {
                sb_add(&line, buf + off, (size_t)n - off);
                break;
            }
            size_t len = (size_t)(nl - (buf + off));
            if (line.len) {
                sb_add(&line, buf + off, len);
                perf_sampler_line(&ps, line.buf, line.len);
                sb_reset(&line);
            } else {
                perf_sampler_line(&ps, buf + off, len);
            }
            off += len + 1;
        }
    }
    if (line.len)
        perf_sampler_line(&ps, line.buf, line.len);
    perf_sampler_finish(&ps);
    close(fd);
    if (ack_pipe[0] >= 0)
        close(ack_pipe[0]);
    /* Our input ended before we asked perf to stop: the command (or
     * process) finished, and perf record is still writing its last
     * records and exiting -- let it, rather than signal it and take the
     * signal for a failure.  Only if it does not exit in time is it
     * stopped, and then its status says nothing about the run. */
    int rst = 0;
    bool exited = !stopping && wait_exit(rec, 10, &rst);
    if (!exited)
        rst = run_stop_child(rec, SIGINT, 5);
    int sst = run_stop_child(scr, SIGINT, 5);
    if (ctl_pipe[1] >= 0)
        close(ctl_pipe[1]);
    bool flushed = perf_source_flush(&src, err, sizeof err) == 0;
    if (!flushed)
        fprintf(stderr, "staprelay run: %s\n", err);

    (void)sst;
    /* after we asked perf record to stop (or had to), its status does
     * not matter; a non-zero exit of its own is a failure (no
     * permission, bad pid...) */
    bool failed = exited && !(WIFEXITED(rst) && WEXITSTATUS(rst) == 0);
    if (failed)
        run_show_log(logfd, "perf");
    else if (!stopping && o->pid)
        fprintf(stderr, "staprelay run: process %ld exited\n", o->pid);
    else if (!stopping && o->cmd)
        fprintf(stderr, "staprelay run: the command finished\n");
    if (logfd >= 0)
        close(logfd);

    fprintf(stderr, "staprelay run: %llu samples, %llu records published "
            "(%llu idle skipped, %llu without frames, %llu dropped)\n",
            (unsigned long long)ps.samples, (unsigned long long)(src.written),
            (unsigned long long)ps.idle, (unsigned long long)ps.empty,
            (unsigned long long)src.dropped);
    /* let the PMDA read the last data.json before the source goes */
    if (src.written > 0 && !killed && run_stop_requested() <= stops_seen)
        usleep(1200 * 1000);
    fprintf(stderr, "staprelay run: removed %s\n", src.dir);
    perf_source_close(&src, true);
    perf_sampler_free(&ps);
    if (save) {
        if (fclose(save) != 0 && !write_failed) {
            fprintf(stderr, "staprelay run: --save %s: %s\n", o->save, strerror(errno));
            write_failed = true;
        } else if (!write_failed) {
            fprintf(stderr, "staprelay run: perf script text in %s\n", o->save);
        }
    }
    sb_free(&line);
    if (failed) {
        fprintf(stderr, "staprelay run: perf failed (%s)\n",
                WIFEXITED(rst) ? "perf record exited early" : "perf record was killed");
        return RUN_EXIT_FAILED;
    }
    return write_failed || !flushed ? RUN_EXIT_FAILED : RUN_EXIT_OK;
}

/* ---- the scripts perf stands in for ------------------------------------- */

#define NO_BACKTRACES "SystemTap's BPF runtime has no backtraces"

static const run_standin standins[] = {
    {"profile", run_perf_profile, NO_BACKTRACES, NULL},
    {"offcpu", run_perf_offcpu, NO_BACKTRACES, NULL},
    {"iolat", run_perf_iolat,
     "SystemTap 4.8's BPF runtime reads a request's disk with the build headers' layout: "
     "stap/bpf/wip/README.md",
     "iolat's block events come from tracefs, which needs root"},
};

const run_standin *run_perf_standin(const char *script)
{
    for (size_t i = 0; i < sizeof standins / sizeof standins[0]; i++)
        if (strcmp(standins[i].script, script) == 0)
            return &standins[i];
    return NULL;
}

const char *run_perf_standin_names(char *buf, size_t len)
{
    size_t n = sizeof standins / sizeof standins[0], off = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < n && off < len; i++)
        off += (size_t)snprintf(buf + off, len - off, "%s%s", standins[i].script,
                                i + 2 == n ? " and " : i + 1 < n ? ", " : "");
    return buf;
}

int run_perf(const run_script *s, const run_opts *o, const char *name)
{
    const run_standin *st = run_perf_standin(s->name);
    if (st == NULL) {
        char names[128];
        fprintf(stderr, "staprelay run: perf can only stand in for %s\n",
                run_perf_standin_names(names, sizeof names));
        return RUN_EXIT_FAILED;
    }
    return st->run(s, o, name);
}
