/* idmap: stable numbers for names, persisted in the state directory.
 *
 * Each source prefix gets a PMID cluster, each metric name an item in its
 * cluster, each array an instance-domain serial.  A prefix keeps its
 * numbers for as long as it is remembered: a source that vanishes and
 * comes back, or a PMDA restart, gets the same PMIDs (pmdajson renumbered
 * on every reload).
 *
 * Clusters are few (4095), and anyone may create prefixes in an untrusted
 * directory, so their use is bounded by who may write what:
 *   - the prefixes of one untrusted root (a directory_list entry, a user's
 *     SystemTap root) hold at most per_root clusters, and untrusted roots
 *     together at most 4095 - reserve: the reserve stays for trusted
 *     directories and root's SystemTap modules;
 *   - when a new prefix finds no free cluster within those bounds, the
 *     cluster of a prefix not published now is taken back, the one
 *     unpublished longest first: of the same root for an untrusted
 *     prefix (other roots' only when the untrusted total is the bound),
 *     any untrusted one before a trusted one for a trusted prefix.  Its
 *     items and instance domains go with it (the serials are reused);
 *   - a cluster published now is never taken.
 * Each cluster remembers who owns it (trusted, or which untrusted root)
 * and when it was last published (to the hour), across restarts.  An
 * array's instance domains are bounded like items (1024 per prefix).
 * The file is written whole to a temporary name and renamed, so a crash
 * mid-write leaves the previous map intact. */
#ifndef STAPRELAY_IDMAP_H
#define STAPRELAY_IDMAP_H

#include <stdbool.h>
#include <stddef.h>
#include <time.h>

#define IDMAP_MAX_CLUSTER 4095   /* 12 bits; cluster 0 is staprelay.control */
#define IDMAP_MAX_ITEM 1023      /* 10 bits */
#define IDMAP_MAX_SERIAL 4194303 /* 22 bits; serial 0 is the sources indom */
/* Reserved for staprelay.control.events.*; never handed out to a source. */
#define IDMAP_EVENTS_SERIAL IDMAP_MAX_SERIAL
/* Reserved for staprelay.control.runs (the runs indom). */
#define IDMAP_RUNS_SERIAL (IDMAP_MAX_SERIAL - 1)
/* Lowest reserved serial: sources get serials below it. */
#define IDMAP_RESERVED_SERIAL IDMAP_RUNS_SERIAL
/* Instance domains one prefix may have. */
#define IDMAP_MAX_INDOMS_PER_CLUSTER 1024
/* Defaults: clusters kept for trusted sources, clusters per untrusted root. */
#define IDMAP_DEFAULT_RESERVE 1024
#define IDMAP_DEFAULT_PER_ROOT 256

typedef struct idmap idmap;

/* Load dir/pmids if present.  err gets a reason when the file exists but
 * cannot be used (the map then starts empty, and is saved anew). */
idmap *idmap_open(const char *dir, char *err, size_t errlen);
void idmap_free(idmap *m);
/* Bounds for untrusted roots (see above). */
void idmap_set_policy(idmap *m, int reserve, int per_root);

/* A rebuild of the namespace: begin it (now is the wall clock), hold
 * every prefix that will be published in it (so no allocation in the same
 * round takes its cluster back), then ask for numbers. */
void idmap_begin(idmap *m, time_t now);
void idmap_hold(idmap *m, const char *prefix);

/* What idmap_cluster took back to make room, if anything. */
typedef struct idmap_reclaim {
    bool happened;
    int cluster;
    char prefix[128];        /* the prefix that lost it (cut for the log) */
    time_t unpublished_since;
} idmap_reclaim;

/* The cluster of prefix; owner is NULL for a trusted source or root's
 * SystemTap module, else the untrusted root it was found under.  -1 when
 * none can be had (why says so).  rec (may be NULL) says what was taken
 * back. */
int idmap_cluster(idmap *m, const char *prefix, const char *owner, idmap_reclaim *rec,
                  char *why, size_t whylen);
/* Item of name in cluster, allocated when new; -1 when exhausted. */
int idmap_item(idmap *m, int cluster, const char *name);
/* Instance-domain serial of prefix.array (prefix must have a cluster);
 * -1 when exhausted. */
int idmap_indom(idmap *m, const char *prefix, const char *array);

/* Write the map if it changed.  Returns 0 or -errno. */
int idmap_save(idmap *m);
bool idmap_dirty(const idmap *m);
/* Clusters in use (held by a prefix, published or not). */
int idmap_clusters_used(const idmap *m);

#endif
