/* cmd_top: `staprelay top` -- heaviest frames as a table or JSON. */
#include <string.h>

#include "client/cmd/inout.h"
#include "client/cmd/builtin.h"
#include "client/stack/top.h"

static const char top_usage[] =
    "staprelay top [input options] [-n|--limit N] [--by self|total] "
    "[--format table|json] [--countname N] [-o FILE] [FILE...]\n"
    "       staprelay top [options] {-h HOST[:PORT]... [-t INTERVAL] "
    "[-T END] | -a ARCHIVE|FARM... [-S START] [-T END]} [--by-host] METRIC...\n"
    "       staprelay top [options] --series QUERY [--pmproxy URL] [-S START] "
    "[-T END] [-t STEP] [--by-host]";

static const char *const top_formats[] = { "table", "json", NULL };

/* top, its options parsed (cmd_top frees them) */
static int top_command(cmd_opts *o, const char *fmt)
{
    int rc = 0;
    stacktab *tab = stacktab_new();
    int col;
    rc = inout_read_drawn(o, tab, &col);
    if (rc == 0) {
        top_result *r = top_compute(tab, col);
        bool total = strcmp(o->by, "total") == 0;
        top_sort(r, total);
        FILE *out = inout_open_output(o, NULL);
        if (out == NULL) {
            rc = 1;
        } else {
            if (strcmp(fmt, "json") == 0)
                top_write_json(out, r, (size_t)o->limit, o->svg.countname,
                               o->by);
            else
                top_write_table(out, r, (size_t)o->limit, o->svg.countname);
            rc = inout_close_output(o, out);
        }
        top_free(r);
    }
    stacktab_free(tab);
    return rc;
}

int cmd_top(int argc, char **argv)
{
    cmd_opts o;
    const char *fmt;
    int rc;
    if (!cmd_opts_start(&o, OPTS_INPUT | OPTS_PCP | OPTS_TOP | OPTS_OUTPUT,
                        argc, argv, top_usage, top_formats, &fmt, &rc))
        return rc;
    rc = top_command(&o, fmt);
    cmd_opts_free(&o);
    return rc;
}
