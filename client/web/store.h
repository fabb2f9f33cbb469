/* store: the samples staprelay web holds, for every view to select
 * from.  Each sample is (time in ns, host, pid, tid, comm, stack,
 * weight): stack/live_window's window, whose table interns the stacks
 * and names with reference counts, so memory follows the samples held.
 *
 * Live (a window given): samples older than the newest time less the
 * window are pruned as the collector goes.  Always: at most max
 * samples; past that the oldest tenth of the arrivals is dropped and
 * counted (live_window's cap).  The memory bound (docs/web.md):
 * max * sizeof(lw_sample) (40 bytes) for the samples, plus the distinct
 * stacks and names of the samples held (one table entry of 40 bytes
 * each, their text, and a hash bucket).
 *
 * Files' samples have no time (STACK_TIME_UNKNOWN): they are in every
 * window, as `fold -S/-T` keeps a file's stacks whatever the window,
 * and never pruned.
 *
 * Locking: the collector thread adds, the HTTP handlers read.  Every
 * function takes the store's lock itself except store_get(), which is
 * called between store_lock() and store_unlock() (a handler walks the
 * samples under the lock; adds wait meanwhile). */
#ifndef STAPRELAY_WEB_STORE_H
#define STAPRELAY_WEB_STORE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "client/stack/stacksink.h"

#define STORE_DEFAULT_MAX  2000000   /* samples (--max-samples) */
#define STORE_MAX_HOSTS    64        /* host names listed in /api/info */

typedef struct web_store web_store;

typedef struct store_sample {
    int64_t     t_ns;        /* STACK_TIME_UNKNOWN: a file's sample */
    double      weight;
    const char *stack;       /* NUL-terminated, valid while locked */
    size_t      len;
    const char *comm;        /* NULL: unknown */
    const char *host;        /* NULL: unknown */
    int64_t     pid, tid;    /* -1: unknown */
    block_state state;       /* an off-CPU block's class, or none */
    bool        timed;       /* weight is a block's time in ns, not a
                              * count (stack_context_weighs_time) */
} store_sample;

typedef struct store_info {
    size_t   samples;        /* held now */
    size_t   strings;        /* distinct stacks and names held */
    size_t   bytes;          /* memory of the samples and strings */
    size_t   max_samples;
    uint64_t added;          /* ever */
    uint64_t dropped;        /* by the cap */
    uint64_t pruned;         /* out of the live window */
    int64_t  first_ns, last_ns;  /* of the timed samples held, or
                                  * STACK_TIME_UNKNOWN */
    int64_t  window_ns;      /* 0: everything is kept */
    bool     timed;          /* store_mark_timed was called */
    int      nhosts;
    char     hosts[STORE_MAX_HOSTS][64];
} store_info;

/* window_ns: live, the span kept (0: keep everything). */
web_store *store_new(size_t max_samples, int64_t window_ns);
void       store_free(web_store *s);
/* One sample; ctx may be NULL (the input knows nothing more). */
void store_add(web_store *s, const char *stack, size_t len, double weight,
               int64_t t_ns, const stack_context *ctx);
/* Live: drop the samples older than now_ns less the window. */
/* An input weighs its samples by their duration (off-CPU blocks): the
 * counts are nanoseconds, not samples (inout_count_name's rule). */
void store_mark_timed(web_store *s);
bool store_timed(web_store *s);
void store_prune(web_store *s, int64_t now_ns);
void store_get_info(web_store *s, store_info *out);

void   store_lock(web_store *s);
void   store_unlock(web_store *s);
size_t store_count(const web_store *s);      /* locked */
/* Sample i in arrival order (locked). */
bool   store_get(const web_store *s, size_t i, store_sample *out);

#endif
