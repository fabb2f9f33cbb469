/* input: reads profile files (folded, perf script, SystemTap backtrace
 * text, pprof profiles) into a stacktab.  Detects the format from the
 * first lines unless told (a file starting with gzip's magic is a pprof
 * profile: input/pprof_read), streams the text line by line, and counts
 * what it could not use.
 *
 * The PCP inputs (live pmcd -h, archive -a; pcp_input.h) are further
 * producers of the same stack_sink and share input_options. */
#ifndef STAPRELAY_INPUT_H
#define STAPRELAY_INPUT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include "client/input/collapse_perf.h"
#include "client/stack/stacksink.h"
#include "client/stack/stacktab.h"
#include "common/strbuf.h"

typedef enum {
    INPUT_AUTO = 0,
    INPUT_FOLDED,
    INPUT_PERF,
    INPUT_STAP,
    INPUT_PPROF,    /* binary: profile.proto, gzipped or not */
} input_format;

typedef struct input_options {
    input_format format;     /* INPUT_AUTO: detect per file */
    perf_options perf;
    bool         strip_hex;  /* diff --strip-hex */
    int          col;        /* stacktab column for single counts */
    stack_sample_fn on_sample;   /* optional per-sample observer */
    void        *on_sample_arg;
    stack_detail_fn on_detail;   /* optional: each sample with what the
                                  * input knows of it (pprof export) */
    void        *on_detail_arg;
    const char  *sample_index;   /* pprof input: --sample-index, or NULL
                                  * for the profile's default */
    const struct stackfilter *filter;  /* applied where the samples are
                                  * delivered (stack_sink_filter), or NULL */
    bool         count_samples;  /* pprof input without --sample-index:
                                  * read the "samples" values when the
                                  * profile has them (heat maps count
                                  * samples) */
} input_options;

typedef struct input_stats {
    uint64_t     lines;      /* lines read */
    uint64_t     ignored;    /* lines that could not be used */
    uint64_t     stacks;     /* stacks delivered (before merging) */
    uint64_t     filtered;   /* perf samples of other event types */
    input_format format;     /* format used for the last file */
    char         event[64];  /* perf event type kept; pprof: the sample
                              * type read, "TYPE (UNIT)" */
} input_stats;

const char *input_format_name(input_format f);
/* "folded", "perf", "stap", "pprof" (also "auto"); false if unknown. */
bool input_format_parse(const char *name, input_format *out);

/* Guess the format from some lines (e.g. the first 200). */
input_format input_detect(const char *const *lines, const size_t *lens,
                          size_t n);

/* The one rule for what is no profile text, applied to the first lines
 * of every text input (lines as read: newlines and a trailing CR
 * stripped) before any parser sees them, so every command refuses the
 * same inputs with the same words instead of drawing their bytes:
 *   - a perf.data file (its magic): "run perf script first";
 *   - binary data: a NUL byte, or more than 1 byte in 100 a control
 *     byte (other than tab, CR, VT and FF) or not valid UTF-8;
 *   - perf script text without call chains (sample headers, no frame
 *     lines): "record with perf record -g";
 *   - when the format is guessed (asked is INPUT_AUTO) and no frame
 *     line is there: text of which fewer than half the lines (blank and
 *     '#' ones aside) are folded stacks.
 * A directory is refused before (input_read_stream: "is a directory").
 * Returns true with the format to read in *fmt (asked, or the guess for
 * INPUT_AUTO), or false with the reason in why. */
bool input_check(const char *const *lines, const size_t *lens, size_t n,
                 input_format asked, input_format *fmt, strbuf *why);

/* Read one stream into tab.  Returns 0, or -1 with a message in err
 * (input_check's refusals among them). */
int input_read_stream(FILE *fp, const input_options *opt, stacktab *tab,
                      input_stats *st, strbuf *err);
/* Read a path ("-" = stdin). */
int input_read_path(const char *path, const input_options *opt,
                    stacktab *tab, input_stats *st, strbuf *err);

#endif
