/* flametree: merge stacks into a frame tree (see flametree.h). */
#include "client/flametree.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "client/strbuf.h"

static void *xrealloc(void *p, size_t n)
{
    void *q = realloc(p, n);
    if (q == NULL) {
        fprintf(stderr, "staprelay: out of memory\n");
        abort();
    }
    return q;
}

static uint32_t new_node(flametree *t, uint32_t parent, const char *name,
                         size_t len)
{
    if (t->n == t->cap) {
        t->cap = t->cap ? t->cap * 2 : 1024;
        t->nodes = xrealloc(t->nodes, t->cap * sizeof *t->nodes);
    }
    uint32_t id = (uint32_t)t->n++;
    ft_node *nd = &t->nodes[id];
    memset(nd, 0, sizeof *nd);
    nd->name = name;
    nd->name_len = (uint32_t)len;
    nd->parent = parent;
    nd->first_child = nd->last_child = nd->next_sibling = FT_NONE;
    if (parent != FT_NONE) {
        ft_node *p = &t->nodes[parent];
        nd->depth = p->depth + 1;
        if (p->last_child == FT_NONE)
            p->first_child = id;
        else
            t->nodes[p->last_child].next_sibling = id;
        p->last_child = id;
        if (nd->depth > t->maxdepth)
            t->maxdepth = nd->depth;
    }
    return id;
}

flametree *flametree_new(void)
{
    flametree *t = calloc(1, sizeof *t);
    if (t == NULL)
        abort();
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

void flametree_add(flametree *t, const char *stack, size_t len,
                   double value, double delta, bool has_delta)
{
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
        if (last != FT_NONE && t->nodes[last].name_len == nlen
            && memcmp(t->nodes[last].name, name, nlen) == 0)
            cur = last;
        else
            cur = new_node(t, cur, name, nlen);
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

flametree *flametree_build(const stacktab *tab, const ft_options *opt)
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

    if (opt->flamechart) {
        const stack_event *ev = stacktab_sequence(src);
        for (size_t i = 0; i < stacktab_sequence_len(src); i++) {
            const stack_entry *e = stacktab_entry(src, ev[i].entry);
            stack_entry one = *e;
            one.count[0] = ev[i].col == 0 ? ev[i].weight : 0;
            one.count[1] = ev[i].col == 1 ? ev[i].weight : 0;
            double v, d;
            if (entry_weights(&one, opt->mode, &v, &d))
                flametree_add(t, e->stack, e->len, v, d, has_delta);
        }
    } else {
        size_t *order = stacktab_sorted(src, STACK_ORDER_FRAMES);
        for (size_t i = 0; i < stacktab_size(src); i++) {
            const stack_entry *e = stacktab_entry(src, order[i]);
            double v, d;
            if (entry_weights(e, opt->mode, &v, &d))
                flametree_add(t, e->stack, e->len, v, d, has_delta);
        }
        free(order);
    }
    /* names point into src's keys; the reversed table is temporary,
     * so move the names into storage the tree owns */
    if (reversed) {
        strbuf arena = STRBUF_INIT;
        size_t *offs = malloc(t->n * sizeof *offs);
        if (!offs)
            abort();
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
    if (opt->sort_weight)
        flametree_sort_by_weight(t);
    flametree_layout(t);
    return t;
}

static int cmp_weight_desc(const void *pa, const void *pb, void *ctx)
{
    const ft_node *nodes = ctx;
    const ft_node *a = &nodes[*(const uint32_t *)pa];
    const ft_node *b = &nodes[*(const uint32_t *)pb];
    if (a->value != b->value)
        return a->value > b->value ? -1 : 1;
    size_t n = a->name_len < b->name_len ? a->name_len : b->name_len;
    int c = memcmp(a->name, b->name, n);
    if (c)
        return c;
    return a->name_len < b->name_len ? -1 : a->name_len > b->name_len;
}

void flametree_sort_by_weight(flametree *t)
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

void flametree_layout(flametree *t)
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
