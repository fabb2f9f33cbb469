/* speedscope: speedscope JSON export (see speedscope.h).  Frame names
 * are interned in a small hash table so each appears once in
 * shared.frames. */
#include "client/render/speedscope.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/strbuf.h"
#include "client/stack/stacksink.h"
#include "client/util/utf8.h"
#include "common/xalloc.h"

typedef struct frame_index {
    stacktab *names;   /* reuse stacktab as a string → index map */
} frame_index;

static size_t intern(frame_index *fi, const char *s, size_t n)
{
    return stacktab_add(fi->names, s, n, 0, 0);
}

struct ss_sample {
    int64_t  when_ns;
    uint32_t entry;
    uint32_t col;
    uint64_t seq;        /* arrival: equal times keep it */
    double   weight;
};

void speedscope_timeline_observe(void *arg, size_t entry, int col,
                                 double weight, int64_t when_ns)
{
    speedscope_timeline *tl = arg;
    if (when_ns == STACK_TIME_UNKNOWN) {
        tl->untimed = true;
        return;
    }
    if (tl->n == tl->cap) {
        tl->cap = tl->cap ? tl->cap * 2 : 1024;
        tl->v = xrealloc(tl->v, tl->cap * sizeof *tl->v);
    }
    tl->v[tl->n] = (struct ss_sample){ when_ns, (uint32_t)entry,
                                       (uint32_t)(col < 0 ? 0 : col), tl->n,
                                       weight };
    tl->n++;
}

void speedscope_timeline_free(speedscope_timeline *tl)
{
    free(tl->v);
    memset(tl, 0, sizeof *tl);
}

const char *speedscope_unit(const char *countname)
{
    return countname && strcmp(countname, "ns") == 0 ? "nanoseconds" : "none";
}

static int by_time(const void *pa, const void *pb)
{
    const struct ss_sample *a = pa, *b = pb;
    if (a->when_ns != b->when_ns)
        return a->when_ns < b->when_ns ? -1 : 1;
    return a->seq < b->seq ? -1 : a->seq > b->seq;
}

/* Append one sample: the frame indices of stack e, root first. */
static void add_sample(frame_index *fi, strbuf *samples, strbuf *weights,
                       const stack_entry *e, double w, bool first)
{
    sb_adds(samples, first ? "[" : ",[");
    sb_adds(weights, first ? "" : ",");
    size_t a = 0;
    bool f1 = true;
    for (size_t j = 0; j <= e->len; j++) {
        if (j < e->len && e->stack[j] != ';')
            continue;
        if (j > a || e->len > 0) {
            sb_printf(samples, f1 ? "%zu" : ",%zu",
                      intern(fi, e->stack + a, j - a));
            f1 = false;
        }
        a = j + 1;
    }
    sb_addc(samples, ']');
    sb_addnum(weights, w);
}

/* The samples of column col in time order, adjacent identical stacks
 * merged; returns the total weight. */
static double timeline_samples(frame_index *fi, strbuf *samples,
                               strbuf *weights, const stacktab *tab,
                               int col, const speedscope_timeline *tl)
{
    struct ss_sample *v = xmalloc((tl->n ? tl->n : 1) * sizeof *v);
    size_t n = 0;
    for (size_t i = 0; i < tl->n; i++)
        if (tl->v[i].col == (uint32_t)col && tl->v[i].weight > 0)
            v[n++] = tl->v[i];
    qsort(v, n, sizeof *v, by_time);
    double total = 0;
    bool first = true;
    for (size_t i = 0; i < n;) {
        double w = 0;
        size_t j = i;
        while (j < n && v[j].entry == v[i].entry)
            w += v[j++].weight;
        add_sample(fi, samples, weights, stacktab_entry(tab, v[i].entry), w,
                   first);
        first = false;
        total += w;
        i = j;
    }
    free(v);
    return total;
}

/* Each distinct stack of column col once, with its total. */
static double table_samples(frame_index *fi, strbuf *samples, strbuf *weights,
                            const stacktab *tab, int col)
{
    size_t *order = stacktab_sorted(tab, STACK_ORDER_FRAMES);
    double total = 0;
    bool first = true;
    for (size_t i = 0; i < stacktab_size(tab); i++) {
        const stack_entry *e = stacktab_entry(tab, order[i]);
        double w = e->count[col];
        if (w <= 0)
            continue;
        add_sample(fi, samples, weights, e, w, first);
        first = false;
        total += w;
    }
    free(order);
    return total;
}

int speedscope_write(FILE *out, const stacktab *tab, int col,
                     const char *name, const char *unit,
                     const speedscope_timeline *tl)
{
    frame_index fi = { stacktab_new() };
    strbuf samples = STRBUF_INIT, weights = STRBUF_INIT;
    double total = 0;
    if (tl && !tl->untimed && tl->n > 0)
        total = timeline_samples(&fi, &samples, &weights, tab, col, tl);
    else
        total = table_samples(&fi, &samples, &weights, tab, col);

    strbuf sb = STRBUF_INIT;
    sb_adds(&sb, "{\"$schema\":\"https://www.speedscope.app/"
                 "file-format-schema.json\",\"shared\":{\"frames\":[");
    for (size_t i = 0; i < stacktab_size(fi.names); i++) {
        const stack_entry *e = stacktab_entry(fi.names, i);
        sb_adds(&sb, i ? ",{\"name\":\"" : "{\"name\":\"");
        json_escape(&sb, e->stack, e->len);
        sb_adds(&sb, "\"}");
    }
    sb_adds(&sb, "]},\"profiles\":[{\"type\":\"sampled\",\"name\":\"");
    json_escape(&sb, name, strlen(name));
    sb_adds(&sb, "\",\"unit\":\"");
    json_escape(&sb, unit, strlen(unit));
    sb_adds(&sb, "\",\"startValue\":0,\"endValue\":");
    sb_addnum(&sb, total);
    sb_adds(&sb, ",\"samples\":[");
    int rc = 0;
    if (fwrite(sb.buf, 1, sb.len, out) != sb.len
        || fwrite(samples.buf ? samples.buf : "", 1, samples.len, out)
               != samples.len)
        rc = -1;
    sb_reset(&sb);
    sb_adds(&sb, "],\"weights\":[");
    sb_add(&sb, weights.buf ? weights.buf : "", weights.len);
    sb_adds(&sb, "]}],\"name\":\"");
    json_escape(&sb, name, strlen(name));
    sb_adds(&sb, "\",\"activeProfileIndex\":0,\"exporter\":\"staprelay\"}\n");
    if (fwrite(sb.buf, 1, sb.len, out) != sb.len)
        rc = -1;
    sb_free(&sb);
    sb_free(&samples);
    sb_free(&weights);
    stacktab_free(fi.names);
    return rc;
}
