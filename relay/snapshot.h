/* snapshot: the values of one source at one read, mapped through its
 * metadata.  A snapshot keeps a reference to the parsed document and its
 * string values point into it, so building one copies nothing but
 * numbers.  Fetches read snapshots; a new read replaces the snapshot
 * whole, so a fetch never sees half an update. */
#ifndef STAPRELAY_SNAPSHOT_H
#define STAPRELAY_SNAPSHOT_H

#include "relay/metadata.h"

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>

typedef enum {
    VAL_OK = 0,
    VAL_MISSING,      /* pointer not found */
    VAL_BADTYPE,      /* JSON type does not fit the metric type */
} value_state;

typedef struct value {
    value_state state;
    union {
        int64_t i;
        double d;
        const char *s;   /* borrowed from the snapshot's document */
    } u;
} value;

typedef struct instance {
    const char *name;    /* borrowed from the document, or owned text for integers */
    int64_t number;      /* the index value when it was a JSON integer */
    bool is_number;
    /* histogram buckets: inclusive bounds; an open end has *_open set */
    int64_t lo, hi;
    bool lo_open, hi_open;
} instance;

typedef struct array_snapshot {
    instance *insts;
    size_t ninsts;
    char *numbuf;        /* storage for integer index and bucket names */
    const char *problem; /* why the array has no instances, or NULL */
    unsigned skipped;    /* elements dropped (bad or duplicate index) */
} array_snapshot;

typedef struct snapshot {
    json_t *doc;             /* owned reference */
    size_t nmetrics;
    value **values;          /* values[m][k]: k = 0 for scalars, instance k for arrays */
    array_snapshot *arrays;  /* one per meta array */
    size_t narrays;
    unsigned nproblems;      /* metrics with no value because of the data */
} snapshot;

/* Map doc (a new reference is taken) through meta. */
snapshot *snapshot_build(const source_meta *meta, json_t *doc);
void snapshot_free(snapshot *s);

/* Number of values of metric m (1 for scalars, ninsts for arrays). */
size_t snapshot_count(const snapshot *s, const source_meta *meta, size_t m);

/* Human-readable reason for the first problem of metric m, or NULL. */
const char *snapshot_problem(const snapshot *s, const source_meta *meta, size_t m,
                             char *buf, size_t buflen);

#endif
