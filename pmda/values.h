/* values: answering fetch and instance requests from memory.  Instance
 * tables are brought in line with the current snapshots here (a cheap
 * generation check), values come straight from the snapshots. */
#ifndef STAPRELAY_VALUES_H
#define STAPRELAY_VALUES_H

#include "pmda/context.h"

/* Before building a fetch result: instance tables in line, pmcd told of
 * namespace changes. */
void values_prepare_fetch(pmda_ctx *ctx, pmdaExt *pmda);
int values_instance(pmInDom indom, int inst, char *name, pmInResult **result, pmdaExt *pmda);
int values_desc(pmID pmid, pmDesc *desc, pmdaExt *pmda);
/* The value at position pos of the metric's instance table (-1: no
 * domain); fetch_result's per-value path (it replaces pmdaFetch, so the
 * agent has no pmdaFetch callback). */
int values_fetch_at(const pmdaMetric *mdesc, long pos, pmAtomValue *atom);
/* A value metric's values in the current snapshot, one per row of its
 * instance table (one for a scalar), *n of them; NULL (and *n 0) for any
 * other metric or when there are none.  Lets the fetch loop skip the
 * per-value lookups of values_fetch_at for the commonest metrics. */
const value *values_source_column(const pmdaMetric *mdesc, size_t *n);

/* Sync every instance table with its source's snapshot. */
void values_sync_indoms(pmda_ctx *ctx);

/* Event clients, labels (histogram bounds, stacks marker). */
extern pmda_ctx *values_ctx;
void values_end_context(int context);
int values_label(int ident, int type, pmLabelSet **lp, pmdaExt *pmda);
int values_instance_labels(pmInDom indom, unsigned int inst, pmLabelSet **lp);

/* Whether a metric's labels (a JSON object) fit the limits this agent
 * keeps below PCP's (values.c); if not, false and why. */
bool values_labels_fit(const char *json, char *why, size_t whylen);

#endif
