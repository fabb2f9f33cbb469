/* callgraph: pprof's call graph of a stack table -- the model behind
 * `staprelay graph` (render/callgraph_dot draws it).
 *
 * Nodes are functions (frame names, pprof's default "functions"
 * granularity): flat weight is that of the stacks ending in the
 * function, cumulative that of the stacks containing it (once per
 * stack, however often it recurses).  An edge caller -> callee weighs
 * the stacks holding that call (once per stack; a function calling
 * itself makes no edge).
 *
 * Trimming is pprof's (internal/report newTrimmedGraph and
 * internal/graph, as vendored in Go 1.19's `go tool pprof`), so the
 * nodes kept are the ones `go tool pprof -dot` keeps:
 *   1. nodes with cum < nodefraction x total go, and the graph is
 *      rebuilt from the stacks without them: a call that went through
 *      a dropped function becomes a "residual" edge (dotted);
 *   2. nodes are ordered by pprof's entropy score (nodes where calls
 *      fan in or out rank above simple fall-throughs), edges under
 *      edgefraction x total go, the first nodecount nodes are kept and
 *      the graph is rebuilt from them;
 *   3. edges under edgefraction x total go, and residual edges whose
 *      callee is reachable another way are removed.
 * One difference: pprof counts a profile's label tags as nodes against
 * nodecount when the profile has labels; a stack table has none. */
#ifndef STAPRELAY_CALLGRAPH_H
#define STAPRELAY_CALLGRAPH_H

#include <stdbool.h>
#include <stddef.h>
#include "client/stack/stacktab.h"

typedef struct cg_options {
    double nodefraction;   /* pprof: 0.005 */
    double edgefraction;   /* pprof: 0.001 */
    long   nodecount;      /* pprof: 80; 0: no limit */
} cg_options;

#define CG_DEFAULT_OPTIONS { 0.005, 0.001, 80 }

typedef struct cg_edge {
    size_t src, dst;       /* node indices */
    double weight;
    bool   residual;       /* went through nodes that were dropped */
} cg_edge;

typedef struct cg_node {
    const char *name;      /* NUL-terminated, owned by the graph */
    double      flat, cum;
} cg_node;

typedef struct callgraph {
    cg_node *nodes;        /* in pprof's (entropy) order */
    size_t   nnodes;
    cg_edge *edges;        /* heaviest first, then by names */
    size_t   nedges;
    double   total;        /* all samples' weight */
    size_t   orig_nodes;   /* nodes before the nodecount cut */
    size_t   dropped_nodes, dropped_edges;
    double   node_cutoff, edge_cutoff;
    stacktab *names;       /* storage */
} callgraph;

/* The graph of column col of tab. */
callgraph *callgraph_build(const stacktab *tab, int col, const cg_options *o);
void callgraph_free(callgraph *g);

#endif
