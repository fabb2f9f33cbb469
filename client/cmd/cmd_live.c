/* cmd_live: `staprelay live --dir DIR` (staprelay(1), live; what it keeps
 * between rounds: stack/live_window.h). */
#include "client/cmd/builtin.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <time.h>
#include <pcp/pmapi.h>

#include "client/cmd/inout.h"
#include "client/render/flamesvg.h"
#include "client/render/heatmap_out.h"
#include "client/stack/flametree.h"
#include "client/stack/heatmap.h"
#include "client/stack/live_window.h"
#include "client/util/utf8.h"

static const char live_usage[] =
    "staprelay live --dir DIR -h HOST[:PORT] [--window-minutes N] "
    "[--flame-seconds S] [-t INTERVAL] [-T END] [--rows R] [--enhance] "
    "[--keep-idle] [--heatmap html|svg|both] [--max-samples N] [--pid] "
    "[--tid] [SVG options] METRIC";

#define US 1000000LL

typedef struct live_ctx {
    const char  *dir;
    const char  *metric, *host;
    long         window_min, flame_s;
    int          rows;
    bool         enhance, keep_idle, want_html, want_svg;
    double       interval;
    cmd_opts    *o;
    live_window *w;
    bool         tty;          /* stderr is a terminal: a status line */
    live_gaps    gaps;
    int64_t      last_ok_us, now_us;
    uint64_t     generation, rounds;
    bool         failing, write_failing;
    /* per round */
    heatmap     *h;
    bool         grid_ok;
    strbuf       grid_err, gaptext;
    stacktab    *ftab;
    double       ftotal;
    const pcp_stats *st;   /* the reading's counts so far (timed records) */
} live_ctx;

static int64_t wall_us(void)
{
    struct timeval tv;
    gettimeofday(&tv, NULL);
    return (int64_t)tv.tv_sec * US + tv.tv_usec;
}

static void hms(strbuf *sb, int64_t us)
{
    time_t t = (time_t)(us / US);
    struct tm tm;
    localtime_r(&t, &tm);
    sb_printf(sb, "%02d:%02d:%02d", tm.tm_hour, tm.tm_min, tm.tm_sec);
}

static void on_stack(void *arg, const char *stack, size_t len, double weight,
                     int64_t when_ns)
{
    live_ctx *c = arg;
    int64_t t = when_ns == INT64_MIN ? c->now_us : when_ns / 1000;
    lw_add(c->w, stack, len, weight, t);
}

/* ---- the files ---------------------------------------------------------- */

static void placeholder_svg(FILE *out, const char *title, const char *msg,
                            const char *note)
{
    strbuf sb = STRBUF_INIT;
    sb_adds(&sb, "<?xml version=\"1.0\" standalone=\"no\"?>\n"
            "<svg version=\"1.1\" width=\"1200\" height=\"90\" "
            "xmlns=\"http://www.w3.org/2000/svg\">\n"
            "<rect x=\"0\" y=\"0\" width=\"100%\" height=\"100%\" "
            "fill=\"#ffffff\"/>\n<g font-family=\"Verdana\">\n"
            "<text x=\"600\" y=\"24\" font-size=\"17\" "
            "text-anchor=\"middle\">");
    xml_escape(&sb, title, strlen(title), false);
    sb_adds(&sb, "</text>\n<text x=\"600\" y=\"50\" font-size=\"12\" "
            "text-anchor=\"middle\">");
    xml_escape(&sb, msg, strlen(msg), false);
    sb_adds(&sb, "</text>\n");
    if (note && *note) {
        sb_adds(&sb, "<text class=\"gap\" x=\"600\" y=\"72\" font-size=\"12\" "
                "fill=\"#b00000\" text-anchor=\"middle\">");
        xml_escape(&sb, note, strlen(note), false);
        sb_adds(&sb, "</text>\n");
    }
    sb_adds(&sb, "</g>\n</svg>\n");
    fwrite(sb.buf, 1, sb.len, out);
    sb_free(&sb);
}

static void heatmap_title(const live_ctx *c, strbuf *sb)
{
    sb_printf(sb, "Heat map: %s, last %ld minute%s", c->metric,
              c->window_min, c->window_min == 1 ? "" : "s");
}

static int write_heatmap_svg(FILE *out, void *arg)
{
    live_ctx *c = arg;
    strbuf title = STRBUF_INIT;
    heatmap_title(c, &title);
    if (!c->grid_ok) {
        placeholder_svg(out, title.buf, c->grid_err.buf, c->gaptext.buf);
        sb_free(&title);
        return 0;
    }
    if (c->gaptext.len) {
        sb_adds(&title, " -- ");
        sb_add(&title, c->gaptext.buf, c->gaptext.len);
    }
    heatmap_page ho = { title.buf, NULL, c->enhance, NULL };
    /* the heat map, then the gaps drawn over it as grey columns (the
     * geometry is heatmap_write_svg's: 60 px left, 40 px top) */
    char *buf = NULL;
    size_t n = 0;
    FILE *mem = open_memstream(&buf, &n);
    if (mem == NULL)
        return -1;
    heatmap_write_svg(mem, c->h, &ho);
    fclose(mem);
    const char *end = "</svg>\n";
    size_t el = strlen(end);
    if (n >= el && memcmp(buf + n - el, end, el) == 0)
        n -= el;
    fwrite(buf, 1, n, out);
    free(buf);
    double cw, ch;
    heatmap_geometry(c->h, &cw, &ch);
    for (int i = 0; i < c->gaps.n; i++) {
        int64_t from = c->gaps.g[i].from_us / US - c->h->base_s;
        int64_t to = (c->gaps.g[i].to_us < 0 ? c->now_us : c->gaps.g[i].to_us)
                     / US - c->h->base_s;
        if (from < 0)
            from = 0;
        if (to >= c->h->cols)
            to = c->h->cols - 1;
        if (to < from)
            continue;
        strbuf one = STRBUF_INIT;
        live_gaps one_gap = { .n = 1 };
        one_gap.g[0] = c->gaps.g[i];
        live_gaps_text(&one_gap, "", &one);
        fprintf(out, "<rect class=\"gap\" x=\"%.1f\" y=\"40\" width=\"%.1f\" "
                "height=\"%.1f\" fill=\"#808080\" fill-opacity=\"0.45\">"
                "<title>%s</title></rect>\n", 60 + cw * (double)from,
                cw * (double)(to - from + 1), ch * c->h->rows, one.buf);
        sb_free(&one);
    }
    fputs(end, out);
    sb_free(&title);
    return 0;
}

static int write_heatmap_html(FILE *out, void *arg)
{
    live_ctx *c = arg;
    strbuf title = STRBUF_INIT, src = STRBUF_INIT;
    heatmap_title(c, &title);
    sb_printf(&src, "pmcd %s metric %s; snapshot at ", c->host, c->metric);
    hms(&src, c->now_us);
    sb_printf(&src, "; %zu samples", lw_count(c->w));
    if (c->gaptext.len) {
        sb_adds(&src, "; ");
        sb_add(&src, c->gaptext.buf, c->gaptext.len);
    }
    if (c->grid_ok) {
        heatmap_page ho = { title.buf, src.buf, c->enhance, &c->o->svg };
        heatmap_write_html(out, c->h, &ho);
    } else {
        strbuf sb = STRBUF_INIT;
        sb_adds(&sb, "<!DOCTYPE html>\n<html>\n<head>\n<meta charset=\"utf-8\">"
                "\n<title>");
        xml_escape(&sb, title.buf, title.len, true);
        sb_adds(&sb, "</title>\n</head>\n<body>\n<h1>");
        xml_escape(&sb, title.buf, title.len, true);
        sb_adds(&sb, "</h1>\n<p>");
        xml_escape(&sb, src.buf, src.len, true);
        sb_adds(&sb, "</p>\n<p>");
        xml_escape(&sb, c->grid_err.buf, c->grid_err.len, true);
        sb_adds(&sb, "</p>\n</body>\n</html>\n");
        fwrite(sb.buf, 1, sb.len, out);
        sb_free(&sb);
    }
    sb_free(&title);
    sb_free(&src);
    return 0;
}

static int write_flame(FILE *out, void *arg)
{
    live_ctx *c = arg;
    strbuf title = STRBUF_INIT, sub = STRBUF_INIT;
    if (c->o->svg.title)
        sb_adds(&title, c->o->svg.title);
    else
        sb_printf(&title, "Flame graph: %s, last %ld s", c->metric,
                  c->flame_s);
    sb_adds(&sub, "from ");
    hms(&sub, c->now_us - c->flame_s * US);
    sb_adds(&sub, " to ");
    hms(&sub, c->now_us);
    if (c->gaptext.len) {
        sb_adds(&sub, "; ");
        sb_add(&sub, c->gaptext.buf, c->gaptext.len);
    }
    if (c->ftotal <= 0) {
        sb_adds(&sub, ": no samples");
        placeholder_svg(out, title.buf, sub.buf, NULL);
    } else {
        svg_options so = c->o->svg;
        so.title = title.buf;
        so.subtitle = sub.buf;
        so.countname = inout_count_name(c->o, c->st && c->st->timed);
        ft_options fo = { .mode = FT_SINGLE, .reverse = c->o->reverse,
                          .sort_weight = c->o->sort_weight };
        flamesvg_tree_options(&so, &fo);
        flametree *t = flametree_build(c->ftab, &fo);
        flamesvg_write(out, t, &so);
        flametree_free(t);
    }
    sb_free(&title);
    sb_free(&sub);
    return 0;
}

static int write_index(FILE *out, void *arg)
{
    live_ctx *c = arg;
    long refresh = (long)(c->interval + 0.5);
    if (refresh < 1)
        refresh = 1;
    strbuf sb = STRBUF_INIT, t = STRBUF_INIT;
    sb_printf(&t, "staprelay live: %s on %s", c->metric, c->host);
    sb_printf(&sb, "<!DOCTYPE html>\n<html>\n<head>\n<meta charset=\"utf-8\">\n"
              "<meta http-equiv=\"refresh\" content=\"%ld\">\n<title>", refresh);
    xml_escape(&sb, t.buf, t.len, true);
    /* one screen (1400x900): compact headings, and the flame graph in a
     * box that reaches the bottom of the window, scrolled to its root:
     * its wide frames are on screen whatever the depth of its narrow
     * towers (flame.svg is as tall as its deepest stack); fitted again
     * when the heat map's image has loaded, since it pushes the box down
     * (whichever of the two loads first) */
    sb_adds(&sb, "</title>\n<style>\nbody { font-family: Verdana, sans-serif; "
            "margin: 8px 12px; }\nh1 { font-size: 20px; margin: 0 0 4px 0; }\n"
            "h2 { font-size: 15px; margin: 8px 0 4px 0; }\np { margin: 4px 0; }\n"
            ".gap { color: #b00000; font-weight: bold; }\n"
            ".scroll { overflow-x: auto; border: 1px solid #ddd; }\n"
            ".scroll img { display: block; }\n"
            "#flamebox { overflow: auto; min-height: 160px; }\n"
            "object { display: block; }\n"
            "</style>\n<script>\nfunction fitFlame() { var b = "
            "document.getElementById('flamebox'); if (!b) return; var top = "
            "b.getBoundingClientRect().top + window.scrollY; b.style.height = "
            "Math.max(160, window.innerHeight - top - 8) + 'px'; b.scrollTop = "
            "b.scrollHeight; }\nwindow.addEventListener('resize', fitFlame);\n"
            "window.addEventListener('load', fitFlame);\n"
            "</script>\n</head>\n<body>\n<h1>");
    xml_escape(&sb, t.buf, t.len, true);
    sb_adds(&sb, "</h1>\n<p id=\"status\">updated ");
    hms(&sb, c->now_us);
    sb_printf(&sb, " (snapshot %" PRIu64 ", every %g s); %zu samples and %zu "
              "distinct stacks in the last %ld minute%s", c->generation,
              c->interval, lw_count(c->w), lw_nstacks(c->w), c->window_min,
              c->window_min == 1 ? "" : "s");
    if (lw_dropped(c->w))
        sb_printf(&sb, "; %" PRIu64 " samples dropped by --max-samples",
                  lw_dropped(c->w));
    sb_adds(&sb, "</p>\n");
    for (int i = 0; i < c->gaps.n; i++) {
        live_gaps one = { .n = 1 };
        one.g[0] = c->gaps.g[i];
        strbuf g = STRBUF_INIT;
        live_gaps_text(&one, "", &g);
        sb_adds(&sb, "<p class=\"gap\">");
        xml_escape(&sb, g.buf, g.len, true);
        sb_adds(&sb, "</p>\n");
        sb_free(&g);
    }
    sb_printf(&sb, "<h2>Heat map, last %ld minute%s</h2>\n", c->window_min,
              c->window_min == 1 ? "" : "s");
    if (c->want_html)
        sb_printf(&sb, "<p><a href=\"heatmap.html?v=%" PRIu64 "\">interactive "
                  "heat map</a> (a snapshot: select a range for its flame "
                  "graph)</p>\n", c->generation);
    /* at its own size (readable), the newest time on screen */
    if (c->want_svg)
        sb_printf(&sb, "<div class=\"scroll\" id=\"heatmap\"><img "
                  "src=\"heatmap.svg?v=%" PRIu64 "\" alt=\"heat map\" "
                  "onload=\"var d = this.parentNode; d.scrollLeft = "
                  "d.scrollWidth; fitFlame();\"></div>\n", c->generation);
    sb_printf(&sb, "<h2>Flame graph, last %ld s (<a href=\"flame.svg?v=%" PRIu64
              "\">flame.svg</a>)</h2>\n<div class=\"scroll\" id=\"flamebox\">"
              "<object data=\"flame.svg?v=%" PRIu64 "\" type=\"image/svg+xml\" "
              "onload=\"fitFlame()\">flame.svg</object></div>\n"
              "<script>fitFlame();</script>\n</body>\n</html>\n", c->flame_s, c->generation, c->generation);
    fwrite(sb.buf, 1, sb.len, out);
    sb_free(&sb);
    sb_free(&t);
    return 0;
}

static void write_all(live_ctx *c)
{
    c->generation++;
    int64_t wstart = c->now_us - c->window_min * 60 * US;
    int64_t fstart = c->now_us - c->flame_s * US;
    sb_reset(&c->gaptext);
    live_gaps_text(&c->gaps, "; ", &c->gaptext);

    c->h = heatmap_new(c->keep_idle);
    c->ftab = stacktab_new();
    for (size_t i = 0; i < lw_count(c->w); i++) {
        const lw_sample *s = lw_get(c->w, i);
        size_t len;
        const char *st = lw_stack(c->w, s->stack, &len);
        if (s->t_us >= wstart) {
            size_t e = stacktab_add(c->h->tab, st, len, 0, s->weight);
            heatmap_add_weighted(c->h, e, s->t_us, s->weight);
        }
        if (s->t_us >= fstart)
            stacktab_add(c->ftab, st, len, 0, s->weight);
    }
    c->ftotal = stacktab_total(c->ftab, 0);
    /* the grid spans the time that has data, from the first sample in
     * the window to now: it grows to the window, then slides */
    if (c->h->n > 0 && c->h->end_us < c->now_us)
        c->h->end_us = c->now_us;
    sb_reset(&c->grid_err);
    c->grid_ok = heatmap_grid(c->h, c->rows, &c->grid_err) == 0;
    if (!c->grid_ok) {
        sb_reset(&c->grid_err);
        sb_printf(&c->grid_err, "no samples in the last %ld minute%s",
                  c->window_min, c->window_min == 1 ? "" : "s");
    }

    strbuf err = STRBUF_INIT;
    int bad = 0;
    if (c->want_svg)
        bad |= live_write_atomic(c->dir, "heatmap.svg", write_heatmap_svg, c,
                                 &err);
    if (c->want_html && !bad)
        bad |= live_write_atomic(c->dir, "heatmap.html", write_heatmap_html, c,
                                 &err);
    if (!bad)
        bad |= live_write_atomic(c->dir, "flame.svg", write_flame, c, &err);
    if (!bad)
        bad |= live_write_atomic(c->dir, "index.html", write_index, c, &err);
    if (bad && !c->write_failing)
        fprintf(stderr, "staprelay live: %s\n", err.buf);
    c->write_failing = bad != 0;
    sb_free(&err);
    heatmap_free(c->h);
    c->h = NULL;
    stacktab_free(c->ftab);
    c->ftab = NULL;
}

static int on_round(void *arg, int status)
{
    live_ctx *c = arg;
    c->now_us = wall_us();
    c->rounds++;
    bool ok = status >= 0;
    live_gaps_round(&c->gaps, ok, c->last_ok_us, c->now_us);
    if (!ok && !c->failing) {
        strbuf t = STRBUF_INIT;
        hms(&t, c->last_ok_us);
        fprintf(stderr, "staprelay live: %s: no data since %s: %s; "
                "reconnecting\n", c->host, t.buf, pmErrStr(status));
        sb_free(&t);
    } else if (ok && c->failing) {
        fprintf(stderr, "staprelay live: %s: reconnected after %.1f s\n",
                c->host, (double)(c->now_us - c->last_ok_us) / US);
    }
    c->failing = !ok;
    if (ok)
        c->last_ok_us = c->now_us;
    int64_t wstart = c->now_us - c->window_min * 60 * US;
    lw_prune(c->w, wstart);
    live_gaps_prune(&c->gaps, wstart);
    write_all(c);
    if (c->tty) {       /* a one-line status on a terminal */
        strbuf t = STRBUF_INIT;
        hms(&t, c->now_us);
        fprintf(stderr, "\r\033[Kstaprelay live: %zu samples, %zu stacks in "
                "the window; %s/index.html at %s", lw_count(c->w),
                lw_nstacks(c->w), c->dir, t.buf);
        fflush(stderr);
        sb_free(&t);
    }
    return 0;
}

/* live, its options parsed (cmd_live frees them) */
static int live_command(cmd_opts *o)
{
    int rc = 0;
    live_ctx c = { .dir = o->live_dir, .window_min = o->window_min,
                   .flame_s = o->flame_s, .rows = o->rows,
                   .enhance = o->enhance, .keep_idle = o->keep_idle,
                   .want_html = o->want_html, .want_svg = o->want_svg,
                   .grid_err = STRBUF_INIT, .gaptext = STRBUF_INIT };
    const char *why = NULL;
    if (c.dir == NULL)
        why = "--dir DIR is required";
    else if (o->pcp.narchives > 0 || o->pcp.nhosts == 0)
        why = "live needs a live source: -h HOST[:PORT] (archives: use "
              "staprelay heatmap/flame -a)";
    else if (o->pcp.nhosts > 1)
        why = "live watches one host (-h once)";
    else if (o->nfiles > 0)
        why = "live reads no files, only the event metric";
    else if (o->output)
        why = "-o does not apply: the files go to --dir";
    else if (o->svg.flamechart)
        why = "--flamechart does not apply";
    if (why)
        return cmd_opts_error(o, live_usage, "%s", why);
    struct stat sbuf;
    if (stat(c.dir, &sbuf) < 0 || !S_ISDIR(sbuf.st_mode)) {
        fprintf(stderr, "staprelay live: %s: %s\n", c.dir,
                stat(c.dir, &sbuf) < 0 ? strerror(errno) : "not a directory");
        return 1;
    }
    if (o->pcp.interval == NULL)
        o->pcp.interval = "5";
    struct timeval itv;
    char *msg = NULL;
    if (pmParseInterval(o->pcp.interval, &itv, &msg) >= 0)
        c.interval = itv.tv_sec + itv.tv_usec / 1e6;
    free(msg);
    c.o = o;
    c.metric = o->pcp.metrics[0];
    c.host = o->pcp.hosts[0];
    c.w = lw_new((size_t)o->max_samples);
    c.now_us = c.last_ok_us = wall_us();
    o->pcp.on_stack = on_stack;
    o->pcp.on_round = on_round;
    o->pcp.hook_arg = &c;

    c.tty = isatty(STDERR_FILENO);
    fprintf(stderr, "staprelay live: writing %s/index.html (%s%sflame.svg) "
            "every %g s; Ctrl-C ends\n", c.dir,
            c.want_html ? "heatmap.html, " : "", c.want_svg ? "heatmap.svg, " : "",
            c.interval);

    pcp_stats st;
    memset(&st, 0, sizeof st);
    c.st = &st;
    strbuf err = STRBUF_INIT;
    rc = pcp_input_read(&o->pcp, &o->in, "live", NULL, &st, &err);
    if (c.tty)
        fputs("\r\033[K", stderr);
    if (c.generation > 0)
        fprintf(stderr, "staprelay live: wrote %s/index.html and its files "
                "(%" PRIu64 " snapshots; the last holds %zu samples)\n", c.dir,
                c.generation, lw_count(c.w));
    if (rc != 0) {
        fprintf(stderr, "staprelay live: %s\n", err.buf);
        if (rc == 2)
            fprintf(stderr, "usage: %s\n", live_usage);
    } else {
        if (st.missed)
            fprintf(stderr, "staprelay live: missed %" PRIu64 " records (the "
                    "PMDA's queue overflowed before they were fetched)\n",
                    st.missed);
        if (st.ignored)
            fprintf(stderr, "staprelay live: ignored %" PRIu64 " records "
                    "without a usable stack\n", st.ignored);
        if (c.write_failing)
            rc = 1;
    }
    sb_free(&err);
    sb_free(&c.grid_err);
    sb_free(&c.gaptext);
    lw_free(c.w);
    return rc;
}

int cmd_live(int argc, char **argv)
{
    cmd_opts o;
    int rc = cmd_opts_parse(&o, OPTS_INPUT | OPTS_PCP | OPTS_SVG | OPTS_TREE
                                | OPTS_OUTPUT | OPTS_HEATMAP | OPTS_LIVE,
                            argc, argv, live_usage);
    if (rc)
        return rc == 1 ? 0 : rc;
    rc = live_command(&o);
    cmd_opts_free(&o);
    return rc;
}
