/* live_window: what `staprelay live --dir DIR` (cmd/cmd_live.c) keeps
 * between rounds -- a heat map of the last N minutes and a flame graph
 * of the last S seconds of a live PCP event source, replaced atomically
 * every interval.  Nothing here needs a PCP context:
 *
 *  - live_window: the samples of the window in arrival order, each
 *    (time, stack id, weight), with the distinct stacks interned and
 *    reference counted: pruning the samples older than the window
 *    frees the stacks no remaining sample uses, so memory follows the
 *    window, never the run time.  A hard cap on the number of samples
 *    drops the oldest arrivals when the rate is too high for it.
 *  - live_write_atomic: write a file through a temp file in the same
 *    directory, then rename it over the old one, so a reader (a web
 *    server) always sees a whole old file or a whole new one.
 *  - live_gaps: the periods without data (pmcd unreachable), shown on
 *    the page while they overlap the window. */
#ifndef STAPRELAY_LIVE_WINDOW_H
#define STAPRELAY_LIVE_WINDOW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include "common/strbuf.h"

/* ---- the window of samples ------------------------------------------ */
#define LW_NONE UINT32_MAX   /* no name (lw_sample's comm, host) */
#define LW_UNTIMED INT64_MIN /* a sample without a time: never pruned */

typedef struct lw_sample {
    int64_t  t_us;      /* microseconds since the epoch, or LW_UNTIMED */
    double   weight;
    uint32_t stack;     /* id, see lw_stack() */
    /* what lw_add_detail() knew of it (staprelay web's store); lw_add():
     * LW_NONE, -1, 0 */
    uint32_t comm, host;   /* ids of interned names, see lw_stack() */
    int32_t  pid, tid;     /* -1: unknown */
    uint16_t t_ns;         /* nanoseconds below t_us (0..999) */
    uint8_t  state;        /* an off-CPU block's class (blockstate.h),
                            * 0: none */
    uint8_t  timed;        /* 1: weight is a block's time in ns */
} lw_sample;

/* What an input knew of a sample beyond its stack (NULL strings, -1
 * ids: unknown). */
typedef struct lw_detail {
    const char *comm;
    size_t      comm_len;
    const char *host;
    int64_t     pid, tid;
    int         state;      /* block_state (blockstate.h); 0: none */
    bool        timed;      /* the weight is time (stack_context_weighs_time) */
} lw_detail;

typedef struct live_window live_window;

/* max_samples: the cap (0: unlimited). */
live_window *lw_new(size_t max_samples);
void         lw_free(live_window *w);
void         lw_add(live_window *w, const char *stack, size_t len,
                    double weight, int64_t t_us);
/* The same with a time in nanoseconds (or LW_UNTIMED) and what the
 * input knew of the sample (d may be NULL); the names are interned as
 * the stacks are, in the same table. */
void         lw_add_detail(live_window *w, const char *stack, size_t len,
                           double weight, int64_t t_ns, const lw_detail *d);
/* Drop every sample older than cutoff_us (t < cutoff; untimed ones
 * stay); returns how many.  Stacks left without samples are freed. */
size_t       lw_prune(live_window *w, int64_t cutoff_us);
size_t       lw_count(const live_window *w);          /* samples */
size_t       lw_nstacks(const live_window *w);        /* distinct, live
                                                       * (names too) */
uint64_t     lw_dropped(const live_window *w);        /* by the cap */
const lw_sample *lw_get(const live_window *w, size_t i);   /* arrival order */
const char  *lw_stack(const live_window *w, uint32_t id, size_t *len);
/* Bytes held: the sample array, the table and its strings. */
size_t       lw_bytes(const live_window *w);

/* ---- atomic replacement ---------------------------------------------- */
typedef int (*live_writer_fn)(FILE *out, void *arg);

/* Write DIR/NAME via a temp file DIR/.NAME.tmpXXXXXX (mode 0644 less
 * the umask; see outfile.h), then rename(2) it over DIR/NAME.  writer returns 0, or -1 on
 * failure.  Returns 0, or -1 with a message in err (the temp file is
 * removed, DIR/NAME is left as it was). */
int live_write_atomic(const char *dir, const char *name,
                      live_writer_fn writer, void *arg, strbuf *err);

/* ---- gaps ------------------------------------------------------------- */
#define LIVE_MAX_GAPS 32

typedef struct live_gap {
    int64_t from_us, to_us;     /* to_us < 0: still going on */
} live_gap;

typedef struct live_gaps {
    live_gap g[LIVE_MAX_GAPS];
    int      n;
} live_gaps;

/* A round at now_us answered (ok) or not; last_ok_us is the time of the
 * last answered round.  Opens a gap at the first failure, closes it at
 * the next success. */
void live_gaps_round(live_gaps *gs, bool ok, int64_t last_ok_us,
                     int64_t now_us);
/* Forget gaps that ended before cutoff_us. */
void live_gaps_prune(live_gaps *gs, int64_t cutoff_us);
/* "no data from HH:MM:SS to HH:MM:SS (pmcd unreachable)" per gap, or
 * "... since HH:MM:SS ..." for the open one; local time; sep between. */
void live_gaps_text(const live_gaps *gs, const char *sep, strbuf *out);

#endif
