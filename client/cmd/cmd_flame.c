/* cmd_flame: `staprelay flame` -- inputs to an interactive SVG flame
 * graph (or speedscope JSON, or a pprof profile: a run's samples as
 * pprof with --run and --format pprof). */
#include <stdlib.h>
#include <string.h>

#include "client/cmd/inout.h"
#include "client/cmd/builtin.h"
#include "client/render/flamesvg.h"
#include "client/stack/flametree.h"
#include "client/render/pprof_write.h"
#include "client/render/speedscope.h"

static const char flame_usage[] =
    "staprelay flame [input options] [--title T] [--subtitle T] "
    "[--countname N] [--nametype T] [--width PX] [--height PX] "
    "[--fontsize N] [--fonttype F] [--minwidth PX|N%] [--colors PALETTE] "
    "[--hash] [--reverse] [--inverted] [--flamechart] [--sort name|weight] "
    "[--format svg|speedscope|pprof] [--sample-times] [-o FILE] [FILE...]\n"
    "       staprelay flame [SVG options] {-h HOST[:PORT]... [-t INTERVAL] "
    "[-T END] | -a ARCHIVE|FARM... [-S START] [-T END]} [--by-host] METRIC...\n"
    "       staprelay flame [SVG options] --series QUERY [--pmproxy URL] "
    "[-S START] [-T END] [-t STEP] [--by-host]\n"
    "       staprelay flame [SVG options] {-h HOST[:PORT] [-t INTERVAL] | "
    "-a ARCHIVE} --run NAME [-o FILE | --output-dir DIR [--name LABEL]] "
    "[METRIC]\n"
    "       staprelay flame [SVG options] --hotcold [--hz N] {-h HOST[:PORT] "
    "[-t INTERVAL] [-T END] | -a ARCHIVE [-S START] [-T END]} ONCPU OFFCPU";

static const char *const flame_formats[] = { "svg", "speedscope", "pprof", NULL };

/* flame, its options parsed (cmd_flame frees them) */
static int flame_command(cmd_opts *o, const char *fmt)
{
    int rc = 0;
    if (o->hotcold && strcmp(fmt, "svg") != 0)
        return cmd_opts_error(o, flame_usage, "--hotcold draws an SVG, not "
                              "--format %s", fmt);
    if (o->hotcold && o->svg.colors == PAL_HOT)   /* unless --colors said */
        o->svg.colors = PAL_HOTCOLD;
    struct pprof_builder *pb = inout_pprof_start(o, strcmp(fmt, "pprof") == 0,
                                                 &rc);
    if (rc)
        return rc;
    pcp_run run;
    memset(&run, 0, sizeof run);
    o->pcp.run_info = o->pcp.run ? &run : NULL;
    stacktab *tab = stacktab_new();
    stacktab_keep_sequence(tab, o->svg.flamechart);
    speedscope_timeline tl = { 0 };
    if (strcmp(fmt, "speedscope") == 0) {      /* samples in time order */
        o->in.on_sample = speedscope_timeline_observe;
        o->in.on_sample_arg = &tl;
    }
    rc = o->hotcold ? inout_read_hotcold(o, tab)
                    : inout_read_inputs(o, o->files, o->nfiles, 0, tab);
    strbuf sub = STRBUF_INIT;
    if (rc == 0 && o->pcp.run && o->svg.subtitle == NULL) {
        inout_run_title(&sub, o->pcp.run, &run);
        o->svg.subtitle = sub.buf;
    }
    int col = rc == 0 ? inout_drawn_column(o, tab) : 0;
    if (col < 0)
        rc = 2;
    bool diff = col == 1;                 /* 2-column folded input */
    double total = stacktab_total(tab, diff ? 1 : 0);
    if (rc == 0 && total < 100 && strcmp(o->svg.countname, "samples") == 0)
        fprintf(stderr, "staprelay flame: stack count is low (%g). "
                "Did something go wrong?\n", total);
    if (rc == 0) {
        bool ss = strcmp(fmt, "speedscope") == 0;
        FILE *out = inout_open_output(o, pb ? "flame.pb.gz" : ss
                                      ? "flame.json" : "flame.svg");
        if (out == NULL) {
            rc = 1;
        } else if (pb) {
            rc = inout_pprof_finish(o, pb, out);
            pb = NULL;
        } else if (ss) {
            speedscope_write(out, tab, diff ? 1 : 0,
                             o->svg.title ? o->svg.title : "staprelay flame",
                             speedscope_unit(o->svg.countname), &tl);
            rc = inout_close_output(o, out);
        } else {
            ft_options fo = {
                .mode = diff ? FT_DIFF : FT_SINGLE,
                .reverse = o->reverse,
                .flamechart = o->svg.flamechart,
                .sort_weight = o->sort_weight,
            };
            flamesvg_tree_options(&o->svg, &fo);
            flametree *t = flametree_build(tab, &fo);
            rc = inout_write_flame(o, out, t);
            flametree_free(t);
            rc = inout_end_output(o, out, rc);
        }
    }
    speedscope_timeline_free(&tl);
    pprof_builder_free(pb);
    stacktab_free(tab);
    sb_free(&sub);
    pcp_run_free(&run);
    return rc;
}

int cmd_flame(int argc, char **argv)
{
    cmd_opts o;
    const char *fmt;
    int rc;
    if (!cmd_opts_start(&o, OPTS_INPUT | OPTS_PCP | OPTS_SVG | OPTS_TREE
                        | OPTS_FROM_RUN | OPTS_OUTPUT | OPTS_HOTCOLD,
                        argc, argv, flame_usage, flame_formats, &fmt, &rc))
        return rc;
    rc = flame_command(&o, fmt);
    cmd_opts_free(&o);
    return rc;
}
