/* script_profile: stap/profile.stp for the perf backend
 * (script_profile.h):
 *
 *   perf record --no-buffering -e cpu-clock -g -F HZ -k realtime --sample-cpu
 *               {-a | -p PID | -- sh -c CMD} -o -
 *     | stdbuf -oL perf script -i - -F comm,pid,tid,cpu,time,ip,sym,dso --ns
 *
 * run by perf_pipe, read line by line (perf_source.h) and published
 * every 0.5 s as PARENT/NAME/{metadata.json,data.json}, which
 * pmdastaprelay relays when PARENT is in its directory_list.
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
#include "client/run/script_profile.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "client/run/perf_pipe.h"
#include "client/run/perf_source.h"
#include "common/strbuf.h"

/* What the pipeline's callbacks share. */
typedef struct profile {
    perf_source src;
    perf_sampler ps;
    FILE *save;                /* --save: perf script's text, or NULL */
    const char *save_name;
    bool save_failed;          /* said once */
} profile;

static void on_sample(void *arg, const perf_sample *s)
{
    perf_source_add(arg, s);
}

static void on_line(void *arg, const char *s, size_t n)
{
    profile *p = arg;
    if (p->save && !p->save_failed &&
        (fwrite(s, 1, n, p->save) != n || fputc('\n', p->save) == EOF)) {
        fprintf(stderr, "staprelay run: --save %s: %s\n", p->save_name, strerror(errno));
        p->save_failed = true;
    }
    perf_sampler_line(&p->ps, s, n);
}

static void on_end(void *arg)
{
    profile *p = arg;
    perf_sampler_finish(&p->ps);
}

static void on_ready(void *arg)
{
    (void)arg;
    fprintf(stderr, "staprelay run: sampling\n");
}

/* perf record's argv (NULL-ended) in v, which has room for 32; cmd and
 * the number buffers hold what it points into. */
static void record_argv(const char **v, const run_opts *o, const char *hzs, const char *pids,
                        strbuf *cmd)
{
    size_t k = 0;
    static const char *const fixed[] = {
        "perf", "record",
        "--no-buffering",              /* records reach us as they happen */
        "-q", "-e",
        "cpu-clock",                   /* profile.stp: perf.sw.cpu_clock */
        "-g", "-F", NULL,
    };
    for (size_t i = 0; fixed[i]; i++)
        v[k++] = fixed[i];
    v[k++] = hzs;
    v[k++] = "-k";
    v[k++] = "realtime";               /* epoch timestamps */
    v[k++] = "--sample-cpu";
    if (o->kernel_only)
        v[k++] = "--kernel-callchains";
    if (o->user_only)
        v[k++] = "--user-callchains";
    v[k++] = "-o";
    v[k++] = "-";
    if (!o->cmd) {
        const char *control[] = { PERF_PIPE_CONTROL };
        v[k++] = control[0];
        v[k++] = control[1];
    }
    if (o->pid) {
        v[k++] = "-p";
        v[k++] = pids;
    } else if (o->cmd) {
        /* the command's output goes to our stdout (fd 9), not the pipe */
        sb_printf(cmd, "exec 1>&9 9>&-; %s", o->cmd);
        v[k++] = "--";
        v[k++] = "sh";
        v[k++] = "-c";
        v[k++] = cmd->buf;
    } else {
        v[k++] = "-a";
    }
    v[k] = NULL;
}

/* "staprelay run: perf record ... | stdbuf -oL perf script ..." */
static void say_pipeline(const char *const *rargv, const char *const *sargv)
{
    const char **sv = perf_pipe_script_argv(sargv);
    fprintf(stderr, "staprelay run: ");
    for (size_t i = 0; rargv[i]; i++)
        fprintf(stderr, "%s%s", i ? " " : "", rargv[i]);
    fprintf(stderr, " | ");
    for (size_t i = 0; sv && sv[i]; i++)
        fprintf(stderr, "%s%s", i ? " " : "", sv[i]);
    fprintf(stderr, "\n");
    free(sv);
}

/* After the run: the counts, the source's removal, --save's file. */
static void say_end(profile *p, const char *save_name)
{
    fprintf(stderr, "staprelay run: %llu samples, %llu records published "
            "(%llu idle skipped, %llu without frames, %llu dropped)\n",
            (unsigned long long)p->ps.samples, (unsigned long long)p->src.written,
            (unsigned long long)p->ps.idle, (unsigned long long)p->ps.empty,
            (unsigned long long)p->src.dropped);
    fprintf(stderr, "staprelay run: removed %s\n", p->src.dir);
    if (p->save == NULL)
        return;
    if (fclose(p->save) != 0 && !p->save_failed) {
        fprintf(stderr, "staprelay run: --save %s: %s\n", save_name, strerror(errno));
        p->save_failed = true;
    } else if (!p->save_failed) {
        fprintf(stderr, "staprelay run: perf script text in %s\n", save_name);
    }
    p->save = NULL;
}

int script_profile_run(const run_script *s, const run_opts *o, const char *name)
{
    (void)s;
    long hz = o->hz ? o->hz : 99;
    char pbuf[4096];
    const char *parent = perf_source_parent(o->dir, pbuf, sizeof pbuf);
    if (parent == NULL)
        return RUN_EXIT_FAILED;
    profile p = { .save_name = o->save };
    if (o->save && (p.save = fopen(o->save, "w")) == NULL) {
        fprintf(stderr, "staprelay run: --save %s: %s\n", o->save, strerror(errno));
        return RUN_EXIT_FAILED;
    }
    char err[1024];
    if (perf_source_open(&p.src, parent, name, hz, o->replay, err, sizeof err) != 0) {
        fprintf(stderr, "staprelay run: %s\n", err);
        if (p.save)
            fclose(p.save);
        return RUN_EXIT_FAILED;
    }

    char hzs[32], pids[32];
    snprintf(hzs, sizeof hzs, "%ld", hz);
    snprintf(pids, sizeof pids, "%ld", o->pid);
    strbuf cmd = STRBUF_INIT;
    const char *rargv[32];
    record_argv(rargv, o, hzs, pids, &cmd);
    static const char *const sargv[] = { "perf", "script", "-i", "-", "-F",
                                         "comm,pid,tid,cpu,time,ip,sym,dso", "--ns", NULL };
    say_pipeline(rargv, sargv);
    fprintf(stderr, "staprelay run: samples (%ld Hz%s%s) go to %s\n"
            "staprelay run: metrics: pminfo -f staprelay.%s   events: pmevent -t 1 "
            "staprelay.%s.samples.records\n", hz,
            o->pid ? ", pid " : o->cmd ? ", command" : ", all CPUs",
            o->pid ? pids : "", p.src.dir, name, name);
    if (o->duration > 0)
        fprintf(stderr, "staprelay run: running for %g s (Ctrl-C stops it earlier)\n",
                o->duration);
    else
        fprintf(stderr, "staprelay run: running until Ctrl-C\n");

    perf_sampler_init(&p.ps, on_sample, &p.src);
    p.ps.kernel_only = o->kernel_only;
    p.ps.user_only = o->user_only;
    perf_pipe pp = { .record_argv = rargv, .script_argv = sargv, .src = &p.src,
                     .on_line = on_line, .on_end = on_end, .arg = &p,
                     .record_follows = true, .record_stdout_fd9 = o->cmd != NULL,
                     .on_ready = o->cmd ? NULL : on_ready };
    int rc = perf_pipe_run(&pp, o);
    sb_free(&cmd);
    say_end(&p, o->save);
    perf_source_close(&p.src, true);
    perf_sampler_free(&p.ps);
    return p.save_failed ? RUN_EXIT_FAILED : rc;
}
