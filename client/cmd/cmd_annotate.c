/* cmd_annotate: `staprelay annotate REGEX [FILE...]` -- pprof -list for
 * perf script and SystemTap input: the samples of the functions whose
 * frame name matches REGEX, per source line (render/annotate_out: the
 * writer staprelay web's /api/annotate shares). */
#include <stdlib.h>
#include <string.h>

#include "client/cmd/builtin.h"
#include "client/cmd/inout.h"
#include "client/render/annotate_out.h"

static const char annotate_usage[] =
    "staprelay annotate [--input-format perf|stap] [--format text] [-o FILE] "
    "REGEX [FILE...]";

/* annotate, its options parsed (cmd_annotate frees them) */
static int annotate_command(cmd_opts *o)
{
    int rc = 0;
    inout_pprof_start(o, false, &rc);     /* refuses --sample-times */
    if (rc)
        return rc;
    if (o->nfiles == 0)
        return cmd_opts_error(o, annotate_usage, "name the function (a "
                              "regular expression, as pprof -list takes)");
    annotate *a = annotate_new(o->files[0], "staprelay annotate", stderr);
    if (a == NULL)
        return cmd_opts_error(o, annotate_usage, "bad regular expression: "
                              "%s", o->files[0]);
    o->in.on_detail = annotate_observe;
    o->in.on_detail_arg = a;
    stacktab *tab = stacktab_new();
    rc = inout_read_inputs(o, o->files + 1, o->nfiles - 1, 0, tab);
    if (rc == 0 && stacktab_total(tab, 0) <= 0)
        rc = inout_empty_input(o);
    if (rc == 0 && !annotate_found(a)) {
        strbuf why = STRBUF_INIT;
        annotate_none(a, o->files[0], &why);
        fprintf(stderr, "staprelay annotate: %s\n", why.buf);
        sb_free(&why);
        rc = 2;
    }
    if (rc == 0) {
        FILE *out = inout_open_output(o, NULL);
        if (out == NULL) {
            rc = 1;
        } else {
            int prc = annotate_print(out, a);
            rc = inout_close_output(o, out);
            if (rc == 0)
                rc = prc;
        }
    }
    stacktab_free(tab);
    annotate_free(a);
    return rc;
}

int cmd_annotate(int argc, char **argv)
{
    cmd_opts o;
    /* pprof -list's text is the one output: any other --format (pprof,
     * which used to be taken and ignored) is refused */
    static const char *const formats[] = { "text", NULL };
    const char *fmt;
    int rc;
    if (!cmd_opts_start(&o, OPTS_INPUT | OPTS_OUTPUT, argc, argv,
                        annotate_usage, formats, &fmt, &rc))
        return rc;
    rc = annotate_command(&o);
    cmd_opts_free(&o);
    return rc;
}
