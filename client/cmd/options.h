/* options: the one command-line parser every command uses.  One table
 * of options, each in a group; a command names the groups it accepts
 * and the parser builds its getopt_long table from them, so an option
 * has one spelling, one validation and one error message everywhere
 * (staprelay(1) documents each group once).  A row says how its option
 * is taken -- a kind (flag, string, bounded number, list) and the
 * cmd_opts field it fills, or a callback for an option with a rule of
 * its own -- so an ordinary option is one row and one field below.  An
 * option of a group the command does not accept is "not valid here";
 * one no command knows is "unknown".  Reading the inputs and opening
 * the output is cmd/inout.h's. */
#ifndef STAPRELAY_OPTIONS_H
#define STAPRELAY_OPTIONS_H

#include <stdbool.h>
#include "client/input/input.h"
#include "client/input/pcp_input.h"
#include "client/render/flamesvg.h"
#include "client/run/run.h"
#include "client/stack/stackfilter.h"
#include "client/util/outfile.h"

enum {
    OPTS_INPUT    = 1 << 0,  /* --input-format, perf collapse options,
                              * --sample-index (pprof input) */
    OPTS_SVG      = 1 << 1,  /* rendering options */
    OPTS_DIFF     = 1 << 2,  /* --normalize --absolute --strip-hex --elided
                              * --folded */
    OPTS_TOP      = 1 << 3,  /* --limit --by */
    OPTS_TREE     = 1 << 4,  /* --reverse --sort */
    OPTS_PCP      = 1 << 5,  /* -h -a -t -S -T --metric --by-host
                              * --series --pmproxy */
    OPTS_FROM_RUN = 1 << 6,  /* --run --output-dir --name: a run's records */
    OPTS_OUTPUT   = 1 << 7,  /* -o --format --sample-times */
    OPTS_HEATMAP  = 1 << 8,  /* --rows --enhance --keep-idle */
    OPTS_LIVE     = 1 << 9,  /* --dir --window-minutes --flame-seconds
                              * --max-samples --heatmap */
    OPTS_SCRIPT   = 1 << 10, /* run's: -T --name --hz --pid --cmd
                              * --kernel-only --user-only --dir --backend;
                              * exactly one argument, the script */
    OPTS_GRAPH    = 1 << 11, /* --nodecount --nodefraction --edgefraction */
    OPTS_FILTER   = 1 << 12, /* --focus --ignore --hide --show --only-pid
                              * --only-tid --only-comm --only-host
                              * (stack/stackfilter.h); every command taking
                              * OPTS_INPUT takes these */
    OPTS_HOTCOLD  = 1 << 13, /* --hotcold --hz (flame, fold) */
    OPTS_WEB      = 1 << 15, /* --listen --allow-runs --window-minutes
                              * --max-samples (staprelay web) */
};

/* The most profiles staprelay diff --format table compares (N -S/-T
 * windows; files and archives are bounded by the command line and
 * PCP_MAX_SOURCES). */
#define CMD_MAX_PROFILES 16

typedef struct cmd_opts {
    const char   *command;
    char          error[512];  /* the last usage error, as printed */
    input_options in;
    svg_options   svg;
    bool          countname_given;
    char          period_unit[64];  /* --period, pprof input: what the
                                     * counts are */
    const char   *output;      /* -o; NULL = stdout */
    const char   *format;      /* --format */
    bool          sample_times; /* --sample-times (--format pprof) */
    bool          reverse;
    bool          sort_weight;
    bool          normalize;   /* -n: the default, said explicitly */
    bool          absolute;    /* --absolute: BEFORE not scaled */
    bool          elided;
    bool          folded_out;
    long          limit;
    const char   *by;
    char        **files;
    int           nfiles;
    /* PCP inputs.  With -h/-a the arguments are event metric names,
     * unless --metric names it; then they are files merged in. */
    pcp_options   pcp;
    /* -S, -T as given (diff takes up to CMD_MAX_PROFILES: its table
     * compares that many windows, its flame graph two) */
    const char   *starts[CMD_MAX_PROFILES];
    int           nstarts;
    const char   *finishes[CMD_MAX_PROFILES];
    int           nfinishes;
    const char   *series[2];   /* --series QUERY (diff takes two) */
    int           nseries;
    /* Runs (docs/runs.md): --run NAME (diff: twice, BEFORE and AFTER);
     * pcp.run is runs[0].  --output-dir DIR writes DIR/STEM-KIND, STEM
     * being --name LABEL, else the run name, else "A-vs-B" for diff. */
    const char   *runs[2];
    int           nruns;
    const char   *output_dir;
    const char   *label;       /* --name */
    outfile       outf;        /* the open --output-dir file */
    /* OPTS_HEATMAP */
    int           rows;        /* HEATMAP_DEFAULT_ROWS */
    bool          enhance;
    bool          keep_idle;
    /* OPTS_LIVE */
    const char   *live_dir;    /* --dir */
    long          window_min;  /* 10 */
    long          flame_s;     /* 30 */
    long          max_samples; /* 2000000 */
    bool          want_html, want_svg;   /* --heatmap; both by default */
    /* OPTS_WEB (also window_min, max_samples) */
    const char   *listen;      /* --listen ADDR:PORT; NULL: 127.0.0.1:0 */
    bool          allow_runs;  /* --allow-runs */
    /* OPTS_GRAPH: pprof's cut-offs (80, 0.005, 0.001) */
    long          nodecount;
    double        nodefraction, edgefraction;
    /* OPTS_HOTCOLD: --hotcold (stack/hotcold.h); its --hz is
     * script.hz (RUN_OPT_HZ in script.given when given) */
    bool          hotcold;
    /* OPTS_SCRIPT: the script named and its options */
    run_opts      script;
    /* OPTS_FILTER: the spec as given, and the filter the parse
     * compiled from it (in.filter points at it; NULL when it filters
     * nothing).  o owns it: cmd_opts_free. */
    stackfilter_spec filter;
    stackfilter  *compiled_filter;
} cmd_opts;

/* Parse argv (argv[0] is the command name) for a command accepting the
 * given groups into o (whatever it held is overwritten, not freed).
 * Returns 0, and the caller cmd_opts_free()s o when done with it; 2
 * after printing a usage error ("staprelay CMD: MESSAGE" and "usage:
 * USAGE", also kept in o->error); or 1 after printing help for --help,
 * so callers return rc == 1 ? 0 : rc (o then owns nothing).  -h is
 * never help: it is pmcd's host, as in every PCP tool.  argv's strings
 * must outlive o (its strings point into them). */
int cmd_opts_parse(cmd_opts *o, int groups, int argc, char **argv,
                   const char *usage);

/* Free what a parse that returned 0 left to o (the compiled filter;
 * in.filter becomes NULL).  The rest of o stays as it is. */
void cmd_opts_free(cmd_opts *o);

/* The stem of --output-dir's file names: --name LABEL, else the run's
 * name, else "BEFORE-vs-AFTER" (diff). */
void cmd_opts_output_stem(const cmd_opts *o, strbuf *sb);

/* The output format: --format, else formats[0], which must be one of the
 * NULL-terminated formats.  Returns it, or NULL after printing
 * "staprelay CMD: unknown --format X (a, b or c)". */
const char *cmd_opts_format(const cmd_opts *o, const char *const formats[]);

/* How a command with --format starts: cmd_opts_parse, then
 * cmd_opts_format.  True to go on with *fmt set (the caller then
 * cmd_opts_free()s o); false with the exit status in *exit_code (0
 * after --help, 2 after a usage or format error, both already printed)
 * and nothing left to free. */
bool cmd_opts_start(cmd_opts *o, int groups, int argc, char **argv,
                    const char *usage, const char *const formats[],
                    const char **fmt, int *exit_code);

/* Print a usage error as the parser does and return 2. */
int cmd_opts_error(cmd_opts *o, const char *usage, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

#endif
