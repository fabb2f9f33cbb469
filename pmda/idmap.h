/* idmap: stable numbers for names, persisted in the state directory.
 *
 * Each source prefix gets a PMID cluster, each metric name an item in its
 * cluster, each array an instance-domain serial.  Numbers are never
 * reused or renumbered: a source that vanishes and comes back, or a PMDA
 * restart, gets the same PMIDs (pmdajson renumbered on every reload).
 * The file is written whole to a temporary name and renamed, so a crash
 * mid-write leaves the previous map intact. */
#ifndef STAPRELAY_IDMAP_H
#define STAPRELAY_IDMAP_H

#include <stdbool.h>
#include <stddef.h>

#define IDMAP_MAX_CLUSTER 4095   /* 12 bits; cluster 0 is staprelay.control */
#define IDMAP_MAX_ITEM 1023      /* 10 bits */
#define IDMAP_MAX_SERIAL 4194303 /* 22 bits; serial 0 is the sources indom */
/* Reserved for staprelay.control.events.*; never handed out to a source. */
#define IDMAP_EVENTS_SERIAL IDMAP_MAX_SERIAL
/* Reserved for staprelay.control.runs (the runs indom). */
#define IDMAP_RUNS_SERIAL (IDMAP_MAX_SERIAL - 1)
/* Lowest reserved serial: sources get serials below it. */
#define IDMAP_RESERVED_SERIAL IDMAP_RUNS_SERIAL

typedef struct idmap idmap;

/* Load dir/pmids if present.  err gets a reason when the file exists but
 * cannot be used (the map then starts empty, and is saved anew). */
idmap *idmap_open(const char *dir, char *err, size_t errlen);
void idmap_free(idmap *m);

/* Return the number for the name, allocating (and saving) a new one when
 * needed; -1 when the space is exhausted. */
int idmap_cluster(idmap *m, const char *prefix);
int idmap_item(idmap *m, int cluster, const char *name);
int idmap_indom(idmap *m, const char *prefix, const char *array);

/* Write the map if it changed.  Returns 0 or -errno. */
int idmap_save(idmap *m);
bool idmap_dirty(const idmap *m);

#endif
