/* namespace: the PMNS, metric table and instance-domain table, rebuilt
 * from the relay whenever its namespace changes (never on a fetch).
 * Also answers pmid/name/children/text requests. */
#ifndef STAPRELAY_NAMESPACE_H
#define STAPRELAY_NAMESPACE_H

#include "pmda/context.h"

/* Rebuild everything from ctx->relay; installs the tables in the pmdaExt. */
void namespace_rebuild(pmda_ctx *ctx);
void namespace_free(pmda_ctx *ctx);

int namespace_pmid(const char *name, pmID *pmid, pmdaExt *pmda);
int namespace_name(pmID pmid, char ***nameset, pmdaExt *pmda);
int namespace_children(const char *name, int traverse, char ***kids, int **sts, pmdaExt *pmda);
int namespace_text(int ident, int type, char **buffer, pmdaExt *pmda);

#endif
