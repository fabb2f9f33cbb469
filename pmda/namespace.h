/* namespace: the PMNS, metric table and instance-domain table, rebuilt
 * from the relay whenever its namespace changes (never on a fetch).
 * Also answers pmid/name/children/text requests, and keeps the PMID
 * index (PMID -> metric) that fetches and descriptor requests use. */
#ifndef STAPRELAY_NAMESPACE_H
#define STAPRELAY_NAMESPACE_H

#include "pmda/context.h"

/* Rebuild everything from ctx->relay; installs the tables in the pmdaExt. */
void namespace_rebuild(pmda_ctx *ctx);
void namespace_free(pmda_ctx *ctx);
/* The metric with this PMID (the PMID index), or NULL. */
pmdaMetric *namespace_lookup(pmda_ctx *ctx, pmID pmid);

int namespace_pmid(const char *name, pmID *pmid, pmdaExt *pmda);
int namespace_name(pmID pmid, char ***nameset, pmdaExt *pmda);
int namespace_children(const char *name, int traverse, char ***kids, int **sts, pmdaExt *pmda);
int namespace_text(int ident, int type, char **buffer, pmdaExt *pmda);

#endif
