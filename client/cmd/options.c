/* cmdopts: option parsing and I/O helpers for subcommands. */
#include "client/cmd/options.h"

#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "client/util/xalloc.h"

enum {
    O_INPUT_FORMAT = 256, O_PID, O_TID, O_KERNEL, O_JIT, O_ALL, O_ADDRS,
    O_TITLE, O_SUBTITLE, O_COUNTNAME, O_NAMETYPE, O_WIDTH, O_HEIGHT,
    O_FONTSIZE, O_FONTTYPE, O_FONTWIDTH, O_MINWIDTH, O_COLORS, O_HASH,
    O_REVERSE, O_INVERTED, O_FLAMECHART, O_SORT, O_FORMAT, O_NOTES,
    O_NORMALIZE, O_STRIP_HEX, O_NEGATE, O_ELIDED, O_FOLDED, O_LIMIT, O_BY,
    O_HELP, O_METRIC, O_BY_HOST, O_RUN, O_OUTPUT_DIR, O_NAME,
};

static const struct option long_opts[] = {
    { "input-format", required_argument, NULL, O_INPUT_FORMAT },
    { "pid",          no_argument,       NULL, O_PID },
    { "tid",          no_argument,       NULL, O_TID },
    { "kernel",       no_argument,       NULL, O_KERNEL },
    { "jit",          no_argument,       NULL, O_JIT },
    { "all",          no_argument,       NULL, O_ALL },
    { "addrs",        no_argument,       NULL, O_ADDRS },
    { "title",        required_argument, NULL, O_TITLE },
    { "subtitle",     required_argument, NULL, O_SUBTITLE },
    { "countname",    required_argument, NULL, O_COUNTNAME },
    { "nametype",     required_argument, NULL, O_NAMETYPE },
    { "width",        required_argument, NULL, O_WIDTH },
    { "height",       required_argument, NULL, O_HEIGHT },
    { "fontsize",     required_argument, NULL, O_FONTSIZE },
    { "fonttype",     required_argument, NULL, O_FONTTYPE },
    { "fontwidth",    required_argument, NULL, O_FONTWIDTH },
    { "minwidth",     required_argument, NULL, O_MINWIDTH },
    { "colors",       required_argument, NULL, O_COLORS },
    { "palette",      required_argument, NULL, O_COLORS },
    { "hash",         no_argument,       NULL, O_HASH },
    { "reverse",      no_argument,       NULL, O_REVERSE },
    { "inverted",     no_argument,       NULL, O_INVERTED },
    { "flamechart",   no_argument,       NULL, O_FLAMECHART },
    { "sort",         required_argument, NULL, O_SORT },
    { "format",       required_argument, NULL, O_FORMAT },
    { "notes",        required_argument, NULL, O_NOTES },
    { "normalize",    no_argument,       NULL, O_NORMALIZE },
    { "strip-hex",    no_argument,       NULL, O_STRIP_HEX },
    { "negate",       no_argument,       NULL, O_NEGATE },
    { "elided",       no_argument,       NULL, O_ELIDED },
    { "folded",       no_argument,       NULL, O_FOLDED },
    { "limit",        required_argument, NULL, O_LIMIT },
    { "by",           required_argument, NULL, O_BY },
    { "output",       required_argument, NULL, 'o' },
    { "host",         required_argument, NULL, 'h' },
    { "archive",      required_argument, NULL, 'a' },
    { "interval",     required_argument, NULL, 't' },
    { "start",        required_argument, NULL, 'S' },
    { "finish",       required_argument, NULL, 'T' },
    { "metric",       required_argument, NULL, O_METRIC },
    { "by-host",      no_argument,       NULL, O_BY_HOST },
    { "run",          required_argument, NULL, O_RUN },
    { "output-dir",   required_argument, NULL, O_OUTPUT_DIR },
    { "name",         required_argument, NULL, O_NAME },
    { "help",         no_argument,       NULL, O_HELP },
    { NULL, 0, NULL, 0 },
};

static int group_of(int opt)
{
    if (opt == O_RUN || opt == O_OUTPUT_DIR || opt == O_NAME)
        return OPTS_RUN;
    if (opt == 'h' || opt == 'a' || opt == 't' || opt == 'S' || opt == 'T'
        || opt == O_METRIC || opt == O_BY_HOST)
        return OPTS_PCP;
    if (opt >= O_INPUT_FORMAT && opt <= O_ADDRS)
        return OPTS_INPUT;
    if ((opt >= O_TITLE && opt <= O_HASH) || opt == O_INVERTED
        || opt == O_FLAMECHART || opt == O_NOTES)
        return OPTS_SVG;
    if (opt == O_REVERSE || opt == O_SORT)
        return OPTS_TREE;
    if (opt >= O_NORMALIZE && opt <= O_FOLDED)
        return OPTS_DIFF;
    if (opt == O_LIMIT || opt == O_BY || opt == 'n')
        return OPTS_TOP;
    return 0;   /* always allowed */
}

static bool parse_double(const char *s, double lo, double *out)
{
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (errno || end == s || *end != '\0' || !(v >= lo) || v > 1e7)
        return false;
    *out = v;
    return true;
}

static int usage_error(const cmd_opts *o, const char *usage, const char *msg,
                       const char *arg)
{
    fprintf(stderr, "staprelay %s: %s%s%s\n", o->command, msg,
            arg ? ": " : "", arg ? arg : "");
    fprintf(stderr, "usage: %s\n", usage);
    return 2;
}

/* The stem of --output-dir's file names. */
static void output_stem(const cmd_opts *o, strbuf *sb)
{
    if (o->label)
        sb_adds(sb, o->label);
    else if (o->nruns == 2)
        sb_printf(sb, "%s-vs-%s", o->runs[0], o->runs[1]);
    else if (o->nruns == 1)
        sb_adds(sb, o->runs[0]);
}

char *cmd_output_name(const cmd_opts *o, const char *kind)
{
    if (o->output_dir == NULL || kind == NULL)
        return NULL;
    strbuf sb = STRBUF_INIT;
    output_stem(o, &sb);
    sb_printf(&sb, "-%s", kind);
    return sb_steal(&sb);
}

static int check_output_dir(const cmd_opts *o, const char *usage)
{
    if (o->label && o->output_dir == NULL)
        return usage_error(o, usage, "--name LABEL names the files that "
                           "--output-dir writes; give --output-dir DIR", NULL);
    if (o->output_dir == NULL)
        return 0;
    if (o->output)
        return usage_error(o, usage, "-o and --output-dir exclude each other",
                           NULL);
    if (o->label == NULL && o->nruns == 0)
        return usage_error(o, usage, "--output-dir names its files after the "
                           "run (--run NAME); without a run, give --name "
                           "LABEL", NULL);
    strbuf stem = STRBUF_INIT;
    output_stem(o, &stem);
    bool ok = outfile_stem_ok(stem.buf);
    sb_free(&stem);
    if (!ok) {
        fprintf(stderr, "staprelay %s: --output-dir: %s%s is not usable in a "
                "file name (1 to 200 of A-Z a-z 0-9 . _ + -, not starting "
                "with . or -)%s\n", o->command,
                o->label ? "--name " : "the run name ",
                o->label ? o->label : o->nruns == 2 ? "pair" : o->runs[0],
                o->label ? "" : "; give --name LABEL");
        return 2;
    }
    struct stat st;
    if (stat(o->output_dir, &st) < 0 || !S_ISDIR(st.st_mode)
        || access(o->output_dir, W_OK | X_OK) < 0) {
        int e = errno;
        fprintf(stderr, "staprelay %s: --output-dir %s: %s\n", o->command,
                o->output_dir, stat(o->output_dir, &st) < 0 ? strerror(e)
                : !S_ISDIR(st.st_mode) ? "not a directory" : strerror(e));
        return 2;
    }
    return 0;
}

int cmdopts_parse(cmd_opts *o, int groups, int argc, char **argv,
                  const char *usage)
{
    memset(o, 0, sizeof *o);
    o->command = argv[0];
    svg_options_default(&o->svg);
    o->limit = 20;
    o->by = "self";
    optind = 0;     /* GNU: full reinitialisation, callable repeatedly */
    opterr = 0;
    /* -n is --limit N for top, difffolded.pl's -n (normalise) for diff */
    /* -h is pmcd's host, as in every PCP tool; help is --help */
    const char *shortopts = (groups & OPTS_TOP) ? "o:n:h:a:t:S:T:"
                          : (groups & OPTS_DIFF) ? "o:snh:a:t:S:T:"
                          : "o:h:a:t:S:T:";
    int c;
    while ((c = getopt_long(argc, argv, shortopts, long_opts, NULL)) != -1) {
        if (c == '?')
            return usage_error(o, usage, "unknown option", argv[optind - 1]);
        if (c == ':')
            return usage_error(o, usage, "missing argument", argv[optind - 1]);
        if (c == O_HELP) {
            printf("usage: %s\n(see staprelay(1))\n", usage);
            return 1;
        }
        if (c == 's')
            c = O_STRIP_HEX;
        if (c == 'n' && !(groups & OPTS_TOP))
            c = O_NORMALIZE;
        int g = group_of(c);
        if (g && !(groups & g))
            return usage_error(o, usage, "option not valid here",
                               argv[optind - 1]);
        double d;
        switch (c) {
        case 'o': o->output = optarg; break;
        case 'h':
            if (o->pcp.nhosts == PCP_MAX_SOURCES)
                return usage_error(o, usage, "too many -h", optarg);
            o->pcp.hosts[o->pcp.nhosts++] = optarg;
            break;
        case 'a':
            if (o->pcp.narchives == PCP_MAX_SOURCES)
                return usage_error(o, usage, "too many -a", optarg);
            o->pcp.archives[o->pcp.narchives++] = optarg;
            break;
        case 't': o->pcp.interval = optarg; break;
        case 'S':
            if (o->nstarts == ((groups & OPTS_DIFF) ? 2 : 1))
                return usage_error(o, usage, (groups & OPTS_DIFF)
                                   ? "-S given more than twice"
                                   : "-S given twice", optarg);
            o->starts[o->nstarts++] = optarg;
            break;
        case 'T':
            if (o->nfinishes == ((groups & OPTS_DIFF) ? 2 : 1))
                return usage_error(o, usage, (groups & OPTS_DIFF)
                                   ? "-T given more than twice"
                                   : "-T given twice", optarg);
            o->finishes[o->nfinishes++] = optarg;
            break;
        case O_METRIC:
            if (o->pcp.nmetrics == PCP_MAX_METRICS)
                return usage_error(o, usage, "too many --metric", optarg);
            o->pcp.metrics[o->pcp.nmetrics++] = optarg;
            o->metric_opt = true;
            break;
        case O_BY_HOST: o->pcp.by_host = true; break;
        case O_RUN:
            if (o->nruns == ((groups & OPTS_DIFF) ? 2 : 1))
                return usage_error(o, usage, (groups & OPTS_DIFF)
                                   ? "--run given more than twice"
                                   : "--run given twice", optarg);
            if (*optarg == '\0')
                return usage_error(o, usage, "--run needs a run name", NULL);
            o->runs[o->nruns++] = optarg;
            break;
        case O_OUTPUT_DIR:
            if (*optarg == '\0')
                return usage_error(o, usage, "--output-dir needs a directory",
                                   NULL);
            o->output_dir = optarg;
            break;
        case O_NAME: o->label = optarg; break;
        case O_INPUT_FORMAT:
            if (!input_format_parse(optarg, &o->in.format))
                return usage_error(o, usage, "unknown input format", optarg);
            break;
        case O_PID: o->in.perf.include_pid = true; break;
        case O_TID: o->in.perf.include_tid = true; break;
        case O_KERNEL: o->in.perf.annotate_kernel = true; break;
        case O_JIT: o->in.perf.annotate_jit = true; break;
        case O_ALL:
            o->in.perf.annotate_kernel = o->in.perf.annotate_jit = true;
            break;
        case O_ADDRS: o->in.perf.include_addrs = true; break;
        case O_TITLE: o->svg.title = optarg; break;
        case O_SUBTITLE: o->svg.subtitle = optarg; break;
        case O_COUNTNAME: o->svg.countname = optarg; break;
        case O_NAMETYPE: o->svg.nametype = optarg; break;
        case O_NOTES: o->svg.notes = optarg; break;
        case O_FONTTYPE: o->svg.fonttype = optarg; break;
        case O_WIDTH:
            if (!parse_double(optarg, 40, &o->svg.width))
                return usage_error(o, usage, "bad --width", optarg);
            break;
        case O_HEIGHT:
            if (!parse_double(optarg, 2, &o->svg.frameheight))
                return usage_error(o, usage, "bad --height", optarg);
            break;
        case O_FONTSIZE:
            if (!parse_double(optarg, 1, &o->svg.fontsize))
                return usage_error(o, usage, "bad --fontsize", optarg);
            break;
        case O_FONTWIDTH:
            if (!parse_double(optarg, 0.01, &o->svg.fontwidth))
                return usage_error(o, usage, "bad --fontwidth", optarg);
            break;
        case O_MINWIDTH: {
            char buf[64];
            snprintf(buf, sizeof buf, "%s", optarg);
            size_t n = strlen(buf);
            o->svg.minwidth_pct = n > 0 && buf[n - 1] == '%';
            if (o->svg.minwidth_pct)
                buf[n - 1] = '\0';
            if (!parse_double(buf, 0, &d))
                return usage_error(o, usage, "bad --minwidth", optarg);
            o->svg.minwidth = d;
            break;
        }
        case O_COLORS:
            if (!palette_parse(optarg, &o->svg.colors))
                return usage_error(o, usage, "unknown palette", optarg);
            break;
        case O_HASH: o->svg.hash = true; break;
        case O_REVERSE: o->reverse = true; break;
        case O_INVERTED: o->svg.inverted = true; break;
        case O_FLAMECHART: o->svg.flamechart = true; break;
        case O_SORT:
            if (strcmp(optarg, "weight") == 0)
                o->sort_weight = true;
            else if (strcmp(optarg, "name") == 0)
                o->sort_weight = false;
            else
                return usage_error(o, usage, "--sort takes name or weight",
                                   optarg);
            break;
        case O_FORMAT: o->format = optarg; break;
        case O_NORMALIZE: o->normalize = true; break;
        case O_STRIP_HEX: o->in.strip_hex = true; break;
        case O_NEGATE: o->svg.negate = true; break;
        case O_ELIDED: o->elided = true; break;
        case O_FOLDED: o->folded_out = true; break;
        case 'n':
        case O_LIMIT: {
            char *end;
            o->limit = strtol(optarg, &end, 10);
            if (*end || o->limit < 0)
                return usage_error(o, usage, "bad --limit", optarg);
            break;
        }
        case O_BY:
            if (strcmp(optarg, "self") && strcmp(optarg, "total"))
                return usage_error(o, usage, "--by takes self or total",
                                   optarg);
            o->by = optarg;
            break;
        default:
            return usage_error(o, usage, "unknown option", argv[optind - 1]);
        }
    }
    if (o->svg.flamechart && o->sort_weight)
        return usage_error(o, usage, "--flamechart keeps the input (time) "
                           "order on the x axis; --sort weight cannot apply "
                           "to it", NULL);
    o->files = argv + optind;
    o->nfiles = argc - optind;
    o->pcp.start = o->nstarts ? o->starts[0] : NULL;
    o->pcp.finish = o->nfinishes ? o->finishes[0] : NULL;
    if (pcp_options_active(&o->pcp) && !o->metric_opt) {
        /* the arguments name the event metrics */
        if (o->nfiles > PCP_MAX_METRICS)
            return usage_error(o, usage, "too many metrics", o->files[0]);
        for (int i = 0; i < o->nfiles; i++)
            o->pcp.metrics[o->pcp.nmetrics++] = o->files[i];
        o->nfiles = 0;
    }
    o->pcp.run = o->nruns ? o->runs[0] : NULL;
    const perf_options *pf = &o->in.perf;
    if (pcp_options_active(&o->pcp) && o->nfiles == 0
        && (pf->annotate_kernel || pf->annotate_jit || pf->include_addrs))
        return usage_error(o, usage, "--kernel, --jit, --all and --addrs "
                           "apply to perf script text; PCP event records "
                           "come with their stacks folded (kernel frames "
                           "already marked _[k], JIT frames _[j])", NULL);
    int orc = check_output_dir(o, usage);
    if (orc != 0)
        return orc;
    strbuf err = STRBUF_INIT;
    pcp_options check = o->pcp;
    if (check.nmetrics == 0 && !pcp_options_active(&check))
        check.nmetrics = 1;     /* files only: nothing to name */
    if (pcp_options_check(&check, &err) < 0) {
        int rc = usage_error(o, usage, err.buf, NULL);
        sb_free(&err);
        return rc;
    }
    sb_free(&err);
    return 0;
}

int cmd_read_pcp(const cmd_opts *o, const pcp_options *po, int col,
                 stacktab *tab)
{
    input_options in = o->in;
    in.col = col;
    pcp_stats st;
    memset(&st, 0, sizeof st);
    strbuf err = STRBUF_INIT;
    int rc = pcp_input_read(po, &in, o->command, tab, &st, &err);
    if (rc != 0) {
        fprintf(stderr, "staprelay %s: %s\n", o->command, err.buf);
        if (rc == 2)
            fprintf(stderr, "usage: see staprelay(1), PCP INPUTS\n");
        sb_free(&err);
        return rc;
    }
    sb_free(&err);
    if (st.missed)
        fprintf(stderr, "staprelay %s: missed %" PRIu64 " records (the "
                "PMDA's queue overflowed before they were fetched)\n",
                o->command, st.missed);
    if (st.ignored)
        fprintf(stderr, "staprelay %s: ignored %" PRIu64 " records without "
                "a usable stack\n", o->command, st.ignored);
    if (st.records == 0)
        fprintf(stderr, "staprelay %s: no event records%s\n", o->command,
                po->nhosts ? " arrived" : " in the archive");
    else if (st.stacks == 0 && st.outside && st.run_window)
        fprintf(stderr, "staprelay %s: all %" PRIu64 " records are outside "
                "run %s's time window\n", o->command, st.outside, po->run);
    else if (st.stacks == 0 && st.outside)
        fprintf(stderr, "staprelay %s: all %" PRIu64 " records are outside "
                "the -S/-T window\n", o->command, st.outside);
    else if (st.outside && st.run_window)
        fprintf(stderr, "staprelay %s: left out %" PRIu64 " records from "
                "outside run %s's time window (another run of the same "
                "script)\n", o->command, st.outside, po->run);
    return 0;
}

int cmd_read_inputs(const cmd_opts *o, char **files, int nfiles, int col,
                    stacktab *tab)
{
    input_options in = o->in;
    in.col = col;
    char *stdin_only[] = { "-" };
    if (pcp_options_active(&o->pcp)) {
        int rc = cmd_read_pcp(o, &o->pcp, col, tab);
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
        if (st.ignored)
            fprintf(stderr, "staprelay %s: %s: ignored %" PRIu64
                    " lines with invalid format\n", o->command, name,
                    st.ignored);
        if (st.filtered)
            fprintf(stderr, "staprelay %s: %s: kept only events of type %s"
                    " (%" PRIu64 " samples of other types skipped)\n",
                    o->command, name, st.event, st.filtered);
    }
    return 0;
}

FILE *cmd_open_output(cmd_opts *o, const char *kind)
{
    if (o->output_dir && kind) {
        char *name = cmd_output_name(o, kind);
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

int cmd_close_output(cmd_opts *o, FILE *out)
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
    return 0;
}

void cmd_discard_output(cmd_opts *o, FILE *out)
{
    if (o->outf.fp != NULL && out == o->outf.fp) {
        outfile_abort(&o->outf);
    } else if (out == stdout) {
        fflush(out);
    } else if (out != NULL) {
        fclose(out);
    }
}

void cmd_run_subtitle(strbuf *sb, const char *name, const pcp_run *r)
{
    sb_printf(sb, "run %s", name);
    if (r->request && r->request[0]) {
        sb_adds(sb, ": ");
        pcp_run_text(sb, r->request, 120);
    }
    if (r->name)        /* parsed: the state is known */
        sb_printf(sb, " (%s)", pcp_run_state_name(r->state));
}

int cmd_empty_input(const cmd_opts *o)
{
    if (pcp_options_active(&o->pcp) && o->nfiles == 0) {
        if (o->pcp.run)
            fprintf(stderr, "staprelay %s: no stack samples from run %s\n",
                    o->command, o->pcp.run);
        else
            fprintf(stderr, "staprelay %s: no stack samples from %s\n",
                    o->command, o->pcp.metrics[0]);
        return 2;
    }
    fprintf(stderr, "staprelay %s: no stack samples found in the input "
            "(expected folded stacks, perf script output or SystemTap "
            "backtraces)\n", o->command);
    return 2;
}
