/* inout: what every command does around its work -- read the inputs
 * named by its options, open and close the output (see inout.h). */
#include "client/cmd/inout.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "client/input/pcp_sibling.h"
#include "client/render/pprof_write.h"
#include "client/stack/hotcold.h"
#include "common/xalloc.h"

char *inout_output_name(const cmd_opts *o, const char *kind)
{
    if (o->output_dir == NULL || kind == NULL)
        return NULL;
    strbuf sb = STRBUF_INIT;
    cmd_opts_output_stem(o, &sb);
    sb_printf(&sb, "-%s", kind);
    return sb_steal(&sb);
}


int inout_read_pcp(cmd_opts *o, const pcp_options *po, int col,
                 stacktab *tab)
{
    input_options in = o->in;
    in.col = col;
    pcp_stats st;
    memset(&st, 0, sizeof st);
    strbuf err = STRBUF_INIT;
    pcp_options pcp = *po;
    pcp.progress = isatty(STDERR_FILENO) && po->on_round == NULL;
    int rc = pcp_input_read(&pcp, &in, o->command, tab, &st, &err);
    if (rc != 0) {
        fprintf(stderr, "staprelay %s: %s\n", o->command, err.buf);
        if (rc == 2)
            fprintf(stderr, "usage: see staprelay(1), PCP INPUTS\n");
        sb_free(&err);
        return rc;
    }
    sb_free(&err);
    o->svg.countname = inout_count_name(o, st.timed > 0);
    if (st.missed)
        fprintf(stderr, "staprelay %s: missed %" PRIu64 " records (the "
                "PMDA's queue overflowed before they were fetched)\n",
                o->command, st.missed);
    if (st.ignored)
        fprintf(stderr, "staprelay %s: ignored %" PRIu64 " records without "
                "a usable stack\n", o->command, st.ignored);
    if (st.merged)
        fprintf(stderr, "staprelay %s: %" PRIu64 " samples of the subsecond "
                "histogram came from values logged more than a second apart "
                "(or late): each such lot is drawn in its last second (log "
                ".subsecond and .subsecond_end every second)\n", o->command,
                st.merged);
    if (st.no_end)
        fprintf(stderr, "staprelay %s: left out %" PRIu64 " samples of the "
                "subsecond histogram logged without .subsecond_end\n",
                o->command, st.no_end);
    if (st.counter_sets > 0 && st.counter_sets < 2 && st.counted == 0)
        fprintf(stderr, "staprelay %s: the counters have one value set: it "
                "takes two to count what happened between them\n",
                o->command);
    else if (st.records == 0 && st.counter_sets == 0)
        fprintf(stderr, "staprelay %s: no event records%s\n", o->command,
                po->nhosts ? " arrived" : po->series ? " nor counters"
                : " in the archive");
    else if (st.stacks == 0 && st.outside && st.run_window)
        fprintf(stderr, "staprelay %s: all %" PRIu64 " records are outside "
                "run %s's time window\n", o->command, st.outside, po->run);
    else if (st.stacks == 0 && st.outside && st.live_window)
        fprintf(stderr, "staprelay %s: all %" PRIu64 " records are stamped "
                "outside the collection window (before it started or "
                "after its end)\n", o->command, st.outside);
    else if (st.stacks == 0 && st.counted == 0 && st.outside)
        fprintf(stderr, "staprelay %s: all %" PRIu64 " %s outside "
                "the -S/-T window\n", o->command, st.outside,
                st.counter_sets ? "samples are" : "records are");
    else if (st.outside > st.outside_late && st.live_window)
        /* those stamped after -T are not news: fetching goes on until one
         * arrives, to know the window's own have all come */
        fprintf(stderr, "staprelay %s: left out %" PRIu64 " records stamped "
                "before collection started (the PMDA still held them for a "
                "new client)\n", o->command, st.outside - st.outside_late);
    else if (st.outside && st.run_window)
        fprintf(stderr, "staprelay %s: left out %" PRIu64 " records from "
                "outside run %s's time window (another run of the same "
                "script)\n", o->command, st.outside, po->run);
    return 0;
}

/* What a pprof profile gave: the sample type read (pprof's choice or
 * --sample-index), and the samples left out. */
static void inout_pprof_notes(cmd_opts *o, const char *name,
                              const input_stats *st)
{
    fprintf(stderr, "staprelay %s: %s: pprof profile, values of %s\n",
            o->command, name, st->event[0] ? st->event : "no sample type");
    /* "alloc_space (bytes)": the counts are bytes (a heap profile's
     * table and graphs say so), unless --countname did; "count" stays
     * "samples" */
    const char *open = strrchr(st->event, '(');
    size_t len = open ? strcspn(open + 1, ")") : 0;
    if (open && len > 0 && len < sizeof o->period_unit && !o->countname_given
        && strncmp(open + 1, "count", len) != 0) {
        snprintf(o->period_unit, sizeof o->period_unit, "%.*s", (int)len,
                 open + 1);
        o->svg.countname = o->period_unit;
    }
    if (st->ignored)
        fprintf(stderr, "staprelay %s: %s: ignored %" PRIu64 " samples "
                "(negative values, no locations, or stacks over 1 MiB)\n",
                o->command, name, st->ignored);
}

int inout_read_inputs(cmd_opts *o, char **files, int nfiles, int col,
                    stacktab *tab)
{
    input_options in = o->in;
    in.col = col;
    char *stdin_only[] = { "-" };
    if (pcp_options_active(&o->pcp)) {
        int rc = inout_read_pcp(o, &o->pcp, col, tab);
        if (rc != 0 || nfiles == 0)
            return rc;
    } else if (nfiles == 0) {
        files = stdin_only;
        nfiles = 1;
    }
    for (int i = 0; i < nfiles; i++) {
        input_stats st;
        memset(&st, 0, sizeof st);
        strbuf err = STRBUF_INIT;
        if (input_read_path(files[i], &in, tab, &st, &err) != 0) {
            fprintf(stderr, "staprelay %s: %s\n", o->command, err.buf);
            sb_free(&err);
            return 1;
        }
        sb_free(&err);
        const char *name = strcmp(files[i], "-") == 0 ? "stdin" : files[i];
        if (st.format == INPUT_PPROF) {
            inout_pprof_notes(o, name, &st);
            continue;
        }
        if (st.ignored)
            fprintf(stderr, "staprelay %s: %s: ignored %" PRIu64
                    " lines with invalid format\n", o->command, name,
                    st.ignored);
        if (st.filtered)
            fprintf(stderr, "staprelay %s: %s: kept only events of type %s"
                    " (%" PRIu64 " samples of other types skipped)\n",
                    o->command, name, st.event, st.filtered);
        /* --period: the counts are the event's periods; name their unit
         * (ns for the clock events) unless --countname did */
        if (o->in.perf.period && st.format == INPUT_PERF && st.event[0]
            && !o->countname_given) {
            perf_period_unit(st.event, o->period_unit,
                             sizeof o->period_unit);
            o->svg.countname = o->period_unit;
        }
    }
    return 0;
}

/* The sampling clock of profile's records when neither --hz nor the
 * source's frequency says: profile's and the perf backend's default
 * (run --hz) */
#define HOTCOLD_DEFAULT_HZ 99

long inout_hotcold_hz(const cmd_opts *o, const char **from)
{
    if (o->script.given & RUN_OPT_HZ) {
        *from = "--hz";
        return o->script.hz;
    }
    double f;
    if (pcp_sibling_value(&o->pcp, "frequency", &f) && f >= 1 && f <= 1e6) {
        *from = "the source's frequency";
        return (long)f;
    }
    *from = "--hz's default";
    return HOTCOLD_DEFAULT_HZ;
}

/* What the collector saw, on stderr. */
static void hotcold_notes(const cmd_opts *o, const hotcold *hc, long hz,
                          const char *from)
{
    fprintf(stderr, "staprelay %s: hot/cold: %" PRIu64 " on-CPU samples "
            "(1/%ld s each, %s), %" PRIu64 " off-CPU blocks, %zu threads, "
            "window %.3f s; threads over it, scaled to it: %zu\n", o->command,
            hotcold_samples(hc, false), hz, from,
            hotcold_samples(hc, true), hotcold_threads(hc),
            (double)hotcold_window_ns(hc) / 1e9, hotcold_scaled(hc));
    if (hotcold_samples(hc, true) == 0)
        fprintf(stderr, "staprelay %s: hot/cold: no off-CPU blocks (records "
                "weighed by a duration, as offcpu's)\n", o->command);
    if (hotcold_samples(hc, false) == 0)
        fprintf(stderr, "staprelay %s: hot/cold: no on-CPU samples (records "
                "without a duration, as profile's)\n", o->command);
}

int inout_read_hotcold(cmd_opts *o, stacktab *tab)
{
    if (!pcp_options_active(&o->pcp) || o->pcp.series) {
        fprintf(stderr, "staprelay %s: --hotcold reads PCP event records "
                "(-h HOST or -a ARCHIVE): on-CPU samples and off-CPU blocks "
                "with their threads and times\n", o->command);
        return 2;
    }
    if (o->pcp.weigh == PCP_WEIGH_EVENTS) {
        fprintf(stderr, "staprelay %s: --hotcold weighs the off-CPU blocks "
                "by their time: not with --weight events\n", o->command);
        return 2;
    }
    const char *from;
    long hz = inout_hotcold_hz(o, &from);
    hotcold *hc = hotcold_new(1e9 / (double)hz);
    o->in.on_detail = hotcold_observe;
    o->in.on_detail_arg = hc;
    stacktab *raw = stacktab_new();
    int rc = inout_read_inputs(o, o->files, o->nfiles, 0, raw);
    o->in.on_detail = NULL;
    o->in.on_detail_arg = NULL;
    if (rc == 0) {
        hotcold_fill(hc, tab);
        hotcold_notes(o, hc, hz, from);
        if (!o->countname_given)
            o->svg.countname = "ns";
    }
    stacktab_free(raw);
    hotcold_free(hc);
    return rc;
}

FILE *inout_open_output(cmd_opts *o, const char *kind)
{
    if (o->output_dir && kind) {
        char *name = inout_output_name(o, kind);
        strbuf err = STRBUF_INIT;
        FILE *fp = outfile_open(&o->outf, o->output_dir, name, &err);
        if (fp == NULL)
            fprintf(stderr, "staprelay %s: %s\n", o->command, err.buf);
        sb_free(&err);
        free(name);
        return fp;
    }
    if (o->output == NULL || strcmp(o->output, "-") == 0)
        return stdout;
    FILE *fp = fopen(o->output, "w");
    if (fp == NULL)
        fprintf(stderr, "staprelay %s: %s: %s\n", o->command, o->output,
                strerror(errno));
    return fp;
}

int inout_close_output(cmd_opts *o, FILE *out)
{
    if (o->outf.fp != NULL && out == o->outf.fp) {
        strbuf err = STRBUF_INIT;
        char *path = xstrdup(o->outf.dst);
        int rc = 0;
        if (outfile_commit(&o->outf, &err) < 0) {
            fprintf(stderr, "staprelay %s: %s\n", o->command, err.buf);
            rc = 1;
        } else {
            fprintf(stderr, "staprelay %s: wrote %s\n", o->command, path);
        }
        free(path);
        sb_free(&err);
        return rc;
    }
    int bad = ferror(out);
    if (out == stdout)
        bad |= fflush(out) != 0;
    else
        bad |= fclose(out) != 0;
    if (bad) {
        fprintf(stderr, "staprelay %s: write error on %s\n", o->command,
                o->output ? o->output : "stdout");
        return 1;
    }
    /* on a terminal, say what was written where */
    if (out != stdout && o->output && isatty(STDERR_FILENO))
        fprintf(stderr, "staprelay %s: wrote %s\n", o->command, o->output);
    return 0;
}

int inout_end_output(cmd_opts *o, FILE *out, int rc)
{
    if (rc == 0)
        return inout_close_output(o, out);
    inout_discard_output(o, out);
    return rc;
}

void inout_discard_output(cmd_opts *o, FILE *out)
{
    if (o->outf.fp != NULL && out == o->outf.fp) {
        outfile_abort(&o->outf);
    } else if (out == stdout) {
        fflush(out);
    } else if (out != NULL) {
        fclose(out);
    }
}

void inout_run_title(strbuf *sb, const char *name, const pcp_run *r)
{
    sb_printf(sb, "run %s", name);
    if (r->request && r->request[0]) {
        sb_adds(sb, ": ");
        pcp_run_text(sb, r->request, 120);
    }
    if (r->name)        /* parsed: the state is known */
        sb_printf(sb, " (%s)", pcp_run_state_name(r->state));
}

int inout_empty_input(const cmd_opts *o)
{
    if (o->in.filter) {
        fprintf(stderr, "staprelay %s: no stack samples left after the "
                "filters (--focus, --ignore, --hide, --show, --only-*)\n",
                o->command);
        return 2;
    }
    if (pcp_options_active(&o->pcp) && o->nfiles == 0) {
        if (o->pcp.run)
            fprintf(stderr, "staprelay %s: no stack samples from run %s\n",
                    o->command, o->pcp.run);
        else
            fprintf(stderr, "staprelay %s: no stack samples from %s\n",
                    o->command, o->pcp.series ? o->pcp.series
                                              : o->pcp.metrics[0]);
        return 2;
    }
    fprintf(stderr, "staprelay %s: no stack samples found in the input "
            "(expected folded stacks, perf script output or SystemTap "
            "backtraces)\n", o->command);
    return 2;
}

int inout_write_flame(cmd_opts *o, FILE *out, const flametree *t)
{
    strbuf err = STRBUF_INIT;
    int rc = 0;
    if (flamesvg_prepare(&o->svg, &err) < 0) {
        fprintf(stderr, "staprelay %s: %s\n", o->command, err.buf);
        rc = 1;
    } else {
        flamesvg_write(out, t, &o->svg);
    }
    sb_reset(&err);
    if (flamesvg_finish(&o->svg, &err) < 0) {
        fprintf(stderr, "staprelay %s: --cp: %s\n", o->command, err.buf);
        rc = 1;
    }
    sb_free(&err);
    return rc;
}

pprof_builder *inout_pprof_start(cmd_opts *o, bool pprof, int *rc)
{
    *rc = 0;
    if (!pprof) {
        if (o->sample_times) {
            fprintf(stderr, "staprelay %s: --sample-times adds the samples' "
                    "times to a pprof profile: it needs --format pprof\n",
                    o->command);
            *rc = 2;
        }
        return NULL;
    }
    pprof_builder *b = pprof_builder_new(o->sample_times);
    o->in.on_detail = pprof_builder_observe;
    o->in.on_detail_arg = b;
    return b;
}

int inout_pprof_finish(cmd_opts *o, pprof_builder *b, FILE *out)
{
    strbuf notes = STRBUF_INIT, comment = STRBUF_INIT;
    sb_printf(&comment, "staprelay %s", o->command);
    int wrc = pprof_builder_write(b, out, comment.buf, &notes);
    pprof_builder_free(b);
    for (const char *p = notes.buf; p && *p;) {
        const char *nl = strchr(p, '\n');
        size_t n = nl ? (size_t)(nl - p) : strlen(p);
        fprintf(stderr, "staprelay %s: %.*s\n", o->command, (int)n, p);
        p += n + (nl != NULL);
    }
    sb_free(&notes);
    sb_free(&comment);
    if (wrc != 0) {
        fprintf(stderr, "staprelay %s: write error on %s\n", o->command,
                o->output ? o->output : "stdout");
        inout_discard_output(o, out);
        return 1;
    }
    return inout_close_output(o, out);
}

int inout_drawn_column(const cmd_opts *o, const stacktab *tab)
{
    int col = stacktab_has_col1(tab) ? 1 : 0;
    if (stacktab_total(tab, col) <= 0) {
        inout_empty_input(o);
        return -1;
    }
    return col;
}

int inout_read_drawn(cmd_opts *o, stacktab *tab, int *col)
{
    int rc = inout_read_inputs(o, o->files, o->nfiles, 0, tab);
    *col = rc == 0 ? inout_drawn_column(o, tab) : 0;
    return rc == 0 && *col < 0 ? 2 : rc;
}

const char *inout_count_name(const cmd_opts *o, bool timed)
{
    /* blocks weighed by their duration (offcpu): the counts are ns, as
     * --period names a clock event's */
    return timed && !o->countname_given ? "ns" : o->svg.countname;
}
