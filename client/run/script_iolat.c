/* script_iolat: `staprelay run iolat` for the perf backend, for kernels that
 * load no modules (SystemTap 4.8's BPF runtime cannot read a request's
 * disk on a kernel whose build headers differ: contrib/bpf-iolat/README.md).
 * It reads the kernel's block:block_rq_issue and block:block_rq_complete
 * (and block_rq_requeue) trace events from a tracefs instance of its own
 * (TRACEFS/instances/staprelay-NAME-PID, clock mono, removed at the end),
 * not through `perf record`: on the kernels here perf's sampling loses
 * completions raised on another CPU than the issue (perf stat counts all
 * of them, `perf record` kept 1 to 96 of 100; tracefs all 100).
 *
 * What the events add up to is iolat_trace's (iolat.stp's metrics and
 * layout); this file owns the tracefs instance and publishes the result as
 * PARENT/NAME/{metadata.json,data.json} through perf_source, metadata.json
 * again whenever a new disk:direction adds a histogram, as the script's
 * metadata grows.  Requests issued before the run are not counted. */
#include "client/run/script_iolat.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include "client/run/iolat_trace.h"
#include "client/run/perf_pipe.h"
#include "client/run/perf_source.h"
#include "common/strbuf.h"
#include "common/xalloc.h"

/* ---- the tracefs instance ------------------------------------------------ */

typedef struct trace_inst {
    char *dir;                     /* TRACEFS/instances/NAME */
    int fd;                        /* its trace_pipe */
} trace_inst;

static const char *const iolat_events[] = {
    "events/block/block_rq_issue/enable", "events/block/block_rq_complete/enable",
    "events/block/block_rq_requeue/enable",
};

static int write_file(const char *dir, const char *name, const char *text)
{
    strbuf p = STRBUF_INIT;
    sb_printf(&p, "%s/%s", dir, name);
    int fd = open(p.buf, O_WRONLY | O_TRUNC | O_CLOEXEC);
    sb_free(&p);
    if (fd < 0)
        return -1;
    ssize_t n = write(fd, text, strlen(text));
    int e = errno;
    close(fd);
    errno = e;
    return n == (ssize_t)strlen(text) ? 0 : -1;
}

static bool instances_writable(const char *root)
{
    strbuf p = STRBUF_INIT;
    sb_printf(&p, "%s/instances", root);
    bool ok = access(p.buf, W_OK) == 0;
    sb_free(&p);
    return ok;
}

/* The tracefs mount: /sys/kernel/tracing, else the debugfs one.  Where
 * neither is mounted (a machine booted without systemd, which mounts it
 * on any other), root mounts tracefs on /sys/kernel/tracing, as perf
 * does, and says so; it stays mounted, as perf leaves it. */
static const char *tracefs_root(void)
{
    static const char *const roots[] = { "/sys/kernel/tracing", "/sys/kernel/debug/tracing" };
    for (size_t i = 0; i < 2; i++)
        if (instances_writable(roots[i]))
            return roots[i];
    if (geteuid() != 0)
        return NULL;
    if (mount("nodev", roots[0], "tracefs", 0, NULL) != 0) {
        fprintf(stderr, "staprelay run: tracefs is not mounted and mounting it on %s "
                "failed: %s\n", roots[0], strerror(errno));
        return NULL;
    }
    fprintf(stderr, "staprelay run: tracefs was not mounted: mounted it on %s (as perf "
            "does)\n", roots[0]);
    return instances_writable(roots[0]) ? roots[0] : NULL;
}

static void trace_inst_close(trace_inst *t)
{
    if (t->fd >= 0)
        close(t->fd);
    t->fd = -1;
    if (t->dir) {
        for (size_t i = 0; i < 2; i++)
            write_file(t->dir, iolat_events[i], "0");
        rmdir(t->dir);              /* tracefs removes an instance whole */
        free(t->dir);
        t->dir = NULL;
    }
}

/* A tracefs instance of our own with the two block events on, its clock
 * monotonic, and its trace_pipe open.  Returns 0 or -1 with err. */
static int trace_inst_open(trace_inst *t, const char *name, char *err, size_t errlen)
{
    t->fd = -1;
    t->dir = NULL;
    const char *root = tracefs_root();
    if (root == NULL) {
        snprintf(err, errlen, "no writable tracefs (/sys/kernel/tracing/instances): "
                 "mount -t tracefs nodev /sys/kernel/tracing, as root");
        return -1;
    }
    strbuf d = STRBUF_INIT;
    sb_printf(&d, "%s/instances/staprelay-%s-%ld", root, name, (long)getpid());
    if (mkdir(d.buf, 0700) != 0 && errno != EEXIST) {
        snprintf(err, errlen, "cannot create the trace instance %s: %s", d.buf, strerror(errno));
        sb_free(&d);
        return -1;
    }
    t->dir = sb_steal(&d);
    /* the instance's buffer is the kernel's default size per CPU (a
     * bigger one costs every CPU of a large machine as much again); it is
     * read continuously, and what it loses is counted ([LOST N EVENTS]) */
    if (write_file(t->dir, "trace_clock", "mono") != 0) {
        snprintf(err, errlen, "%s/trace_clock: %s", t->dir, strerror(errno));
        trace_inst_close(t);
        return -1;
    }
    for (size_t i = 0; i < 2; i++)
        if (write_file(t->dir, iolat_events[i], "1") != 0) {
            snprintf(err, errlen, "%s/%s: %s (no block trace events in this kernel?)",
                     t->dir, iolat_events[i], strerror(errno));
            trace_inst_close(t);
            return -1;
        }
    strbuf p = STRBUF_INIT;
    sb_printf(&p, "%s/trace_pipe", t->dir);
    t->fd = open(p.buf, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (t->fd < 0) {
        snprintf(err, errlen, "%s: %s", p.buf, strerror(errno));
        sb_free(&p);
        trace_inst_close(t);
        return -1;
    }
    sb_free(&p);
    return 0;
}

/* ---- the run ---------------------------------------------------------------- */

typedef struct iolat_run {
    perf_source src;
    iolat_trace *trace;
} iolat_run;

static char *run_data(const perf_source *src, void *arg)
{
    (void)src;
    return iolat_trace_data(((iolat_run *)arg)->trace);
}

static void run_line(void *arg, const char *s, size_t n)
{
    iolat_run *r = arg;
    bool grew = iolat_trace_line(r->trace, s, n);
    r->src.dirty = true;
    /* a new disk:direction: its histogram joins metadata.json before the
     * data that holds it */
    if (grew) {
        char err[512];
        char *meta = iolat_trace_metadata(r->trace);
        if (perf_source_set_metadata(&r->src, meta, err, sizeof err) != 0)
            fprintf(stderr, "staprelay run: %s\n", err);
        free(meta);
    }
}

int script_iolat_run(const run_script *s, const run_opts *o, const char *name)
{
    (void)s;
    char pbuf[4096];
    const char *parent = perf_source_parent(o->dir, pbuf, sizeof pbuf);
    if (parent == NULL)
        return RUN_EXIT_FAILED;
    iolat_run r;
    memset(&r, 0, sizeof r);
    r.trace = iolat_trace_new("");
    char err[1024];
    char *meta = iolat_trace_metadata(r.trace);
    int opened = perf_source_open_as(&r.src, parent, name, 0, o->replay, meta, run_data, &r,
                                     err, sizeof err);
    free(meta);
    if (opened != 0) {
        fprintf(stderr, "staprelay run: %s\n", err);
        iolat_trace_free(r.trace);
        return RUN_EXIT_FAILED;
    }
    trace_inst t;
    if (trace_inst_open(&t, name, err, sizeof err) != 0) {
        fprintf(stderr, "staprelay run: %s\n", err);
        perf_source_close(&r.src, true);
        iolat_trace_free(r.trace);
        return RUN_EXIT_FAILED;
    }
    fprintf(stderr, "staprelay run: block:block_rq_issue and block:block_rq_complete from the "
            "trace instance %s: every disk; files in %s\nstaprelay run: metrics: pminfo -f "
            "staprelay.%s\n", t.dir, r.src.dir, name);
    perf_pipe pp = { .fd = t.fd, .src = &r.src, .on_line = run_line, .arg = &r };
    int rc = perf_pipe_run(&pp, o);
    trace_inst_close(&t);
    iolat_counts c;
    iolat_trace_counts(r.trace, &c);
    fprintf(stderr, "staprelay run: %llu requests timed on %zu disk:direction rows, %llu "
            "errors, %llu not tracked (table full), %llu completions not timed (issued "
            "before the run or not tracked), %llu events lost by the trace buffer, "
            "%llu lines not understood\n",
            (unsigned long long)c.requests, c.rows, (unsigned long long)c.errors,
            (unsigned long long)c.untracked, (unsigned long long)c.untimed,
            (unsigned long long)c.lost,
            (unsigned long long)c.unparsed);
    fprintf(stderr, "staprelay run: removed %s\n", r.src.dir);
    perf_source_close(&r.src, true);
    iolat_trace_free(r.trace);
    return rc;
}
