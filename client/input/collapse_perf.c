/* collapse_perf: `perf script` → folded stacks (see collapse_perf.h). */
#include "client/input/collapse_perf.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/perf_header.h"
#include "common/xalloc.h"

struct collapse_perf {
    perf_options opt;
    stack_sink  *sink;
    bool         in_sample;   /* a kept header was seen (root set) */
    double       period;
    bool         has_time;
    int64_t      time_ns;
    strbuf       root;        /* the process frame */
    stackfold    frames;      /* the sample's frames, leaf first */
    strbuf       stack;       /* assembled root-first stack */
    strbuf       event;       /* event filter */
    /* what pprof export keeps of the sample (stack_context) */
    strbuf       comm;
    int64_t      pid, tid;    /* -1: not printed */
    bool         has_period;
    strbuf       weight_type; /* the event, without modifiers */
    uint64_t     ignored;
    uint64_t     filtered;
};

frame_opts perf_frame_opts(const perf_options *opt)
{
    return (frame_opts){
        .mark_kernel = !opt->no_marks || opt->kernel_marks,
        .mark_jit = !opt->no_marks || opt->jit_marks,
        .perf_addrs = opt->include_addrs,
    };
}

const char *perf_period_unit(const char *event, char *buf, size_t size)
{
    size_t n = strcspn(event, ":");
    if ((n == 9 && strncmp(event, "cpu-clock", 9) == 0)
        || (n == 10 && strncmp(event, "task-clock", 10) == 0))
        snprintf(buf, size, "ns");
    else if (n == 0)
        snprintf(buf, size, "period units");
    else
        snprintf(buf, size, "%.*s", (int)n, event);
    return buf;
}

collapse_perf *collapse_perf_new(const perf_options *opt, stack_sink *sink)
{
    collapse_perf *pc = xcalloc(1, sizeof *pc);
    pc->opt = *opt;
    pc->sink = sink;
    frame_opts fo = perf_frame_opts(opt);
    stackfold_init(&pc->frames, &fo, false);
    return pc;
}

void collapse_perf_free(collapse_perf *pc)
{
    if (pc == NULL)
        return;
    sb_free(&pc->root);
    stackfold_free(&pc->frames);
    sb_free(&pc->stack);
    sb_free(&pc->event);
    sb_free(&pc->comm);
    sb_free(&pc->weight_type);
    free(pc);
}

uint64_t collapse_perf_ignored(const collapse_perf *pc) { return pc->ignored; }
uint64_t collapse_perf_filtered(const collapse_perf *pc) { return pc->filtered; }
const char *collapse_perf_event(const collapse_perf *pc)
{
    return pc->event.buf ? pc->event.buf : "";
}

bool collapse_perf_sample_time(const collapse_perf *pc, int64_t *ns)
{
    *ns = pc->time_ns;
    return pc->has_time;
}

/* The length of the leading part of s[0..n) without any of reject. */
static size_t strcspn_n(const char *s, size_t n, const char *reject)
{
    size_t i = 0;
    while (i < n && strchr(reject, s[i]) == NULL)
        i++;
    return i;
}

static void reset_sample(collapse_perf *pc)
{
    pc->in_sample = false;
    stackfold_reset(&pc->frames);
}

static void emit_sample(collapse_perf *pc)
{
    if (!pc->in_sample) {
        reset_sample(pc);
        return;
    }
    sb_reset(&pc->stack);
    if (!pc->opt.no_comm)
        sb_add(&pc->stack, pc->root.buf, pc->root.len);
    if (stackfold_count(&pc->frames) > 0) {
        if (pc->stack.len)
            sb_addc(&pc->stack, ';');
        stackfold_write(&pc->frames, &pc->stack);
    }
    if (pc->stack.len == 0) {       /* --no-comm and no frame */
        reset_sample(pc);
        return;
    }
    int64_t when = pc->has_time ? pc->time_ns : STACK_TIME_UNKNOWN;
    stack_context ctx = {
        .comm = pc->comm.buf, .comm_len = pc->comm.len,
        .pid = pc->pid, .tid = pc->tid,
        .time_ns = when,
        .samples = 1,
        .frames = &pc->frames,
    };
    /* the weight is a sample unless --period weighs perf's period */
    if (pc->opt.period && pc->has_period)
        perf_weight_type(pc->weight_type.buf, &ctx.weight_type,
                         &ctx.weight_unit);
    stack_sink_add_ctx(pc->sink, pc->stack.buf, pc->stack.len, pc->period, -1,
                       when, &ctx);
    reset_sample(pc);
}

void perf_weight_type(const char *event, const char **type, const char **unit)
{
    /* the software clocks count nanoseconds (perf's cpu-clock and
     * task-clock periods); any other event counts its own events */
    if (event == NULL || *event == '\0') {
        *type = "events";
        *unit = "count";
    } else if (strcmp(event, "cpu-clock") == 0
               || strcmp(event, "task-clock") == 0) {
        *type = "cpu";
        *unit = "nanoseconds";
    } else {
        *type = event;
        *unit = "count";
    }
}

/* A decimal PID or TID as perf printed it, or -1. */
static int64_t header_id(const char *s, size_t n)
{
    int64_t v = 0;
    if (s == NULL || n == 0 || n > 10)
        return -1;
    for (size_t i = 0; i < n; i++) {
        if (s[i] < '0' || s[i] > '9')
            return -1;
        v = v * 10 + (s[i] - '0');
    }
    return v;
}

static void on_header(collapse_perf *pc, const perf_header *h)
{
    if (pc->in_sample && stackfold_count(&pc->frames) > 0)
        emit_sample(pc);   /* a sample with no blank line after it */
    reset_sample(pc);
    if (h->event) {
        if (pc->event.len == 0) {
            sb_add(&pc->event, h->event, h->event_len);
        } else if (h->event_len != pc->event.len
                   || memcmp(h->event, pc->event.buf, h->event_len) != 0) {
            pc->filtered++;
            return;
        }
    }
    pc->period = pc->opt.period && h->period > 0 ? h->period : 1;
    pc->has_period = h->period > 0;
    sb_reset(&pc->weight_type);
    if (h->event)
        sb_add(&pc->weight_type, h->event, strcspn_n(h->event, h->event_len, ":"));
    sb_reset(&pc->comm);
    sb_add(&pc->comm, h->comm, h->comm_len);
    pc->pid = header_id(h->pid, h->pid_len);
    pc->tid = header_id(h->tid, h->tid_len);
    pc->has_time = h->has_time;
    pc->time_ns = h->time_ns;
    sb_reset(&pc->root);
    frame_process(&pc->root, h->comm, h->comm_len, h->pid, h->pid_len, h->tid,
                  h->tid_len, pc->opt.include_pid, pc->opt.include_tid);
    pc->in_sample = true;
}

void collapse_perf_line(collapse_perf *pc, const char *s, size_t n)
{
    if (n > 0 && s[0] == '#')
        return;
    if (n == 0) {
        emit_sample(pc);
        return;
    }
    perf_header h;
    /* frame lines start with a blank, headers never do: most lines skip
     * the header parser (and its zeroing of h) at once */
    if (s[0] != '\t' && s[0] != ' ' && perf_header_parse(s, n, &h)) {
        on_header(pc, &h);
        return;
    }
    frame_line f;
    if (frame_parse(s, n, &f) && f.kind == FRAME_PERF) {
        if (pc->in_sample)
            stackfold_add(&pc->frames, &f);
        return;
    }
    pc->ignored++;
}

void collapse_perf_finish(collapse_perf *pc)
{
    if (pc->in_sample)
        emit_sample(pc);
}
