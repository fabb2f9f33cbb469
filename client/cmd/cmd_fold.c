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
    "       staprelay fold -a ARCHIVE... [-S START] [-T END] [--by-host] "
    "[-o FILE] METRIC...";

static const char *const fold_formats[] = { "folded", "speedscope", "pprof", NULL };

int cmd_fold(int argc, char **argv)
{
    cmd_opts o;
    int rc = cmd_opts_parse(&o, OPTS_INPUT | OPTS_PCP | OPTS_OUTPUT, argc, argv,
                            fold_usage);
    if (rc)
        return rc == 1 ? 0 : rc;
    const char *fmt = cmd_opts_format(&o, fold_formats);
    if (fmt == NULL)
        return 2;
    struct pprof_builder *pb = inout_pprof_start(&o, strcmp(fmt, "pprof") == 0,
                                                 &rc);
    if (rc)
        return rc;
    stacktab *tab = stacktab_new();
    rc = inout_read_inputs(&o, o.files, o.nfiles, 0, tab);
    if (rc == 0 && stacktab_total(tab, 0) + stacktab_total(tab, 1) <= 0)
        rc = inout_empty_input(&o);
    if (rc == 0) {
        FILE *out = inout_open_output(&o, NULL);
        if (out == NULL) {
            rc = 1;
        } else {
            if (pb) {
                rc = inout_pprof_finish(&o, pb, out);
                pb = NULL;
            } else {
                if (strcmp(fmt, "speedscope") == 0)
                    speedscope_write(out, tab, 0, "staprelay fold", "none");
                else
                    folded_write(out, tab, stacktab_has_col1(tab));
                rc = inout_close_output(&o, out);
            }
        }
    }
    pprof_builder_free(pb);
    stacktab_free(tab);
    return rc;
}
