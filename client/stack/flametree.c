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

/* Pruning while flowing.  In flow order a frame is final ("closed") as
 * soon as a stack diverges above it, and everything created after it is
 * its subtree: a closed frame too narrow to draw is dropped with its
 * subtree by truncating the node array.  x is given at creation (the
 * layout order is the creation order unless sorting by weight), from the
 * closed siblings, with the very additions flametree_layout makes. */
typedef struct flow {
    flametree *t;
    double     min;        /* narrower frames are not drawn */
    double    *next_x;     /* per depth: x of the next child; NULL: no
                            * pruning (x is left to flametree_layout) */
    size_t     nx;
} flow;

static bool flow_is_child(const flametree *t, uint32_t c, uint32_t parent)
{
    return c != FT_NONE && c < t->n && t->nodes[c].parent == parent;
}

/* Close top and the chain of last children under it, deepest first. */
static void flow_close(flow *f, uint32_t top)
{
    flametree *t = f->t;
    uint32_t n = top;
    while (flow_is_child(t, t->nodes[n].last_child, n))
        n = t->nodes[n].last_child;
    for (;;) {
        const ft_node *nd = &t->nodes[n];
        uint32_t parent = nd->parent;
        f->next_x[nd->depth] = nd->x + nd->value;
        if (!(nd->value > 0 && nd->value >= f->min))
            t->n = n;
        if (n == top)
            break;
        n = parent;
    }
}

static void flow_add(flow *f, const char *stack, size_t len, double value,
                     double delta, bool has_delta)
{
    flametree *t = f->t;
    uint32_t cur = 0;
    t->nodes[0].value += value;
    size_t i = 0;
    while (len > 0 && i <= len) {
        size_t j = i;
        while (j < len && stack[j] != ';')
            j++;
        const char *name = stack + i;
        size_t nlen = j - i;
        uint32_t last = t->nodes[cur].last_child;
        bool child = flow_is_child(t, last, cur);
        if (child && t->nodes[last].name_len == nlen
            && memcmp(t->nodes[last].name, name, nlen) == 0) {
            cur = last;
        } else if (f->next_x == NULL) {
            cur = new_node(t, cur, name, nlen);
        } else {
            if (child)
                flow_close(f, last);
            uint32_t d = t->nodes[cur].depth + 1;
            if (d + 2 > f->nx) {
                f->nx = (d + 2) * 2;
                f->next_x = xrealloc(f->next_x, f->nx * sizeof *f->next_x);
            }
            double x = f->next_x[d];
            cur = new_node(t, cur, name, nlen);
            t->nodes[cur].x = x;
            f->next_x[d + 1] = x;
        }
        t->nodes[cur].value += value;
        i = j + 1;
        if (j == len)
            break;
    }
    if (has_delta) {
        t->has_delta = true;
        t->nodes[cur].delta += delta;
        if (fabs(t->nodes[cur].delta) > t->maxdelta)
            t->maxdelta = fabs(t->nodes[cur].delta);
    }
}

/* After pruning: sibling links from the array (creation order). */
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
        }
    }
}

static flametree *build_flow(const stacktab *tab, const ft_options *opt)
{
    flametree *t = flametree_new();
    bool has_delta = opt->mode != FT_SINGLE;
    const stacktab *src = tab;
    stacktab *reversed = NULL;
    if (opt->reverse) {
        /* --reverse: merge on reversed keys, as flamegraph.pl does */
        reversed = stacktab_new();
        stacktab_keep_sequence(reversed, opt->flamechart);
        strbuf tmp = STRBUF_INIT;
        if (opt->flamechart) {
            const stack_event *ev = stacktab_sequence(tab);
            for (size_t i = 0; i < stacktab_sequence_len(tab); i++) {
                const stack_entry *e = stacktab_entry(tab, ev[i].entry);
                reverse_frames(&tmp, e->stack, e->len);
                stacktab_add(reversed, tmp.buf, tmp.len, (int)ev[i].col,
                             ev[i].weight);
            }
        } else {
            for (size_t i = 0; i < stacktab_size(tab); i++) {
                const stack_entry *e = stacktab_entry(tab, i);
                reverse_frames(&tmp, e->stack, e->len);
                for (int c = 0; c < 2; c++)
                    if (e->count[c] != 0)
                        stacktab_add(reversed, tmp.buf, tmp.len, c,
                                     e->count[c]);
            }
        }
        sb_free(&tmp);
        src = reversed;
    }

    /* the stacks in flow order: arrival (flame charts) or by frames */
    size_t nflow;
    const stack_event *ev = NULL;
    size_t *order = NULL;
    if (opt->flamechart) {
        ev = stacktab_sequence(src);
        nflow = stacktab_sequence_len(src);
    } else {
        order = stacktab_sorted(src, STACK_ORDER_FRAMES);
        nflow = stacktab_size(src);
    }
    flow f = { t, 0, NULL, 0 };
    bool prune = opt->prune.enabled;
    for (int pass = prune ? 0 : 1; pass < 2; pass++) {
        /* pass 0 sums the total, in flow order like the root's, for
         * the pruning threshold */
        double total = 0;
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
            double v, d;
            if (!entry_weights(&one, opt->mode, &v, &d))
                continue;
            if (pass == 0)
                total += v;
            else
                flow_add(&f, e->stack, e->len, v, d, has_delta);
        }
        if (pass == 0) {
            f.min = ft_min_weight(total, opt->prune.width,
                                  opt->prune.minwidth, opt->prune.pct);
            f.nx = 64;
            f.next_x = xmalloc(f.nx * sizeof *f.next_x);
            f.next_x[1] = 0;
        }
    }
    free(order);
    if (prune) {
        if (flow_is_child(t, t->nodes[0].last_child, 0))
            flow_close(&f, t->nodes[0].last_child);
        free(f.next_x);
        flow_relink(t);
    }
    /* names point into src's keys; the reversed table is temporary,
     * so move the names into storage the tree owns */
    if (reversed) {
        strbuf arena = STRBUF_INIT;
        size_t *offs = xmalloc(t->n * sizeof *offs);
        for (size_t i = 0; i < t->n; i++) {
            offs[i] = arena.len;
            sb_add(&arena, t->nodes[i].name, t->nodes[i].name_len);
        }
        char *base = sb_steal(&arena);
        for (size_t i = 0; i < t->n; i++)
            t->nodes[i].name = base + offs[i];
        free(offs);
        stacktab_free(reversed);
        t->owned_names = base;
    }
    /* pruned siblings sort after every drawn one (they are narrower),
     * so sorting and laying out what is left gives the same x */
    if (opt->sort_weight)
        flametree_sort_by_weight(t);
    if (opt->sort_weight || !prune)
        flametree_layout(t);
    return t;
}

/* ---- by levels ---------------------------------------------------- */

/* A frame seen at the current depth under a node of the previous one:
 * becomes a node if it is wide enough. */
typedef struct cand {
    const char *name;
    uint32_t    len;
    uint32_t    parent;   /* node id (creation order) */
    uint32_t    slot;     /* its hash slot, to clear it */
    uint32_t    node;     /* node made of it, or FT_NONE */
    uint64_t    hash;
    double      value;
    double      x;        /* left offset in weight units */
} cand;

#define POS_DONE UINT32_MAX

/* The next frame of a stack: forward, frames are the ';'-separated
 * pieces of the key; reversed, the same pieces from the last. */
static void next_frame(const stack_entry *e, bool reverse, uint32_t *pos,
                       const char **name, uint32_t *len)
{
    const char *s = e->stack;
    if (!reverse) {
        uint32_t i = *pos;
        const char *semi = memchr(s + i, ';', e->len - i);
        uint32_t j = semi ? (uint32_t)(semi - s) : e->len;
        *name = s + i;
        *len = j - i;
        *pos = j == e->len ? POS_DONE : j + 1;
    } else {
        uint32_t j = *pos;
        const char *semi = memrchr(s, ';', j);
        uint32_t i = semi ? (uint32_t)(semi - s) + 1 : 0;
        *name = s + i;
        *len = j - i;
        *pos = i == 0 ? POS_DONE : i - 1;
    }
}

static int cmp_cand_name(const void *pa, const void *pb, void *ctx)
{
    const cand *cs = ctx;
    const cand *a = &cs[*(const uint32_t *)pa];
    const cand *b = &cs[*(const uint32_t *)pb];
    return stack_bytes_cmp(a->name, a->len, b->name, b->len);
}

static int cmp_cand_weight(const void *pa, const void *pb, void *ctx)
{
    const cand *cs = ctx;
    const cand *a = &cs[*(const uint32_t *)pa];
    const cand *b = &cs[*(const uint32_t *)pb];
    return widest_first(a->value, a->name, a->len, b->value, b->name, b->len);
}

/* Renumber the nodes depth first.  On entry the children of a node are
 * consecutive ids in name order (level by level creation). */
static void to_depth_first(flametree *t)
{
    size_t n = t->n;
    uint32_t *size = xmalloc(n * sizeof *size);
    uint32_t *pre = xmalloc(n * sizeof *pre);
    for (size_t i = 0; i < n; i++)
        size[i] = 1;
    for (size_t i = n; i-- > 1;)
        size[t->nodes[i].parent] += size[i];
    /* a node's children are consecutive ids, parents before them */
    pre[0] = 0;
    uint32_t parent = FT_NONE, next = 0;
    for (size_t i = 1; i < n; i++) {
        if (t->nodes[i].parent != parent) {
            parent = t->nodes[i].parent;
            next = pre[parent] + 1;
        }
        pre[i] = next;
        next += size[i];
    }
    free(size);
    /* links to the new ids first, then move each node to its place by
     * following the permutation's cycles: no second node array */
    ft_node *nodes = t->nodes;
#define REMAP(v) ((v) == FT_NONE ? FT_NONE : pre[v])
    for (size_t i = 0; i < n; i++) {
        ft_node *nd = &nodes[i];
        nd->parent = REMAP(nd->parent);
        nd->first_child = REMAP(nd->first_child);
        nd->last_child = REMAP(nd->last_child);
        nd->next_sibling = REMAP(nd->next_sibling);
    }
#undef REMAP
    for (size_t i = 0; i < n; i++) {
        while (pre[i] != i) {
            uint32_t j = pre[i];
            ft_node tmp = nodes[j];
            nodes[j] = nodes[i];
            nodes[i] = tmp;
            pre[i] = pre[j];
            pre[j] = j;
        }
    }
    free(pre);
}

/* NULL when a weight is not an integer (or the total reaches 2^53): then
 * sums depend on their order and only build_flow gives flow()'s. */
static flametree *build_levels(const stacktab *tab, const ft_options *opt)
{
    size_t ntab = stacktab_size(tab);
    bool has_delta = opt->mode != FT_SINGLE;
    double total = 0, maxdelta = 1;
    size_t n = 0;
    for (size_t i = 0; i < ntab; i++) {
        double v, d;
        if (!entry_weights(stacktab_entry(tab, i), opt->mode, &v, &d))
            continue;
        if (!(v >= 0) || v != floor(v))
            return NULL;
        total += v;
        if (has_delta && fabs(d) > maxdelta)
            maxdelta = fabs(d);
        n++;
    }
    if (total >= 9007199254740992.0 || n >= UINT32_MAX)
        return NULL;

    flametree *t = flametree_new();
    t->nodes[0].value = total;
    if (n > 0 && has_delta) {
        t->has_delta = true;
        t->maxdelta = maxdelta;
    }
    double min_weight = 0;
    if (opt->prune.enabled)
        min_weight = ft_min_weight(total, opt->prune.width,
                                   opt->prune.minwidth, opt->prune.pct);

    /* the live stacks: those whose frames so far are all nodes; cur is
     * the node a stack has reached, then (during a depth) its frame's
     * candidate */
    uint32_t *live = xmalloc(n * sizeof *live);
    uint32_t *pos = xmalloc(n * sizeof *pos);
    uint32_t *cur = xmalloc(n * sizeof *cur);
    size_t nlive = 0;
    for (size_t i = 0; i < ntab; i++) {
        const stack_entry *e = stacktab_entry(tab, i);
        double v, d;
        if (!entry_weights(e, opt->mode, &v, &d))
            continue;
        live[nlive] = (uint32_t)i;
        pos[nlive] = e->len == 0 ? POS_DONE : opt->reverse ? e->len : 0;
        cur[nlive] = 0;
        nlive++;
    }
    size_t nslots = 1024;                      /* at least 2 * ncand */
    uint32_t *slots = xcalloc(nslots, sizeof *slots);  /* cand + 1 */
    cand *cands = xmalloc(n * sizeof *cands);
    uint32_t *order = xmalloc(n * sizeof *order);
    uint32_t *byw = xmalloc(n * sizeof *byw);
    uint32_t *gstart = NULL;
    size_t gcap = 0;

    uint32_t pstart = 0, pend = 1;     /* nodes of the previous depth */
    for (uint32_t depth = 1; nlive > 0; depth++) {
        /* 1. merge this depth's frames of the live stacks */
        size_t ncand = 0, w = 0;
        for (size_t k = 0; k < nlive; k++) {
            const stack_entry *e = stacktab_entry(tab, live[k]);
            double v, d;
            entry_weights(e, opt->mode, &v, &d);
            if (pos[k] == POS_DONE) {
                /* the stack ends at a node: its delta is that node's */
                if (has_delta)
                    t->nodes[cur[k]].delta += d;
                continue;
            }
            if (2 * (ncand + 1) > nslots) {
                free(slots);
                nslots *= 2;
                slots = xcalloc(nslots, sizeof *slots);
                for (size_t c = 0; c < ncand; c++) {
                    size_t j = cands[c].hash & (nslots - 1);
                    while (slots[j])
                        j = (j + 1) & (nslots - 1);
                    slots[j] = (uint32_t)c + 1;
                    cands[c].slot = (uint32_t)j;
                }
            }
            const char *name;
            uint32_t len;
            next_frame(e, opt->reverse, &pos[k], &name, &len);
            uint64_t h = stack_hash(name, len,
                                    ((uint64_t)cur[k] + 1) * STACK_HASH_SEED);
            size_t j = h & (nslots - 1);
            uint32_t c;
            for (;;) {
                uint32_t s = slots[j];
                if (s == 0) {
                    c = (uint32_t)ncand++;
                    cands[c] = (cand){ name, len, cur[k], (uint32_t)j,
                                       FT_NONE, h, 0, 0 };
                    slots[j] = c + 1;
                    break;
                }
                const cand *x = &cands[s - 1];
                if (x->hash == h && x->parent == cur[k] && x->len == len
                    && memcmp(x->name, name, len) == 0) {
                    c = s - 1;
                    break;
                }
                j = (j + 1) & (nslots - 1);
            }
            cands[c].value += v;
            live[w] = live[k];
            pos[w] = pos[k];
            cur[w] = c;
            w++;
        }
        nlive = w;
        if (ncand == 0)
            break;
        for (size_t c = 0; c < ncand; c++)
            slots[cands[c].slot] = 0;

        /* 2. group them by parent (counting sort; parents are the
         *    previous depth's nodes, ids pstart..pend-1) */
        size_t np = pend - pstart;
        if (np + 1 > gcap) {
            gcap = np + 1;
            gstart = xrealloc(gstart, gcap * sizeof *gstart);
        }
        memset(gstart, 0, (np + 1) * sizeof *gstart);
        for (size_t c = 0; c < ncand; c++)
            gstart[cands[c].parent - pstart + 1]++;
        for (size_t g = 0; g < np; g++)
            gstart[g + 1] += gstart[g];
        for (size_t c = 0; c < ncand; c++)
            order[gstart[cands[c].parent - pstart]++] = (uint32_t)c;
        for (size_t g = np; g > 0; g--)
            gstart[g] = gstart[g - 1];
        gstart[0] = 0;

        /* 3. per parent: siblings by name, x from the layout order,
         *    then nodes for the frames wide enough */
        for (size_t g = 0; g < np; g++) {
            uint32_t *kids = order + gstart[g];
            size_t nk = gstart[g + 1] - gstart[g];
            if (nk == 0)
                continue;
            uint32_t p = pstart + (uint32_t)g;
            if (nk > 1)
                qsort_r(kids, nk, sizeof *kids, cmp_cand_name, cands);
            uint32_t *lay = kids;
            if (opt->sort_weight && nk > 1) {
                memcpy(byw, kids, nk * sizeof *kids);
                qsort_r(byw, nk, sizeof *byw, cmp_cand_weight, cands);
                lay = byw;
            }
            /* x in layout order, over all siblings, drawn or not */
            double x = t->nodes[p].x;
            for (size_t i = 0; i < nk; i++) {
                cands[lay[i]].x = x;
                x += cands[lay[i]].value;
            }
            for (size_t i = 0; i < nk; i++) {
                cand *c = &cands[kids[i]];
                if (opt->prune.enabled
                    && !(c->value > 0 && c->value >= min_weight))
                    continue;
                c->node = push_node(t, p, c->name, c->len, depth, c->value,
                                    c->x);
            }
            /* siblings linked in layout order */
            uint32_t prev = FT_NONE;
            for (size_t i = 0; i < nk; i++) {
                uint32_t id = cands[lay[i]].node;
                if (id == FT_NONE)
                    continue;
                if (prev == FT_NONE)
                    t->nodes[p].first_child = id;
                else
                    t->nodes[prev].next_sibling = id;
                prev = id;
            }
            t->nodes[p].last_child = prev;
        }

        /* 4. stacks whose frame became a node go on */
        w = 0;
        for (size_t k = 0; k < nlive; k++) {
            uint32_t id = cands[cur[k]].node;
            if (id == FT_NONE)
                continue;
            live[w] = live[k];
            pos[w] = pos[k];
            cur[w] = id;
            w++;
        }
        nlive = w;
        pstart = pend;
        pend = (uint32_t)t->n;
    }
    free(live);
    free(pos);
    free(cur);
    free(slots);
    free(cands);
    free(order);
    free(byw);
    free(gstart);
    to_depth_first(t);
    return t;
}

flametree *flametree_build(const stacktab *tab, const ft_options *opt)
{
    if (!opt->flamechart) {
        flametree *t = build_levels(tab, opt);
        if (t)
            return t;
    }
    return build_flow(tab, opt);
}
