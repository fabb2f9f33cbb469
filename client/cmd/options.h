/* cmdopts: command-line parsing shared by the file-based subcommands
 * (fold, flame, diff, top): one option table, each command saying which
 * groups of options it accepts, plus helpers for reading the inputs and
 * opening the output. */
#ifndef STAPRELAY_CMDOPTS_H
#define STAPRELAY_CMDOPTS_H

#include <stdbool.h>
#include <stdio.h>
#include "client/render/flamesvg.h"
#include "client/input/input.h"
#include "client/util/outfile.h"
#include "client/input/pcp_input.h"
#include "client/stack/stacktab.h"

enum {
    OPTS_INPUT = 1 << 0,   /* --input-format, perf collapse options */
    OPTS_SVG   = 1 << 1,   /* rendering options */
    OPTS_DIFF  = 1 << 2,   /* --normalize --strip-hex --negate --elided --folded */
    OPTS_TOP   = 1 << 3,   /* --limit --by */
    OPTS_TREE  = 1 << 4,   /* --reverse --sort */
    OPTS_PCP   = 1 << 5,   /* -h -a -t -S -T --metric --by-host */
    OPTS_RUN   = 1 << 6,   /* --run --output-dir --name */
};

typedef struct cmd_opts {
    const char   *command;
    input_options in;
    svg_options   svg;
    const char   *output;      /* -o; NULL = stdout */
    const char   *format;      /* --format */
    bool          reverse;
    bool          sort_weight;
    bool          normalize;
    bool          elided;
    bool          folded_out;
    long          limit;
    const char   *by;
    char        **files;
    int           nfiles;
    /* PCP inputs.  With -h/-a the arguments are event metric names,
     * unless --metric names it; then they are files merged in. */
    pcp_options   pcp;
    bool          metric_opt;  /* --metric given */
    const char   *starts[2];   /* -S, -T as given (diff takes two) */
    int           nstarts;
    const char   *finishes[2];
    int           nfinishes;
    /* Runs (docs/runs.md): --run NAME (diff: twice, BEFORE and AFTER);
     * pcp.run is runs[0].  --output-dir DIR writes DIR/STEM-KIND, STEM
     * being --name LABEL, else the run name, else "A-vs-B" for diff. */
    const char   *runs[2];
    int           nruns;
    const char   *output_dir;
    const char   *label;       /* --name */
    outfile       outf;        /* the open --output-dir file */
} cmd_opts;

/* Parse argv (argv[0] is the command name).  Returns 0, or 2 after
 * printing a usage error; 1 is returned (after printing help) for
 * --help so callers exit 0 on it via cmd_exit_code(). */
int cmdopts_parse(cmd_opts *o, int groups, int argc, char **argv,
                  const char *usage);

/* Read the PCP sources (when -h/-a was given) and the named files (or
 * stdin, when there is neither) into tab, column col.  Prints
 * "ignored N lines" / "missed N records" notes.  Returns 0, 1 (I/O
 * error) or 2 (usage error). */
int cmd_read_inputs(const cmd_opts *o, char **files, int nfiles, int col,
                    stacktab *tab);
/* Read PCP sources only, with the given options (diff builds its
 * sides from o->pcp).  Same notes and return values. */
int cmd_read_pcp(const cmd_opts *o, const pcp_options *po, int col,
                 stacktab *tab);

/* Open -o (or stdout), or with --output-dir the temp file of
 * DIR/STEM-kind (kind: "flame.svg", "heatmap.html", ...; NULL for
 * commands without --output-dir).  Returns NULL after printing an
 * error. */
FILE *cmd_open_output(cmd_opts *o, const char *kind);
/* Close it (--output-dir: rename the temp file into place and say so
 * on stderr); returns 0, or 1 after printing a write error. */
int cmd_close_output(cmd_opts *o, FILE *out);
/* Give up on it after a failure: --output-dir removes the temp file
 * (DIR/STEM-kind stays as it was); -o FILE and stdout are closed. */
void cmd_discard_output(cmd_opts *o, FILE *out);
/* The file name --output-dir writes for kind ("NAME-flame.svg"), or
 * NULL without --output-dir.  Caller frees. */
char *cmd_output_name(const cmd_opts *o, const char *kind);

/* "run NAME: REQUEST (STATE)", for a subtitle or a description; the
 * request is the run's, made safe (pcp_run_text). */
void cmd_run_subtitle(strbuf *sb, const char *name, const pcp_run *r);

/* The "no stacks" error (exit status 2). */
int cmd_empty_input(const cmd_opts *o);

#endif
