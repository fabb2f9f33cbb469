/* context: everything pmdastaprelay owns, in one struct (the loop's
 * context).  The PMCD glue reaches it through pmdaExtGetData() or the
 * m_user of a metric; nothing else is global. */
#ifndef STAPRELAY_CONTEXT_H
#define STAPRELAY_CONTEXT_H

#include "pmda/idmap.h"
#include "pmda/instances.h"
#include "relay/relay.h"
#include "relay/runs.h"

#include <ev.h>
#include <pcp/pmapi.h>
#include <pcp/pmda.h>
#include <stdbool.h>

#ifndef pmdaResult
#define pmdaResult pmResult   /* PCP 7 renamed the fetch result type */
#endif

struct pmda_ctx;
typedef struct fetch_arena fetch_arena;

typedef enum {
    REF_CONTROL,          /* staprelay.control.* (index: control table) */
    REF_SOURCE,           /* a value metric (index: meta metric) */
    REF_EVENT,            /* <event>.records (index: meta event) */
    REF_FIELD,            /* <event>.<field>: describes a record parameter */
    REF_STACKS,           /* <event>.stacks counter */
    REF_SUBSECOND,        /* <event>.subsecond histogram counter */
    REF_SUBSECOND_END,    /* <event>.subsecond_end: its closed second */
} metric_kind;

/* What one pmdaMetric (through m_user) stands for. */
typedef struct metric_ref {
    struct pmda_ctx *ctx;
    metric_kind kind;
    source *src;          /* all but REF_CONTROL */
    size_t index;
    size_t field;         /* REF_FIELD: field index in the event */
    int indom_slot;       /* index into ctx->indoms, or -1 */
    int event_array;      /* REF_EVENT: pmdaEventNewArray handle */
    pmID *field_pmids;    /* REF_EVENT: one per field (owned) */
} metric_ref;

typedef enum {
    INDOM_SOURCES, INDOM_EVENTS, INDOM_ARRAY, INDOM_STACKS, INDOM_RUNS, INDOM_SUBSECOND
} indom_kind;

/* What one pmdaIndom stands for. */
typedef struct indom_ref {
    indom_kind kind;
    source *src;          /* INDOM_ARRAY, INDOM_STACKS, INDOM_SUBSECOND */
    size_t index;         /* array or event index */
    uint64_t generation;  /* data generation the table reflects */
    bool synced;
    inst_table *table;    /* borrowed from ctx->tables */
} indom_ref;

/* One event stream, for the control "events" indom. */
typedef struct stream_ref {
    source *src;
    size_t event;
    char *name;           /* "<prefix>.<event>" (owned) */
} stream_ref;

typedef struct pmda_ctx {
    pmdaInterface dispatch;
    int domain;
    struct ev_loop *loop;
    relay *relay;
    runs *runs;           /* on-demand runs (docs/runs.md) */
    idmap *ids;
    pmdaNameSpace *pmns;
    pmdaMetric *metrics;
    metric_ref *refs;
    size_t nmetrics;
    pmdaIndom *indoms;
    indom_ref *indom_refs;
    size_t nindoms;
    stream_ref *streams;  /* every event stream, in control-indom order */
    size_t nstreams;
    int events_serial;    /* serial of the control "events" indom */
    inst_table *events_table;
    inst_table *runs_table;
    char *scratch;        /* NUL-terminated copies of record strings */
    size_t scratch_len;
    inst_table **tables;  /* by indom serial, kept across rebuilds */
    size_t ntables;
    bool names_changed;   /* tell pmcd on the next fetch */
    int client;           /* pmcd context of the request being answered */
    struct run_answers *answers; /* each client's answer to its last
                                  * control.run store (control.c) */
    uint64_t rebuilds;
    char textbuf[256];    /* one-line help handed to libpcp_pmda */
    fetch_arena *arena;   /* memory of the last fetch result */
    int *pmid_slots;      /* PMID -> metric index + 1 (open addressing) */
    size_t pmid_nslots;
    ev_io pmcd_w;
    ev_signal term_w, int_w;
} pmda_ctx;

#endif
