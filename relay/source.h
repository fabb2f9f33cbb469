/* source: one metadata document plus its data (a directory with
 * metadata.json and data.json, data-path or data-exec).
 *
 * A source owns its parsed metadata, its current snapshot, its running
 * data-exec job and its health counters.  It never talks to PCP: the
 * relay tells its host when the namespace changed, and the host reads
 * src->meta and src->snap when it answers a fetch. */
#ifndef STAPRELAY_SOURCE_H
#define STAPRELAY_SOURCE_H

#include "relay/events.h"
#include "relay/exec.h"
#include "relay/log.h"
#include "relay/metadata.h"
#include "relay/snapshot.h"

#include <ev.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/stat.h>

typedef enum {
    SRC_WAITING = 0,     /* metadata fine, no data read yet */
    SRC_OK,              /* last read parsed and mapped */
    SRC_ERROR,           /* last data read failed: no values */
    SRC_BAD_METADATA,    /* metadata unusable: no metrics */
    SRC_DUPLICATE,       /* another source already owns this prefix */
    SRC_REJECTED,        /* trusted directory failed the ownership check */
    SRC_VANISHED,        /* SystemTap module unloaded: names kept, no values */
} source_state;

const char *source_state_name(source_state st);

typedef struct source_stats {
    uint64_t reads;          /* data reads attempted (files and commands) */
    uint64_t read_errors;    /* open/read/exec failures, size cap */
    uint64_t parse_errors;   /* data that was not valid JSON */
    uint64_t exec_timeouts;  /* data-exec commands killed by the time-out */
    uint64_t metadata_loads; /* metadata (re)parsed */
    uint64_t metadata_errors;/* problems found in metadata (cumulative) */
    uint64_t memory_refusals;/* documents, values or metadata refused for memory */
} source_stats;

/* What a document's text was, without keeping the text (a metadata.json
 * may be 16 MiB): its length and a 64-bit hash. */
typedef struct text_print {
    bool known;
    size_t len;
    uint64_t hash;
} text_print;

struct relay;

typedef struct source {
    struct relay *relay;     /* owner */
    char *dir;               /* source directory */
    char *root;              /* configured directory it was found under */
    char *default_prefix;    /* basename of dir */
    bool trusted;
    bool stap_module;        /* under a SystemTap root: no data-exec, no data-path */
    bool ends_by_design;     /* a module or a run: kept as SRC_VANISHED when gone */
    source_meta *meta;       /* NULL when metadata is unusable */
    text_print meta_print;   /* last metadata text, for change detection */
    struct stat meta_st;     /* identity of the metadata file last opened */
    bool meta_st_valid;      /* false: read metadata.json again next poll */
    char *data_file;         /* resolved data path (file sources) */
    struct stat data_st;     /* identity of the file last parsed */
    bool data_st_valid;
    snapshot *snap;          /* NULL = no values */
    event_stream **streams;  /* one per meta->events */
    uint64_t generation;     /* bumped whenever snap changes */
    double last_ok;          /* ev_now() of the last good data read, 0 = never */
    double vanished_at;      /* ev_now() when it became SRC_VANISHED */
    uint64_t host_checked;   /* the host's mark: metadata_loads it validated */
    source_state state;
    char last_error[512];
    char meta_error[512];    /* last metadata problem; outlives data reads */
    source_stats stats;
    unsigned metric_problems;/* metrics currently without value */
    uint64_t *problem_hash;  /* per metric: last problem logged (0 = none) */
    uint64_t *array_hash;    /* per array: last skipped-elements note logged */
    ratelimit error_rl;
    exec_job *job;
    struct fiforead *meta_fifo;  /* BPF runtime: reads in flight */
    struct fiforead *data_fifo;
    ev_stat data_watch;
    bool watching;
    bool seen;               /* scan bookkeeping */
    size_t mem_held;         /* bytes held (metadata, values, queues, stacks):
                              * counted in the relay's totals */
    ratelimit budget_rl;
} source;

source *source_new(struct relay *r, const char *dir, bool trusted, bool stap_module);
/* Stops watchers and jobs and frees everything. */
void source_free(source *s);

/* A SystemTap module whose directory is gone: stop reading, no values,
 * but keep the metadata so its names (and PMIDs) stay in the namespace
 * until it comes back.  Event records already relayed stay queued for
 * their clients. */
void source_vanish(source *s);

/* No values, and the next refresh reads the data again even if the file
 * did not change (a source that lost or regained its prefix). */
void source_forget_data(source *s);

/* Re-read metadata if it changed.  Returns true when the namespace this
 * source contributes may have changed. */
bool source_refresh_metadata(source *s);
/* Read data (file) or start data-exec (command) unless one is running. */
void source_refresh_data(source *s);
/* Record a problem found by the host (e.g. units PCP cannot parse):
 * counted, logged (rate-limited) and shown as the last error. */
void source_report(source *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* The trusted-directory rule (source.c): PATH, walked from / through
 * every symbolic link, passes only root-owned, not group/world-writable
 * directories (sticky ones excepted) and root-owned links, and is itself
 * owned by root and not group/world-writable.  Else false and WHY. */
bool source_trusted_path_ok(const char *path, char *why, size_t whylen);

/* Bring s->mem_held (and the relay's totals) up to date, and share what
 * the source may hold among its event queues and stack tables. */
void source_account(source *s);
/* Bytes the source may hold in all now: max_source_memory, within what
 * max_total_memory leaves beside every other source (half of it for
 * sources any user may write). */
size_t source_allowance(const source *s);
/* Can anybody but root change what this source reads? */
bool source_untrusted(const source *s);

/* The prefix this source publishes under, or NULL without metadata. */
const char *source_prefix(const source *s);

#endif
