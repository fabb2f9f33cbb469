/* config: the relay's configuration file (JSON).
 *
 * pmdajson's keys keep their meaning: directory_list and
 * trusted_directory_list name directories walked for sources.  Our keys:
 * poll_interval and exec_timeout (seconds), max_document_size (bytes),
 * memory budgets, queue limits.  Unknown keys are reported, not fatal. */
#ifndef STAPRELAY_CONFIG_H
#define STAPRELAY_CONFIG_H

#include <stdbool.h>
#include <stddef.h>

/* On-demand runs of bundled scripts (docs/runs.md).  Off by default. */
typedef struct runs_config {
    bool enabled;
    char **scripts;              /* bundled scripts that may be started */
    size_t nscripts;
    double max_duration;         /* seconds (300) */
    double default_duration;     /* seconds when a request names none (30) */
    size_t max_concurrent;       /* runs at once (1) */
    size_t max_queued;           /* requests waiting (4) */
    size_t history;              /* finished runs kept listed (32) */
    char *command;               /* the staprelay command (NULL: host's default) */
    char *directory;             /* where the perf backend publishes (NULL: host's default) */
    double start_timeout;        /* seconds allowed before the duration counts (600) */
} runs_config;

typedef struct relay_config {
    char **directories;          /* untrusted source roots */
    size_t ndirectories;
    char **trusted_directories;  /* trusted source roots */
    size_t ntrusted_directories;
    char **stap_roots;           /* SystemTap procfs roots: each module dir a source */
    size_t nstap_roots;
    double poll_interval;        /* seconds between refreshes (default 1) */
    double exec_timeout;         /* seconds before data-exec is killed (2) */
    size_t max_document_size;    /* bytes per metadata/data document (16 MiB) */
    size_t max_document_memory;  /* bytes parsing one document may take (128 MiB) */
    size_t max_source_memory;    /* bytes one source may hold: values, names,
                                  * metadata, event queues, stacks (64 MiB) */
    size_t max_total_memory;     /* bytes all sources together may hold; those
                                  * any user may write get half (512 MiB) */
    char *exec_user;             /* user for untrusted data-exec ("nobody") */
    bool exec_reaper_only;       /* exec_isolation "reaper": no PID namespaces */
    size_t exec_max_processes;   /* RLIMIT_NPROC for exec_user's commands (128) */
    size_t event_queue_size;     /* bytes of queued records per event stream (16 MiB) */
    size_t max_record_size;      /* largest event record in PCP's encoding (1 MiB;
                                  * at most EVENT_WIRE_MAX_RECORD, relay/events.h) */
    size_t event_fetch_size;     /* bytes of records, in PCP's encoding, handed to
                                  * one client per fetch (512 KiB) */
    size_t pmid_clusters_per_root;  /* PMID clusters the prefixes of one untrusted
                                     * root may hold (256) */
    size_t pmid_clusters_reserved;  /* clusters kept for trusted sources (1024) */
    size_t max_stacks;           /* distinct stacks kept per stream (10000) */
    double stack_expiry;         /* seconds a stack stays without samples (600) */
    runs_config runs;
} relay_config;

#define CONFIG_DEFAULT_POLL_INTERVAL 1.0
#define CONFIG_DEFAULT_EXEC_TIMEOUT 2.0
#define CONFIG_DEFAULT_MAX_DOCUMENT (16u * 1024 * 1024)
#define CONFIG_DEFAULT_DOCUMENT_MEMORY ((size_t)128 << 20)
#define CONFIG_DEFAULT_SOURCE_MEMORY ((size_t)64 << 20)
#define CONFIG_DEFAULT_TOTAL_MEMORY ((size_t)512 << 20)

/* Defaults: no directories. */
relay_config *config_new_default(void);
/* Parse JSON text.  On error returns NULL and writes a message to err.
 * Non-fatal remarks (unknown keys) are appended to warn (may be NULL). */
relay_config *config_parse(const char *text, size_t len, char *err, size_t errlen,
                           char *warn, size_t warnlen);
/* Read and parse a file. */
relay_config *config_load(const char *path, char *err, size_t errlen,
                          char *warn, size_t warnlen);
void config_free(relay_config *cfg);
/* Append a directory to directory_list.  Returns 0 or -1 (no memory). */
int config_add_directory(relay_config *cfg, const char *dir);

#endif
