/* testutil_relay: what the relay suites share -- metadata parsed for a
 * test and a metric found by name.  Linked into check_relay only (the
 * Makefile links tests/testutil_<part>.c into its part's runner). */
#ifndef STAPRELAY_TESTUTIL_RELAY_H
#define STAPRELAY_TESTUTIL_RELAY_H

#include "relay/metadata.h"

/* The default prefix tu_meta_parse gives a document without its own. */
#define TU_META_PREFIX "dflt"

/* metadata_parse(TEXT) or a failed test with its error; the caller frees
 * it (metadata_free). */
source_meta *tu_meta_parse(const char *text);
/* The index of the top-level metric NAME in M, or -1. */
int tu_meta_find(const source_meta *m, const char *name);
/* The same for a metric the test needs: a failed test when M has none
 * (an index of -1 would read outside the values). */
int tu_meta_index(const source_meta *m, const char *name);

#endif
