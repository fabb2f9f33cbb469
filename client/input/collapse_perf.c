/* collapse_perf: `perf script` → folded stacks (see collapse_perf.h). */
#include "client/input/collapse_perf.h"

#include <stdlib.h>
#include <string.h>

#include "common/perf_header.h"
#include "common/xalloc.h"

struct perf_collapser {
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
    uint64_t     ignored;
    uint64_t     filtered;
};

frame_opts perf_frame_opts(const perf_options *opt)
{
    return (frame_opts){
        .mark_kernel = opt->annotate_kernel,
        .mark_jit = opt->annotate_jit,
        .perf_addrs = opt->include_addrs,
    };
}

perf_collapser *perf_collapser_new(const perf_options *opt, stack_sink *sink)
{
    perf_collapser *pc = xcalloc(1, sizeof *pc);
    pc->opt = *opt;
    pc->sink = sink;
    frame_opts fo = perf_frame_opts(opt);
    stackfold_init(&pc->frames, &fo, false);
    return pc;
}

void perf_collapser_free(perf_collapser *pc)
{
    if (pc == NULL)
        return;
    sb_free(&pc->root);
    stackfold_free(&pc->frames);
    sb_free(&pc->stack);
    sb_free(&pc->event);
    free(pc);
}

uint64_t perf_collapser_ignored(const perf_collapser *pc) { return pc->ignored; }
uint64_t perf_collapser_filtered(const perf_collapser *pc) { return pc->filtered; }
const char *perf_collapser_event(const perf_collapser *pc)
{
    return pc->event.buf ? pc->event.buf : "";
}

bool perf_collapser_sample_time(const perf_collapser *pc, int64_t *ns)
{
    *ns = pc->time_ns;
    return pc->has_time;
}

static void reset_sample(perf_collapser *pc)
{
    pc->in_sample = false;
    stackfold_reset(&pc->frames);
}

static void emit_sample(perf_collapser *pc)
{
    if (!pc->in_sample) {
        reset_sample(pc);
        return;
    }
    sb_reset(&pc->stack);
    sb_add(&pc->stack, pc->root.buf, pc->root.len);
    if (stackfold_count(&pc->frames) > 0) {
        sb_addc(&pc->stack, ';');
        stackfold_write(&pc->frames, &pc->stack);
    }
    stack_sink_add(pc->sink, pc->stack.buf, pc->stack.len, pc->period, -1);
    reset_sample(pc);
}

static void on_header(perf_collapser *pc, const perf_header *h)
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
    pc->period = h->period > 0 ? h->period : 1;
    pc->has_time = h->has_time;
    pc->time_ns = h->time_ns;
    sb_reset(&pc->root);
    frame_process(&pc->root, h->comm, h->comm_len, h->pid, h->pid_len, h->tid,
                  h->tid_len, pc->opt.include_pid, pc->opt.include_tid);
    pc->in_sample = true;
}

void perf_collapser_line(perf_collapser *pc, const char *s, size_t n)
{
    if (n > 0 && s[0] == '#')
        return;
    if (n == 0) {
        emit_sample(pc);
        return;
    }
    perf_header h;
    if (perf_header_parse(s, n, &h)) {
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

void perf_collapser_finish(perf_collapser *pc)
{
    if (pc->in_sample)
        emit_sample(pc);
}
