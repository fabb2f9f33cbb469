/* store: the samples staprelay web holds (see store.h). */
#include "client/web/store.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "client/stack/live_window.h"
#include "common/xalloc.h"

struct web_store {
    pthread_mutex_t lock;
    live_window    *w;
    size_t          max;
    int64_t         window_ns;
    uint64_t        added, pruned;
    int64_t         last_ns;      /* newest timed sample ever added */
    bool            timed;        /* weights are durations (ns) */
    int             nhosts;
    char            hosts[STORE_MAX_HOSTS][64];
};

web_store *store_new(size_t max_samples, int64_t window_ns)
{
    web_store *s = xcalloc(1, sizeof *s);
    pthread_mutex_init(&s->lock, NULL);
    s->max = max_samples ? max_samples : STORE_DEFAULT_MAX;
    s->w = lw_new(s->max);
    s->window_ns = window_ns;
    s->last_ns = STACK_TIME_UNKNOWN;
    return s;
}

void store_free(web_store *s)
{
    if (s == NULL)
        return;
    lw_free(s->w);
    pthread_mutex_destroy(&s->lock);
    free(s);
}

static void note_host(web_store *s, const char *host)
{
    for (int i = 0; i < s->nhosts; i++)
        if (strcmp(s->hosts[i], host) == 0)
            return;
    if (s->nhosts < STORE_MAX_HOSTS)
        snprintf(s->hosts[s->nhosts++], sizeof s->hosts[0], "%s", host);
}

void store_add(web_store *s, const char *stack, size_t len, double weight,
               int64_t t_ns, const stack_context *ctx)
{
    lw_detail d = { NULL, 0, NULL, -1, -1, BLOCK_STATE_NONE, false };
    if (ctx) {
        d.comm = ctx->comm;
        d.comm_len = ctx->comm ? ctx->comm_len : 0;
        d.host = ctx->host;
        d.pid = ctx->pid;
        d.tid = ctx->tid;
        d.state = ctx->state;
        d.timed = stack_context_weighs_time(ctx);
        if (t_ns == STACK_TIME_UNKNOWN)
            t_ns = ctx->time_ns;
    }
    pthread_mutex_lock(&s->lock);
    lw_add_detail(s->w, stack, len, weight, t_ns, &d);
    s->added++;
    if (t_ns != STACK_TIME_UNKNOWN && (s->last_ns == STACK_TIME_UNKNOWN
                                       || t_ns > s->last_ns))
        s->last_ns = t_ns;
    if (d.host)
        note_host(s, d.host);
    pthread_mutex_unlock(&s->lock);
}

void store_mark_timed(web_store *s)
{
    pthread_mutex_lock(&s->lock);
    s->timed = true;
    pthread_mutex_unlock(&s->lock);
}

bool store_timed(web_store *s)
{
    pthread_mutex_lock(&s->lock);
    bool t = s->timed;
    pthread_mutex_unlock(&s->lock);
    return t;
}

void store_prune(web_store *s, int64_t now_ns)
{
    if (s->window_ns <= 0)
        return;
    pthread_mutex_lock(&s->lock);
    int64_t cut_ns = now_ns - s->window_ns;
    int64_t cut_us = cut_ns >= 0 ? cut_ns / 1000 : 0;
    s->pruned += lw_prune(s->w, cut_us);
    pthread_mutex_unlock(&s->lock);
}

void store_lock(web_store *s) { pthread_mutex_lock(&s->lock); }
void store_unlock(web_store *s) { pthread_mutex_unlock(&s->lock); }
size_t store_count(const web_store *s) { return lw_count(s->w); }

bool store_get(const web_store *s, size_t i, store_sample *out)
{
    const lw_sample *x = lw_get(s->w, i);
    if (x == NULL)
        return false;
    out->t_ns = x->t_us == LW_UNTIMED ? STACK_TIME_UNKNOWN
              : x->t_us * 1000 + x->t_ns;
    out->weight = x->weight;
    out->stack = lw_stack(s->w, x->stack, &out->len);
    out->comm = x->comm == LW_NONE ? NULL : lw_stack(s->w, x->comm, NULL);
    out->host = x->host == LW_NONE ? NULL : lw_stack(s->w, x->host, NULL);
    out->pid = x->pid;
    out->tid = x->tid;
    out->state = (block_state)x->state;
    out->timed = x->timed != 0;
    return true;
}

void store_get_info(web_store *s, store_info *out)
{
    memset(out, 0, sizeof *out);
    pthread_mutex_lock(&s->lock);
    out->samples = lw_count(s->w);
    out->strings = lw_nstacks(s->w);
    out->bytes = lw_bytes(s->w);
    out->max_samples = s->max;
    out->added = s->added;
    out->dropped = lw_dropped(s->w);
    out->pruned = s->pruned;
    out->window_ns = s->window_ns;
    out->timed = s->timed;
    out->first_ns = out->last_ns = STACK_TIME_UNKNOWN;
    for (size_t i = 0; i < out->samples; i++) {
        const lw_sample *x = lw_get(s->w, i);
        if (x->t_us == LW_UNTIMED)
            continue;
        int64_t t = x->t_us * 1000 + x->t_ns;
        if (out->first_ns == STACK_TIME_UNKNOWN || t < out->first_ns)
            out->first_ns = t;
        if (out->last_ns == STACK_TIME_UNKNOWN || t > out->last_ns)
            out->last_ns = t;
    }
    out->nhosts = s->nhosts;
    memcpy(out->hosts, s->hosts, sizeof out->hosts);
    pthread_mutex_unlock(&s->lock);
}
