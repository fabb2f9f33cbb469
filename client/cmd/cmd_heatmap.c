/* cmd_heatmap: `staprelay heatmap` -- stack samples with timestamps
 * (perf script text, PCP event records from -h or -a) to a
 * FlameScope-style subsecond-offset heat map: an interactive HTML page
 * (default), a static SVG, or FlameScope's JSON grid. */
#include "client/cmd/builtin.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "client/cmd/inout.h"
#include "client/input/collapse_perf.h"
#include "client/input/linereader.h"
#include "client/input/pprof_read.h"
#include "client/render/heatmap_out.h"
#include "client/stack/heatmap.h"
#include "client/stack/stacksink.h"

/* rows of pmdastaprelay's <event>.subsecond (relay/subsecond.h) */
#define SUBSECOND_ROWS 50

static const char heatmap_usage[] =
    "staprelay heatmap [--rows N] [--enhance] [--keep-idle] "
    "[--format html|svg|json] [--title T] [input options] [-o FILE] "
    "[PERF-SCRIPT-FILE...]\n"
    "       staprelay heatmap [heatmap options] {-h HOST[:PORT]... "
    "[-t INTERVAL] [-T END] | -a ARCHIVE|FARM... [-S START] [-T END]} "
    "METRIC...\n"
    "       staprelay heatmap [heatmap options] --series QUERY [--pmproxy URL] "
    "[-S START] [-T END]\n"
    "       staprelay heatmap [heatmap options] {-h HOST[:PORT] [-t INTERVAL] "
    "| -a ARCHIVE} --run NAME [-o FILE | --output-dir DIR [--name LABEL]] "
    "[METRIC]";

typedef struct collect_ctx {
    heatmap        *h;
    collapse_perf *pc;  /* reading perf script text, or NULL */
} collect_ctx;

static void observe(void *arg, size_t entry, int col, double weight,
                    int64_t when_ns)
{
    (void)col;
    collect_ctx *c = arg;
    /* a PCP record weighs the samples it stands for (its count); a perf
     * sample is one sample, whatever its period (heatmap.h) */
    if (when_ns == STACK_TIME_UNKNOWN)
        heatmap_add_untimed(c->h);
    else if (c->pc)
        heatmap_add_entry(c->h, entry, heatmap_floor_div(when_ns, 1000));
    else
        heatmap_add_weighted(c->h, entry, heatmap_floor_div(when_ns, 1000),
                             weight);
}

#define DETECT_LINES 400

/* A pprof profile: its samples with a timestamp_ns label (staprelay's
 * --sample-times exports, perf_data_converter's) are the heat map's; a
 * cell counts samples (the "samples" values, when the profile has
 * them).  Closes fp unless it is stdin. */
static int read_pprof_times(const char *cmd, const char *name, FILE *fp,
                            int first, const input_options *in,
                            collect_ctx *ctx)
{
    input_options opt = *in;
    opt.count_samples = true;
    stack_sink sink;
    stack_sink_init(&sink, ctx->h->tab, 0, in->strip_hex);
    stack_sink_observe(&sink, observe, ctx);
    stack_sink_filter(&sink, in->filter);
    input_stats st;
    memset(&st, 0, sizeof st);
    strbuf err = STRBUF_INIT;
    int rc = pprof_read_stream(fp, first, &opt, &sink, &st, &err) < 0 ? 1 : 0;
    if (rc)
        fprintf(stderr, "staprelay %s: %s: %s\n", cmd, name, err.buf);
    else if (sink.first_ns == STACK_TIME_UNKNOWN) {
        fprintf(stderr, "staprelay %s: %s: the pprof profile's samples have "
                "no times (a timestamp_ns label: staprelay fold --format "
                "pprof --sample-times writes them)\n", cmd, name);
        rc = 2;
    }
    sb_free(&err);
    stack_sink_free(&sink);
    if (fp != stdin)
        fclose(fp);
    return rc;
}

static int read_perf(const char *cmd, const char *path,
                     const input_options *in, collect_ctx *ctx)
{
    FILE *fp = stdin;
    const char *name = "stdin";
    if (path && strcmp(path, "-") != 0) {
        fp = fopen(path, "r");
        name = path;
        if (fp == NULL) {
            fprintf(stderr, "staprelay %s: %s: %s\n", cmd, path,
                    strerror(errno));
            return 1;
        }
    }
    int first = getc(fp);
    if (first == 0x1f || in->format == INPUT_PPROF)
        return read_pprof_times(cmd, name, fp, first, in, ctx);
    if (first != EOF)
        ungetc(first, fp);
    linereader lr;
    lr_init(&lr, fp);
    input_format fmt = in->format;
    size_t nq = lr_fill(&lr, DETECT_LINES, 256 * 1024);
    if (fmt == INPUT_AUTO) {
        const char *lines[DETECT_LINES];
        size_t lens[DETECT_LINES];
        for (size_t i = 0; i < nq; i++)
            lines[i] = lr_queued(&lr, i, &lens[i]);
        fmt = input_detect(lines, lens, nq);
    }
    int rc = 0;
    bool empty = true;      /* nothing but blank lines in the window */
    for (size_t i = 0; empty && i < nq; i++) {
        size_t len;
        const char *q = lr_queued(&lr, i, &len);
        for (size_t k = 0; k < len && empty; k++)
            empty = isspace((unsigned char)q[k]);
    }
    if (empty && nq < DETECT_LINES) {
        fprintf(stderr, "staprelay %s: %s: no input (expected `perf "
                "script` output with the time field)\n", cmd, name);
        rc = 2;
    } else if (fmt != INPUT_PERF) {
        fprintf(stderr, "staprelay %s: %s: %s input has no per-sample "
                "timestamps; a heat map needs `perf script` output (with "
                "the time field) or PCP event records (-h or -a)\n", cmd,
                name, input_format_name(fmt));
        rc = 2;
    } else {
        stack_sink sink;
        stack_sink_init(&sink, ctx->h->tab, 0, in->strip_hex);
        stack_sink_observe(&sink, observe, ctx);
        stack_sink_filter(&sink, in->filter);
        collapse_perf *pc = collapse_perf_new(&in->perf, &sink);
        const char *line;
        ssize_t n;
        ctx->pc = pc;          /* observe() asks it each sample's time */
        while ((n = lr_next(&lr, &line)) >= 0)
            collapse_perf_line(pc, line, (size_t)n);
        collapse_perf_finish(pc);
        ctx->pc = NULL;
        if (collapse_perf_ignored(pc))
            fprintf(stderr, "staprelay %s: %s: ignored %" PRIu64
                    " lines with invalid format\n", cmd, name,
                    collapse_perf_ignored(pc));
        if (collapse_perf_filtered(pc))
            fprintf(stderr, "staprelay %s: %s: kept only events of type %s"
                    " (%" PRIu64 " samples of other types skipped)\n", cmd,
                    name, collapse_perf_event(pc),
                    collapse_perf_filtered(pc));
        collapse_perf_free(pc);
        stack_sink_free(&sink);
    }
    if (ferror(fp)) {
        fprintf(stderr, "staprelay %s: %s: read error\n", cmd, name);
        rc = 1;
    }
    lr_free(&lr);
    if (fp != stdin)
        fclose(fp);
    return rc;
}

static void describe(strbuf *sb, const cmd_opts *o, const heatmap *h,
                     const pcp_run *run)
{
    const pcp_options *p = &o->pcp;
    if (p->run) {
        inout_run_title(sb, p->run, run);
        sb_adds(sb, " from ");
    }
    if (p->nhosts) {
        sb_adds(sb, "pmcd ");
        for (int i = 0; i < p->nhosts; i++)
            sb_printf(sb, "%s%s", i ? ", " : "", p->hosts[i]);
    } else if (p->narchives) {
        sb_adds(sb, "archive ");
        for (int i = 0; i < p->narchives; i++)
            sb_printf(sb, "%s%s", i ? ", " : "", p->archives[i]);
    }
    for (int i = 0; i < p->nmetrics; i++)
        sb_printf(sb, "%s%s", i ? ", " : " metric ", p->metrics[i]);
    if (p->run && p->nmetrics == 0 && run->nevents > 0)
        sb_printf(sb, " metric %s", run->events[0]);
    if (o->nfiles) {
        sb_adds(sb, pcp_options_active(p) ? "; perf script " : "perf script ");
        for (int i = 0; i < o->nfiles; i++)
            sb_printf(sb, "%s%s", i ? ", " : "", o->files[i]);
    } else if (!pcp_options_active(p)) {
        sb_adds(sb, "perf script from stdin");
    }
    if (h->weighted)
        sb_printf(sb, "; %" PRIu64 " samples (%zu records)", h->weight, h->n);
    else
        sb_printf(sb, "; %zu samples", h->n);
    sb_adds(sb, " from ");
    heatmap_when_text(sb, h, h->start_us);
    sb_adds(sb, " to ");
    heatmap_when_text(sb, h, h->end_us);
    sb_printf(sb, "%s; %d rows of %g ms", heatmap_wall_clock(h) ? "" : " s",
              h->rows, 1000.0 / h->rows);
    if (!h->keep_idle)
        sb_adds(sb, "; idle stacks excluded");
}

static const char *const heatmap_formats[] = { "html", "svg", "json", NULL };

/* heatmap, its options parsed (cmd_heatmap frees them) */
static int heatmap_command(cmd_opts *o, const char *fmt)
{
    int rc = 0;
    pcp_run run;
    memset(&run, 0, sizeof run);
    o->pcp.run_info = o->pcp.run ? &run : NULL;
    heatmap *h = heatmap_new(o->keep_idle);
    collect_ctx ctx = { h, NULL };
    o->pcp.counter = PCP_COUNTER_SUBSECOND;   /* no records: the histogram */
    if (pcp_options_active(&o->pcp)) {
        cmd_opts po = *o;
        po.in.on_sample = observe;
        po.in.on_sample_arg = &ctx;
        /* a cell is how many blocks, not their time, unless --weight time */
        if (o->pcp.weigh == PCP_WEIGH_DEFAULT)
            o->pcp.weigh = PCP_WEIGH_EVENTS;
        rc = inout_read_pcp(&po, &o->pcp, 0, h->tab);
        o->svg.countname = po.svg.countname;
    }
    /* the histogram's 20 ms buckets fill whole rows only when the rows are
     * 20 ms or a multiple */
    bool histogram = stacktab_find(h->tab, PCP_SUBSECOND_STACK,
                                   strlen(PCP_SUBSECOND_STACK)) != NULL;
    if (histogram)
        h->out_of_order = 0;    /* cells, not samples: no order to keep */
    if (rc == 0 && histogram && SUBSECOND_ROWS % o->rows != 0) {
        fprintf(stderr, "staprelay heatmap: the subsecond histogram has %d "
                "rows of 20 ms: --rows must divide %d\n", SUBSECOND_ROWS,
                SUBSECOND_ROWS);
        rc = 2;
    }
    if (rc == 0 && (o->nfiles > 0 || !pcp_options_active(&o->pcp))) {
        if (o->nfiles == 0)
            rc = read_perf("heatmap", "-", &o->in, &ctx);
        for (int i = 0; rc == 0 && i < o->nfiles; i++)
            rc = read_perf("heatmap", o->files[i], &o->in, &ctx);
    }
    strbuf err = STRBUF_INIT;
    if (rc == 0 && heatmap_grid(h, o->rows, &err) < 0) {
        fprintf(stderr, "staprelay heatmap: %s\n", err.buf);
        rc = 2;
    }
    if (rc == 0) {
        strbuf w = STRBUF_INIT;
        heatmap_warnings(h, &w);
        for (char *p = w.buf, *nl; p && *p; p = nl + 1) {
            nl = strchr(p, '\n');
            fprintf(stderr, "staprelay heatmap: %.*s\n", (int)(nl - p), p);
        }
        sb_free(&w);
        FILE *out = inout_open_output(o, strcmp(fmt, "json") == 0
                                        ? "heatmap.json"
                                        : strcmp(fmt, "svg") == 0
                                        ? "heatmap.svg" : "heatmap.html");
        if (out == NULL) {
            rc = 1;
        } else {
            strbuf src = STRBUF_INIT;
            describe(&src, o, h, &run);
            heatmap_page ho = { o->svg.title, src.buf, o->enhance, &o->svg };
            if (strcmp(fmt, "json") == 0)
                heatmap_write_json(out, h);
            else if (strcmp(fmt, "svg") == 0)
                heatmap_write_svg(out, h, &ho);
            else
                heatmap_write_html(out, h, &ho);
            sb_free(&src);
            rc = inout_close_output(o, out);
        }
    }
    sb_free(&err);
    heatmap_free(h);
    pcp_run_free(&run);
    return rc;
}

int cmd_heatmap(int argc, char **argv)
{
    cmd_opts o;
    const char *fmt;
    int rc;
    if (!cmd_opts_start(&o, OPTS_INPUT | OPTS_PCP | OPTS_SVG | OPTS_FROM_RUN
                        | OPTS_OUTPUT | OPTS_HEATMAP,
                        argc, argv, heatmap_usage, heatmap_formats, &fmt, &rc))
        return rc;
    rc = heatmap_command(&o, fmt);
    cmd_opts_free(&o);
    return rc;
}
