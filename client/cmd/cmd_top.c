/* cmd_top: `staprelay top` -- heaviest frames as a table or JSON. */
#include <string.h>

#include "client/cmd/inout.h"
#include "client/cmd/builtin.h"
#include "client/stack/top.h"

static const char top_usage[] =
    "staprelay top [input options] [-n|--limit N] [--by self|total] "
    "[--format table|json] [--countname N] [-o FILE] [FILE...]\n"
    "       staprelay top [options] {-h HOST[:PORT]... [-t INTERVAL] "
    "[-T END] | -a ARCHIVE... [-S START] [-T END]} METRIC...";

static const char *const top_formats[] = { "table", "json", NULL };

int cmd_top(int argc, char **argv)
{
    cmd_opts o;
    int rc = cmd_opts_parse(&o, OPTS_INPUT | OPTS_PCP | OPTS_TOP | OPTS_OUTPUT,
                            argc, argv, top_usage);
    if (rc)
        return rc == 1 ? 0 : rc;
    const char *fmt = cmd_opts_format(&o, top_formats);
    if (fmt == NULL)
        return 2;
    stacktab *tab = stacktab_new();
    rc = inout_read_inputs(&o, o.files, o.nfiles, 0, tab);
    int col = rc == 0 ? inout_drawn_column(&o, tab) : 0;
    if (col < 0)
        rc = 2;
    if (rc == 0) {
        top_result *r = top_compute(tab, col);
        bool total = strcmp(o.by, "total") == 0;
        top_sort(r, total);
        FILE *out = inout_open_output(&o, NULL);
        if (out == NULL) {
            rc = 1;
        } else {
            if (strcmp(fmt, "json") == 0)
                top_write_json(out, r, (size_t)o.limit, o.svg.countname, o.by);
            else
                top_write_table(out, r, (size_t)o.limit, o.svg.countname);
            rc = inout_close_output(&o, out);
        }
        top_free(r);
    }
    stacktab_free(tab);
    return rc;
}
