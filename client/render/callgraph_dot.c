/* callgraph_dot: pprof-style DOT and Graphviz's SVG of a call graph
 * (see callgraph_dot.h). */
#include "client/render/callgraph_dot.h"

#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "client/util/utf8.h"

/* ---- text ------------------------------------------------------------------- */

/* Append s for the inside of a DOT string: valid UTF-8 (bad bytes as
 * the text \xNN), '\' and '"' escaped. */
static void dot_escape(strbuf *out, const char *s, size_t n)
{
    for (size_t i = 0; i < n;) {
        uint32_t cp;
        size_t k = utf8_decode(s + i, n - i, &cp);
        if (k == 0 || cp < 0x20 || cp == 0x7f) {
            sb_printf(out, "\\\\x%02X", (unsigned char)s[i]);
            i++;
            continue;
        }
        if (s[i] == '\\' || s[i] == '"')
            sb_addc(out, '\\');
        sb_add(out, s + i, k);
        i += k;
    }
}

/* pprof's ShortenFunctionName for Go: "a/b/pkg.F" -> "pkg.F". */
static const char *short_name(const char *name)
{
    const char *slash = strrchr(name, '/');
    if (slash == NULL || slash[1] == '\0')
        return name;
    for (const char *p = name; p < slash; p++)
        if (!(p[0] == '/' || p[0] == '.' || p[0] == '-' || p[0] == '_'
              || (p[0] >= '0' && p[0] <= '9') || (p[0] >= 'a' && p[0] <= 'z')
              || (p[0] >= 'A' && p[0] <= 'Z')))
            return name;
    return slash + 1;
}

/* The node label's name part: pprof breaks it at '.' and "::". */
static void label_name(strbuf *out, const char *name)
{
    strbuf esc = STRBUF_INIT;
    name = short_name(name);
    dot_escape(&esc, name, strlen(name));
    for (size_t i = 0; i < esc.len; i++) {
        if (esc.buf[i] == ':' && i + 1 < esc.len && esc.buf[i + 1] == ':') {
            sb_adds(out, "\\n");
            i++;
        } else if (esc.buf[i] == '.') {
            sb_adds(out, "\\n");
        } else {
            sb_addc(out, esc.buf[i]);
        }
    }
    sb_adds(out, "\\n");
    sb_free(&esc);
}

static void value(strbuf *out, double v)
{
    sb_addnum(out, v);
}

/* pprof's measurement.Percentage. */
static void percent(strbuf *out, double v, double total)
{
    double r = total != 0 ? fabs(v / total) * 100 : 0;
    if (r >= 99.95 && r <= 100.05)
        sb_adds(out, "100%");
    else if (r >= 1.0)
        sb_printf(out, "%.2f%%", r);
    else
        sb_printf(out, "%.2g%%", r);
}

/* pprof's dotColor: grey near 0, red as score goes to 1. */
static void color(strbuf *out, double score, bool background)
{
    const double shift = 0.7;
    double sat = background ? 0.1 : 1.0, val = background ? 0.93 : 0.7;
    score = fmax(-1.0, fmin(1.0, score));
    if (fabs(score) < 0.2)
        sat *= fabs(score) / 0.2;
    if (score > 0.0)
        score = pow(score, 1.0 - shift);
    if (score < 0.0)
        score = -pow(-score, 1.0 - shift);
    double r, g, b;
    if (score < 0.0) {
        g = val;
        r = val * (1 + sat * score);
    } else {
        r = val;
        g = val * (1 - sat * score);
    }
    b = val * (1 - sat);
    sb_printf(out, "#%02x%02x%02x", (unsigned)(uint8_t)(r * 255.0),
              (unsigned)(uint8_t)(g * 255.0), (unsigned)(uint8_t)(b * 255.0));
}

static void legend_box(strbuf *out, const callgraph *g, const char *title,
                       const char *const *legend, size_t nlegend)
{
    strbuf lines[8];
    size_t n = 0;
    for (size_t i = 0; i < nlegend && n < 3; i++) {
        lines[n] = (strbuf)STRBUF_INIT;
        sb_adds(&lines[n++], legend[i]);
    }
    double shown = 0;
    for (size_t i = 0; i < g->nnodes; i++)
        shown += g->nodes[i].flat;
    lines[n] = (strbuf)STRBUF_INIT;
    sb_adds(&lines[n], "Showing nodes accounting for ");
    value(&lines[n], shown);
    sb_adds(&lines[n], ", ");
    percent(&lines[n], shown, g->total);
    sb_adds(&lines[n], " of ");
    value(&lines[n], g->total);
    sb_adds(&lines[n++], " total");
    if (g->dropped_nodes) {
        lines[n] = (strbuf)STRBUF_INIT;
        sb_printf(&lines[n], "Dropped %zu node%s (cum <= ", g->dropped_nodes,
                  g->dropped_nodes > 1 ? "s" : "");
        value(&lines[n], g->node_cutoff);
        sb_addc(&lines[n++], ')');
    }
    if (g->dropped_edges) {
        lines[n] = (strbuf)STRBUF_INIT;
        sb_printf(&lines[n], "Dropped %zu edge%s (freq <= ", g->dropped_edges,
                  g->dropped_edges > 1 ? "s" : "");
        value(&lines[n], g->edge_cutoff);
        sb_addc(&lines[n++], ')');
    }
    if (g->nnodes > 0 && g->nnodes < g->orig_nodes) {
        lines[n] = (strbuf)STRBUF_INIT;
        sb_printf(&lines[n++], "Showing top %zu nodes out of %zu", g->nnodes,
                  g->orig_nodes);
    }
    sb_adds(out, "subgraph cluster_L { \"");
    dot_escape(out, lines[0].buf, lines[0].len);
    sb_adds(out, "\" [shape=box fontsize=16 label=\"");
    for (size_t i = 0; i < n; i++) {
        dot_escape(out, lines[i].buf, lines[i].len);
        sb_adds(out, "\\l");
        sb_free(&lines[i]);
    }
    sb_adds(out, "\" tooltip=\"");
    dot_escape(out, title, strlen(title));
    sb_adds(out, "\"] }\n");
}

static void node(strbuf *out, const callgraph *g, size_t i, double max_flat)
{
    const cg_node *n = &g->nodes[i];
    sb_printf(out, "N%zu [label=\"", i + 1);
    label_name(out, n->name);
    if (n->flat != 0) {
        value(out, n->flat);
        sb_adds(out, " (");
        percent(out, n->flat, g->total);
        sb_addc(out, ')');
    } else {
        sb_addc(out, '0');
    }
    if (n->cum != n->flat) {
        sb_adds(out, n->flat != 0 ? "\\n" : " ");
        sb_adds(out, "of ");
        value(out, n->cum);
        sb_adds(out, " (");
        percent(out, n->cum, g->total);
        sb_addc(out, ')');
    }
    int fontsize = 8;
    if (max_flat != 0 && n->flat != 0 && fabs(n->flat) <= max_flat)
        fontsize += (int)ceil(16.0 * sqrt(fabs(n->flat) / max_flat));
    sb_printf(out, "\" id=\"node%zu\" fontsize=%d shape=box tooltip=\"",
              i + 1, fontsize);
    dot_escape(out, n->name, strlen(n->name));
    sb_adds(out, " (");
    value(out, n->cum);
    sb_adds(out, ")\" color=\"");
    color(out, g->total ? n->cum / fabs(g->total) : 0, false);
    sb_adds(out, "\" fillcolor=\"");
    color(out, g->total ? n->cum / fabs(g->total) : 0, true);
    sb_adds(out, "\"]\n");
}

static void edge(strbuf *out, const callgraph *g, const cg_edge *e)
{
    sb_printf(out, "N%zu -> N%zu [label=\" ", e->src + 1, e->dst + 1);
    value(out, e->weight);
    sb_addc(out, '"');
    if (g->total != 0) {
        double frac = fabs(e->weight / g->total);
        int weight = 1 + (int)fmin(floor(frac * 100), 100);
        int width = 1 + (int)fmin(floor(frac * 5), 5);
        if (weight > 1)
            sb_printf(out, " weight=%d", weight);
        if (width > 1)
            sb_printf(out, " penwidth=%d", width);
        sb_adds(out, " color=\"");
        color(out, e->weight / fabs(g->total), false);
        sb_addc(out, '"');
    }
    strbuf tip = STRBUF_INIT;
    sb_addc(&tip, '"');
    dot_escape(&tip, g->nodes[e->src].name, strlen(g->nodes[e->src].name));
    sb_adds(&tip, e->residual ? " ... " : " -> ");
    dot_escape(&tip, g->nodes[e->dst].name, strlen(g->nodes[e->dst].name));
    sb_adds(&tip, " (");
    value(&tip, e->weight);
    sb_adds(&tip, ")\"");
    sb_printf(out, " tooltip=%s labeltooltip=%s", tip.buf, tip.buf);
    sb_free(&tip);
    if (e->residual)
        sb_adds(out, " style=\"dotted\"");
    sb_adds(out, "]\n");
}

void callgraph_dot(strbuf *out, const callgraph *g, const char *title,
                   const char *const *legend, size_t nlegend)
{
    sb_adds(out, "digraph \"");
    dot_escape(out, title, strlen(title));
    sb_adds(out, "\" {\nnode [style=filled fillcolor=\"#f8f8f8\"]\n");
    const char *dflt[] = { title };
    legend_box(out, g, title, nlegend ? legend : dflt, nlegend ? nlegend : 1);
    double max_flat = 0;
    for (size_t i = 0; i < g->nnodes; i++)
        if (fabs(g->nodes[i].flat) > max_flat)
            max_flat = fabs(g->nodes[i].flat);
    for (size_t i = 0; i < g->nnodes; i++)
        node(out, g, i, max_flat);
    for (size_t i = 0; i < g->nedges; i++)
        edge(out, g, &g->edges[i]);
    sb_adds(out, "}\n");
}

/* ---- Graphviz ------------------------------------------------------------------ */

/* The DOT text in an unlinked temporary file, for dot's stdin. */
static int dot_input(const strbuf *dot, strbuf *err)
{
    const char *dir = getenv("TMPDIR");
    char path[4096];
    snprintf(path, sizeof path, "%s/staprelay-graph-XXXXXX",
             dir && *dir ? dir : "/tmp");
    int fd = mkstemp(path);
    if (fd < 0) {
        sb_printf(err, "temporary file in %s: %s", dir && *dir ? dir : "/tmp",
                  strerror(errno));
        return -1;
    }
    unlink(path);
    size_t off = 0;
    while (off < dot->len) {
        ssize_t w = write(fd, dot->buf + off, dot->len - off);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0) {
            sb_printf(err, "temporary file: %s", strerror(errno));
            close(fd);
            return -1;
        }
        off += (size_t)w;
    }
    lseek(fd, 0, SEEK_SET);
    return fd;
}

/* Wait for pid at most timeout_s seconds, then kill it.  Returns the
 * wait status, or -1 when it was killed for taking too long. */
static int wait_limited(pid_t pid, int timeout_s)
{
    struct timespec step = { 0, 20 * 1000 * 1000 };
    long polls = (long)timeout_s * 50;
    for (long i = 0;; i++) {
        int status;
        pid_t r = waitpid(pid, &status, WNOHANG);
        if (r == pid)
            return status;
        if (r < 0 && errno != EINTR)
            return 0;
        if (i >= polls) {
            kill(pid, SIGKILL);
            waitpid(pid, &status, 0);
            return -1;
        }
        nanosleep(&step, NULL);
    }
}

int callgraph_svg(const strbuf *dot, FILE *out, int timeout_s, strbuf *err)
{
    int in = dot_input(dot, err);
    if (in < 0)
        return -1;
    if (fflush(out) != 0) {
        sb_printf(err, "write error: %s", strerror(errno));
        close(in);
        return -1;
    }
    pid_t pid = fork();
    if (pid < 0) {
        sb_printf(err, "fork: %s", strerror(errno));
        close(in);
        return -1;
    }
    if (pid == 0) {
        if (dup2(in, 0) < 0 || dup2(fileno(out), 1) < 0)
            _exit(126);
        execlp("dot", "dot", "-Tsvg", (char *)NULL);
        _exit(127);
    }
    close(in);
    int status = wait_limited(pid, timeout_s);
    if (status == -1) {
        sb_printf(err, "Graphviz's dot took more than %d seconds; killed "
                  "(--format dot writes the graph without it)", timeout_s);
        return -1;
    }
    if (WIFEXITED(status) && WEXITSTATUS(status) == 127) {
        sb_adds(err, "Graphviz's dot was not found (install graphviz, or "
                "write the graph with --format dot)");
        return -1;
    }
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        sb_printf(err, "Graphviz's dot failed (%s %d)",
                  WIFEXITED(status) ? "exit status" : "signal",
                  WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status));
        return -1;
    }
    return 0;
}

void callgraph_dot_of(strbuf *out, const stacktab *tab, int col,
                      const cg_options *co, const char *countname)
{
    callgraph *g = callgraph_build(tab, col, co);
    strbuf type = STRBUF_INIT;
    sb_printf(&type, "Type: %s", countname);
    const char *legend[] = { "staprelay graph", type.buf };
    callgraph_dot(out, g, "staprelay", legend, 2);
    callgraph_free(g);
    sb_free(&type);
}
