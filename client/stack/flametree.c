/* flametree: merge stacks into a frame tree (see flametree.h). */
#include "client/stack/flametree.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/strbuf.h"
#include "common/xalloc.h"

/* Append a node with no children; returns its id. */
static uint32_t push_node(flametree *t, uint32_t parent, const char *name,
                          uint32_t len, uint32_t depth, double value,
                          double x)
{
    if (t->n == t->cap) {
        t->cap = t->cap ? t->cap * 2 : 1024;
        t->nodes = xrealloc(t->nodes, t->cap * sizeof *t->nodes);
    }
    uint32_t id = (uint32_t)t->n++;
    t->nodes[id] = (ft_node){
        .name = name, .name_len = len, .parent = parent,
        .first_child = FT_NONE, .last_child = FT_NONE,
        .next_sibling = FT_NONE, .depth = depth, .value = value, .x = x,
        .end = x + value,
    };
    if (depth > t->maxdepth)
        t->maxdepth = depth;
    return id;
}

/* Append a node as the last child of parent (FT_NONE: the root). */
static uint32_t new_node(flametree *t, uint32_t parent, const char *name,
                         size_t len)
{
    uint32_t depth = parent != FT_NONE ? t->nodes[parent].depth + 1 : 0;
    uint32_t id = push_node(t, parent, name, (uint32_t)len, depth, 0, 0);
    if (parent != FT_NONE) {
        ft_node *p = &t->nodes[parent];
        if (p->last_child == FT_NONE)
            p->first_child = id;
        else
            t->nodes[p->last_child].next_sibling = id;
        p->last_child = id;
    }
    return id;
}

static flametree *flametree_new(void)
{
    flametree *t = xcalloc(1, sizeof *t);
    t->maxdelta = 1;
    new_node(t, FT_NONE, "all", 3);
    return t;
}

void flametree_free(flametree *t)
{
    if (t == NULL)
        return;
    free(t->nodes);
    free(t->owned_names);
    free(t);
}

/* Reverse the frame order of one folded stack into out. */
static void reverse_frames(strbuf *out, const char *s, size_t n)
{
    sb_reset(out);
    while (n > 0 && s[n - 1] == ';')     /* Perl's split drops them */
        n--;
    size_t end = n;
    for (size_t i = n; i-- > 0;) {
        if (s[i] == ';') {
            sb_add(out, s + i + 1, end - i - 1);
            sb_addc(out, ';');
            end = i;
        }
    }
    sb_add(out, s, end);
}

static bool entry_weights(const stack_entry *e, ft_mode mode, double *value,
                          double *delta)
{
    double a = e->count[0], b = e->count[1];
    *delta = b - a;
    switch (mode) {
    case FT_SINGLE:
        *value = a;
        return a > 0;
    case FT_DIFF:
        *value = b;
        return a > 0 || b > 0;
    case FT_ELIDED:
        if ((a > 0) == (b > 0))
            return false;
        *value = a > 0 ? a : b;
        return true;
    }
    return false;
}

/* ---- by flow ------------------------------------------------------ */

/* flamegraph.pl's flow(): the stacks in line order (or arrival order for
 * flame charts), each compared with the frames still open from the one
 * before; frames that differ are closed (their width is the time since
 * they opened) and the new ones open at the current time.  So a frame's
 * x is the time it opened, exactly as flamegraph.pl's stime, and frames
 * merge only with the stack right before -- "b" is drawn twice when a
 * sibling "b.cold" sorts between "a;b 5" and "a;b;c 3", as in
 * flamegraph.pl.
 *
 * Pruning while flowing: a closed frame is final, and everything made
 * after it is its subtree, so a closed frame too narrow to draw is
 * dropped with its subtree by truncating the node array. */
typedef struct flow {
    flametree *t;
    bool       prune;
    double     min;        /* narrower frames are not drawn */
    double     time;       /* flamegraph.pl's $time */
    uint32_t  *path;       /* the open frames by depth; path[0] = root */
    size_t     npath, cap;
} flow;

/* A frame's end as flamegraph.pl has it: flow() keys a closed frame by
 * "func;depth;etime", the time stringified with Perl's 15 significant
 * digits, and its drawing reads etime back from that key. */
static double perl_etime(double time)
{
    if (time == floor(time) && fabs(time) < 1e15)
        return time;
    char buf[64];
    snprintf(buf, sizeof buf, "%.15g", time);
    return strtod(buf, NULL);
}

/* Close the open frames at depth >= k, deepest first. */
static void flow_close(flow *f, size_t k)
{
    flametree *t = f->t;
    double end = f->npath > k ? perl_etime(f->time) : 0;
    while (f->npath > k) {
        uint32_t id = f->path[--f->npath];
        ft_node *nd = &t->nodes[id];
        nd->end = end;
        nd->value = end - nd->x;
        if (f->prune && !(nd->value > 0 && nd->value >= f->min))
            t->n = id;
    }
}

static void flow_open(flow *f, const char *name, size_t len)
{
    flametree *t = f->t;
    uint32_t parent = f->path[f->npath - 1];
    uint32_t id = push_node(t, parent, name, (uint32_t)len,
                            t->nodes[parent].depth + 1, 0, f->time);
    if (f->npath == f->cap) {
        f->cap *= 2;
        f->path = xrealloc(f->path, f->cap * sizeof *f->path);
    }
    f->path[f->npath++] = id;
}

/* One line of flow(): the frames of stack as Perl's split(";") gives
 * them (trailing empty frames dropped, others kept as they are). */
static void flow_add(flow *f, const char *stack, size_t len, double value,
                     bool has_delta, double delta)
{
    flametree *t = f->t;
    while (len > 0 && stack[len - 1] == ';')
        len--;
    size_t k = 1, pos = 0;
    bool same = true, opened = false;
    while (len > 0) {
        const char *semi = memchr(stack + pos, ';', len - pos);
        size_t j = semi ? (size_t)(semi - stack) : len;
        const char *name = stack + pos;
        size_t nlen = j - pos;
        if (same && k < f->npath) {
            const ft_node *nd = &t->nodes[f->path[k]];
            if (nd->name_len == nlen && memcmp(nd->name, name, nlen) == 0) {
                k++;
                pos = j + 1;
                if (j == len)
                    break;
                continue;
            }
        }
        if (same) {
            flow_close(f, k);
            same = false;
        }
        flow_open(f, name, nlen);
        opened = true;
        k++;
        pos = j + 1;
        if (j == len)
            break;
    }
    if (same)
        flow_close(f, k);
    /* flow() adds the delta to the leaf only when it opened it */
    if (has_delta && opened)
        t->nodes[f->path[f->npath - 1]].delta += delta;
    f->time += value;
}

/* Sibling links and depth from the array (creation order). */
static void flow_relink(flametree *t)
{
    t->maxdepth = 0;
    for (size_t i = 0; i < t->n; i++)
        t->nodes[i].first_child = t->nodes[i].last_child =
            t->nodes[i].next_sibling = FT_NONE;
    for (size_t i = 1; i < t->n; i++) {
        ft_node *p = &t->nodes[t->nodes[i].parent];
        if (p->last_child == FT_NONE)
            p->first_child = (uint32_t)i;
        else
            t->nodes[p->last_child].next_sibling = (uint32_t)i;
        p->last_child = (uint32_t)i;
        if (t->nodes[i].depth > t->maxdepth)
            t->maxdepth = t->nodes[i].depth;
    }
}

/* --sort weight's sibling order: widest first, then by name. */
static int widest_first(double va, const char *na, size_t la, double vb, const char *nb,
                        size_t lb)
{
    if (va != vb)
        return va > vb ? -1 : 1;
    return stack_bytes_cmp(na, la, nb, lb);
}

static int cmp_weight_desc(const void *pa, const void *pb, void *ctx)
{
    const ft_node *nodes = ctx;
    const ft_node *a = &nodes[*(const uint32_t *)pa];
    const ft_node *b = &nodes[*(const uint32_t *)pb];
    return widest_first(a->value, a->name, a->name_len, b->value, b->name, b->name_len);
}

static void flametree_sort_by_weight(flametree *t)
{
    uint32_t *kids = NULL;
    size_t cap = 0;
    for (size_t p = 0; p < t->n; p++) {
        size_t k = 0;
        for (uint32_t c = t->nodes[p].first_child; c != FT_NONE;
             c = t->nodes[c].next_sibling) {
            if (k == cap) {
                cap = cap ? cap * 2 : 64;
                kids = xrealloc(kids, cap * sizeof *kids);
            }
            kids[k++] = c;
        }
        if (k < 2)
            continue;
        qsort_r(kids, k, sizeof *kids, cmp_weight_desc, t->nodes);
        t->nodes[p].first_child = kids[0];
        for (size_t i = 0; i + 1 < k; i++)
            t->nodes[kids[i]].next_sibling = kids[i + 1];
        t->nodes[kids[k - 1]].next_sibling = FT_NONE;
        t->nodes[p].last_child = kids[k - 1];
    }
    free(kids);
}

static void flametree_layout(flametree *t)
{
    if (t->n == 0)
        return;
    t->nodes[0].x = 0;
    /* parents precede children in the array, so one forward pass */
    for (size_t p = 0; p < t->n; p++) {
        double x = t->nodes[p].x;
        for (uint32_t c = t->nodes[p].first_child; c != FT_NONE;
             c = t->nodes[c].next_sibling) {
            t->nodes[c].x = x;
            x += t->nodes[c].value;
            t->nodes[c].end = x;
        }
    }
}

/* The table with every stack's frames reversed (--reverse), as
 * flamegraph.pl reverses each line before it sorts them. */
static stacktab *reversed_table(const stacktab *tab, bool flamechart)
{
    stacktab *rev = stacktab_new();
    stacktab_keep_sequence(rev, flamechart);
    strbuf tmp = STRBUF_INIT;
    if (flamechart) {
        const stack_event *ev = stacktab_sequence(tab);
        for (size_t i = 0; i < stacktab_sequence_len(tab); i++) {
            const stack_entry *e = stacktab_entry(tab, ev[i].entry);
            reverse_frames(&tmp, e->stack, e->len);
            stacktab_add(rev, tmp.buf, tmp.len, (int)ev[i].col, ev[i].weight);
        }
    } else {
        for (size_t i = 0; i < stacktab_size(tab); i++) {
            const stack_entry *e = stacktab_entry(tab, i);
            reverse_frames(&tmp, e->stack, e->len);
            for (int c = 0; c < 2; c++)
                if (e->count[c] != 0)
                    stacktab_add(rev, tmp.buf, tmp.len, c, e->count[c]);
        }
    }
    sb_free(&tmp);
    return rev;
}

/* Names point into a temporary table's keys: copy them into storage
 * the tree owns. */
static void own_names(flametree *t)
{
    strbuf arena = STRBUF_INIT;
    size_t *offs = xmalloc((t->n ? t->n : 1) * sizeof *offs);
    for (size_t i = 0; i < t->n; i++) {
        offs[i] = arena.len;
        sb_add(&arena, t->nodes[i].name, t->nodes[i].name_len);
    }
    sb_addc(&arena, '\0');
    char *base = sb_steal(&arena);
    for (size_t i = 0; i < t->n; i++)
        t->nodes[i].name = base + offs[i];
    free(offs);
    t->owned_names = base;
}

flametree *flametree_build(const stacktab *tab, const ft_options *opt)
{
    flametree *t = flametree_new();
    bool has_delta = opt->mode != FT_SINGLE;
    stacktab *reversed = opt->reverse ? reversed_table(tab, opt->flamechart)
                                      : NULL;
    const stacktab *src = reversed ? reversed : tab;

    /* the lines in flow order: arrival (flame charts) or sorted */
    size_t nflow;
    const stack_event *ev = NULL;
    size_t *order = NULL;
    if (opt->flamechart) {
        ev = stacktab_sequence(src);
        nflow = stacktab_sequence_len(src);
    } else {
        order = stacktab_sorted(src, STACK_ORDER_LINES);
        nflow = stacktab_size(src);
    }
    flow f = { .t = t, .prune = opt->prune.enabled, .cap = 64 };
    f.path = xmalloc(f.cap * sizeof *f.path);
    f.path[f.npath++] = 0;
    /* pass 0 sums the total (flamegraph.pl's timemax, the pruning
     * threshold's base) in flow order, as flow() does */
    for (int pass = f.prune ? 0 : 1; pass < 2; pass++) {
        f.time = 0;
        for (size_t i = 0; i < nflow; i++) {
            const stack_entry *e;
            stack_entry one;
            if (ev) {
                e = stacktab_entry(src, ev[i].entry);
                one = *e;
                one.count[0] = ev[i].col == 0 ? ev[i].weight : 0;
                one.count[1] = ev[i].col == 1 ? ev[i].weight : 0;
            } else {
                e = stacktab_entry(src, order[i]);
                one = *e;
            }
            /* a two-column line arrived as its column 0 then column 1 */
            if (ev && ev[i].col == 0 && i + 1 < nflow && ev[i + 1].col == 1
                && ev[i + 1].entry == ev[i].entry) {
                one.count[1] = ev[i + 1].weight;
                i++;
            }
            double v, d;
            if (!entry_weights(&one, opt->mode, &v, &d))
                continue;
            if (pass == 0) {
                f.time += v;
                continue;
            }
            flow_add(&f, e->stack, e->len, v, has_delta, d);
            if (has_delta) {
                t->has_delta = true;
                if (fabs(d) > t->maxdelta)
                    t->maxdelta = fabs(d);
            }
        }
        if (pass == 0)
            f.min = ft_min_weight(f.time, opt->prune.width,
                                  opt->prune.minwidth, opt->prune.pct);
    }
    flow_close(&f, 1);
    t->nodes[0].value = t->nodes[0].end = f.time;   /* flamegraph.pl: timemax */
    free(f.path);
    free(order);
    flow_relink(t);
    if (reversed) {
        own_names(t);
        stacktab_free(reversed);
    }
    if (opt->sort_weight) {
        flametree_sort_by_weight(t);
        flametree_layout(t);
    }
    return t;
}
