/* hotcold: on- and off-CPU time per thread, normalised to the window
 * (see hotcold.h). */
#include "client/stack/hotcold.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/strbuf.h"
#include "common/strmap.h"
#include "common/xalloc.h"

typedef struct hc_thread {
    stacktab *stacks;    /* "oncpu;STACK" / "offcpu;STACK" -> ns */
    double    total;     /* on + off, ns */
} hc_thread;

struct hotcold {
    double     period_ns;
    strmap    *index;    /* thread key -> slot in threads */
    hc_thread *threads;
    size_t     nthreads, cap;
    int64_t    lo_ns, hi_ns;   /* the window, or STACK_TIME_UNKNOWN */
    uint64_t   samples[2];     /* on-CPU, off-CPU */
    strbuf     key, marked;
};

hotcold *hotcold_new(double period_ns)
{
    hotcold *hc = xcalloc(1, sizeof *hc);
    hc->period_ns = period_ns;
    hc->index = strmap_new();
    hc->lo_ns = hc->hi_ns = STACK_TIME_UNKNOWN;
    hc->key = (strbuf)STRBUF_INIT;
    hc->marked = (strbuf)STRBUF_INIT;
    return hc;
}

void hotcold_free(hotcold *hc)
{
    if (hc == NULL)
        return;
    for (size_t i = 0; i < hc->nthreads; i++)
        stacktab_free(hc->threads[i].stacks);
    free(hc->threads);
    strmap_free(hc->index);
    sb_free(&hc->key);
    sb_free(&hc->marked);
    free(hc);
}

/* The thread a sample belongs to: its host, pid and tid as known (-1
 * unknown; samples knowing neither share one "thread"). */
static hc_thread *thread_of(hotcold *hc, const stack_context *ctx)
{
    sb_reset(&hc->key);
    sb_printf(&hc->key, "%s/%" PRId64 "/%" PRId64,
              ctx && ctx->host ? ctx->host : "",
              ctx ? ctx->pid : -1, ctx ? ctx->tid : -1);
    int64_t slot;
    if (strmap_get(hc->index, hc->key.buf, &slot))
        return &hc->threads[slot];
    if (hc->nthreads == hc->cap) {
        hc->cap = hc->cap ? hc->cap * 2 : 16;
        hc->threads = xrealloc(hc->threads, hc->cap * sizeof *hc->threads);
    }
    hc_thread *t = &hc->threads[hc->nthreads];
    t->stacks = stacktab_new();
    t->total = 0;
    if (strmap_put(hc->index, hc->key.buf, (int64_t)hc->nthreads) != 0)
        abort();                /* out of memory, as xalloc does */
    hc->nthreads++;
    return t;
}

static void widen(hotcold *hc, int64_t from, int64_t to)
{
    if (hc->lo_ns == STACK_TIME_UNKNOWN || from < hc->lo_ns)
        hc->lo_ns = from;
    if (hc->hi_ns == STACK_TIME_UNKNOWN || to > hc->hi_ns)
        hc->hi_ns = to;
}

void hotcold_observe(void *arg, const char *stack, size_t len, double weight,
                     int col, int64_t when_ns, const stack_context *ctx)
{
    (void)col;
    hotcold *hc = arg;
    bool off = stack_context_weighs_time(ctx);
    double ns = off ? weight
                    : (ctx && ctx->samples > 0 ? ctx->samples : weight)
                      * hc->period_ns;
    if (when_ns == STACK_TIME_UNKNOWN && ctx)
        when_ns = ctx->time_ns;
    if (when_ns != STACK_TIME_UNKNOWN)
        widen(hc, when_ns - (int64_t)ns, when_ns);
    hc_thread *t = thread_of(hc, ctx);
    sb_reset(&hc->marked);
    sb_adds(&hc->marked, off ? HOTCOLD_OFF ";" : HOTCOLD_ON ";");
    sb_add(&hc->marked, stack, len);
    stacktab_add(t->stacks, hc->marked.buf, hc->marked.len, 0, ns);
    t->total += ns;
    hc->samples[off]++;
}

uint64_t hotcold_samples(const hotcold *hc, bool off)
{
    return hc->samples[off];
}

int64_t hotcold_window_ns(const hotcold *hc)
{
    return hc->lo_ns == STACK_TIME_UNKNOWN ? 0 : hc->hi_ns - hc->lo_ns;
}

size_t hotcold_threads(const hotcold *hc)
{
    return hc->nthreads;
}

/* A thread over the window is scaled to it; without a window, none. */
static bool over(const hotcold *hc, const hc_thread *t)
{
    int64_t w = hotcold_window_ns(hc);
    return w > 0 && t->total > (double)w;
}

size_t hotcold_scaled(const hotcold *hc)
{
    size_t n = 0;
    for (size_t i = 0; i < hc->nthreads; i++)
        n += over(hc, &hc->threads[i]);
    return n;
}

void hotcold_fill(const hotcold *hc, stacktab *out)
{
    double w = (double)hotcold_window_ns(hc);
    for (size_t i = 0; i < hc->nthreads; i++) {
        const hc_thread *t = &hc->threads[i];
        bool scale = over(hc, t);
        for (size_t k = 0; k < stacktab_size(t->stacks); k++) {
            const stack_entry *e = stacktab_entry(t->stacks, k);
            /* weight * W / T, not weight * (W / T): whole ns in, whole
             * ns out wherever the product is exact */
            double v = scale ? e->count[0] * w / t->total : e->count[0];
            stacktab_add(out, e->stack, e->len, 0, v);
        }
    }
}
