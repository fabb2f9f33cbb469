/* snapshot: the values of one source at one read, mapped through its
 * metadata.  A snapshot owns copies of what its metrics read (numbers,
 * strings, instance names) and nothing else: the parsed document is
 * released as soon as the snapshot is built, so what a source holds is
 * bounded by what its metrics read, not by the document's shape (a
 * document of padding costs nothing once read).  Fetches read snapshots;
 * a new read replaces the snapshot whole, so a fetch never sees half an
 * update. */
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
    VAL_RANGE,        /* a number outside the metric type's range */
} value_state;

typedef struct value {
    value_state state;
    union {
        int64_t i;
        uint64_t u;
        double d;
        const char *s;   /* NUL-terminated, owned by the snapshot */
    } u;
} value;

typedef struct instance {
    const char *name;    /* owned by the snapshot */
    int64_t number;      /* the index value when it was a JSON integer */
    bool is_number;
    /* histogram buckets: inclusive bounds; an open end has *_open set */
    int64_t lo, hi;
    bool lo_open, hi_open;
} instance;

typedef struct array_snapshot {
    instance *insts;
    size_t ninsts;
    const char *problem; /* why the array has no instances, or NULL */
    unsigned skipped;    /* elements dropped (bad or duplicate index) */
} array_snapshot;

struct text_pool;

typedef struct snapshot {
    size_t nmetrics;
    value **values;          /* values[m][k]: k = 0 for scalars, instance k for arrays */
    array_snapshot *arrays;  /* one per meta array */
    size_t narrays;
    unsigned nproblems;      /* metrics with no value because of the data */
    struct text_pool *text;  /* strings and instance names */
    size_t bytes;            /* memory held, for the memory budget */
} snapshot;

/* Map doc through meta (doc is not kept). */
snapshot *snapshot_build(const source_meta *meta, json_t *doc);
/* The same, giving up once the snapshot would hold more than limit
 * bytes: NULL with a reason in err ("out of memory", or how many bytes
 * the values need). */
snapshot *snapshot_build_limited(const source_meta *meta, json_t *doc, size_t limit,
                                 char *err, size_t errlen);
void snapshot_free(snapshot *s);

/* Number of values of metric m (1 for scalars, ninsts for arrays). */
size_t snapshot_count(const snapshot *s, const source_meta *meta, size_t m);

/* Human-readable reason for the first problem of metric m, or NULL. */
const char *snapshot_problem(const snapshot *s, const source_meta *meta, size_t m,
                             char *buf, size_t buflen);

#endif
