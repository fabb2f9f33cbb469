/* options: the one command-line parser (see options.h).  Each option is
 * a row of one table: its spelling, group and help line, and how it is
 * taken -- a kind (flag, string, bounded number, list, ...) and the
 * cmd_opts field it fills, as git's parse-options rows do.  The generic
 * parser takes every row by its kind; the few options with a rule of
 * their own (a choice of words, a check of another option, several
 * fields set) name a callback, a small function saying what it does. */
#include "client/cmd/options.h"

#include <errno.h>
#include <float.h>
#include <getopt.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "client/stack/blockstate.h"
#include "client/stack/heatmap.h"
#include "common/duration.h"
#include "common/script_opts.h"
#include "common/xalloc.h"

/* ---- the rows ---------------------------------------------------------------- */

/* How the parser takes a row's argument into its target.  A value's
 * error names the option as the user can spell it shortest: -h, -S,
 * else --name. */
typedef enum opt_kind {
    K_HELP,      /* --help: print the command's options, return 1 */
    K_FLAG,      /* bool: true */
    K_STRING,    /* const char *: the argument */
    K_NONEMPTY,  /* const char *: the argument, "" refused ("--X needs
                  * NEED") */
    K_LONG,      /* long in [lo, hi] ("--X takes LO to HI: V") */
    K_INT,       /* int in [lo, hi], the same */
    K_DOUBLE,    /* double from min up to 1e7 ("bad --X: V") */
    K_FRACTION,  /* double from 0 to 1 ("--X takes a fraction from 0 to
                  * 1: V") */
    K_APPEND,    /* one more of a const char *[] whose int count is at
                  * count ("too many -X: V") */
    K_SIDE,      /* the same, once; for the commands taking OPTS_DIFF
                  * as many as the array holds (BEFORE and AFTER, or
                  * diff --format table's profiles) ("-X given twice:
                  * V"); "" refused when need says what it lacks */
    K_CALL,      /* the row's callback takes it */
} opt_kind;

/* One parse: what the callbacks need besides the row and the argument. */
typedef struct parse_state {
    cmd_opts   *o;
    const char *usage;
    int         groups;
} parse_state;

typedef struct opt_def opt_def;
/* A callback: 0, or 2 after a usage error (cmd_opts_error). */
typedef int opt_fn(parse_state *ps, const opt_def *d, const char *arg);

/* Every option of every command.  A long name or a short letter may
 * stand in two groups that no command accepts together (--pid, --name,
 * --dir, -T, -n); the parse refuses a table where the groups a command
 * accepts hold one twice. */
struct opt_def {
    const char *name;       /* --name */
    int         letter;     /* -l, or 0 */
    int         group;      /* OPTS_*; 0: every command */
    opt_kind    kind;
    size_t      at;         /* the target field: offsetof(cmd_opts, ...);
                             * 0 (the command's name) for none */
    size_t      count;      /* K_APPEND, K_SIDE, lists: the int count */
    long        lo, hi;     /* K_LONG, K_INT: the range; arrays: hi is
                             * their size */
    double      min;        /* K_DOUBLE */
    const char *need;       /* K_NONEMPTY, K_SIDE: what "" lacks */
    opt_fn     *fn;         /* K_CALL */
    unsigned    given;      /* RUN_OPT_* recorded in script.given */
    bool        no_dash;    /* its argument never starts with '-': "-h
                             * -T 10" is -h missing its argument */
    const char *arg;        /* the argument's name in --help; "": the
                             * option takes none */
    const char *help;       /* one line for --help */
};

/* The offset of cmd_opts field f, which must be of type T (a mismatch
 * does not compile: _Generic has no association for it). */
#define AT(T, f) _Generic(&((cmd_opts *)0)->f, T *: offsetof(cmd_opts, f))
#define SIZE(f) (sizeof ((cmd_opts *)0)->f / sizeof ((cmd_opts *)0)->f[0])

/* A row: its spelling, group, how it is taken (one of the kinds below),
 * its argument's name ("" for none) and help line. */
#define OPT(nm, l, grp, how, a, h) \
    { .name = nm, .letter = l, .group = grp, how, .arg = a, .help = h }
#define HELP                 .kind = K_HELP
#define FLAG(f)              .kind = K_FLAG, .at = AT(bool, f)
#define STRING(f)            .kind = K_STRING, .at = AT(const char *, f)
#define NONEMPTY(f, what)    .kind = K_NONEMPTY, .at = AT(const char *, f), \
                             .need = what
#define LONG(f, l, h)        .kind = K_LONG, .at = AT(long, f), .lo = l, .hi = h
#define INT(f, l, h)         .kind = K_INT, .at = AT(int, f), .lo = l, .hi = h
#define DOUBLE(f, m)         .kind = K_DOUBLE, .at = AT(double, f), .min = m
#define FRACTION(f)          .kind = K_FRACTION, .at = AT(double, f)
#define APPEND(f, n)         .kind = K_APPEND, .at = AT(const char *, f[0]), \
                             .count = AT(int, n), .hi = SIZE(f)
#define SIDE(f, n, what)     .kind = K_SIDE, .at = AT(const char *, f[0]), \
                             .count = AT(int, n), .hi = SIZE(f), .need = what
#define CALL(cb)             .kind = K_CALL, .fn = cb
#define CALL_AT(cb, T, f)    .kind = K_CALL, .fn = cb, .at = AT(T, f)
#define CALL_LIST(cb, T, f, n) .kind = K_CALL, .fn = cb, .at = AT(T, f[0]), \
                             .count = AT(int, n), .hi = SIZE(f)
/* ... and what a row adds to its kind */
#define NO_DASH(how)         how, .no_dash = true
#define GIVEN(bit, how)      how, .given = bit

static void *target(cmd_opts *o, size_t at)
{
    return (char *)o + at;
}

/* "-h" for an option with a letter, else "--name". */
static const char *spelled(const opt_def *d, char *buf, size_t size)
{
    if (d->letter)
        snprintf(buf, size, "-%c", d->letter);
    else
        snprintf(buf, size, "--%s", d->name);
    return buf;
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

/* ---- values ---------------------------------------------------------------- */

static bool parse_double(const char *s, double lo, double hi, double *out)
{
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (errno || end == s || *end != '\0' || !(v >= lo) || v > hi)
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

/* ---- the options with rules of their own ----------------------------------- */

static int take_input_format(parse_state *ps, const opt_def *d, const char *arg)
{
    (void)d;
    if (!input_format_parse(arg, &ps->o->in.format))
        return cmd_opts_error(ps->o, ps->usage, "unknown input format: %s",
                              arg);
    return 0;
}

/* --all: both marks (with --no-marks, each mark option adds its own
 * back, as stackcollapse-perf.pl's do: perf_frame_opts) */
static int take_both_marks(parse_state *ps, const opt_def *d, const char *arg)
{
    (void)d, (void)arg;
    ps->o->in.perf.kernel_marks = ps->o->in.perf.jit_marks = true;
    return 0;
}

/* --focus and its kin: one regex each (pprof's: combine with '|'). */
static int take_one_regex(parse_state *ps, const opt_def *d, const char *arg)
{
    const char **re = target(ps->o, d->at);
    char opt[64];
    if (*re)
        return cmd_opts_error(ps->o, ps->usage, "%s given twice (one regex: "
                              "join them with '|')",
                              spelled(d, opt, sizeof opt));
    *re = arg;
    return 0;
}

/* The context lists: up to STACKFILTER_MAX_IDS ids or names. */
static int list_full(parse_state *ps, const opt_def *d)
{
    char opt[64];
    if (*(int *)target(ps->o, d->count) < d->hi)
        return 0;
    return cmd_opts_error(ps->o, ps->usage, "more than %ld %s", d->hi,
                          spelled(d, opt, sizeof opt));
}

static int take_context_id(parse_state *ps, const opt_def *d, const char *arg)
{
    char opt[64];
    long v;
    if (list_full(ps, d)
        || number(ps->o, ps->usage, spelled(d, opt, sizeof opt), arg, 0,
                  0x7fffffffL, &v))
        return 2;
    int *n = target(ps->o, d->count);
    ((int64_t *)target(ps->o, d->at))[(*n)++] = v;
    return 0;
}

static int take_context_name(parse_state *ps, const opt_def *d,
                             const char *arg)
{
    char opt[64];
    if (list_full(ps, d))
        return 2;
    if (*arg == '\0')
        return cmd_opts_error(ps->o, ps->usage, "%s needs a name",
                              spelled(d, opt, sizeof opt));
    int *n = target(ps->o, d->count);
    ((const char **)target(ps->o, d->at))[(*n)++] = arg;
    return 0;
}

/* --only-state CLASS[,CLASS...]: the block classes kept (blockstate.h) */
static int take_state(parse_state *ps, const opt_def *d, const char *arg)
{
    (void)d;
    strbuf why = STRBUF_INIT;
    int rc = 0;
    if (!block_state_add_list(arg, &ps->o->filter.states, &why))
        rc = cmd_opts_error(ps->o, ps->usage, "--only-state %s: %s", arg,
                            why.buf);
    sb_free(&why);
    return rc;
}

static int take_weight(parse_state *ps, const opt_def *d, const char *arg)
{
    (void)d;
    if (strcmp(arg, "time") != 0 && strcmp(arg, "events") != 0)
        return cmd_opts_error(ps->o, ps->usage, "--weight %s: give time or "
                              "events", arg);
    ps->o->pcp.weigh = arg[0] == 't' ? PCP_WEIGH_TIME : PCP_WEIGH_EVENTS;
    return 0;
}

/* --wait: seconds, and that they were given (0 is not the default). */
static int take_wait(parse_state *ps, const opt_def *d, const char *arg)
{
    (void)d;
    if (!parse_double(arg, 0, 86400, &ps->o->pcp.wait_s))
        return cmd_opts_error(ps->o, ps->usage, "--wait %s: give seconds, 0 "
                              "to 86400", arg);
    ps->o->pcp.wait_set = true;
    return 0;
}

/* --countname, and that it was given (timed inputs name their own) */
static int take_countname(parse_state *ps, const opt_def *d, const char *arg)
{
    (void)d;
    ps->o->svg.countname = arg;
    ps->o->countname_given = true;
    return 0;
}

static int take_bgcolors(parse_state *ps, const opt_def *d, const char *arg)
{
    (void)d;
    if (!flamesvg_bgcolors_ok(arg))
        return cmd_opts_error(ps->o, ps->usage, "--bgcolors takes yellow, "
                              "blue, green, grey or #rrggbb: %s", arg);
    ps->o->svg.bgcolors = arg;
    return 0;
}

/* --encoding: it goes into the XML declaration's quotes */
static int take_encoding(parse_state *ps, const opt_def *d, const char *arg)
{
    (void)d;
    if (*arg == '\0' || strpbrk(arg, "\"<>&'") != NULL)
        return cmd_opts_error(ps->o, ps->usage, "bad --encoding: %s", arg);
    ps->o->svg.encoding = arg;
    return 0;
}

/* --minwidth PX or N% */
static int take_minwidth(parse_state *ps, const opt_def *d, const char *arg)
{
    (void)d;
    svg_options *svg = &ps->o->svg;
    char buf[64];
    snprintf(buf, sizeof buf, "%s", arg);
    size_t len = strlen(buf);
    svg->minwidth_pct = len > 0 && buf[len - 1] == '%';
    if (svg->minwidth_pct)
        buf[len - 1] = '\0';
    if (!parse_double(buf, 0, 1e7, &svg->minwidth))
        return cmd_opts_error(ps->o, ps->usage, "bad --minwidth: %s", arg);
    return 0;
}

static int take_palette(parse_state *ps, const opt_def *d, const char *arg)
{
    (void)d;
    if (!palette_parse(arg, &ps->o->svg.colors))
        return cmd_opts_error(ps->o, ps->usage, "unknown palette: %s", arg);
    return 0;
}

static int take_sort(parse_state *ps, const opt_def *d, const char *arg)
{
    (void)d;
    if (strcmp(arg, "weight") != 0 && strcmp(arg, "name") != 0)
        return cmd_opts_error(ps->o, ps->usage, "--sort takes name or "
                              "weight: %s", arg);
    ps->o->sort_weight = arg[0] == 'w';
    return 0;
}

/* -n/--normalize and --absolute: one of the two, whichever comes first */
static int take_scaling(parse_state *ps, const opt_def *d, const char *arg)
{
    (void)arg;
    cmd_opts *o = ps->o;
    bool *mine = target(o, d->at);
    bool *other = mine == &o->normalize ? &o->absolute : &o->normalize;
    if (*other)
        return cmd_opts_error(o, ps->usage, "-n/--normalize and --absolute "
                              "contradict: pick one");
    *mine = true;
    return 0;
}

/* --limit: 0 or more (its message predates the ranges' "takes") */
static int take_limit(parse_state *ps, const opt_def *d, const char *arg)
{
    (void)d;
    char *end;
    ps->o->limit = strtol(arg, &end, 10);
    if (*end || ps->o->limit < 0)
        return cmd_opts_error(ps->o, ps->usage, "bad --limit: %s", arg);
    return 0;
}

static int take_rank(parse_state *ps, const opt_def *d, const char *arg)
{
    (void)d;
    if (strcmp(arg, "self") && strcmp(arg, "total"))
        return cmd_opts_error(ps->o, ps->usage, "--by takes self or total: "
                              "%s", arg);
    ps->o->by = arg;
    return 0;
}

/* live --heatmap: which of the two heat map files */
static int take_heatmap_files(parse_state *ps, const opt_def *d,
                              const char *arg)
{
    (void)d;
    if (strcmp(arg, "html") && strcmp(arg, "svg") && strcmp(arg, "both"))
        return cmd_opts_error(ps->o, ps->usage, "--heatmap takes html, svg "
                              "or both");
    ps->o->want_html = strcmp(arg, "svg") != 0;
    ps->o->want_svg = strcmp(arg, "html") != 0;
    return 0;
}

static int take_duration(parse_state *ps, const opt_def *d, const char *arg)
{
    (void)d;
    ps->o->script.duration = duration_parse(arg);
    if (ps->o->script.duration <= 0)
        return cmd_opts_error(ps->o, ps->usage, "bad duration '%s' (seconds, "
                              "or with a unit: 500ms, 10s, 2m, 1h)", arg);
    return 0;
}

static int take_run_name(parse_state *ps, const opt_def *d, const char *arg)
{
    (void)d;
    if (!run_name_ok(arg))
        return cmd_opts_error(ps->o, ps->usage, "bad name '%s': a letter, "
                              "then letters, digits or '_', at most 48 (it "
                              "is the module name and a PCP name component)",
                              arg);
    ps->o->script.name = arg;
    return 0;
}

/* --hz, --pid: within the limits the relay checks too (script_opts.h,
 * found by the option's name) */
static int take_script_number(parse_state *ps, const opt_def *d,
                              const char *arg)
{
    const script_opt *so = script_opt_find(d->name);
    if (!script_opt_value(so, arg, target(ps->o, d->at)))
        return cmd_opts_error(ps->o, ps->usage, "bad --%s '%s' (%s)",
                              so->name, arg, so->what);
    return 0;
}

static int take_command(parse_state *ps, const opt_def *d, const char *arg)
{
    (void)d;
    if (*arg == '\0')
        return cmd_opts_error(ps->o, ps->usage, "empty --cmd");
    ps->o->script.cmd = arg;
    return 0;
}

static int take_backend(parse_state *ps, const opt_def *d, const char *arg)
{
    (void)d;
    if (strcmp(arg, "stap") && strcmp(arg, "bpf") && strcmp(arg, "perf"))
        return cmd_opts_error(ps->o, ps->usage, "bad --backend '%s' (stap, "
                              "bpf or perf)", arg);
    ps->o->script.backend = arg;
    return 0;
}

/* ---- the table ------------------------------------------------------------- */

/* A new option: its row here, in its group, and its field in cmd_opts
 * (options.h); a callback above only if no kind takes it. */
static const opt_def options[] = {
    OPT("help", 0, 0, HELP,
        "", "print this command's options and exit"),
    OPT("output", 'o', OPTS_OUTPUT, NO_DASH(STRING(output)),
        "FILE", "write to FILE (default: standard output)"),
    OPT("format", 0, OPTS_OUTPUT, NO_DASH(STRING(format)),
        "FMT", "output format (the command's usage names them)"),
    OPT("input-format", 0, OPTS_INPUT, NO_DASH(CALL(take_input_format)),
        "FMT", "folded, perf, stap or auto (default: guess)"),
    OPT("pid", 0, OPTS_INPUT, FLAG(in.perf.include_pid),
        "", "root frame comm-PID"),
    OPT("tid", 0, OPTS_INPUT, FLAG(in.perf.include_tid),
        "", "root frame comm-PID/TID"),
    /* the marks are the default (every path marks as the relay does);
     * with --no-marks each of --kernel and --jit adds back its own mark
     * only, as stackcollapse-perf.pl's options do (perf_frame_opts) */
    OPT("kernel", 0, OPTS_INPUT, FLAG(in.perf.kernel_marks),
        "", "mark kernel frames _[k] (the default; with --no-marks: this mark only)"),
    OPT("jit", 0, OPTS_INPUT, FLAG(in.perf.jit_marks),
        "", "mark JIT frames _[j] (the default; with --no-marks: this mark only)"),
    OPT("all", 0, OPTS_INPUT, CALL(take_both_marks),
        "", "both marks (the default; with --no-marks: both)"),
    OPT("addrs", 0, OPTS_INPUT, FLAG(in.perf.include_addrs),
        "", "perf: unknown frames show their address"),
    OPT("no-comm", 0, OPTS_INPUT, FLAG(in.perf.no_comm),
        "", "no process (command) root frame"),
    OPT("no-marks", 0, OPTS_INPUT, FLAG(in.perf.no_marks),
        "", "no _[k] / _[j] marks (stackcollapse-perf.pl's frames)"),
    OPT("period", 0, OPTS_INPUT, FLAG(in.perf.period),
        "", "perf: weigh samples by their period (named in ns or the event)"),
    OPT("sample-index", 0, OPTS_INPUT,
        NONEMPTY(in.sample_index, "a number or a sample type name"),
        "NAME|N", "pprof input: the sample type drawn (default: pprof's)"),
    OPT("sample-times", 0, OPTS_OUTPUT, FLAG(sample_times),
        "", "--format pprof: keep each sample's time"),
    /* pprof's filters (stack/stackfilter.h, the one rule); --pid and
     * --tid are taken (root frames), hence --only-pid and its kin */
    OPT("focus", 0, OPTS_FILTER,
        CALL_AT(take_one_regex, const char *, filter.focus),
        "RE", "keep only samples with a frame matching RE (POSIX extended)"),
    OPT("ignore", 0, OPTS_FILTER,
        CALL_AT(take_one_regex, const char *, filter.ignore),
        "RE", "drop samples with a frame matching RE"),
    OPT("hide", 0, OPTS_FILTER,
        CALL_AT(take_one_regex, const char *, filter.hide),
        "RE", "remove frames matching RE from every stack"),
    OPT("show", 0, OPTS_FILTER,
        CALL_AT(take_one_regex, const char *, filter.show),
        "RE", "keep only frames matching RE"),
    OPT("only-pid", 0, OPTS_FILTER,
        CALL_LIST(take_context_id, int64_t, filter.pids, filter.npids),
        "PID", "keep only samples of process PID (repeatable)"),
    OPT("only-tid", 0, OPTS_FILTER,
        CALL_LIST(take_context_id, int64_t, filter.tids, filter.ntids),
        "TID", "keep only samples of thread TID (repeatable)"),
    OPT("only-comm", 0, OPTS_FILTER,
        CALL_LIST(take_context_name, const char *, filter.comms,
                  filter.ncomms),
        "NAME", "keep only samples of command NAME (repeatable)"),
    OPT("only-host", 0, OPTS_FILTER,
        CALL_LIST(take_context_name, const char *, filter.hosts,
                  filter.nhosts),
        "HOST", "keep only samples from HOST (repeatable; PCP inputs)"),
    OPT("only-state", 0, OPTS_FILTER, CALL(take_state),
        "CLASS,...", "keep only off-CPU blocks of these classes: " BLOCK_STATE_NAMES),
    OPT("title", 0, OPTS_SVG, STRING(svg.title),
        "TEXT", "title (default: Flame Graph)"),
    OPT("subtitle", 0, OPTS_SVG, STRING(svg.subtitle),
        "TEXT", "second title line"),
    OPT("countname", 0, OPTS_SVG, CALL(take_countname),
        "NAME", "what the counts are (default: samples)"),
    OPT("nametype", 0, OPTS_SVG, STRING(svg.nametype),
        "TEXT", "label of a frame in the details line (default: Function:)"),
    OPT("width", 0, OPTS_SVG, DOUBLE(svg.width, 40),
        "PX", "image width (default 1200)"),
    OPT("height", 0, OPTS_SVG, DOUBLE(svg.frameheight, 2),
        "PX", "frame height (default 16)"),
    OPT("fontsize", 0, OPTS_SVG, DOUBLE(svg.fontsize, 1),
        "N", "font size (default 12)"),
    OPT("fonttype", 0, OPTS_SVG, STRING(svg.fonttype),
        "FONT", "font family (default Verdana)"),
    OPT("fontwidth", 0, OPTS_SVG, DOUBLE(svg.fontwidth, 0.01),
        "N", "average character width relative to the font size (0.59)"),
    OPT("minwidth", 0, OPTS_SVG, CALL(take_minwidth),
        "PX|N%", "leave out frames narrower than this (default 0.1 px)"),
    OPT("colors", 0, OPTS_SVG, CALL(take_palette),
        "PALETTE", "hot, mem, io, wakeup, chain, java, js, perl, red, green, blue, aqua, yellow, purple, orange, hotcold"),
    OPT("palette", 0, OPTS_SVG, CALL(take_palette),
        "PALETTE", "the same as --colors"),
    OPT("hash", 0, OPTS_SVG, FLAG(svg.hash),
        "", "colours by name hash (flamegraph.pl --hash)"),
    OPT("inverted", 0, OPTS_SVG, FLAG(svg.inverted),
        "", "icicle graph (root at the top)"),
    OPT("flamechart", 0, OPTS_SVG, FLAG(svg.flamechart),
        "", "flame chart: input (time) order, adjacent samples merged"),
    OPT("cp", 0, OPTS_SVG, FLAG(svg.cp),
        "", "consistent palette: colours kept by name in ./palette.map"),
    /* above 0: the smallest double there is */
    OPT("factor", 0, OPTS_SVG, DOUBLE(svg.factor, DBL_TRUE_MIN),
        "F", "show the counts multiplied by F (e.g. to turn samples into time)"),
    OPT("bgcolors", 0, OPTS_SVG, CALL(take_bgcolors),
        "COLOR", "background: yellow, blue, green, grey or #rrggbb"),
    OPT("nameattr", 0, OPTS_SVG, NO_DASH(STRING(svg.nameattr_file)),
        "FILE", "per-name attributes: NAME<TAB>key=value... (href, title, id, class, ...)"),
    OPT("encoding", 0, OPTS_SVG, CALL(take_encoding),
        "ENC", "the encoding the SVG's XML declaration names"),
    OPT("notes", 0, OPTS_SVG, STRING(svg.notes),
        "TEXT", "a comment in the SVG"),
    OPT("reverse", 0, OPTS_TREE, FLAG(reverse),
        "", "reverse every stack (leaf as the root)"),
    OPT("sort", 0, OPTS_TREE, CALL(take_sort),
        "name|weight", "sibling order (default: name, as flamegraph.pl)"),
    OPT("normalize", 'n', OPTS_DIFF, CALL_AT(take_scaling, bool, normalize),
        "", "scale BEFORE to AFTER's total (the default when they differ)"),
    OPT("absolute", 0, OPTS_DIFF, CALL_AT(take_scaling, bool, absolute),
        "", "compare the counts as they are, not scaled (pprof's default)"),
    OPT("strip-hex", 's', OPTS_DIFF, FLAG(in.strip_hex),
        "", "hex addresses as 0x... (difffolded.pl -s)"),
    OPT("negate", 0, OPTS_SVG, FLAG(svg.negate),
        "", "differential: swap red and blue"),
    OPT("elided", 0, OPTS_DIFF, FLAG(elided),
        "", "only the stacks present on one side"),
    OPT("folded", 0, OPTS_DIFF, FLAG(folded_out),
        "", "write two-column folded text instead of an SVG"),
    OPT("limit", 'n', OPTS_TOP, CALL(take_limit),
        "N", "rows (default 20; 0: all)"),
    /* diff's --format table: top's --limit and --by, without -n (diff's
     * -n is --normalize) */
    OPT("limit", 0, OPTS_DIFF, CALL(take_limit),
        "N", "--format table: rows (default 20; 0: all)"),
    OPT("by", 0, OPTS_DIFF, CALL(take_rank),
        "self|total", "--format table: shares of self or total weight"),
    OPT("by", 0, OPTS_TOP, CALL(take_rank),
        "self|total", "rank by self or total weight"),
    /* -h is pmcd's host, as in every PCP tool; help is --help */
    OPT("host", 'h', OPTS_PCP, NO_DASH(APPEND(pcp.hosts, pcp.nhosts)),
        "HOST[:PORT]", "read live from pmcd on HOST (repeatable)"),
    OPT("archive", 'a', OPTS_PCP,
        NO_DASH(APPEND(pcp.archives, pcp.narchives)),
        "ARCHIVE", "read a PCP archive (repeatable)"),
    OPT("interval", 't', OPTS_PCP, NO_DASH(STRING(pcp.interval)),
        "INTERVAL", "live: time between fetches (default 1 s); --series: between sparse reads (5min)"),
    OPT("start", 'S', OPTS_PCP, SIDE(starts, nstarts, NULL),
        "START", "archives: records stamped from START"),
    OPT("finish", 'T', OPTS_PCP, SIDE(finishes, nfinishes, NULL),
        "END", "live: collect until END (10sec, @14:30); archives: records stamped until END"),
    OPT("metric", 0, OPTS_PCP, NO_DASH(APPEND(pcp.metrics, pcp.nmetrics)),
        "NAME", "the event metric (the arguments are then files)"),
    OPT("by-host", 0, OPTS_PCP, FLAG(pcp.by_host),
        "", "host name as the root frame"),
    OPT("by-state", 0, OPTS_PCP, FLAG(pcp.by_state),
        "", "an off-CPU block's class (io, lock, sleep, ...) as a frame"),
    OPT("weight", 0, OPTS_PCP, CALL(take_weight),
        "time|events", "records with a duration weigh its ns (default) or 1 each"),
    OPT("wait", 0, OPTS_PCP, CALL(take_wait),
        "SECONDS", "live: wait up to SECONDS for the metric to appear (default 30; 0: not at all)"),
    OPT("series", 0, OPTS_PCP,
        SIDE(series, nseries, "a query (a metric name, with {label filters} "
             "if any)"),
        "QUERY", "read the stacks counters pmseries QUERY matches, through pmproxy"),
    OPT("pmproxy", 0, OPTS_PCP, NONEMPTY(pcp.pmproxy, "a URL"),
        "URL", "pmproxy for --series (default $PCP_PMPROXY_URL, else http://localhost:44322)"),
    OPT("run", 0, OPTS_FROM_RUN, NO_DASH(SIDE(runs, nruns, "a run name")),
        "NAME", "the records of the PMDA's run NAME (staprelay.control.runs)"),
    OPT("output-dir", 0, OPTS_FROM_RUN,
        NO_DASH(NONEMPTY(output_dir, "a directory")),
        "DIR", "write DIR/STEM-KIND, STEM the run's name or --name"),
    OPT("name", 0, OPTS_FROM_RUN, NO_DASH(STRING(label)),
        "LABEL", "the STEM of --output-dir's files"),
    OPT("rows", 0, OPTS_HEATMAP, INT(rows, 1, HEATMAP_MAX_ROWS),
        "N", "rows per second (default 50)"),
    OPT("enhance", 0, OPTS_HEATMAP, FLAG(enhance),
        "", "FlameScope's enhanced colour scale"),
    OPT("keep-idle", 0, OPTS_HEATMAP, FLAG(keep_idle),
        "", "keep idle samples (swapper in the idle loop)"),
    OPT("nodecount", 0, OPTS_GRAPH, LONG(nodecount, 0, 1000000),
        "N", "call graph: at most N nodes"),
    OPT("nodefraction", 0, OPTS_GRAPH, FRACTION(nodefraction),
        "F", "call graph: leave out nodes under F of the total"),
    OPT("edgefraction", 0, OPTS_GRAPH, FRACTION(edgefraction),
        "F", "call graph: leave out edges under F of the total"),
    OPT("dir", 0, OPTS_LIVE, NO_DASH(NONEMPTY(live_dir, "a directory")),
        "DIR", "the directory kept up to date"),
    OPT("window-minutes", 0, OPTS_LIVE,
        LONG(window_min, 1, HEATMAP_MAX_COLUMNS / 60 - 1),
        "N", "heat map window (default 10)"),
    OPT("flame-seconds", 0, OPTS_LIVE, LONG(flame_s, 1, 86400),
        "N", "flame graph window (default 30)"),
    OPT("max-samples", 0, OPTS_LIVE, LONG(max_samples, 1000, 1000000000L),
        "N", "samples kept in memory (default 2000000)"),
    OPT("heatmap", 0, OPTS_LIVE, CALL(take_heatmap_files),
        "html|svg|both", "heat map files written (default both)"),
    /* staprelay web (docs/web.md) */
    OPT("listen", 0, OPTS_WEB, STRING(listen),
        "ADDR:PORT", "serve on ADDR:PORT (default 127.0.0.1:0, a free port)"),
    OPT("allow-runs", 0, OPTS_WEB, FLAG(allow_runs),
        "", "the page may ask the PMDA for runs (pmstore staprelay.control.run)"),
    OPT("window-minutes", 0, OPTS_WEB,
        LONG(window_min, 1, HEATMAP_MAX_COLUMNS / 60 - 1),
        "N", "live: the minutes of samples kept (default 10)"),
    OPT("max-samples", 0, OPTS_WEB, LONG(max_samples, 1000, 1000000000L),
        "N", "samples kept in memory (default 2000000)"),
    /* --hotcold (flame, fold: stack/hotcold.h) */
    OPT("hotcold", 0, OPTS_HOTCOLD, FLAG(hotcold),
        "", "on-CPU samples and off-CPU blocks in one graph, in ns, per thread at most the window"),
    OPT("hz", 0, OPTS_HOTCOLD,
        GIVEN(RUN_OPT_HZ, CALL_AT(take_script_number, long, script.hz)),
        "N", "--hotcold: the on-CPU samples' frequency, each 1/N s (default: the source's, else 99)"),
    /* staprelay run: the script's options */
    OPT("duration", 'T', OPTS_SCRIPT, CALL(take_duration),
        "TIME", "run for TIME (500ms, 10s, 2m, 1h; default: until Ctrl-C)"),
    OPT("name", 0, OPTS_SCRIPT, NO_DASH(CALL(take_run_name)),
        "NAME", "module / source name (default staprelay_SCRIPT)"),
    OPT("hz", 0, OPTS_SCRIPT,
        GIVEN(RUN_OPT_HZ, CALL_AT(take_script_number, long, script.hz)),
        "N", "sampling frequency (default 99)"),
    OPT("pid", 0, OPTS_SCRIPT,
        GIVEN(RUN_OPT_PID, CALL_AT(take_script_number, long, script.pid)),
        "PID", "only this process"),
    OPT("cmd", 0, OPTS_SCRIPT, GIVEN(RUN_OPT_CMD, CALL(take_command)),
        "COMMAND", "run COMMAND and profile it until it ends"),
    OPT("kernel-only", 0, OPTS_SCRIPT,
        GIVEN(RUN_OPT_KERNEL_ONLY, FLAG(script.kernel_only)),
        "", "only kernel stacks"),
    OPT("user-only", 0, OPTS_SCRIPT,
        GIVEN(RUN_OPT_USER_ONLY, FLAG(script.user_only)),
        "", "only user stacks"),
    OPT("dir", 0, OPTS_SCRIPT, NO_DASH(STRING(script.dir)),
        "DIR", "perf: the directory the PMDA watches"),
    OPT("backend", 0, OPTS_SCRIPT, CALL(take_backend),
        "stap|bpf|perf", "use that backend or fail"),
    OPT("replay", 0, OPTS_SCRIPT, FLAG(script.replay),
        "", "perf: the event metric replays (the PMDA's runs)"),
    OPT("save", 0, OPTS_SCRIPT, NO_DASH(NONEMPTY(script.save, "a file name")),
        "FILE", "perf: keep the perf script text in FILE"),
};
#define NOPTIONS (sizeof options / sizeof options[0])

static bool accepted(const opt_def *d, int groups)
{
    return d->group == 0 || (groups & d->group);
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

/* ---- one option ------------------------------------------------------------ */

/* The rows' rules: a kind's target, count or callback, and an argument
 * named in --help exactly when the option takes one.  NULL, or what
 * row d breaks. */
static const char *row_problem(const opt_def *d)
{
    bool has_arg = d->arg && d->arg[0];
    if (!d->name || !d->name[0] || !d->arg || !d->help || !d->help[0])
        return "no name, argument name or help line";
    if ((d->kind == K_CALL) != (d->fn != NULL))
        return "a callback is what K_CALL rows have, and they only";
    switch (d->kind) {
    case K_HELP:
        return has_arg ? "--help takes no argument" : NULL;
    case K_FLAG:
        return d->at == 0 ? "no target" : has_arg ? "a flag takes no argument"
               : NULL;
    case K_CALL:
        return NULL;
    case K_APPEND:
    case K_SIDE:
        if (d->count == 0 || d->hi <= 0)
            return "a list needs its count and size";
        break;
    case K_LONG:
    case K_INT:
        if (d->lo > d->hi)
            return "an empty range";
        break;
    case K_NONEMPTY:
        if (d->need == NULL)
            return "no word for what \"\" lacks";
        break;
    default:
        break;
    }
    return d->at == 0 ? "no target" : !has_arg ? "no argument named" : NULL;
}

/* Take row d's argument arg (NULL for flags) by its kind.  Returns 0,
 * or 2 after a usage error. */
static int take_kind(parse_state *ps, const opt_def *d, const char *arg)
{
    cmd_opts *o = ps->o;
    void *at = target(o, d->at);
    char opt[64];
    spelled(d, opt, sizeof opt);
    switch (d->kind) {
    case K_HELP:
        return 0;
    case K_FLAG:
        *(bool *)at = true;
        return 0;
    case K_NONEMPTY:
        if (*arg == '\0')
            return cmd_opts_error(o, ps->usage, "%s needs %s", opt, d->need);
        /* fall through */
    case K_STRING:
        *(const char **)at = arg;
        return 0;
    case K_LONG:
        return number(o, ps->usage, opt, arg, d->lo, d->hi, at);
    case K_INT: {
        long v;
        if (number(o, ps->usage, opt, arg, d->lo, d->hi, &v))
            return 2;
        *(int *)at = (int)v;
        return 0;
    }
    case K_DOUBLE:
        if (!parse_double(arg, d->min, 1e7, at))
            return cmd_opts_error(o, ps->usage, "bad %s: %s", opt, arg);
        return 0;
    case K_FRACTION:
        if (!parse_double(arg, 0, 1, at))
            return cmd_opts_error(o, ps->usage, "%s takes a fraction from 0 "
                                  "to 1: %s", opt, arg);
        return 0;
    case K_APPEND:
    case K_SIDE: {
        int *n = target(o, d->count);
        bool two = ps->groups & OPTS_DIFF;  /* diff: BEFORE and AFTER */
        long max = d->kind == K_APPEND || two ? d->hi : 1;
        if (*n >= max && d->kind == K_APPEND)
            return cmd_opts_error(o, ps->usage, "too many %s: %s", opt, arg);
        if (*n >= max && two && max > 2)
            return cmd_opts_error(o, ps->usage, "%s given more than %ld "
                                  "times: %s", opt, max, arg);
        if (*n >= max)
            return cmd_opts_error(o, ps->usage, "%s given %s: %s", opt,
                                  two ? "more than twice" : "twice", arg);
        if (d->need && *arg == '\0')
            return cmd_opts_error(o, ps->usage, "%s needs %s", opt, d->need);
        ((const char **)at)[(*n)++] = arg;
        return 0;
    }
    case K_CALL:
        return d->fn(ps, d, arg);
    }
    return cmd_opts_error(o, ps->usage, "unknown option");
}

static int take(parse_state *ps, const opt_def *d, const char *arg)
{
    int rc = take_kind(ps, d, arg);
    if (rc == 0)
        ps->o->script.given |= d->given;
    return rc;
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
    if (*fmt == NULL)
        cmd_opts_free(o);
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

/* Compile the filters given into o->compiled_filter, which o->in.filter
 * points at (both NULL when they filter nothing). */
static int finish_filter(cmd_opts *o, const char *usage)
{
    strbuf err = STRBUF_INIT;
    stackfilter *f = stackfilter_new(&o->filter, &err);
    int rc = 0;
    if (f == NULL)
        rc = cmd_opts_error(o, usage, "%s", err.buf);
    else if (stackfilter_empty(f))
        stackfilter_free(f);
    else
        o->in.filter = o->compiled_filter = f;
    sb_free(&err);
    return rc;
}

void cmd_opts_free(cmd_opts *o)
{
    stackfilter_free(o->compiled_filter);
    o->compiled_filter = NULL;
    o->in.filter = NULL;
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
    bool metric_opt = o->pcp.nmetrics > 0;      /* --metric given */
    if (pcp_options_active(&o->pcp) && !metric_opt && o->nseries == 0) {
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
 * groups accept; a long option's value is 256 + its row.  NULL, or
 * what is wrong with the rows these groups accept (written in why). */
static const char *build_table(int groups, struct option *lo,
                               char *shortopts, char *why, size_t size)
{
    size_t k = 0, s = 0;
    shortopts[s++] = ':';           /* a missing argument returns ':' */
    shortopts[s] = '\0';
    for (size_t i = 0; i < NOPTIONS; i++) {
        const opt_def *d = &options[i];
        if (!accepted(d, groups))
            continue;
        const char *problem = row_problem(d);
        for (size_t j = 0; problem == NULL && j < k; j++)
            if (strcmp(lo[j].name, d->name) == 0)
                problem = "its name stands twice";
        if (problem == NULL && d->letter && strchr(shortopts + 1, d->letter))
            problem = "its letter stands twice";
        if (problem) {
            snprintf(why, size, "--%s: %s", d->name, problem);
            return why;
        }
        bool has_arg = d->arg[0] != '\0';
        lo[k++] = (struct option){ d->name, has_arg ? required_argument
                                            : no_argument, NULL, 256 + (int)i };
        if (d->letter) {
            shortopts[s++] = (char)d->letter;
            if (has_arg)
                shortopts[s++] = ':';
            shortopts[s] = '\0';
        }
    }
    shortopts[s] = '\0';
    lo[k] = (struct option){ NULL, 0, NULL, 0 };
    return NULL;
}

/* The row of getopt's answer c: a long option's, or short letter c's
 * among the groups'. */
static const opt_def *row_of(int groups, int c)
{
    if (c >= 256)
        return &options[c - 256];
    for (size_t i = 0; i < NOPTIONS; i++)
        if (options[i].letter == c && accepted(&options[i], groups))
            return &options[i];
    return NULL;
}

int cmd_opts_parse(cmd_opts *o, int groups, int argc, char **argv,
                   const char *usage)
{
    defaults(o, argv[0]);
    if (groups & OPTS_INPUT)
        groups |= OPTS_FILTER;      /* every command reading stacks */
    struct option lo[NOPTIONS + 1];
    char shortopts[2 * NOPTIONS + 2], why[128];
    if (build_table(groups, lo, shortopts, why, sizeof why))
        return cmd_opts_error(o, usage, "the option table: %s", why);
    parse_state ps = { o, usage, groups };
    optind = 0;     /* GNU: full reinitialisation, callable repeatedly */
    opterr = 0;
    int c;
    while ((c = getopt_long(argc, argv, shortopts, lo, NULL)) != -1) {
        if (c == '?')
            return not_taken(o, usage, argv[optind - 1]);
        if (c == ':')
            return cmd_opts_error(o, usage, "missing argument: %s",
                                  argv[optind - 1]);
        const opt_def *d = row_of(groups, c);
        if (d == NULL)
            return cmd_opts_error(o, usage, "unknown option");
        if (optarg && looks_like_option(optarg) && d->no_dash)
            return cmd_opts_error(o, usage, "missing argument: %s (found the "
                                  "option %s)", optarg == argv[optind - 1]
                                  ? argv[optind - 2] : argv[optind - 1],
                                  optarg);
        if (d->kind == K_HELP) {
            print_help(groups, usage);
            return 1;
        }
        int rc = take(&ps, d, optarg);
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
    if (rc == 0)
        rc = finish_pcp(o, usage);
    if (rc != 0)
        cmd_opts_free(o);           /* a failed parse leaves nothing */
    return rc;
}
