/* options: the one command-line parser (see options.h). */
#include "client/cmd/options.h"

#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "client/stack/heatmap.h"
#include "common/duration.h"
#include "common/script_opts.h"

enum {
    O_INPUT_FORMAT = 256, O_PID, O_TID, O_KERNEL, O_JIT, O_ALL, O_ADDRS,
    O_NO_COMM, O_NO_MARKS, O_PERIOD,
    O_CP, O_FACTOR, O_BGCOLORS, O_NAMEATTR, O_ENCODING,
    O_TITLE, O_SUBTITLE, O_COUNTNAME, O_NAMETYPE, O_WIDTH, O_HEIGHT,
    O_FONTSIZE, O_FONTTYPE, O_FONTWIDTH, O_MINWIDTH, O_COLORS, O_HASH,
    O_REVERSE, O_INVERTED, O_FLAMECHART, O_SORT, O_FORMAT, O_NOTES,
    O_NORMALIZE, O_ABSOLUTE, O_STRIP_HEX, O_NEGATE, O_ELIDED, O_FOLDED, O_LIMIT, O_BY,
    O_HELP, O_OUTPUT, O_HOST, O_ARCHIVE, O_INTERVAL, O_START, O_FINISH,
    O_METRIC, O_BY_HOST, O_WEIGHT, O_SERIES, O_PMPROXY, O_WAIT, O_RUN, O_OUTPUT_DIR, O_LABEL,
    O_ROWS, O_ENHANCE, O_KEEP_IDLE,
    O_LIVE_DIR, O_WINDOW_MINUTES, O_FLAME_SECONDS, O_MAX_SAMPLES,
    O_HEATMAP_KIND, O_LISTEN, O_ALLOW_RUNS,
    O_DURATION, O_SCRIPT_NAME, O_HZ, O_SCRIPT_PID, O_CMD, O_KERNEL_ONLY,
    O_USER_ONLY, O_SCRIPT_DIR, O_BACKEND, O_REPLAY, O_SAVE,
    O_SAMPLE_INDEX, O_SAMPLE_TIMES, O_NODECOUNT, O_NODEFRACTION,
    O_EDGEFRACTION,
    O_FOCUS, O_IGNORE, O_HIDE, O_SHOW, O_ONLY_PID, O_ONLY_TID, O_ONLY_COMM,
    O_ONLY_HOST, O_HOTCOLD,
};

/* Every option of every command.  A long name or a short letter may
 * stand in two groups that no command accepts together (--pid, --name,
 * --dir, -T, -n). */
typedef struct opt_def {
    const char *name;
    int         has_arg;     /* no_argument / required_argument */
    int         letter;      /* short option, or 0 */
    int         id;
    int         group;       /* OPTS_*; 0: every command */
    const char *arg;         /* the argument's name in --help, or "" */
    const char *help;        /* one line for --help */
} opt_def;

static const opt_def options[] = {
    { "help", no_argument, 0, O_HELP, 0,
      "", "print this command's options and exit" },
    { "output", required_argument, 'o', O_OUTPUT, OPTS_OUTPUT,
      "FILE", "write to FILE (default: standard output)" },
    { "format", required_argument, 0, O_FORMAT, OPTS_OUTPUT,
      "FMT", "output format (the command's usage names them)" },
    { "input-format", required_argument, 0, O_INPUT_FORMAT, OPTS_INPUT,
      "FMT", "folded, perf, stap or auto (default: guess)" },
    { "pid", no_argument, 0, O_PID, OPTS_INPUT,
      "", "root frame comm-PID" },
    { "tid", no_argument, 0, O_TID, OPTS_INPUT,
      "", "root frame comm-PID/TID" },
    { "kernel", no_argument, 0, O_KERNEL, OPTS_INPUT,
      "", "mark kernel frames _[k] (the default; with --no-marks: this mark only)" },
    { "jit", no_argument, 0, O_JIT, OPTS_INPUT,
      "", "mark JIT frames _[j] (the default; with --no-marks: this mark only)" },
    { "all", no_argument, 0, O_ALL, OPTS_INPUT,
      "", "both marks (the default; with --no-marks: both)" },
    { "addrs", no_argument, 0, O_ADDRS, OPTS_INPUT,
      "", "perf: unknown frames show their address" },
    { "no-comm", no_argument, 0, O_NO_COMM, OPTS_INPUT,
      "", "no process (command) root frame" },
    { "no-marks", no_argument, 0, O_NO_MARKS, OPTS_INPUT,
      "", "no _[k] / _[j] marks (stackcollapse-perf.pl's frames)" },
    { "period", no_argument, 0, O_PERIOD, OPTS_INPUT,
      "", "perf: weigh samples by their period (named in ns or the event)" },
    { "sample-index", required_argument, 0, O_SAMPLE_INDEX, OPTS_INPUT,
      "NAME|N", "pprof input: the sample type drawn (default: pprof's)" },
    { "sample-times", no_argument, 0, O_SAMPLE_TIMES, OPTS_OUTPUT,
      "", "--format pprof: keep each sample's time" },
    /* pprof's filters (stack/stackfilter.h, the one rule); --pid and
     * --tid are taken (root frames), hence --only-pid and its kin */
    { "focus", required_argument, 0, O_FOCUS, OPTS_FILTER,
      "RE", "keep only samples with a frame matching RE (POSIX extended)" },
    { "ignore", required_argument, 0, O_IGNORE, OPTS_FILTER,
      "RE", "drop samples with a frame matching RE" },
    { "hide", required_argument, 0, O_HIDE, OPTS_FILTER,
      "RE", "remove frames matching RE from every stack" },
    { "show", required_argument, 0, O_SHOW, OPTS_FILTER,
      "RE", "keep only frames matching RE" },
    { "only-pid", required_argument, 0, O_ONLY_PID, OPTS_FILTER,
      "PID", "keep only samples of process PID (repeatable)" },
    { "only-tid", required_argument, 0, O_ONLY_TID, OPTS_FILTER,
      "TID", "keep only samples of thread TID (repeatable)" },
    { "only-comm", required_argument, 0, O_ONLY_COMM, OPTS_FILTER,
      "NAME", "keep only samples of command NAME (repeatable)" },
    { "only-host", required_argument, 0, O_ONLY_HOST, OPTS_FILTER,
      "HOST", "keep only samples from HOST (repeatable; PCP inputs)" },
    { "title", required_argument, 0, O_TITLE, OPTS_SVG,
      "TEXT", "title (default: Flame Graph)" },
    { "subtitle", required_argument, 0, O_SUBTITLE, OPTS_SVG,
      "TEXT", "second title line" },
    { "countname", required_argument, 0, O_COUNTNAME, OPTS_SVG,
      "NAME", "what the counts are (default: samples)" },
    { "nametype", required_argument, 0, O_NAMETYPE, OPTS_SVG,
      "TEXT", "label of a frame in the details line (default: Function:)" },
    { "width", required_argument, 0, O_WIDTH, OPTS_SVG,
      "PX", "image width (default 1200)" },
    { "height", required_argument, 0, O_HEIGHT, OPTS_SVG,
      "PX", "frame height (default 16)" },
    { "fontsize", required_argument, 0, O_FONTSIZE, OPTS_SVG,
      "N", "font size (default 12)" },
    { "fonttype", required_argument, 0, O_FONTTYPE, OPTS_SVG,
      "FONT", "font family (default Verdana)" },
    { "fontwidth", required_argument, 0, O_FONTWIDTH, OPTS_SVG,
      "N", "average character width relative to the font size (0.59)" },
    { "minwidth", required_argument, 0, O_MINWIDTH, OPTS_SVG,
      "PX|N%", "leave out frames narrower than this (default 0.1 px)" },
    { "colors", required_argument, 0, O_COLORS, OPTS_SVG,
      "PALETTE", "hot, mem, io, wakeup, chain, java, js, perl, red, green, blue, aqua, yellow, purple, orange, hotcold" },
    { "palette", required_argument, 0, O_COLORS, OPTS_SVG,
      "PALETTE", "the same as --colors" },
    { "hash", no_argument, 0, O_HASH, OPTS_SVG,
      "", "colours by name hash (flamegraph.pl --hash)" },
    { "inverted", no_argument, 0, O_INVERTED, OPTS_SVG,
      "", "icicle graph (root at the top)" },
    { "flamechart", no_argument, 0, O_FLAMECHART, OPTS_SVG,
      "", "flame chart: input (time) order, adjacent samples merged" },
    { "cp", no_argument, 0, O_CP, OPTS_SVG,
      "", "consistent palette: colours kept by name in ./palette.map" },
    { "factor", required_argument, 0, O_FACTOR, OPTS_SVG,
      "F", "show the counts multiplied by F (e.g. to turn samples into time)" },
    { "bgcolors", required_argument, 0, O_BGCOLORS, OPTS_SVG,
      "COLOR", "background: yellow, blue, green, grey or #rrggbb" },
    { "nameattr", required_argument, 0, O_NAMEATTR, OPTS_SVG,
      "FILE", "per-name attributes: NAME<TAB>key=value... (href, title, id, class, ...)" },
    { "encoding", required_argument, 0, O_ENCODING, OPTS_SVG,
      "ENC", "the encoding the SVG's XML declaration names" },
    { "notes", required_argument, 0, O_NOTES, OPTS_SVG,
      "TEXT", "a comment in the SVG" },
    { "reverse", no_argument, 0, O_REVERSE, OPTS_TREE,
      "", "reverse every stack (leaf as the root)" },
    { "sort", required_argument, 0, O_SORT, OPTS_TREE,
      "name|weight", "sibling order (default: name, as flamegraph.pl)" },
    { "normalize", no_argument, 'n', O_NORMALIZE, OPTS_DIFF,
      "", "scale BEFORE to AFTER's total (the default when they differ)" },
    { "absolute", no_argument, 0, O_ABSOLUTE, OPTS_DIFF,
      "", "compare the counts as they are, not scaled (pprof's default)" },
    { "strip-hex", no_argument, 's', O_STRIP_HEX, OPTS_DIFF,
      "", "hex addresses as 0x... (difffolded.pl -s)" },
    { "negate", no_argument, 0, O_NEGATE, OPTS_SVG,
      "", "differential: swap red and blue" },
    { "elided", no_argument, 0, O_ELIDED, OPTS_DIFF,
      "", "only the stacks present on one side" },
    { "folded", no_argument, 0, O_FOLDED, OPTS_DIFF,
      "", "write two-column folded text instead of an SVG" },
    { "limit", required_argument, 'n', O_LIMIT, OPTS_TOP,
      "N", "rows (default 20; 0: all)" },
    /* diff's --format table: top's --limit and --by, without -n (diff's
     * -n is --normalize) */
    { "limit", required_argument, 0, O_LIMIT, OPTS_DIFF,
      "N", "--format table: rows (default 20; 0: all)" },
    { "by", required_argument, 0, O_BY, OPTS_DIFF,
      "self|total", "--format table: shares of self or total weight" },
    { "by", required_argument, 0, O_BY, OPTS_TOP,
      "self|total", "rank by self or total weight" },
    /* -h is pmcd's host, as in every PCP tool; help is --help */
    { "host", required_argument, 'h', O_HOST, OPTS_PCP,
      "HOST[:PORT]", "read live from pmcd on HOST (repeatable)" },
    { "archive", required_argument, 'a', O_ARCHIVE, OPTS_PCP,
      "ARCHIVE", "read a PCP archive (repeatable)" },
    { "interval", required_argument, 't', O_INTERVAL, OPTS_PCP,
      "INTERVAL", "live: time between fetches (default 1 s); --series: between sparse reads (5min)" },
    { "start", required_argument, 'S', O_START, OPTS_PCP,
      "START", "archives: records stamped from START" },
    { "finish", required_argument, 'T', O_FINISH, OPTS_PCP,
      "END", "live: collect until END (10sec, @14:30); archives: records stamped until END" },
    { "metric", required_argument, 0, O_METRIC, OPTS_PCP,
      "NAME", "the event metric (the arguments are then files)" },
    { "by-host", no_argument, 0, O_BY_HOST, OPTS_PCP,
      "", "host name as the root frame" },
    { "weight", required_argument, 0, O_WEIGHT, OPTS_PCP,
      "time|events", "records with a duration weigh its ns (default) or 1 each" },
    { "wait", required_argument, 0, O_WAIT, OPTS_PCP,
      "SECONDS", "live: wait up to SECONDS for the metric to appear (default 30; 0: not at all)" },
    { "series", required_argument, 0, O_SERIES, OPTS_PCP,
      "QUERY", "read the stacks counters pmseries QUERY matches, through pmproxy" },
    { "pmproxy", required_argument, 0, O_PMPROXY, OPTS_PCP,
      "URL", "pmproxy for --series (default $PCP_PMPROXY_URL, else http://localhost:44322)" },
    { "run", required_argument, 0, O_RUN, OPTS_FROM_RUN,
      "NAME", "the records of the PMDA's run NAME (staprelay.control.runs)" },
    { "output-dir", required_argument, 0, O_OUTPUT_DIR, OPTS_FROM_RUN,
      "DIR", "write DIR/STEM-KIND, STEM the run's name or --name" },
    { "name", required_argument, 0, O_LABEL, OPTS_FROM_RUN,
      "LABEL", "the STEM of --output-dir's files" },
    { "rows", required_argument, 0, O_ROWS, OPTS_HEATMAP,
      "N", "rows per second (default 50)" },
    { "enhance", no_argument, 0, O_ENHANCE, OPTS_HEATMAP,
      "", "FlameScope's enhanced colour scale" },
    { "keep-idle", no_argument, 0, O_KEEP_IDLE, OPTS_HEATMAP,
      "", "keep idle samples (swapper in the idle loop)" },
    { "nodecount", required_argument, 0, O_NODECOUNT, OPTS_GRAPH,
      "N", "call graph: at most N nodes" },
    { "nodefraction", required_argument, 0, O_NODEFRACTION, OPTS_GRAPH,
      "F", "call graph: leave out nodes under F of the total" },
    { "edgefraction", required_argument, 0, O_EDGEFRACTION, OPTS_GRAPH,
      "F", "call graph: leave out edges under F of the total" },
    { "hotcold", no_argument, 0, O_HOTCOLD, OPTS_HOTCOLD,
      "", "on-CPU samples and off-CPU blocks in one graph, in ns, per thread at most the window" },
    { "hz", required_argument, 0, O_HZ, OPTS_HOTCOLD,
      "N", "--hotcold: the on-CPU samples' frequency, each 1/N s (default: the source's, else 99)" },
    { "dir", required_argument, 0, O_LIVE_DIR, OPTS_LIVE,
      "DIR", "the directory kept up to date" },
    { "window-minutes", required_argument, 0, O_WINDOW_MINUTES, OPTS_LIVE,
      "N", "heat map window (default 10)" },
    { "flame-seconds", required_argument, 0, O_FLAME_SECONDS, OPTS_LIVE,
      "N", "flame graph window (default 30)" },
    { "max-samples", required_argument, 0, O_MAX_SAMPLES, OPTS_LIVE,
      "N", "samples kept in memory (default 2000000)" },
    { "heatmap", required_argument, 0, O_HEATMAP_KIND, OPTS_LIVE,
      "html|svg|both", "heat map files written (default both)" },
    /* staprelay web (docs/web.md) */
    { "listen", required_argument, 0, O_LISTEN, OPTS_WEB,
      "ADDR:PORT", "serve on ADDR:PORT (default 127.0.0.1:0, a free port)" },
    { "allow-runs", no_argument, 0, O_ALLOW_RUNS, OPTS_WEB,
      "", "the page may ask the PMDA for runs (pmstore staprelay.control.run)" },
    { "window-minutes", required_argument, 0, O_WINDOW_MINUTES, OPTS_WEB,
      "N", "live: the minutes of samples kept (default 10)" },
    { "max-samples", required_argument, 0, O_MAX_SAMPLES, OPTS_WEB,
      "N", "samples kept in memory (default 2000000)" },
    { "duration", required_argument, 'T', O_DURATION, OPTS_SCRIPT,
      "TIME", "run for TIME (500ms, 10s, 2m, 1h; default: until Ctrl-C)" },
    { "name", required_argument, 0, O_SCRIPT_NAME, OPTS_SCRIPT,
      "NAME", "module / source name (default staprelay_SCRIPT)" },
    { "hz", required_argument, 0, O_HZ, OPTS_SCRIPT,
      "N", "sampling frequency (default 99)" },
    { "pid", required_argument, 0, O_SCRIPT_PID, OPTS_SCRIPT,
      "PID", "only this process" },
    { "cmd", required_argument, 0, O_CMD, OPTS_SCRIPT,
      "COMMAND", "run COMMAND and profile it until it ends" },
    { "kernel-only", no_argument, 0, O_KERNEL_ONLY, OPTS_SCRIPT,
      "", "only kernel stacks" },
    { "user-only", no_argument, 0, O_USER_ONLY, OPTS_SCRIPT,
      "", "only user stacks" },
    { "dir", required_argument, 0, O_SCRIPT_DIR, OPTS_SCRIPT,
      "DIR", "perf: the directory the PMDA watches" },
    { "backend", required_argument, 0, O_BACKEND, OPTS_SCRIPT,
      "stap|bpf|perf", "use that backend or fail" },
    { "replay", no_argument, 0, O_REPLAY, OPTS_SCRIPT,
      "", "perf: the event metric replays (the PMDA's runs)" },
    { "save", required_argument, 0, O_SAVE, OPTS_SCRIPT,
      "FILE", "perf: keep the perf script text in FILE" },
};
#define NOPTIONS (sizeof options / sizeof options[0])

static bool accepted(const opt_def *d, int groups)
{
    return d->group == 0 || (groups & d->group);
}

/* ---- errors ---------------------------------------------------------------- */

static int vusage_error(cmd_opts *o, const char *usage, const char *fmt,
                        va_list ap)
{
    vsnprintf(o->error, sizeof o->error, fmt, ap);
    fprintf(stderr, "staprelay %s: %s\n", o->command, o->error);
    fprintf(stderr, "usage: %s\n", usage);
    return 2;
}

int cmd_opts_error(cmd_opts *o, const char *usage, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int rc = vusage_error(o, usage, fmt, ap);
    va_end(ap);
    return rc;
}

/* An option getopt did not take: one of another command's groups (not
 * valid here), or none at all (unknown). */
static int not_taken(cmd_opts *o, const char *usage, const char *arg)
{
    size_t n = strcspn(arg, "=");
    for (size_t i = 0; i < NOPTIONS; i++) {
        const opt_def *d = &options[i];
        bool is_long = arg[0] == '-' && arg[1] == '-'
                       && strlen(d->name) == n - 2
                       && strncmp(arg + 2, d->name, n - 2) == 0;
        bool is_short = arg[0] == '-' && arg[1] != '-' && arg[1] != '\0'
                        && d->letter == arg[1];
        if (is_long || is_short)
            return cmd_opts_error(o, usage, "option not valid here: %s", arg);
    }
    return cmd_opts_error(o, usage, "unknown option: %s", arg);
}

/* ---- values ---------------------------------------------------------------- */

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

static bool parse_long(const char *s, long lo, long hi, long *out)
{
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (end == s || *end != '\0' || errno != 0 || v < lo || v > hi)
        return false;
    *out = v;
    return true;
}

/* A whole number in [lo, hi] for option opt, or a usage error. */
static int number(cmd_opts *o, const char *usage, const char *opt,
                  const char *v, long lo, long hi, long *out)
{
    if (parse_long(v, lo, hi, out))
        return 0;
    return cmd_opts_error(o, usage, "%s takes %ld to %ld: %s", opt, lo, hi, v);
}

/* ---- --output-dir ---------------------------------------------------------- */

static int check_output_dir(cmd_opts *o, const char *usage)
{
    if (o->label && o->output_dir == NULL)
        return cmd_opts_error(o, usage, "--name LABEL names the files that "
                              "--output-dir writes; give --output-dir DIR");
    if (o->output_dir == NULL)
        return 0;
    if (o->output)
        return cmd_opts_error(o, usage, "-o and --output-dir exclude each "
                              "other");
    if (o->label == NULL && o->nruns == 0)
        return cmd_opts_error(o, usage, "--output-dir names its files after "
                              "the run (--run NAME); without a run, give "
                              "--name LABEL");
    strbuf stem = STRBUF_INIT;
    cmd_opts_output_stem(o, &stem);
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

void cmd_opts_output_stem(const cmd_opts *o, strbuf *sb)
{
    if (o->label)
        sb_adds(sb, o->label);
    else if (o->nruns == 2)
        sb_printf(sb, "%s-vs-%s", o->runs[0], o->runs[1]);
    else if (o->nruns == 1)
        sb_adds(sb, o->runs[0]);
}

bool cmd_opts_start(cmd_opts *o, int groups, int argc, char **argv,
                    const char *usage, const char *const formats[],
                    const char **fmt, int *exit_code)
{
    int rc = cmd_opts_parse(o, groups, argc, argv, usage);
    if (rc) {
        *exit_code = rc == 1 ? 0 : rc;
        return false;
    }
    *fmt = cmd_opts_format(o, formats);
    *exit_code = *fmt ? 0 : 2;
    return *fmt != NULL;
}

const char *cmd_opts_format(const cmd_opts *o, const char *const formats[])
{
    const char *fmt = o->format ? o->format : formats[0];
    strbuf list = STRBUF_INIT;
    for (size_t i = 0; formats[i] != NULL; i++) {
        if (strcmp(fmt, formats[i]) == 0) {
            sb_free(&list);
            return fmt;
        }
        sb_printf(&list, "%s%s", i == 0 ? "" : formats[i + 1] ? ", " : " or ", formats[i]);
    }
    fprintf(stderr, "staprelay %s: unknown --format %s (%s)\n", o->command, fmt, list.buf);
    sb_free(&list);
    return NULL;
}

/* ---- the filters (stack/stackfilter.h) ------------------------------------- */

/* A regex once (pprof's: combine with '|'); an id or name list up to
 * STACKFILTER_MAX_IDS. */
static int take_filter(cmd_opts *o, const char *usage, int id,
                       const char *arg)
{
    static const char *const names[] = { "--focus", "--ignore", "--hide",
                                         "--show" };
    stackfilter_spec *f = &o->filter;
    const char **re[] = { &f->focus, &f->ignore, &f->hide, &f->show };
    if (id >= O_FOCUS && id <= O_SHOW) {
        if (*re[id - O_FOCUS])
            return cmd_opts_error(o, usage, "%s given twice (one regex: "
                                  "join them with '|')", names[id - O_FOCUS]);
        *re[id - O_FOCUS] = arg;
        return 0;
    }
    int *n = id == O_ONLY_PID ? &f->npids : id == O_ONLY_TID ? &f->ntids
             : id == O_ONLY_COMM ? &f->ncomms : &f->nhosts;
    const char *opt = id == O_ONLY_PID ? "--only-pid" : id == O_ONLY_TID
                      ? "--only-tid" : id == O_ONLY_COMM ? "--only-comm"
                      : "--only-host";
    if (*n == STACKFILTER_MAX_IDS)
        return cmd_opts_error(o, usage, "more than %d %s", STACKFILTER_MAX_IDS,
                              opt);
    if (id == O_ONLY_PID || id == O_ONLY_TID) {
        long v;
        if (number(o, usage, opt, arg, 0, 0x7fffffffL, &v))
            return 2;
        (id == O_ONLY_PID ? f->pids : f->tids)[(*n)++] = v;
        return 0;
    }
    if (*arg == '\0')
        return cmd_opts_error(o, usage, "%s needs a name", opt);
    (id == O_ONLY_COMM ? f->comms : f->hosts)[(*n)++] = arg;
    return 0;
}

/* The compiled filter of the last parse: freed by the next parse and at
 * exit (the commands keep their cmd_opts to the end). */
static stackfilter *parsed_filter;

static void free_parsed_filter(void)
{
    stackfilter_free(parsed_filter);
    parsed_filter = NULL;
}

/* Compile the filters given into o->in.filter (NULL when none). */
static int finish_filter(cmd_opts *o, const char *usage)
{
    static bool registered;
    free_parsed_filter();
    if (!registered)
        atexit(free_parsed_filter);
    registered = true;
    strbuf err = STRBUF_INIT;
    stackfilter *f = stackfilter_new(&o->filter, &err);
    int rc = 0;
    if (f == NULL)
        rc = cmd_opts_error(o, usage, "%s", err.buf);
    else if (stackfilter_empty(f))
        stackfilter_free(f);
    else
        o->in.filter = parsed_filter = f;
    sb_free(&err);
    return rc;
}

/* ---- one option ------------------------------------------------------------ */

/* Take option id with argument arg (NULL for flags).  Returns 0, or 2
 * after a usage error. */
static int take(cmd_opts *o, int groups, const char *usage, int id,
                const char *arg)
{
    bool two = groups & OPTS_DIFF;     /* diff takes two of -S, -T, --run */
    double d;
    long n;
    switch (id) {
    case O_FOCUS: case O_IGNORE: case O_HIDE: case O_SHOW:
    case O_ONLY_PID: case O_ONLY_TID: case O_ONLY_COMM: case O_ONLY_HOST:
        return take_filter(o, usage, id, arg);
    case O_OUTPUT: o->output = arg; break;
    case O_FORMAT: o->format = arg; break;
    case O_HOST:
        if (o->pcp.nhosts == PCP_MAX_SOURCES)
            return cmd_opts_error(o, usage, "too many -h: %s", arg);
        o->pcp.hosts[o->pcp.nhosts++] = arg;
        break;
    case O_ARCHIVE:
        if (o->pcp.narchives == PCP_MAX_SOURCES)
            return cmd_opts_error(o, usage, "too many -a: %s", arg);
        o->pcp.archives[o->pcp.narchives++] = arg;
        break;
    case O_INTERVAL: o->pcp.interval = arg; break;
    case O_START:
        if (o->nstarts == (two ? CMD_MAX_PROFILES : 1))
            return two ? cmd_opts_error(o, usage, "-S given more than %d "
                                        "times: %s", CMD_MAX_PROFILES, arg)
                       : cmd_opts_error(o, usage, "-S given twice: %s", arg);
        o->starts[o->nstarts++] = arg;
        break;
    case O_FINISH:
        if (o->nfinishes == (two ? CMD_MAX_PROFILES : 1))
            return two ? cmd_opts_error(o, usage, "-T given more than %d "
                                        "times: %s", CMD_MAX_PROFILES, arg)
                       : cmd_opts_error(o, usage, "-T given twice: %s", arg);
        o->finishes[o->nfinishes++] = arg;
        break;
    case O_METRIC:
        if (o->pcp.nmetrics == PCP_MAX_METRICS)
            return cmd_opts_error(o, usage, "too many --metric: %s", arg);
        o->pcp.metrics[o->pcp.nmetrics++] = arg;
        o->metric_opt = true;
        break;
    case O_BY_HOST: o->pcp.by_host = true; break;
    case O_WEIGHT:
        if (strcmp(arg, "time") != 0 && strcmp(arg, "events") != 0)
            return cmd_opts_error(o, usage, "--weight %s: give time or events", arg);
        o->pcp.weigh = arg[0] == 't' ? PCP_WEIGH_TIME : PCP_WEIGH_EVENTS;
        break;
    case O_WAIT: {
        char *end;
        errno = 0;
        double w = strtod(arg, &end);
        if (end == arg || *end != '\0' || errno != 0 || !(w >= 0) || w > 86400)
            return cmd_opts_error(o, usage, "--wait %s: give seconds, 0 to "
                                  "86400", arg);
        o->pcp.wait_s = w;
        o->pcp.wait_set = true;
        break;
    }
    case O_SERIES:
        if (o->nseries == 2 || (o->nseries == 1 && !two))
            return cmd_opts_error(o, usage, "%s: %s", two
                                  ? "--series given more than twice"
                                  : "--series given twice", arg);
        if (*arg == '\0')
            return cmd_opts_error(o, usage, "--series needs a query (a metric "
                                  "name, with {label filters} if any)");
        o->series[o->nseries++] = arg;
        break;
    case O_PMPROXY:
        if (*arg == '\0')
            return cmd_opts_error(o, usage, "--pmproxy needs a URL");
        o->pcp.pmproxy = arg;
        break;
    case O_RUN:
        if (o->nruns == (two ? 2 : 1))
            return cmd_opts_error(o, usage, "%s: %s", two
                                  ? "--run given more than twice"
                                  : "--run given twice", arg);
        if (*arg == '\0')
            return cmd_opts_error(o, usage, "--run needs a run name");
        o->runs[o->nruns++] = arg;
        break;
    case O_OUTPUT_DIR:
        if (*arg == '\0')
            return cmd_opts_error(o, usage, "--output-dir needs a directory");
        o->output_dir = arg;
        break;
    case O_LABEL: o->label = arg; break;
    case O_INPUT_FORMAT:
        if (!input_format_parse(arg, &o->in.format))
            return cmd_opts_error(o, usage, "unknown input format: %s", arg);
        break;
    case O_PID: o->in.perf.include_pid = true; break;
    case O_TID: o->in.perf.include_tid = true; break;
    /* the marks are the default (every path marks as the relay does);
     * with --no-marks each of --kernel and --jit adds back its own mark
     * only, as stackcollapse-perf.pl's options do (perf_frame_opts) */
    case O_KERNEL: o->in.perf.kernel_marks = true; break;
    case O_JIT: o->in.perf.jit_marks = true; break;
    case O_ALL: o->in.perf.kernel_marks = o->in.perf.jit_marks = true; break;
    case O_NO_COMM: o->in.perf.no_comm = true; break;
    case O_NO_MARKS: o->in.perf.no_marks = true; break;
    case O_PERIOD: o->in.perf.period = true; break;
    case O_ADDRS: o->in.perf.include_addrs = true; break;
    case O_SAMPLE_INDEX:
        if (*arg == '\0')
            return cmd_opts_error(o, usage, "--sample-index needs a number "
                                  "or a sample type name");
        o->in.sample_index = arg;
        break;
    case O_SAMPLE_TIMES: o->sample_times = true; break;
    case O_HOTCOLD: o->hotcold = true; break;
    case O_TITLE: o->svg.title = arg; break;
    case O_SUBTITLE: o->svg.subtitle = arg; break;
    case O_COUNTNAME: o->svg.countname = arg; o->countname_given = true; break;
    case O_NAMETYPE: o->svg.nametype = arg; break;
    case O_NOTES: o->svg.notes = arg; break;
    case O_CP: o->svg.cp = true; break;
    case O_FACTOR:
        if (!parse_double(arg, 0, &d) || !(d > 0))
            return cmd_opts_error(o, usage, "bad --factor: %s", arg);
        o->svg.factor = d;
        break;
    case O_BGCOLORS:
        if (!flamesvg_bgcolors_ok(arg))
            return cmd_opts_error(o, usage, "--bgcolors takes yellow, blue, "
                                  "green, grey or #rrggbb: %s", arg);
        o->svg.bgcolors = arg;
        break;
    case O_NAMEATTR: o->svg.nameattr_file = arg; break;
    case O_ENCODING:
        if (*arg == '\0' || strpbrk(arg, "\"<>&'") != NULL)
            return cmd_opts_error(o, usage, "bad --encoding: %s", arg);
        o->svg.encoding = arg;
        break;
    case O_FONTTYPE: o->svg.fonttype = arg; break;
    case O_WIDTH:
        if (!parse_double(arg, 40, &o->svg.width))
            return cmd_opts_error(o, usage, "bad --width: %s", arg);
        break;
    case O_HEIGHT:
        if (!parse_double(arg, 2, &o->svg.frameheight))
            return cmd_opts_error(o, usage, "bad --height: %s", arg);
        break;
    case O_FONTSIZE:
        if (!parse_double(arg, 1, &o->svg.fontsize))
            return cmd_opts_error(o, usage, "bad --fontsize: %s", arg);
        break;
    case O_FONTWIDTH:
        if (!parse_double(arg, 0.01, &o->svg.fontwidth))
            return cmd_opts_error(o, usage, "bad --fontwidth: %s", arg);
        break;
    case O_MINWIDTH: {
        char buf[64];
        snprintf(buf, sizeof buf, "%s", arg);
        size_t len = strlen(buf);
        o->svg.minwidth_pct = len > 0 && buf[len - 1] == '%';
        if (o->svg.minwidth_pct)
            buf[len - 1] = '\0';
        if (!parse_double(buf, 0, &d))
            return cmd_opts_error(o, usage, "bad --minwidth: %s", arg);
        o->svg.minwidth = d;
        break;
    }
    case O_COLORS:
        if (!palette_parse(arg, &o->svg.colors))
            return cmd_opts_error(o, usage, "unknown palette: %s", arg);
        break;
    case O_HASH: o->svg.hash = true; break;
    case O_REVERSE: o->reverse = true; break;
    case O_INVERTED: o->svg.inverted = true; break;
    case O_FLAMECHART: o->svg.flamechart = true; break;
    case O_SORT:
        if (strcmp(arg, "weight") == 0)
            o->sort_weight = true;
        else if (strcmp(arg, "name") == 0)
            o->sort_weight = false;
        else
            return cmd_opts_error(o, usage, "--sort takes name or weight: %s",
                                  arg);
        break;
    case O_NORMALIZE:
    case O_ABSOLUTE:
        if (id == O_ABSOLUTE ? o->normalize : o->absolute)
            return cmd_opts_error(o, usage, "-n/--normalize and --absolute "
                                  "contradict: pick one");
        if (id == O_ABSOLUTE)
            o->absolute = true;
        else
            o->normalize = true;
        break;
    case O_STRIP_HEX: o->in.strip_hex = true; break;
    case O_NEGATE: o->svg.negate = true; break;
    case O_ELIDED: o->elided = true; break;
    case O_FOLDED: o->folded_out = true; break;
    case O_LIMIT: {
        char *end;
        o->limit = strtol(arg, &end, 10);
        if (*end || o->limit < 0)
            return cmd_opts_error(o, usage, "bad --limit: %s", arg);
        break;
    }
    case O_BY:
        if (strcmp(arg, "self") && strcmp(arg, "total"))
            return cmd_opts_error(o, usage, "--by takes self or total: %s",
                                  arg);
        o->by = arg;
        break;
    case O_ROWS:
        if (number(o, usage, "--rows", arg, 1, HEATMAP_MAX_ROWS, &n))
            return 2;
        o->rows = (int)n;
        break;
    case O_ENHANCE: o->enhance = true; break;
    case O_NODECOUNT:
        return number(o, usage, "--nodecount", arg, 0, 1000000, &o->nodecount);
    case O_NODEFRACTION:
    case O_EDGEFRACTION:
        if (!parse_double(arg, 0, &d) || d > 1)
            return cmd_opts_error(o, usage, "%s takes a fraction from 0 to "
                                  "1: %s", id == O_NODEFRACTION
                                  ? "--nodefraction" : "--edgefraction", arg);
        *(id == O_NODEFRACTION ? &o->nodefraction : &o->edgefraction) = d;
        break;
    case O_KEEP_IDLE: o->keep_idle = true; break;
    case O_LIVE_DIR:
        if (*arg == '\0')
            return cmd_opts_error(o, usage, "--dir needs a directory");
        o->live_dir = arg;
        break;
    case O_WINDOW_MINUTES:
        return number(o, usage, "--window-minutes", arg, 1,
                      HEATMAP_MAX_COLUMNS / 60 - 1, &o->window_min);
    case O_FLAME_SECONDS:
        return number(o, usage, "--flame-seconds", arg, 1, 86400, &o->flame_s);
    case O_MAX_SAMPLES:
        return number(o, usage, "--max-samples", arg, 1000, 1000000000L,
                      &o->max_samples);
    case O_HEATMAP_KIND:
        if (strcmp(arg, "html") && strcmp(arg, "svg") && strcmp(arg, "both"))
            return cmd_opts_error(o, usage, "--heatmap takes html, svg or both");
        o->want_html = strcmp(arg, "svg") != 0;
        o->want_svg = strcmp(arg, "html") != 0;
        break;
    case O_LISTEN: o->listen = arg; break;
    case O_ALLOW_RUNS: o->allow_runs = true; break;
    case O_DURATION:
        o->script.duration = duration_parse(arg);
        if (o->script.duration <= 0)
            return cmd_opts_error(o, usage, "bad duration '%s' (seconds, or "
                                  "with a unit: 500ms, 10s, 2m, 1h)", arg);
        break;
    case O_SCRIPT_NAME:
        if (!run_name_ok(arg))
            return cmd_opts_error(o, usage, "bad name '%s': a letter, then "
                                  "letters, digits or '_', at most 48 (it is "
                                  "the module name and a PCP name component)",
                                  arg);
        o->script.name = arg;
        break;
    case O_HZ:
    case O_SCRIPT_PID: {
        const script_opt *so = script_opt_find(id == O_HZ ? "hz" : "pid");
        if (!script_opt_value(so, arg, id == O_HZ ? &o->script.hz : &o->script.pid))
            return cmd_opts_error(o, usage, "bad --%s '%s' (%s)", so->name, arg, so->what);
        o->script.given |= id == O_HZ ? RUN_OPT_HZ : RUN_OPT_PID;
        break;
    }
    case O_CMD:
        if (*arg == '\0')
            return cmd_opts_error(o, usage, "empty --cmd");
        o->script.cmd = arg;
        o->script.given |= RUN_OPT_CMD;
        break;
    case O_KERNEL_ONLY:
        o->script.kernel_only = true;
        o->script.given |= RUN_OPT_KERNEL_ONLY;
        break;
    case O_USER_ONLY:
        o->script.user_only = true;
        o->script.given |= RUN_OPT_USER_ONLY;
        break;
    case O_SCRIPT_DIR: o->script.dir = arg; break;
    case O_REPLAY: o->script.replay = true; break;
    case O_SAVE:
        if (*arg == '\0')
            return cmd_opts_error(o, usage, "--save needs a file name");
        o->script.save = arg;
        break;
    case O_BACKEND:
        if (strcmp(arg, "stap") && strcmp(arg, "bpf") && strcmp(arg, "perf"))
            return cmd_opts_error(o, usage, "bad --backend '%s' (stap, bpf or "
                                  "perf)", arg);
        o->script.backend = arg;
        break;
    default:
        return cmd_opts_error(o, usage, "unknown option");
    }
    return 0;
}

/* ---- after the options: what they say together ------------------------------ */

/* run: exactly one argument, the script. */
static int finish_script(cmd_opts *o, const char *usage)
{
    if (o->nfiles == 0)
        return cmd_opts_error(o, usage, "no script named (staprelay list "
                              "shows them)");
    if (o->nfiles > 1)
        return cmd_opts_error(o, usage, "unexpected argument '%s' after the "
                              "script name", o->files[1]);
    o->script.script = o->files[0];
    if (o->script.pid && o->script.cmd)
        return cmd_opts_error(o, usage, "--pid and --cmd exclude each other");
    if (o->script.kernel_only && o->script.user_only)
        return cmd_opts_error(o, usage, "--kernel-only and --user-only "
                              "exclude each other");
    return 0;
}

/* The PCP inputs: metric names, option combinations. */
static int finish_pcp(cmd_opts *o, const char *usage)
{
    o->pcp.start = o->nstarts ? o->starts[0] : NULL;
    o->pcp.finish = o->nfinishes ? o->finishes[0] : NULL;
    o->pcp.series = o->nseries ? o->series[0] : NULL;
    if (pcp_options_active(&o->pcp) && !o->metric_opt && o->nseries == 0) {
        /* the arguments name the event metrics */
        if (o->nfiles > PCP_MAX_METRICS)
            return cmd_opts_error(o, usage, "too many metrics: %s",
                                  o->files[0]);
        for (int i = 0; i < o->nfiles; i++)
            o->pcp.metrics[o->pcp.nmetrics++] = o->files[i];
        o->nfiles = 0;
    }
    o->pcp.run = o->nruns ? o->runs[0] : NULL;
    const perf_options *pf = &o->in.perf;
    if (pcp_options_active(&o->pcp) && o->nfiles == 0 && pf->include_addrs)
        return cmd_opts_error(o, usage, "--addrs applies to perf script "
                              "text; PCP event records come with their "
                              "stacks folded");
    if (pcp_options_active(&o->pcp) && o->nfiles == 0 && pf->period)
        return cmd_opts_error(o, usage, "--period applies to perf script "
                              "text; PCP event records count samples");
    int rc = check_output_dir(o, usage);
    if (rc != 0)
        return rc;
    strbuf err = STRBUF_INIT;
    pcp_options check = o->pcp;
    if (check.nmetrics == 0 && !pcp_options_active(&check))
        check.nmetrics = 1;     /* files only: nothing to name */
    if (pcp_options_check(&check, &err) < 0)
        rc = cmd_opts_error(o, usage, "%s", err.buf);
    sb_free(&err);
    return rc;
}

/* ---- the parse --------------------------------------------------------------- */

static void defaults(cmd_opts *o, const char *command)
{
    memset(o, 0, sizeof *o);
    o->command = command;
    svg_options_default(&o->svg);
    o->limit = 20;
    o->by = "self";
    o->rows = HEATMAP_DEFAULT_ROWS;
    o->window_min = 10;
    o->flame_s = 30;
    o->max_samples = 2000000;
    o->want_html = o->want_svg = true;
    o->nodecount = 80;           /* pprof's defaults */
    o->nodefraction = 0.005;
    o->edgefraction = 0.001;
}

/* "-h -T 10": -h's argument is missing, not a host named "-T".  Only
 * for options whose arguments never start with '-' (a -S/-T time such
 * as "-1min" and a --title may). */
static bool looks_like_option(const char *a)
{
    return a[0] == '-' && a[1] != '\0';
}

static bool takes_no_dash(int id)
{
    switch (id) {
    case O_HOST: case O_ARCHIVE: case O_OUTPUT: case O_OUTPUT_DIR:
    case O_LIVE_DIR: case O_SCRIPT_DIR: case O_METRIC: case O_RUN:
    case O_INTERVAL: case O_FORMAT: case O_INPUT_FORMAT: case O_NAMEATTR:
    case O_SAVE: case O_LABEL: case O_SCRIPT_NAME:
        return true;
    default:
        return false;
    }
}

/* ---- --help ------------------------------------------------------------------ */

static const struct { int group; const char *title; } group_titles[] = {
    { OPTS_INPUT,    "Input options" },
    { OPTS_FILTER,   "Filters" },
    { OPTS_PCP,      "PCP inputs" },
    { OPTS_FROM_RUN, "Runs" },
    { OPTS_SVG,      "Flame graph options" },
    { OPTS_TREE,     "Frame order" },
    { OPTS_DIFF,     "Differential options" },
    { OPTS_TOP,      "Table options" },
    { OPTS_GRAPH,    "Call graph options" },
    { OPTS_HEATMAP,  "Heat map options" },
    { OPTS_LIVE,     "Live options" },
    { OPTS_WEB,      "Web options" },
    { OPTS_HOTCOLD,  "Hot and cold options" },
    { OPTS_SCRIPT,   "Script options" },
    { OPTS_OUTPUT,   "Output" },
    { 0,             "Other" },
};

/* "-h, --host HOST[:PORT]" */
static int option_spelling(const opt_def *d, char *buf, size_t size)
{
    int n = d->letter ? snprintf(buf, size, "-%c, --%s", d->letter, d->name)
                      : snprintf(buf, size, "    --%s", d->name);
    if (d->arg && d->arg[0] && n >= 0 && (size_t)n < size)
        n += snprintf(buf + n, size - (size_t)n, " %s", d->arg);
    return n;
}

/* The usage, then every option the command accepts, group by group, from
 * the one table (what the parser accepts is what help lists). */
static void print_help(int groups, const char *usage)
{
    printf("usage: %s\n", usage);
    for (size_t g = 0; g < sizeof group_titles / sizeof group_titles[0]; g++) {
        int grp = group_titles[g].group;
        if (grp && !(groups & grp))
            continue;
        bool first = true;
        for (size_t i = 0; i < NOPTIONS; i++) {
            const opt_def *d = &options[i];
            if (d->group != grp)
                continue;
            if (first)
                printf("\n%s:\n", group_titles[g].title);
            first = false;
            char sp[96];
            int n = option_spelling(d, sp, sizeof sp);
            if (n > 28)
                printf("  %s\n  %28s  %s\n", sp, "", d->help);
            else
                printf("  %-28s  %s\n", sp, d->help);
        }
    }
    printf("\nSee staprelay(1) for the details.\n");
}

/* The getopt_long table and short-option string of the options the
 * groups accept. */
static void build_table(int groups, struct option *lo, char *shortopts)
{
    size_t k = 0, s = 0;
    shortopts[s++] = ':';           /* a missing argument returns ':' */
    for (size_t i = 0; i < NOPTIONS; i++) {
        const opt_def *d = &options[i];
        if (!accepted(d, groups))
            continue;
        lo[k++] = (struct option){ d->name, d->has_arg, NULL, d->id };
        if (d->letter) {
            shortopts[s++] = (char)d->letter;
            if (d->has_arg == required_argument)
                shortopts[s++] = ':';
        }
    }
    shortopts[s] = '\0';
    lo[k] = (struct option){ NULL, 0, NULL, 0 };
}

/* The option id of short letter c for these groups. */
static int letter_id(int groups, int c)
{
    for (size_t i = 0; i < NOPTIONS; i++)
        if (options[i].letter == c && accepted(&options[i], groups))
            return options[i].id;
    return 0;
}

int cmd_opts_parse(cmd_opts *o, int groups, int argc, char **argv,
                   const char *usage)
{
    defaults(o, argv[0]);
    if (groups & OPTS_INPUT)
        groups |= OPTS_FILTER;      /* every command reading stacks */
    struct option lo[NOPTIONS + 1];
    char shortopts[2 * NOPTIONS + 2];
    build_table(groups, lo, shortopts);
    optind = 0;     /* GNU: full reinitialisation, callable repeatedly */
    opterr = 0;
    int c;
    while ((c = getopt_long(argc, argv, shortopts, lo, NULL)) != -1) {
        if (c == '?')
            return not_taken(o, usage, argv[optind - 1]);
        if (c == ':')
            return cmd_opts_error(o, usage, "missing argument: %s",
                                  argv[optind - 1]);
        int id = c < 256 ? letter_id(groups, c) : c;
        if (optarg && looks_like_option(optarg) && takes_no_dash(id))
            return cmd_opts_error(o, usage, "missing argument: %s (found the "
                                  "option %s)", optarg == argv[optind - 1]
                                  ? argv[optind - 2] : argv[optind - 1],
                                  optarg);
        if (id == O_HELP) {
            print_help(groups, usage);
            return 1;
        }
        int rc = take(o, groups, usage, id, optarg);
        if (rc != 0)
            return rc;
    }
    o->files = argv + optind;
    o->nfiles = argc - optind;
    if (o->svg.flamechart && o->sort_weight)
        return cmd_opts_error(o, usage, "--flamechart keeps the input (time) "
                              "order on the x axis; --sort weight cannot "
                              "apply to it");
    if (groups & OPTS_SCRIPT)
        return finish_script(o, usage);
    int rc = finish_filter(o, usage);
    return rc ? rc : finish_pcp(o, usage);
}
