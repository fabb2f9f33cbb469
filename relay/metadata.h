/* metadata: a source's metadata.json, pmdajson's format, flattened.
 *
 * pmdajson nests array sub-metrics inside the array; we flatten every leaf
 * to one meta_metric whose name is relative to the source prefix ("count",
 * "net.rx", "ifaces.bytes") and which points either at the document
 * (array < 0) or at one element of an array (array >= 0).  Problems that
 * cost a metric or an attribute are collected as text, never silent. */
#ifndef STAPRELAY_METADATA_H
#define STAPRELAY_METADATA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef enum { VT_INT64, VT_DOUBLE, VT_STRING, VT_UINT64 } value_type;

/* PCP's limits on names, enforced per metric (a name is refused with a
 * reason, never cut): the longest name below the PMDA's root
 * ("prefix.metric[.leaf]", staprelay. not counted), and how many names one
 * source may have (PMID items are 10 bits: 1024 per prefix). */
#define META_NAME_MAX 1000
#define META_MAX_NAMES 1000
/* Problems kept per metadata load; the rest are counted in one line. */
#define META_MAX_PROBLEMS 64
typedef enum { SEM_INSTANT, SEM_COUNTER, SEM_DISCRETE } metric_semantics;

typedef struct meta_array {
    char *name;        /* relative name of the array node, e.g. "ifaces" */
    char *pointer;     /* pointer to the JSON array in the data */
    char *index;       /* pointer, inside one element, to its instance name;
                        * NULL for a histogram (names come from bounds) */
    char *description;
    bool histogram;    /* buckets {"lo","hi","count"}; one counter metric */
    char *bound_units; /* histogram: units of lo/hi (the counter counts) */
} meta_array;

typedef enum { FT_INT64, FT_DOUBLE, FT_STRING, FT_STACK, FT_UINT64 } field_type;

typedef struct meta_field {
    char *name;
    char *pointer;     /* inside one record */
    field_type type;
    char *units;
    char *description;
    bool optional;     /* a record may lack it (otherwise it is rejected) */
} meta_field;

/* A stream of records (type "event"); see docs/formats.md. */
typedef struct meta_event {
    char *name;        /* relative name: metrics are <name>.records,
                        * <name>.<field> and <name>.stacks */
    char *pointer;     /* to the list of records */
    char *description;
    char *timestamp;   /* pointer inside a record, or NULL (read time) */
    int64_t ts_scale;  /* nanoseconds per timestamp unit */
    char *sequence;    /* pointer inside a record, or NULL */
    char *dropped;     /* pointer in the document, or NULL */
    meta_field *fields;
    size_t nfields;
    int stack_field;   /* index of the first stack field, or -1 */
    int count_field;   /* integer or unsigned field named "count" (stack
                        * weight: a record with a count below 1 is rejected), or -1 */
    int duration_field;/* integer or unsigned field named "duration" in
                        * nanosec (or without units): the record's time, its
                        * weight in <name>.stacks (which then counts ns);
                        * a negative duration is rejected.  Or -1 */
    bool stacks_metric;/* a stack field and the <name>.stacks name is free */
    bool subsecond_metric; /* and <name>.subsecond, .subsecond_end are free */
    bool replay;       /* a client's first read starts at the oldest record */
} meta_event;

typedef struct meta_metric {
    char *name;        /* relative dotted name */
    char *pointer;     /* in the document, or inside an array element */
    value_type type;
    metric_semantics semantics;
    char *units;       /* as written (checked by the PMDA); NULL = none */
    char *description; /* NULL = none */
    char *labels;      /* compact JSON object of extra PCP labels, or NULL */
    int array;         /* index into meta->arrays, or -1 */
} meta_metric;

typedef struct source_meta {
    char *prefix;      /* from metadata, else the default given to parse */
    char *data_path;   /* NULL = <dir>/data.json */
    char **data_exec;  /* argv (NULL-terminated) or NULL */
    meta_array *arrays;
    size_t narrays;
    meta_metric *metrics;
    size_t nmetrics;
    meta_event *events;
    size_t nevents;
    char **problems;   /* human-readable, one per dropped item */
    size_t nproblems;
    size_t problems_untold;  /* beyond META_MAX_PROBLEMS (while parsing) */
    size_t bytes;      /* memory the model holds (for the memory budget) */
} source_meta;

/* Parse metadata text.  Returns NULL (and a reason in err) only when the
 * document as a whole is unusable; smaller problems land in ->problems. */
source_meta *metadata_parse(const char *text, size_t len, const char *default_prefix,
                            char *err, size_t errlen);
/* The same, refusing a document that would take more than max_memory
 * bytes to parse (relay/jsondoc.h). */
source_meta *metadata_parse_limited(const char *text, size_t len, const char *default_prefix,
                                    size_t max_memory, char *err, size_t errlen);
void metadata_free(source_meta *m);

/* Valid metric or prefix name: [A-Za-z][A-Za-z0-9_]* components joined by '.' */
int metadata_name_ok(const char *name);

/* Split a command line like python's shlex.split (no shell involved):
 * whitespace separates words, '...' and "..." quote, backslash escapes
 * outside single quotes.  Returns a NULL-terminated argv or NULL. */
char **metadata_split_command(const char *cmd, char *err, size_t errlen);
void metadata_free_argv(char **argv);

#endif
