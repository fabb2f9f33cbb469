/* callgraph_dot: a call graph (stack/callgraph) as Graphviz DOT in
 * pprof's style -- a legend box, nodes sized by flat weight and
 * coloured by cumulative weight, labelled "NAME\nFLAT (P%)\nof CUM
 * (P%)" with the full name as tooltip, edges as thick and as dark as
 * they are heavy, dotted where they stand for calls through dropped
 * nodes (pprof's internal/graph/dotgraph.go conventions) -- and the
 * SVG Graphviz's `dot` makes of it. */
#ifndef STAPRELAY_CALLGRAPH_DOT_H
#define STAPRELAY_CALLGRAPH_DOT_H

#include <stdio.h>
#include "client/stack/callgraph.h"
#include "client/stack/stacktab.h"
#include "common/strbuf.h"

/* The DOT text; legend lines (e.g. "Type: cpu") come first in the
 * legend box.  Names are made valid UTF-8 (bad bytes as \xNN). */
void callgraph_dot(strbuf *out, const callgraph *g, const char *title,
                   const char *const *legend, size_t nlegend);

/* `staprelay graph`'s DOT of column col of tab: pprof's cut-offs co,
 * the title "staprelay" and the legend "staprelay graph", "Type:
 * COUNTNAME" (the command and web's /api/graph.* share it). */
void callgraph_dot_of(strbuf *out, const stacktab *tab, int col,
                      const cg_options *co, const char *countname);

#define CALLGRAPH_DOT_TIMEOUT_S 120   /* s: dot is killed after */

/* Run Graphviz (`dot -Tsvg`, found on PATH, no shell) on the DOT text
 * with its output going to out; killed after timeout_s seconds.
 * Returns 0, or -1 with a message in err (dot missing, failed, timed
 * out). */
int callgraph_svg(const strbuf *dot, FILE *out, int timeout_s, strbuf *err);

#endif
