/* pcp_source: a source of the PCP reader opened and its metrics
 * resolved -- each name given to an event metric (NAME, NAME.records)
 * or, with no event metric, to the counter it stands for
 * (pcp_counters.h) -- and closed again.  A live source's metrics that
 * are not in pmcd's namespace yet are waited for (--wait) first.
 * Internal to client/input's PCP reader (pcp_reader.h). */
#ifndef STAPRELAY_PCP_SOURCE_H
#define STAPRELAY_PCP_SOURCE_H

#include "client/input/pcp_reader.h"
#include "common/strbuf.h"

/* Open s's context (s->spec, s->live) and, unless --run names the
 * metric later (pcp_follow_start), resolve rd->po's metrics in it.
 * Returns 0, or 1 with a message in err. */
int pcp_source_open(reader *rd, source *s, strbuf *err);

/* rd->po's metrics in s's (current) context: s->pmids, s->names and,
 * for counters, s->counter.  Returns 0, or 1 with a message in err. */
int pcp_source_resolve(reader *rd, source *s, strbuf *err);

/* Frees what s holds and destroys its context (ctx -1: none). */
void pcp_source_close(source *s);

#endif
