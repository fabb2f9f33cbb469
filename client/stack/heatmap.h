/* heatmap: FlameScope-style subsecond-offset heat maps of stack samples
 * that carry timestamps (perf script text, PCP event records).
 *
 * One column per wall-clock second, R rows for the offset within the
 * second (default 50 rows of 20 ms); row 0 is the TOP row, the last
 * bucket of the second, as in FlameScope.  Differences from FlameScope
 * (app/perf/heatmap.py), all deliberate:
 *
 *  - Times are integer microseconds, never floats.  A sample at
 *    x.200000 lies in the 200 ms bucket (row label 200); FlameScope's
 *    float arithmetic puts it in the 180 ms bucket.
 *  - Columns C = floor(end) - floor(start) + 1, so a last sample on a
 *    whole second has a column (FlameScope's ceil() indexes past the
 *    grid there).  end is the latest sample time, not the last in file
 *    order, so unsorted input cannot index past the grid either.
 *  - A selection is the half-open interval [start, end): exactly the
 *    samples of the selected cells (FlameScope includes both ends).
 *
 * Each cell counts samples.  A PCP event record stands for as many
 * samples as its count parameter says (pmdastaprelay's contract:
 * "samples this record stands for"), so it weighs its count, rounded
 * to a whole number of at least 1, in the cells and in the page's flame
 * graph -- which then totals what `staprelay flame` draws for the same
 * window.  A perf script sample is one sample, whatever its period (as
 * in FlameScope; the period is CPU time, not a number of samples), so
 * for perf input the page's flame graph counts samples where
 * `staprelay flame` adds periods: same shape for a fixed-period event
 * such as cpu-clock, different totals.
 *
 * Idle samples -- a stack matching FlameScope's idle regex
 * swapper.*(cpuidle|cpu_idle|cpu_bringup_and_idle|native_safe_halt|
 * xen_hypercall_sched_op|xen_hypercall_vcpu_op) -- count towards the
 * start and end but are dropped unless keep_idle is set. */
#ifndef STAPRELAY_HEATMAP_H
#define STAPRELAY_HEATMAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include "client/stack/stacktab.h"
#include "common/strbuf.h"

#define HEATMAP_DEFAULT_ROWS 50
#define HEATMAP_MAX_ROWS     1000
/* More columns than this is a clock jump, not a profile (one day). */
#define HEATMAP_MAX_COLUMNS  86400
/* Forward gaps at least this long are reported. */
#define HEATMAP_GAP_US       ((int64_t)5000000)

typedef struct heatmap_sample {
    int64_t  t_us;      /* microseconds since the epoch (or perf's clock) */
    uint32_t stack;     /* stacktab entry */
    uint32_t w;         /* samples it stands for (>= 1) */
} heatmap_sample;

typedef struct heatmap {
    stacktab  *tab;            /* owned */
    bool       keep_idle;
    heatmap_sample *s;              /* non-idle samples (all with keep_idle) */
    size_t     n, cap;
    uint8_t   *idle;           /* per entry: 0 unknown, 1 idle, 2 busy */
    size_t     idle_cap;
    int64_t    start_us, end_us;   /* min/max over all samples, idle too */
    int64_t    prev_us;        /* previous sample in arrival order */
    bool       any;
    uint64_t   all;            /* samples seen, idle included */
    uint64_t   weight;         /* sum of w over s[] (placed samples) */
    bool       weighted;       /* some w is not 1 */
    uint64_t   idle_dropped;
    uint64_t   untimed;        /* samples without a timestamp */
    uint64_t   out_of_order;   /* samples earlier than their predecessor */
    int64_t    max_back_us;    /* largest step back */
    int64_t    max_gap_us;     /* largest step forward */
    int64_t    gap_from_us;    /* where that step started */
    uint64_t   gaps;           /* forward steps >= HEATMAP_GAP_US */
    /* the grid, after heatmap_grid() */
    int        rows, cols;
    int64_t    base_s;         /* floor(start) in seconds */
    uint32_t  *values;         /* column-major: values[col * rows + row] */
    uint32_t   maxvalue;
} heatmap;

/* ---- the arithmetic, exposed for tests ------------------------------ */
int64_t heatmap_floor_div(int64_t a, int64_t b);
/* Columns for samples from start to end: floor(end) - floor(start) + 1. */
int64_t heatmap_columns(int64_t start_us, int64_t end_us);
/* The cell of a sample at t_us in a grid based at base_s seconds. */
void heatmap_cell(int64_t t_us, int64_t base_s, int rows, int *col, int *row);
/* First microsecond (offset within the second) of the bucket shown in
 * row `row`: ceil(k * 1e6 / rows) with k = rows - 1 - row. */
int64_t heatmap_row_start_us(int rows, int row);
/* FlameScope's idle regex, on a folded stack. */
bool heatmap_is_idle(const char *stack, size_t len);

/* ---- collecting ------------------------------------------------------ */
heatmap *heatmap_new(bool keep_idle);
void     heatmap_free(heatmap *h);
/* A sample of table entry `entry` (already in h->tab) at t_us. */
void     heatmap_add_entry(heatmap *h, size_t entry, int64_t t_us);
/* The same for a record that stands for `count` samples (rounded to a
 * whole number, at least 1). */
void     heatmap_add_weighted(heatmap *h, size_t entry, int64_t t_us,
                              double count);
/* count as a cell weight: rounded, at least 1, at most UINT32_MAX. */
uint32_t heatmap_weight(double count);
/* Convenience (tests): add the stack to the table, then the sample. */
void     heatmap_add(heatmap *h, const char *stack, int64_t t_us);
/* A sample without a time: counted, not placed. */
void     heatmap_add_untimed(heatmap *h);

/* Sort the samples by time (stable) and fill the grid.  Returns 0, or
 * -1 with a message in err (no samples, too many columns). */
int heatmap_grid(heatmap *h, int rows, strbuf *err);
uint32_t heatmap_value(const heatmap *h, int col, int row);
/* Human-readable warnings (out-of-order samples, gaps, idle dropped),
 * one per line, appended to out. */
void heatmap_warnings(const heatmap *h, strbuf *out);
/* A time in microseconds as "seconds.micros" ("1796000523.000100"). */
void heatmap_time_text(strbuf *sb, int64_t us);

#endif
