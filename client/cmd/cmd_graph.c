/* cmd_graph: `staprelay graph` -- pprof's call graph of any input
 * (functions as nodes with flat and cumulative weight, calls as
 * weighted edges, pprof's cut-offs), as SVG through Graphviz's dot or
 * as the DOT text. */
#include <stdlib.h>
#include <string.h>

#include "client/cmd/builtin.h"
#include "client/cmd/inout.h"
#include "client/render/callgraph_dot.h"
#include "client/stack/callgraph.h"

#define DOT_TIMEOUT_S 120

static const char graph_usage[] =
    "staprelay graph [input options] [--sample-index I] [--nodecount N] "
    "[--nodefraction F] [--edgefraction F] [--format svg|dot] "
    "[--countname N] [-o FILE] [FILE...]\n"
    "       staprelay graph [options] {-h HOST[:PORT]... [-t INTERVAL] "
    "[-T END] | -a ARCHIVE... [-S START] [-T END]} METRIC...";

static const char *const graph_formats[] = { "svg", "dot", NULL };

int cmd_graph(int argc, char **argv)
{
    cmd_opts o;
    const char *fmt;
    int rc;
    if (!cmd_opts_start(&o, OPTS_INPUT | OPTS_PCP | OPTS_OUTPUT | OPTS_GRAPH
                        | OPTS_TOP,
                        argc, argv, graph_usage, graph_formats, &fmt, &rc))
        return rc;
    stacktab *tab = stacktab_new();
    int col;
    rc = inout_read_drawn(&o, tab, &col);
    if (rc == 0) {
        cg_options co = { o.nodefraction, o.edgefraction, o.nodecount };
        callgraph *g = callgraph_build(tab, col, &co);
        strbuf dot = STRBUF_INIT, type = STRBUF_INIT;
        sb_printf(&type, "Type: %s", o.svg.countname);
        const char *legend[] = { "staprelay graph", type.buf };
        callgraph_dot(&dot, g, "staprelay", legend, 2);
        callgraph_free(g);
        FILE *out = inout_open_output(&o, NULL);
        if (out == NULL) {
            rc = 1;
        } else if (strcmp(fmt, "dot") == 0) {
            fwrite(dot.buf, 1, dot.len, out);
            rc = inout_close_output(&o, out);
        } else {
            strbuf err = STRBUF_INIT;
            if (callgraph_svg(&dot, out, DOT_TIMEOUT_S, &err) < 0) {
                fprintf(stderr, "staprelay graph: %s\n", err.buf);
                inout_discard_output(&o, out);
                rc = 1;
            } else {
                rc = inout_close_output(&o, out);
            }
            sb_free(&err);
        }
        sb_free(&dot);
        sb_free(&type);
    }
    stacktab_free(tab);
    return rc;
}
