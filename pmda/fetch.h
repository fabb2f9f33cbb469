/* fetch: builds fetch results directly, answering from memory.
 *
 * pmdaFetch allocates one value block per 64-bit or string value and
 * frees each one after the result is sent; for a 1,000-instance array
 * that is most of the PMDA's cost per fetch.  We build the whole result
 * in an arena (values as PM_VAL_SPTR, which libpcp sends but never frees)
 * and reset the arena when the next fetch starts. */
#ifndef STAPRELAY_FETCH_H
#define STAPRELAY_FETCH_H

#include "pmda/context.h"

/* The dispatch fetch entry point. */
int fetch_result(int numpmid, pmID *pmids, pmdaResult **resp, pmdaExt *pmda);
/* Result callback: nothing to free per value (the arena owns it all). */
void fetch_result_done(pmdaResult *result);
void fetch_free(pmda_ctx *ctx);
/* Whether a client's instance profile lets every instance of indom
 * through, as it usually does; then the fetch skips the per-instance
 * check (which searches the profile's domains for every value).  Same
 * rules as libpcp's __pmInProfile. */
bool fetch_profile_takes_all(pmInDom indom, const pmProfile *prof);

#endif
