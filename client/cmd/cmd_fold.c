/* cmd_fold: `staprelay fold` -- collapse inputs to sorted folded text
 * (or speedscope JSON, or a pprof profile). */
#include <stdlib.h>
#include <string.h>

#include "client/cmd/inout.h"
#include "client/cmd/builtin.h"
#include "client/render/folded_out.h"
#include "client/render/pprof_write.h"
#include "client/render/speedscope.h"

static const char fold_usage[] =
    "staprelay fold [--input-format folded|perf|stap] [--pid] [--tid] "
    "[--kernel] [--jit] [--all] [--addrs] [--format folded|speedscope|pprof] "
    "[--sample-times] [--sample-index I] [-o FILE] [FILE...]\n"
    "       staprelay fold -h HOST[:PORT]... [-t INTERVAL] [-T END] "
    "[--by-host] [--pid] [--tid] [-o FILE] METRIC...\n"
    "       staprelay fold -h HOST|-a ARCHIVE --run NAME [-o FILE] [METRIC]\n"
    "       staprelay fold -a ARCHIVE|FARM... [-S START] [-T END] [--by-host] "
    "[-o FILE] METRIC...\n"
    "       staprelay fold --series QUERY [--pmproxy URL] [-S START] [-T END] "
    "[-t STEP] [--by-host] [-o FILE]\n"
    "       staprelay fold --hotcold [--hz N] {-h HOST[:PORT] [-t INTERVAL] "
    "[-T END] | -a ARCHIVE [-S START] [-T END]} [-o FILE] ONCPU OFFCPU";

static const char *const fold_formats[] = { "folded", "speedscope", "pprof", NULL };

/* fold, its options parsed (cmd_fold frees them) */
static int fold_command(cmd_opts *o, const char *fmt)
{
    int rc = 0;
    /* --run: a run's records, the text staprelay web's run=NAME serves;
     * fold writes one output, so not the run group's --output-dir/--name */
    if (o->output_dir || o->label)
        return cmd_opts_error(o, fold_usage, "%s: fold writes one output "
                              "(-o FILE)", o->output_dir ? "--output-dir"
                              : "--name");
    if (o->hotcold && strcmp(fmt, "folded") != 0)
        return cmd_opts_error(o, fold_usage, "--hotcold writes folded text, "
                              "not --format %s", fmt);
    struct pprof_builder *pb = inout_pprof_start(o, strcmp(fmt, "pprof") == 0,
                                                 &rc);
    if (rc)
        return rc;
    stacktab *tab = stacktab_new();
    speedscope_timeline tl = { 0 };
    if (strcmp(fmt, "speedscope") == 0) {      /* samples in time order */
        o->in.on_sample = speedscope_timeline_observe;
        o->in.on_sample_arg = &tl;
    }
    rc = o->hotcold ? inout_read_hotcold(o, tab)
                    : inout_read_inputs(o, o->files, o->nfiles, 0, tab);
    if (rc == 0 && stacktab_total(tab, 0) + stacktab_total(tab, 1) <= 0)
        rc = inout_empty_input(o);
    if (rc == 0) {
        FILE *out = inout_open_output(o, NULL);
        if (out == NULL) {
            rc = 1;
        } else {
            if (pb) {
                rc = inout_pprof_finish(o, pb, out);
                pb = NULL;
            } else {
                if (strcmp(fmt, "speedscope") == 0)
                    speedscope_write(out, tab, 0, "staprelay fold",
                                     speedscope_unit(o->svg.countname), &tl);
                else
                    folded_write(out, tab, stacktab_has_col1(tab));
                rc = inout_close_output(o, out);
            }
        }
    }
    speedscope_timeline_free(&tl);
    pprof_builder_free(pb);
    stacktab_free(tab);
    return rc;
}

int cmd_fold(int argc, char **argv)
{
    cmd_opts o;
    const char *fmt;
    int rc;
    if (!cmd_opts_start(&o, OPTS_INPUT | OPTS_PCP | OPTS_FROM_RUN
                        | OPTS_OUTPUT | OPTS_HOTCOLD, argc, argv, fold_usage, fold_formats,
                        &fmt, &rc))
        return rc;
    rc = fold_command(&o, fmt);
    cmd_opts_free(&o);
    return rc;
}
