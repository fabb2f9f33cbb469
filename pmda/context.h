/* context: everything pmdastaprelay owns, in one struct (the loop's
 * context).  The PMCD glue reaches it through pmdaExtGetData() or the
 * m_user of a metric; nothing else is global. */
#ifndef STAPRELAY_CONTEXT_H
#define STAPRELAY_CONTEXT_H

#include "pmda/idmap.h"
#include "pmda/instances.h"
#include "relay/relay.h"

#include <ev.h>
#include <pcp/pmapi.h>
#include <pcp/pmda.h>
#include <stdbool.h>

#ifndef pmdaResult
#define pmdaResult pmResult   /* PCP 7 renamed the fetch result type */
#endif

struct pmda_ctx;

typedef enum { REF_CONTROL, REF_SOURCE } metric_kind;

/* What one pmdaMetric (through m_user) stands for. */
typedef struct metric_ref {
    struct pmda_ctx *ctx;
    metric_kind kind;
    source *src;          /* REF_SOURCE */
    size_t index;         /* meta metric index, or control item */
    int indom_slot;       /* index into ctx->indoms, or -1 */
} metric_ref;

/* What one pmdaIndom stands for. */
typedef struct indom_ref {
    source *src;          /* NULL: the control "sources" indom */
    size_t array;
    uint64_t generation;  /* snapshot generation the table reflects */
    bool synced;
    inst_table *table;    /* borrowed from ctx->tables */
} indom_ref;

typedef struct pmda_ctx {
    pmdaInterface dispatch;
    int domain;
    struct ev_loop *loop;
    relay *relay;
    idmap *ids;
    pmdaNameSpace *pmns;
    pmdaMetric *metrics;
    metric_ref *refs;
    size_t nmetrics;
    pmdaIndom *indoms;
    indom_ref *indom_refs;
    size_t nindoms;
    inst_table **tables;  /* by indom serial, kept across rebuilds */
    size_t ntables;
    bool names_changed;   /* tell pmcd on the next fetch */
    uint64_t rebuilds;
    char textbuf[256];    /* one-line help handed to libpcp_pmda */
    ev_io pmcd_w;
    ev_signal term_w, int_w;
} pmda_ctx;

#endif
