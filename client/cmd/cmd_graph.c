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


static const char graph_usage[] =
    "staprelay graph [input options] [--sample-index I] [--nodecount N] "
    "[--nodefraction F] [--edgefraction F] [--format svg|dot] "
    "[--countname N] [-o FILE] [FILE...]\n"
    "       staprelay graph [options] {-h HOST[:PORT]... [-t INTERVAL] "
    "[-T END] | -a ARCHIVE... [-S START] [-T END]} METRIC...";

static const char *const graph_formats[] = { "svg", "dot", NULL };

/* graph, its options parsed (cmd_graph frees them) */
static int graph_command(cmd_opts *o, const char *fmt)
{
    int rc = 0;
    stacktab *tab = stacktab_new();
    int col;
    rc = inout_read_drawn(o, tab, &col);
    if (rc == 0) {
        cg_options co = { o->nodefraction, o->edgefraction, o->nodecount };
        strbuf dot = STRBUF_INIT;
        callgraph_dot_of(&dot, tab, col, &co, o->svg.countname);
        FILE *out = inout_open_output(o, NULL);
        if (out == NULL) {
            rc = 1;
        } else if (strcmp(fmt, "dot") == 0) {
            fwrite(dot.buf, 1, dot.len, out);
            rc = inout_close_output(o, out);
        } else {
            strbuf err = STRBUF_INIT;
            if (callgraph_svg(&dot, out, CALLGRAPH_DOT_TIMEOUT_S, &err) < 0) {
                fprintf(stderr, "staprelay graph: %s\n", err.buf);
                inout_discard_output(o, out);
                rc = 1;
            } else {
                rc = inout_close_output(o, out);
            }
            sb_free(&err);
        }
        sb_free(&dot);
    }
    stacktab_free(tab);
    return rc;
}

int cmd_graph(int argc, char **argv)
{
    cmd_opts o;
    const char *fmt;
    int rc;
    if (!cmd_opts_start(&o, OPTS_INPUT | OPTS_PCP | OPTS_OUTPUT | OPTS_GRAPH
                        | OPTS_TOP,
                        argc, argv, graph_usage, graph_formats, &fmt, &rc))
        return rc;
    rc = graph_command(&o, fmt);
    cmd_opts_free(&o);
    return rc;
}
