/* live_window: the bounded sample window, atomic file replacement and
 * the gap list of `staprelay live` (see live_window.h). */
#include "client/stack/live_window.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "client/util/outfile.h"
#include "common/hash.h"
#include "common/xalloc.h"

/* ---- interned, reference-counted stacks ------------------------------- */
#define NO_ID UINT32_MAX

typedef struct lw_stack_ent {
    char    *text;       /* NULL: free slot */
    uint32_t len;
    uint32_t next;       /* hash chain, or free list */
    uint64_t hash;
    uint64_t refs;
} lw_stack_ent;

struct live_window {
    lw_sample    *s;
    size_t        n, cap, max;
    lw_stack_ent *st;
    size_t        nst, capst, live;
    uint32_t      free_head;
    uint32_t     *buckets;
    size_t        nbuckets;      /* power of two */
    uint64_t      dropped;
    size_t        text_bytes;    /* of the interned strings */
};

live_window *lw_new(size_t max_samples)
{
    live_window *w = xcalloc(1, sizeof *w);
    w->max = max_samples;
    w->free_head = NO_ID;
    w->nbuckets = 1024;
    w->buckets = xrealloc(NULL, w->nbuckets * sizeof *w->buckets);
    for (size_t i = 0; i < w->nbuckets; i++)
        w->buckets[i] = NO_ID;
    return w;
}

void lw_free(live_window *w)
{
    if (w == NULL)
        return;
    for (size_t i = 0; i < w->nst; i++)
        free(w->st[i].text);
    free(w->st);
    free(w->s);
    free(w->buckets);
    free(w);
}

static void rehash(live_window *w, size_t nb)
{
    free(w->buckets);
    w->nbuckets = nb;
    w->buckets = xrealloc(NULL, nb * sizeof *w->buckets);
    for (size_t i = 0; i < nb; i++)
        w->buckets[i] = NO_ID;
    for (size_t i = 0; i < w->nst; i++) {
        if (w->st[i].text == NULL)
            continue;
        size_t b = w->st[i].hash & (nb - 1);
        w->st[i].next = w->buckets[b];
        w->buckets[b] = (uint32_t)i;
    }
}

static uint32_t intern(live_window *w, const char *stack, size_t len)
{
    uint64_t h = fnv1a64(stack, len);
    size_t b = h & (w->nbuckets - 1);
    for (uint32_t i = w->buckets[b]; i != NO_ID; i = w->st[i].next)
        if (w->st[i].hash == h && w->st[i].len == len
            && memcmp(w->st[i].text, stack, len) == 0)
            return i;
    uint32_t id;
    if (w->free_head != NO_ID) {
        id = w->free_head;
        w->free_head = w->st[id].next;
    } else {
        if (w->nst == w->capst) {
            w->capst = w->capst ? w->capst * 2 : 256;
            w->st = xrealloc(w->st, w->capst * sizeof *w->st);
        }
        id = (uint32_t)w->nst++;
    }
    lw_stack_ent *e = &w->st[id];
    e->text = xrealloc(NULL, len + 1);
    memcpy(e->text, stack, len);
    e->text[len] = '\0';
    w->text_bytes += len + 1;
    e->len = (uint32_t)len;
    e->hash = h;
    e->refs = 0;
    e->next = w->buckets[b];
    w->buckets[b] = id;
    w->live++;
    if (w->live > w->nbuckets)
        rehash(w, w->nbuckets * 2);
    return id;
}

static void unref(live_window *w, uint32_t id)
{
    lw_stack_ent *e = &w->st[id];
    if (--e->refs > 0)
        return;
    size_t b = e->hash & (w->nbuckets - 1);
    uint32_t *p = &w->buckets[b];
    while (*p != id)
        p = &w->st[*p].next;
    *p = e->next;
    w->text_bytes -= e->len + 1;
    free(e->text);
    e->text = NULL;
    e->next = w->free_head;
    w->free_head = id;
    w->live--;
}

/* Keep the samples for which keep[i] (or t >= cutoff), in order. */
static size_t compact(live_window *w, int64_t cutoff, size_t drop_first)
{
    size_t out = 0;
    for (size_t i = 0; i < w->n; i++) {
        if (i < drop_first || (w->s[i].t_us < cutoff
                               && w->s[i].t_us != LW_UNTIMED)) {
            unref(w, w->s[i].stack);
            if (w->s[i].comm != LW_NONE)
                unref(w, w->s[i].comm);
            if (w->s[i].host != LW_NONE)
                unref(w, w->s[i].host);
        } else
            w->s[out++] = w->s[i];
    }
    size_t gone = w->n - out;
    w->n = out;
    return gone;
}

static uint32_t ref_name(live_window *w, const char *s, size_t len)
{
    if (s == NULL)
        return LW_NONE;
    uint32_t id = intern(w, s, len);
    w->st[id].refs++;
    return id;
}

static int32_t small_id(int64_t v)
{
    return v >= 0 && v <= INT32_MAX ? (int32_t)v : -1;
}

void lw_add_detail(live_window *w, const char *stack, size_t len,
                   double weight, int64_t t_ns, const lw_detail *d)
{
    int64_t t_us = t_ns == LW_UNTIMED ? LW_UNTIMED
                 : t_ns >= 0 ? t_ns / 1000 : -((-t_ns + 999) / 1000);
    lw_add(w, stack, len, weight, t_us);
    lw_sample *s = &w->s[w->n - 1];
    s->t_ns = t_ns == LW_UNTIMED ? 0 : (uint16_t)(t_ns - t_us * 1000);
    if (d == NULL)
        return;
    s->comm = ref_name(w, d->comm, d->comm_len);
    s->host = ref_name(w, d->host, d->host ? strlen(d->host) : 0);
    s->pid = small_id(d->pid);
    s->tid = small_id(d->tid);
    s->state = (uint8_t)d->state;
    s->timed = d->timed;
}

void lw_add(live_window *w, const char *stack, size_t len, double weight,
            int64_t t_us)
{
    if (w->max > 0 && w->n >= w->max) {
        /* over the cap: drop the oldest tenth of the arrivals */
        size_t k = w->max / 10 ? w->max / 10 : 1;
        w->dropped += compact(w, INT64_MIN, k);
    }
    if (w->n == w->cap) {
        w->cap = w->cap ? w->cap * 2 : 1024;
        w->s = xrealloc(w->s, w->cap * sizeof *w->s);
    }
    uint32_t id = intern(w, stack, len);
    w->st[id].refs++;
    w->s[w->n++] = (lw_sample){ .t_us = t_us, .weight = weight, .stack = id,
                                .comm = LW_NONE, .host = LW_NONE,
                                .pid = -1, .tid = -1 };
}

size_t lw_prune(live_window *w, int64_t cutoff_us)
{
    size_t gone = compact(w, cutoff_us, 0);
    /* give memory back once the window shrank a lot */
    if (w->cap > 4096 && w->n < w->cap / 4) {
        w->cap /= 2;
        w->s = xrealloc(w->s, w->cap * sizeof *w->s);
    }
    return gone;
}

size_t lw_count(const live_window *w) { return w->n; }

size_t lw_bytes(const live_window *w)
{
    return sizeof *w + w->cap * sizeof *w->s + w->capst * sizeof *w->st
           + w->nbuckets * sizeof *w->buckets + w->text_bytes;
}
size_t lw_nstacks(const live_window *w) { return w->live; }
uint64_t lw_dropped(const live_window *w) { return w->dropped; }

const lw_sample *lw_get(const live_window *w, size_t i)
{
    return i < w->n ? &w->s[i] : NULL;
}

const char *lw_stack(const live_window *w, uint32_t id, size_t *len)
{
    if (id >= w->nst || w->st[id].text == NULL)
        return NULL;
    if (len)
        *len = w->st[id].len;
    return w->st[id].text;
}

/* ---- atomic replacement ------------------------------------------------ */
int live_write_atomic(const char *dir, const char *name,
                      live_writer_fn writer, void *arg, strbuf *err)
{
    outfile of;
    FILE *fp = outfile_open(&of, dir, name, err);
    if (fp == NULL)
        return -1;
    if (writer(fp, arg) < 0) {
        sb_printf(err, "%s/%s: write error", dir, name);
        outfile_abort(&of);
        return -1;
    }
    return outfile_commit(&of, err);
}

/* ---- gaps -------------------------------------------------------------- */
void live_gaps_round(live_gaps *gs, bool ok, int64_t last_ok_us,
                     int64_t now_us)
{
    bool open = gs->n > 0 && gs->g[gs->n - 1].to_us < 0;
    if (ok && open) {
        gs->g[gs->n - 1].to_us = now_us;
    } else if (!ok && !open) {
        if (gs->n == LIVE_MAX_GAPS) {      /* forget the oldest */
            memmove(&gs->g[0], &gs->g[1], (LIVE_MAX_GAPS - 1) * sizeof gs->g[0]);
            gs->n--;
        }
        gs->g[gs->n++] = (live_gap){ last_ok_us, -1 };
    }
}

void live_gaps_prune(live_gaps *gs, int64_t cutoff_us)
{
    int out = 0;
    for (int i = 0; i < gs->n; i++)
        if (gs->g[i].to_us < 0 || gs->g[i].to_us >= cutoff_us)
            gs->g[out++] = gs->g[i];
    gs->n = out;
}

static void hms(strbuf *out, int64_t us)
{
    time_t t = (time_t)(us / 1000000);
    struct tm tm;
    localtime_r(&t, &tm);
    sb_printf(out, "%02d:%02d:%02d", tm.tm_hour, tm.tm_min, tm.tm_sec);
}

void live_gaps_text(const live_gaps *gs, const char *sep, strbuf *out)
{
    for (int i = 0; i < gs->n; i++) {
        if (i)
            sb_adds(out, sep);
        if (gs->g[i].to_us < 0) {
            sb_adds(out, "no data since ");
            hms(out, gs->g[i].from_us);
        } else {
            sb_adds(out, "no data from ");
            hms(out, gs->g[i].from_us);
            sb_adds(out, " to ");
            hms(out, gs->g[i].to_us);
        }
        sb_adds(out, " (pmcd unreachable)");
    }
}
