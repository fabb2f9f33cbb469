/* callgraph: pprof's call graph and its trimming (see callgraph.h). */
#include "client/stack/callgraph.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "common/xalloc.h"

/* The stacks as name ids, root first, with their weights. */
typedef struct stacks {
    uint32_t *ids;
    size_t   *start;     /* stack i is ids[start[i] .. start[i + 1]) */
    double   *weight;
    size_t    n;
} stacks;

typedef struct wedge {
    uint32_t src, dst;
    double   w;
    bool     residual, alive;
    uint32_t stamp;      /* the last stack that counted it */
} wedge;

/* A graph over the name ids, built from the stacks and a kept set. */
typedef struct wgraph {
    size_t    nnames;
    double   *flat, *cum;
    uint32_t *stamp;     /* the last stack that counted the node */
    wedge    *e;
    size_t    ne, ecap;
    uint32_t *slots;     /* edge hash: index + 1 */
    size_t    nslots;
    uint32_t *nodes;     /* the nodes present, in order */
    size_t    n;
} wgraph;

/* ---- the stacks ---------------------------------------------------------------- */

static void split_stacks(const stacktab *tab, int col, stacktab *names,
                         stacks *st)
{
    size_t n = stacktab_size(tab), nids = 0, cap = 1024;
    st->ids = xmalloc(cap * sizeof *st->ids);
    st->start = xmalloc((n + 1) * sizeof *st->start);
    st->weight = xmalloc((n + 1) * sizeof *st->weight);
    st->n = 0;
    for (size_t i = 0; i < n; i++) {
        const stack_entry *e = stacktab_entry(tab, i);
        if (e->count[col] == 0 || e->len == 0)
            continue;
        st->start[st->n] = nids;
        st->weight[st->n++] = e->count[col];
        size_t a = 0;
        for (size_t j = 0; j <= e->len; j++) {
            if (j < e->len && e->stack[j] != ';')
                continue;
            if (nids == cap) {
                cap *= 2;
                st->ids = xrealloc(st->ids, cap * sizeof *st->ids);
            }
            st->ids[nids++] = (uint32_t)stacktab_add(names, e->stack + a,
                                                     j - a, 0, 0);
            a = j + 1;
        }
    }
    st->start[st->n] = nids;
}

static void free_stacks(stacks *st)
{
    free(st->ids);
    free(st->start);
    free(st->weight);
}

/* ---- a graph ----------------------------------------------------------------------- */

static wedge *edge(wgraph *g, uint32_t src, uint32_t dst)
{
    uint64_t h = ((uint64_t)src * 0x9E3779B97F4A7C15ull) ^ (dst * 0xC2B2AE3D27D4EB4Full);
    size_t j = (size_t)(h ^ (h >> 29)) & (g->nslots - 1);
    for (;;) {
        uint32_t v = g->slots[j];
        if (v == 0)
            break;
        if (g->e[v - 1].src == src && g->e[v - 1].dst == dst)
            return &g->e[v - 1];
        j = (j + 1) & (g->nslots - 1);
    }
    if (g->ne == g->ecap) {
        g->ecap = g->ecap ? g->ecap * 2 : 256;
        g->e = xrealloc(g->e, g->ecap * sizeof *g->e);
    }
    g->e[g->ne] = (wedge){ src, dst, 0, false, true, UINT32_MAX };
    g->slots[j] = (uint32_t)++g->ne;
    if (g->ne * 2 > g->nslots) {          /* rehash at half full */
        free(g->slots);
        g->nslots *= 2;
        g->slots = xcalloc(g->nslots, sizeof *g->slots);
        for (size_t i = 0; i < g->ne; i++) {
            uint64_t hh = ((uint64_t)g->e[i].src * 0x9E3779B97F4A7C15ull)
                          ^ (g->e[i].dst * 0xC2B2AE3D27D4EB4Full);
            size_t k = (size_t)(hh ^ (hh >> 29)) & (g->nslots - 1);
            while (g->slots[k])
                k = (k + 1) & (g->nslots - 1);
            g->slots[k] = (uint32_t)(i + 1);
        }
        return edge(g, src, dst);
    }
    return &g->e[g->ne - 1];
}

static void free_graph(wgraph *g)
{
    free(g->flat);
    free(g->cum);
    free(g->stamp);
    free(g->e);
    free(g->slots);
    free(g->nodes);
    memset(g, 0, sizeof *g);
}

/* pprof's newGraph: kept NULL keeps every node. */
static void build(wgraph *g, const stacks *st, size_t nnames, const bool *kept)
{
    memset(g, 0, sizeof *g);
    g->nnames = nnames;
    g->flat = xcalloc(nnames + 1, sizeof *g->flat);
    g->cum = xcalloc(nnames + 1, sizeof *g->cum);
    g->stamp = xmalloc((nnames + 1) * sizeof *g->stamp);
    memset(g->stamp, 0xff, (nnames + 1) * sizeof *g->stamp);
    g->nslots = 1024;
    g->slots = xcalloc(g->nslots, sizeof *g->slots);
    for (size_t s = 0; s < st->n; s++) {
        double w = st->weight[s];
        bool residual = false, have_parent = false;
        uint32_t parent = 0;
        for (size_t k = st->start[s]; k < st->start[s + 1]; k++) {
            uint32_t n = st->ids[k];
            if (kept && !kept[n]) {
                residual = true;
                continue;
            }
            if (g->stamp[n] != (uint32_t)s) {
                g->stamp[n] = (uint32_t)s;
                g->cum[n] += w;
            }
            if (have_parent && n != parent) {
                wedge *e = edge(g, parent, n);
                if (e->stamp != (uint32_t)s) {
                    e->stamp = (uint32_t)s;
                    e->w += w;
                    if (residual)
                        e->residual = true;
                }
            }
            parent = n;
            have_parent = true;
            residual = false;
        }
        if (have_parent && !residual)
            g->flat[parent] += w;
    }
    g->nodes = xmalloc((nnames + 1) * sizeof *g->nodes);
    for (uint32_t i = 0; i < nnames; i++)
        if (g->cum[i] != 0 || g->flat[i] != 0)
            g->nodes[g->n++] = i;
}

/* ---- pprof's entropy order --------------------------------------------------------- */

/* Sort keys carry what they compare (qsort has no context argument). */
typedef struct node_key {
    double      score, flat;
    const char *name;
    uint32_t    len, id;
} node_key;

typedef struct edge_key {
    double      w;
    const char *src, *dst;
    uint32_t    slen, dlen;
    size_t      index;
} edge_key;

static int cmp_entropy(const void *pa, const void *pb)
{
    const node_key *a = pa, *b = pb;
    if (fabs(a->score) != fabs(b->score))
        return fabs(a->score) > fabs(b->score) ? -1 : 1;
    int n = stack_bytes_cmp(a->name, a->len, b->name, b->len);
    if (n)
        return n;
    if (fabs(a->flat) != fabs(b->flat))
        return fabs(a->flat) > fabs(b->flat) ? -1 : 1;
    return 0;
}

/* Heaviest first, then by caller and callee name (pprof's edgeList). */
static int cmp_edges(const void *pa, const void *pb)
{
    const edge_key *a = pa, *b = pb;
    if (a->w != b->w)
        return fabs(a->w) > fabs(b->w) ? -1 : 1;
    int c = stack_bytes_cmp(a->src, a->slen, b->src, b->slen);
    return c ? c : stack_bytes_cmp(a->dst, a->dlen, b->dst, b->dlen);
}

/* Sort edge indices idx[0..n) of g with cmp_edges. */
static void sort_edges(const wgraph *g, const stacktab *names, size_t *idx,
                       size_t n)
{
    edge_key *k = xmalloc((n + 1) * sizeof *k);
    for (size_t i = 0; i < n; i++) {
        const wedge *e = &g->e[idx[i]];
        const stack_entry *s = stacktab_entry(names, e->src);
        const stack_entry *d = stacktab_entry(names, e->dst);
        k[i] = (edge_key){ e->w, s->stack, d->stack, s->len, d->len, idx[i] };
    }
    qsort(k, n, sizeof *k, cmp_edges);
    for (size_t i = 0; i < n; i++)
        idx[i] = k[i].index;
    free(k);
}

/* pprof's entropyScore of every node, from its live edges. */
static void entropy_scores(const wgraph *g, double *score)
{
    size_t nn = g->nnames;
    double *in_total = xcalloc(nn, sizeof *in_total);
    double *out_total = xcalloc(nn, sizeof *out_total);
    double *in_h = xcalloc(nn, sizeof *in_h), *out_h = xcalloc(nn, sizeof *out_h);
    size_t *nin = xcalloc(nn, sizeof *nin), *nout = xcalloc(nn, sizeof *nout);
    for (size_t i = 0; i < g->ne; i++) {
        const wedge *e = &g->e[i];
        if (!e->alive)
            continue;
        nin[e->dst]++;
        nout[e->src]++;
        if (e->w > 0) {
            in_total[e->dst] += fabs(e->w);
            out_total[e->src] += fabs(e->w);
        }
    }
    for (size_t i = 0; i < nn; i++)
        out_total[i] += g->flat[i];       /* self counts on the way out */
    for (size_t i = 0; i < g->ne; i++) {
        const wedge *e = &g->e[i];
        if (!e->alive)
            continue;
        if (in_total[e->dst] != 0) {
            double f = fabs(e->w) / in_total[e->dst];
            in_h[e->dst] += f > 0 ? -f * log2(f) : 0;
        }
        if (out_total[e->src] != 0) {
            double f = fabs(e->w) / out_total[e->src];
            out_h[e->src] += f > 0 ? -f * log2(f) : 0;
        }
    }
    for (size_t k = 0; k < g->n; k++) {
        uint32_t n = g->nodes[k];
        double s = 0;
        s += nin[n] == 0 ? 1 : in_h[n];
        if (nout[n] == 0) {
            s += 1;
        } else {
            double h = out_h[n];
            if (g->flat[n] > 0 && out_total[n] != 0) {
                double f = fabs(g->flat[n]) / out_total[n];
                h += -f * log2(f);
            }
            s += h;
        }
        score[n] = trunc(s * g->cum[n]) + g->flat[n];
    }
    free(in_total);
    free(out_total);
    free(in_h);
    free(out_h);
    free(nin);
    free(nout);
}

static void sort_nodes(wgraph *g, const stacktab *names)
{
    double *score = xcalloc(g->nnames + 1, sizeof *score);
    entropy_scores(g, score);
    node_key *k = xmalloc((g->n + 1) * sizeof *k);
    for (size_t i = 0; i < g->n; i++) {
        uint32_t n = g->nodes[i];
        const stack_entry *e = stacktab_entry(names, n);
        k[i] = (node_key){ score[n], g->flat[n], e->stack, e->len, n };
    }
    qsort(k, g->n, sizeof *k, cmp_entropy);
    for (size_t i = 0; i < g->n; i++)
        g->nodes[i] = k[i].id;
    free(k);
    free(score);
}

static size_t trim_edges(wgraph *g, double cutoff)
{
    size_t dropped = 0;
    for (size_t i = 0; i < g->ne; i++)
        if (g->e[i].alive && fabs(g->e[i].w) < cutoff) {
            g->e[i].alive = false;
            dropped++;
        }
    return dropped;
}

/* ---- redundant residual edges ------------------------------------------------------ */

/* The live in-edges of each node: in[off[n] .. off[n + 1]). */
static void in_lists(const wgraph *g, size_t **off, size_t **in)
{
    *off = xcalloc(g->nnames + 2, sizeof **off);
    for (size_t i = 0; i < g->ne; i++)
        if (g->e[i].alive)
            (*off)[g->e[i].dst + 1]++;
    for (size_t i = 0; i < g->nnames; i++)
        (*off)[i + 1] += (*off)[i];
    size_t *fill = xmalloc((g->nnames + 1) * sizeof *fill);
    memcpy(fill, *off, (g->nnames + 1) * sizeof *fill);
    *in = xmalloc(((*off)[g->nnames] + 1) * sizeof **in);
    for (size_t i = 0; i < g->ne; i++)
        if (g->e[i].alive)
            (*in)[fill[g->e[i].dst]++] = i;
    free(fill);
}

/* pprof's isRedundantEdge: can e's caller reach e's callee without e? */
static bool redundant(const wgraph *g, size_t ei, const size_t *off,
                      const size_t *in, uint32_t *seen, uint32_t *queue)
{
    const wedge *e = &g->e[ei];
    size_t head = 0, tail = 0;
    memset(seen, 0, g->nnames * sizeof *seen);
    seen[e->dst] = 1;
    queue[tail++] = e->dst;
    while (head < tail) {
        uint32_t n = queue[head++];
        for (size_t k = off[n]; k < off[n + 1]; k++) {
            const wedge *ie = &g->e[in[k]];
            if (in[k] == ei || !ie->alive || seen[ie->src])
                continue;
            if (ie->src == e->src)
                return true;
            seen[ie->src] = 1;
            queue[tail++] = ie->src;
        }
    }
    return false;
}

static void remove_redundant_edges(wgraph *g, const stacktab *names)
{
    size_t *off, *in;
    in_lists(g, &off, &in);
    uint32_t *seen = xmalloc((g->nnames + 1) * sizeof *seen);
    uint32_t *queue = xmalloc((g->nnames + 1) * sizeof *queue);
    for (size_t i = g->n; i-- > 0;) {
        uint32_t n = g->nodes[i];
        size_t cnt = off[n + 1] - off[n];
        size_t *sorted = xmalloc((cnt + 1) * sizeof *sorted);
        memcpy(sorted, in + off[n], cnt * sizeof *sorted);
        sort_edges(g, names, sorted, cnt);
        for (size_t j = cnt; j-- > 0;) {
            wedge *e = &g->e[sorted[j]];
            if (!e->alive)
                continue;
            if (!e->residual)
                break;
            if (redundant(g, sorted[j], off, in, seen, queue))
                e->alive = false;
        }
        free(sorted);
    }
    free(off);
    free(in);
    free(seen);
    free(queue);
}

/* ---- the whole ---------------------------------------------------------------------- */

static bool *kept_set(const wgraph *g, size_t upto, double cum_cutoff)
{
    bool *kept = xcalloc(g->nnames + 1, sizeof *kept);
    for (size_t k = 0; k < g->n && k < upto; k++)
        if (fabs(g->cum[g->nodes[k]]) >= cum_cutoff)
            kept[g->nodes[k]] = true;
    return kept;
}

static size_t count_kept(const bool *kept, size_t n)
{
    size_t c = 0;
    for (size_t i = 0; i < n; i++)
        c += kept[i];
    return c;
}

/* The result: nodes in order, live edges sorted. */
static callgraph *export_graph(wgraph *g, stacktab *names, callgraph *cg)
{
    cg->nodes = xcalloc(g->n + 1, sizeof *cg->nodes);
    uint32_t *pos = xmalloc((g->nnames + 1) * sizeof *pos);
    for (size_t k = 0; k < g->n; k++) {
        uint32_t n = g->nodes[k];
        pos[n] = (uint32_t)k;
        cg->nodes[k] = (cg_node){ stacktab_entry(names, n)->stack,
                                  g->flat[n], g->cum[n] };
    }
    cg->nnodes = g->n;
    size_t *idx = xmalloc((g->ne + 1) * sizeof *idx), m = 0;
    for (size_t i = 0; i < g->ne; i++)
        if (g->e[i].alive)
            idx[m++] = i;
    sort_edges(g, names, idx, m);
    cg->edges = xcalloc(m + 1, sizeof *cg->edges);
    for (size_t i = 0; i < m; i++) {
        const wedge *e = &g->e[idx[i]];
        cg->edges[i] = (cg_edge){ pos[e->src], pos[e->dst], e->w, e->residual };
    }
    cg->nedges = m;
    free(idx);
    free(pos);
    return cg;
}

callgraph *callgraph_build(const stacktab *tab, int col, const cg_options *o)
{
    callgraph *cg = xcalloc(1, sizeof *cg);
    cg->names = stacktab_new();
    stacks st;
    split_stacks(tab, col, cg->names, &st);
    size_t nn = stacktab_size(cg->names);
    wgraph g;
    build(&g, &st, nn, NULL);
    double total = 0;
    for (size_t k = 0; k < g.n; k++)
        total += g.flat[g.nodes[k]];
    cg->total = total;
    cg->node_cutoff = fabs(trunc(total * o->nodefraction));
    cg->edge_cutoff = fabs(trunc(total * o->edgefraction));
    if (cg->node_cutoff > 0) {
        bool *kept = kept_set(&g, SIZE_MAX, cg->node_cutoff);
        size_t nk = count_kept(kept, nn);
        if (nk != g.n) {
            cg->dropped_nodes = g.n - nk;
            free_graph(&g);
            build(&g, &st, nn, kept);
        }
        free(kept);
    }
    cg->orig_nodes = g.n;
    sort_nodes(&g, cg->names);
    if (o->nodecount > 0) {
        trim_edges(&g, cg->edge_cutoff);
        if ((size_t)o->nodecount < g.n) {
            bool *kept = kept_set(&g, (size_t)o->nodecount, 0);
            free_graph(&g);
            build(&g, &st, nn, kept);
            free(kept);
            sort_nodes(&g, cg->names);
        }
    }
    cg->dropped_edges = trim_edges(&g, cg->edge_cutoff);
    remove_redundant_edges(&g, cg->names);
    export_graph(&g, cg->names, cg);
    free_graph(&g);
    free_stacks(&st);
    return cg;
}

void callgraph_free(callgraph *g)
{
    if (g == NULL)
        return;
    free(g->nodes);
    free(g->edges);
    stacktab_free(g->names);
    free(g);
}
