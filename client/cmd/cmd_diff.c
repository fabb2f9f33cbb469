/* cmd_diff: `staprelay diff A B` -- differential flame graph of two
 * profiles (widths from B; red grew, blue shrank), the elided view of
 * stacks present on one side only, or difffolded.pl's 2-column text;
 * `staprelay diff --format table A B C...` -- the frames whose share
 * changed most across N profiles (files, archives or one archive's
 * -S/-T windows), ranked (stack/top.h's table of changes). */
#include <math.h>
#include <pcp/pmapi.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>

#include "client/cmd/inout.h"
#include "client/cmd/builtin.h"
#include "client/render/flamesvg.h"
#include "client/stack/flametree.h"
#include "client/stack/top.h"
#include "client/render/folded_out.h"
#include "common/xalloc.h"

static const char diff_usage[] =
    "staprelay diff [input options] [-n|--normalize|--absolute] "
    "[-s|--strip-hex] "
    "[--negate] [--elided] [--folded] [SVG options] [-o FILE] BEFORE AFTER\n"
    "       staprelay diff [options] {-h BEFORE_HOST -h AFTER_HOST [-t INTERVAL] "
    "[-T END] | -a BEFORE -a AFTER [-S START] [-T END]} METRIC...\n"
    "       staprelay diff [options] -a ARCHIVE -S BEFORE_START [-T BEFORE_END] "
    "-S AFTER_START [-T AFTER_END] METRIC...\n"
    "       staprelay diff [options] {--series BEFORE --series AFTER [-S START] "
    "[-T END] | --series QUERY -S BEFORE_START [-T BEFORE_END] -S AFTER_START "
    "[-T AFTER_END]} [--pmproxy URL] [-t STEP]\n"
    "       staprelay diff [options] -h HOST[:PORT] [-t INTERVAL] "
    "-T BEFORE_LENGTH -T AFTER_LENGTH METRIC...\n"
    "       staprelay diff [options] {-h HOST[:PORT] [-t INTERVAL] | -a ARCHIVE} "
    "--run BEFORE --run AFTER [-o FILE | --output-dir DIR [--name LABEL]] "
    "[METRIC]\n"
    "       staprelay diff --format table [--by self|total] [--limit N] "
    "[--absolute] {FILE FILE... | -a ARCHIVE -a ARCHIVE... | -a ARCHIVE "
    "-S START... [-T END...] | any two-sided form above}";

static const char *const diff_formats[] = { "svg", "table", NULL };

/* Two successive live windows of one host (-h HOST -T A -T B): one
 * connection collects for A + B; a record stamped before start + A is
 * BEFORE, any other AFTER.  The split is on the records' own
 * timestamps, as the archive form's -S/-T windows are. */
typedef struct live_split {
    stack_sink side[2];
    int64_t    split_ns;
} live_split;

static void live_split_stack(void *arg, const char *stack, size_t len,
                             double weight, int64_t when_ns)
{
    live_split *ls = arg;
    int side = when_ns < ls->split_ns ? 0 : 1;
    stack_sink_add_at(&ls->side[side], stack, len, weight, -1, when_ns);
}

/* A -T length of the live form, in seconds; false if not one. */
static bool window_length(const char *s, double *secs)
{
    struct timeval tv;
    char *msg = NULL;
    int sts = pmParseInterval(s, &tv, &msg);
    free(msg);
    if (sts < 0 || (tv.tv_sec == 0 && tv.tv_usec == 0))
        return false;
    *secs = (double)tv.tv_sec + tv.tv_usec / 1e6;
    return true;
}

static int read_live_windows(cmd_opts *o, stacktab *tab)
{
    double len[2];
    for (int i = 0; i < 2; i++)
        if (!window_length(o->finishes[i], &len[i])) {
            fprintf(stderr, "staprelay diff: -h HOST -T BEFORE -T AFTER: "
                    "each -T is a window length here (such as 10sec or "
                    "1min), not '%s'\nusage: %s\n", o->finishes[i],
                    diff_usage);
            return 2;
        }
    live_split ls;
    for (int i = 0; i < 2; i++)
        stack_sink_init(&ls.side[i], tab, i, o->in.strip_hex);
    char total[64];
    snprintf(total, sizeof total, "%.6fsec", len[0] + len[1]);
    pcp_options po = o->pcp;
    po.finish = total;
    po.on_stack = live_split_stack;
    po.hook_arg = &ls;
    struct timeval now;
    gettimeofday(&now, NULL);
    ls.split_ns = (int64_t)now.tv_sec * 1000000000
                  + (int64_t)now.tv_usec * 1000
                  + (int64_t)(len[0] * 1e9);
    int rc = inout_read_pcp(o, &po, 0, tab);
    for (int i = 0; i < 2; i++)
        stack_sink_free(&ls.side[i]);
    return rc;
}

/* ---- --format table: N profiles ------------------------------------------ */

/* The profiles the table compares, each in its own stack table (column
 * 0), or the two sides of a two-sided form in one table's columns. */
typedef struct profiles {
    int          n;
    stacktab   **tab;
    int         *col;
    const char **label;
    strbuf      *label_buf;
} profiles;

static void profiles_init(profiles *p, int n)
{
    p->n = n;
    p->tab = xcalloc((size_t)n, sizeof *p->tab);
    p->col = xcalloc((size_t)n, sizeof *p->col);
    p->label = xcalloc((size_t)n, sizeof *p->label);
    p->label_buf = xcalloc((size_t)n, sizeof *p->label_buf);
}

static void profiles_free(profiles *p, bool own_tabs)
{
    for (int i = 0; i < p->n; i++) {
        if (own_tabs)
            stacktab_free(p->tab[i]);
        sb_free(&p->label_buf[i]);
    }
    free(p->tab);
    free(p->col);
    free(p->label);
    free(p->label_buf);
}

/* The N forms: files, archives, or one archive's -S/-T windows (each
 * -S or -T given once applies to every window).  0 when none fits. */
static int table_profiles(const cmd_opts *o)
{
    bool pcp = pcp_options_active(&o->pcp);
    if (!pcp)
        return o->nfiles >= 2 && o->nstarts <= 1 && o->nfinishes <= 1
               ? o->nfiles : 0;
    if (o->pcp.nhosts || o->nseries || o->nruns || o->nfiles)
        return 0;
    if (o->pcp.narchives >= 2)
        return o->nstarts <= 1 && o->nfinishes <= 1 ? o->pcp.narchives : 0;
    int nwin = o->nstarts > o->nfinishes ? o->nstarts : o->nfinishes;
    if (o->pcp.narchives != 1 || nwin < 2)
        return 0;
    bool fits = (o->nstarts <= 1 || o->nstarts == nwin)
                && (o->nfinishes <= 1 || o->nfinishes == nwin);
    return fits ? nwin : 0;
}

static int read_table_profiles(cmd_opts *o, profiles *p)
{
    bool pcp = pcp_options_active(&o->pcp);
    int rc = 0;
    for (int i = 0; i < p->n && rc == 0; i++) {
        p->tab[i] = stacktab_new();
        if (!pcp) {
            rc = inout_read_inputs(o, o->files + i, 1, 0, p->tab[i]);
            p->label[i] = o->files[i];
            continue;
        }
        pcp_options po = o->pcp;
        if (o->pcp.narchives >= 2) {
            po.archives[0] = o->pcp.archives[i];
            po.narchives = 1;
            p->label[i] = o->pcp.archives[i];
        } else {
            po.start = o->nstarts ? o->starts[o->nstarts > 1 ? i : 0] : NULL;
            po.finish = o->nfinishes
                        ? o->finishes[o->nfinishes > 1 ? i : 0] : NULL;
            strbuf *sb = &p->label_buf[i];
            sb_printf(sb, "%s", o->pcp.archives[0]);
            if (po.start)
                sb_printf(sb, " -S %s", po.start);
            if (po.finish)
                sb_printf(sb, " -T %s", po.finish);
            p->label[i] = sb->buf;
        }
        rc = inout_read_pcp(o, &po, 0, p->tab[i]);
    }
    return rc;
}

/* The ranked table of p's profiles on the output. */
static int write_table(cmd_opts *o, const profiles *p)
{
    top_result **r = xcalloc((size_t)p->n, sizeof *r);
    int rc = 0;
    for (int i = 0; i < p->n; i++) {
        r[i] = top_compute(p->tab[i], p->col[i]);
        if (r[i]->grand_total <= 0 && rc == 0) {
            fprintf(stderr, "staprelay diff: %s has no stack samples\n",
                    p->label[i]);
            rc = 2;
        }
    }
    FILE *out = rc ? NULL : inout_open_output(o, "diff.txt");
    if (rc == 0 && out == NULL)
        rc = 1;
    if (out != NULL) {
        top_changes *c = top_changes_compute(r, (size_t)p->n,
                                             strcmp(o->by, "total") == 0,
                                             o->absolute);
        /* a write error shows in ferror: inout_close_output says it */
        top_write_changes(out, c, (size_t)o->limit, o->svg.countname,
                          p->label);
        rc = inout_close_output(o, out);
        top_changes_free(c);
    }
    for (int i = 0; i < p->n; i++)
        top_free(r[i]);
    free(r);
    return rc;
}

/* diff --format table of N files, archives or windows. */
static int diff_table_n(cmd_opts *o, int n)
{
    profiles p;
    profiles_init(&p, n);
    int rc = read_table_profiles(o, &p);
    if (rc == 0)
        rc = write_table(o, &p);
    profiles_free(&p, true);
    return rc;
}

/* diff, its options parsed (cmd_diff frees them) */
static int diff_command(cmd_opts *o)
{
    int rc = 0;
    const char *fmt = cmd_opts_format(o, diff_formats);
    if (fmt == NULL)
        return 2;
    bool table = strcmp(fmt, "table") == 0;
    if (table && (o->folded_out || o->elided)) {
        fprintf(stderr, "staprelay diff: --folded and --elided are the "
                "flame graph's; --format table ranks frames\nusage: %s\n",
                diff_usage);
        return 2;
    }
    int nprof = table ? table_profiles(o) : 0;
    if (nprof)
        return diff_table_n(o, nprof);
    bool pcp = pcp_options_active(&o->pcp);
    if (o->nstarts > 2 || o->nfinishes > 2 || (!pcp && o->nfiles > 2)) {
        fprintf(stderr, "staprelay diff: %s compares two profiles; "
                "--format table ranks the frames of more (files, archives "
                "or one archive's -S/-T windows)\nusage: %s\n",
                table ? "this form" : "the differential flame graph",
                diff_usage);
        return 2;
    }
    if (!pcp && (o->nfiles != 2 || o->nstarts > 1 || o->nfinishes > 1)) {
        fprintf(stderr, "staprelay diff: need two inputs, BEFORE and AFTER%s"
                "\nusage: %s\n", table ? " (--format table: two or more)"
                : "", diff_usage);
        return 2;
    }
    int nsrc = o->pcp.nhosts + o->pcp.narchives + o->nseries;
    bool windows = o->nstarts == 2 || o->nfinishes == 2;
    bool live_windows = o->pcp.nhosts == 1 && nsrc == 1 && o->nfinishes == 2
                        && o->nstarts == 0 && o->nruns == 0;
    if (o->nruns > 0 && (o->nruns != 2 || nsrc != 1 || o->nfiles != 0
                         || o->nstarts || o->nfinishes)) {
        fprintf(stderr, "staprelay diff: %s\nusage: %s\n", o->nruns != 2
                ? "the two sides of --run are two runs: --run BEFORE --run "
                  "AFTER"
                : o->nstarts || o->nfinishes
                ? "with --run the windows are the runs': -S/-T do not apply"
                : "--run BEFORE --run AFTER take one -h HOST or one -a "
                  "ARCHIVE, and no files", diff_usage);
        return 2;
    }
    if (pcp && o->nruns == 0 && !live_windows
        && (o->nfiles != 0 || (nsrc == 2 && windows)
                || (nsrc == 1 && (!windows || o->pcp.nhosts
                                  || o->nstarts == 1 || o->nfinishes == 1))
                || nsrc > 2)) {
        fprintf(stderr, "staprelay diff: the two sides are two hosts (-h), "
                "two archives (-a), two --series queries, two -S/-T windows "
                "of one archive or query, or two "
                "successive -T windows of one host (-h HOST -T BEFORE -T "
                "AFTER)\n"
                "usage: %s\n", diff_usage);
        return 2;
    }
    const char *side_name[2] = { o->nfiles ? o->files[0] : NULL,
                                 o->nfiles > 1 ? o->files[1] : NULL };
    char run_side[2][300], subtitle[600], subtitle_note[900];
    stacktab *tab = stacktab_new();
    if (!pcp) {
        rc = inout_read_inputs(o, o->files, 1, 0, tab);
        if (rc == 0)
            rc = inout_read_inputs(o, o->files + 1, 1, 1, tab);
    } else if (o->nruns == 2) {
        for (int side = 0; side < 2 && rc == 0; side++) {
            pcp_options po = o->pcp;
            po.run = o->runs[side];
            rc = inout_read_pcp(o, &po, side, tab);
        }
        snprintf(run_side[0], sizeof run_side[0], "run %s", o->runs[0]);
        snprintf(run_side[1], sizeof run_side[1], "run %s", o->runs[1]);
        side_name[0] = run_side[0];
        side_name[1] = run_side[1];
        if (o->svg.subtitle == NULL) {
            snprintf(subtitle, sizeof subtitle, "run %s vs run %s",
                     o->runs[0], o->runs[1]);
            o->svg.subtitle = subtitle;
        }
    } else if (live_windows) {
        if (o->nfiles != 0) {
            fprintf(stderr, "staprelay diff: -h HOST -T BEFORE -T AFTER takes "
                    "no files\nusage: %s\n", diff_usage);
            rc = 2;
        } else {
            rc = read_live_windows(o, tab);
        }
        side_name[0] = "the BEFORE window";
        side_name[1] = "the AFTER window";
    } else if (o->nseries == 2) {
        for (int side = 0; side < 2 && rc == 0; side++) {
            pcp_options po = o->pcp;
            po.series = o->series[side];
            rc = inout_read_pcp(o, &po, side, tab);
        }
        side_name[0] = o->series[0];
        side_name[1] = o->series[1];
    } else if (nsrc == 2) {
        pcp_options po = o->pcp;
        po.col_per_source = true;     /* both sides collected together */
        rc = inout_read_pcp(o, &po, 0, tab);
        const char *const *src = o->pcp.nhosts ? o->pcp.hosts : o->pcp.archives;
        side_name[0] = src[0];
        side_name[1] = src[1];
    } else {
        for (int side = 0; side < 2 && rc == 0; side++) {
            pcp_options po = o->pcp;
            po.start = o->nstarts ? o->starts[o->nstarts == 2 ? side : 0]
                                  : NULL;
            po.finish = o->nfinishes
                        ? o->finishes[o->nfinishes == 2 ? side : 0] : NULL;
            rc = inout_read_pcp(o, &po, side, tab);
        }
        side_name[0] = "the BEFORE window";
        side_name[1] = "the AFTER window";
    }
    double t0 = stacktab_total(tab, 0), t1 = stacktab_total(tab, 1);
    if (rc == 0 && (t0 <= 0 || t1 <= 0)) {
        fprintf(stderr, "staprelay diff: %s has no stack samples\n",
                t0 <= 0 ? side_name[0] : side_name[1]);
        rc = 2;
    }
    if (rc == 0 && table) {
        /* a two-sided form's table: its sides are the columns */
        profiles p;
        profiles_init(&p, 2);
        for (int i = 0; i < 2; i++) {
            p.tab[i] = tab;
            p.col[i] = i;
            p.label[i] = side_name[i];
        }
        rc = write_table(o, &p);
        profiles_free(&p, false);
        stacktab_free(tab);
        return rc;
    }
    /* shares, not window lengths, unless --absolute: one rule, the
     * heat-map page's too (stacktab.h) */
    bool scaled = rc == 0 && !o->absolute && stacktab_normalize(tab);
    if (rc == 0 && o->elided && o->folded_out
        && folded_count_elided(tab) == 0) {
        fprintf(stderr, "staprelay diff: no stacks to show (every stack is "
                "on both sides)\n");
        rc = 2;
    }
    if (rc == 0) {
        FILE *out = inout_open_output(o, o->folded_out ? "diff.folded"
                                                     : "diff.svg");
        if (out == NULL) {
            rc = 1;
        } else if (o->folded_out) {
            folded_write_where(out, tab, true, o->elided);
            rc = inout_close_output(o, out);
        } else {
            ft_options fo = {
                .mode = o->elided ? FT_ELIDED : FT_DIFF,
                .reverse = o->reverse,
                .sort_weight = o->sort_weight,
            };
            if (o->svg.title == NULL)
                o->svg.title = o->elided ? "Elided Frames (one side only)"
                                         : "Differential Flame Graph";
            flamesvg_diff_note(subtitle_note, sizeof subtitle_note,
                               o->svg.subtitle, o->svg.countname, scaled,
                               o->absolute, t0, t1);
            o->svg.subtitle = subtitle_note;
            flamesvg_tree_options(&o->svg, &fo);
            flametree *t = flametree_build(tab, &fo);
            if (flametree_total(t) <= 0) {
                fprintf(stderr, "staprelay diff: no stacks to show%s\n",
                        o->elided ? " (every stack is on both sides)" : "");
                rc = 2;
            } else {
                rc = inout_write_flame(o, out, t);
            }
            flametree_free(t);
            rc = inout_end_output(o, out, rc);
        }
    }
    stacktab_free(tab);
    return rc;
}

int cmd_diff(int argc, char **argv)
{
    cmd_opts o;
    int rc = cmd_opts_parse(&o, OPTS_INPUT | OPTS_PCP | OPTS_SVG | OPTS_DIFF
                                | OPTS_TREE | OPTS_FROM_RUN | OPTS_OUTPUT,
                            argc, argv, diff_usage);
    if (rc)
        return rc == 1 ? 0 : rc;
    rc = diff_command(&o);
    cmd_opts_free(&o);
    return rc;
}
