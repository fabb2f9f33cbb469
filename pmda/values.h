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
int values_fetch_callback(pmdaMetric *mdesc, unsigned int inst, pmAtomValue *atom);

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
