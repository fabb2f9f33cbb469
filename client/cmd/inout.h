/* inout: what the commands do around their work with the options
 * cmd/options.h parsed -- read the inputs they name (PCP sources,
 * files or stdin) into a stack table with the usual notes on stderr,
 * and open, commit or discard the output (-o FILE, stdout, or
 * --output-dir's DIR/STEM-KIND written whole through util/outfile). */
#ifndef STAPRELAY_INOUT_H
#define STAPRELAY_INOUT_H

#include <stdio.h>
#include "client/cmd/options.h"
#include "client/input/pcp_runs.h"
#include "client/stack/flametree.h"
#include "client/stack/stacktab.h"
#include "common/strbuf.h"

/* Read the PCP sources (when -h/-a was given) and the named files (or
 * stdin, when there is neither) into tab, column col.  Prints
 * "ignored N lines" / "missed N records" notes; with --period, sets
 * the count name to the event's unit (unless --countname).  Live, on a
 * terminal, a one-line status shows samples, stacks and the time
 * left.  Returns 0, 1 (I/O error) or 2 (usage error). */
int inout_read_inputs(cmd_opts *o, char **files, int nfiles, int col,
                    stacktab *tab);
/* --hotcold (stack/hotcold.h): read the PCP sources (on-CPU samples
 * and off-CPU blocks, -h or -a) and put their per-thread normalised
 * time into tab, each stack under an "oncpu" or "offcpu" root frame;
 * the count name becomes "ns" (unless --countname).  On-CPU samples
 * weigh 1/--hz s, else one period of the source's PREFIX.frequency
 * (pcp_sibling), else of 99 Hz.  Notes on stderr say the window and
 * the threads scaled.  Returns 0, 1 or 2 as inout_read_inputs. */
int inout_read_hotcold(cmd_opts *o, stacktab *tab);
/* --hotcold's on-CPU samples' frequency: --hz, else the PREFIX.frequency
 * that profile publishes beside PREFIX.samples (live now, or the
 * archive's first value), else 99 (run profile's default).  *from says
 * which, for the notes (flame, fold, web). */
long inout_hotcold_hz(const cmd_opts *o, const char **from);
/* Read PCP sources only, with the given options (diff builds its
 * sides from o->pcp).  Same notes and return values.  When records
 * weighed by their duration, the count name becomes "ns" (unless
 * --countname). */
int inout_read_pcp(cmd_opts *o, const pcp_options *po, int col,
                 stacktab *tab);

/* The count name of what was read: "ns" when records weighed by their
 * duration (timed: pcp_stats.timed) and no --countname was given, else
 * o->svg.countname.  The one rule of every command and of web. */
const char *inout_count_name(const cmd_opts *o, bool timed);

/* Open -o (or stdout), or with --output-dir the temp file of
 * DIR/STEM-kind (kind: "flame.svg", "heatmap.html", ...; NULL for
 * commands without --output-dir).  Returns NULL after printing an
 * error. */
FILE *inout_open_output(cmd_opts *o, const char *kind);
/* Close it (--output-dir: rename the temp file into place and say so
 * on stderr); returns 0, or 1 after printing a write error. */
int inout_close_output(cmd_opts *o, FILE *out);
/* Give up on it after a failure: --output-dir removes the temp file
 * (DIR/STEM-kind stays as it was); -o FILE and stdout are closed. */
void inout_discard_output(cmd_opts *o, FILE *out);
/* The end of a command's writing: close out when rc is 0
 * (inout_close_output's status), else discard it and keep rc. */
int inout_end_output(cmd_opts *o, FILE *out, int rc);
/* The file name --output-dir writes for kind ("NAME-flame.svg"), or
 * NULL without --output-dir.  Caller frees. */
char *inout_output_name(const cmd_opts *o, const char *kind);

/* "run NAME: REQUEST (STATE)", for a subtitle or a description; the
 * request is the run's, made safe (pcp_run_text). */
void inout_run_title(strbuf *sb, const char *name, const pcp_run *r);

/* Write the flame graph of t with o->svg: --nameattr's file and --cp's
 * palette.map read first, palette.map written after.  0, or 1 after
 * printing an error. */
int inout_write_flame(cmd_opts *o, FILE *out, const flametree *t);

/* --format pprof: a builder watching the inputs (install before
 * reading; NULL without --format pprof, or after a usage error about
 * --sample-times, then *rc is 2), and writing it out. */
struct pprof_builder;
struct pprof_builder *inout_pprof_start(cmd_opts *o, bool pprof, int *rc);
/* Write the profile to out and close out (as inout_close_output);
 * frees the builder.  Returns 0 or 1. */
int inout_pprof_finish(cmd_opts *o, struct pprof_builder *b, FILE *out);

/* The "no stacks" error (exit status 2). */
int inout_empty_input(const cmd_opts *o);
/* The column of tab a command draws: 1 when the input had two count
 * columns (differential folded text), else 0; -1 after the "no stacks"
 * error when that column is empty. */
int inout_drawn_column(const cmd_opts *o, const stacktab *tab);
/* inout_read_inputs of the command's files into tab, then its drawn
 * column into *col.  Returns 0, or the exit status after the error. */
int inout_read_drawn(cmd_opts *o, stacktab *tab, int *col);

#endif
