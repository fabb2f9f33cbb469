/* pcp_series: the PCP reader's --series QUERY: the -S/-T window read
 * against (the epoch, now), a time of day alone as today's, then
 * pmseries_read (pmseries.h) delivering the counters' samples of every
 * host the query matches to the reader's sink.  Internal to
 * client/input's PCP reader (pcp_reader.h). */
#ifndef STAPRELAY_PCP_SERIES_H
#define STAPRELAY_PCP_SERIES_H

#include "client/input/pcp_reader.h"
#include "common/strbuf.h"

/* Returns pmseries_read's 0 or 1, or 2 (a bad -S/-T), with a message
 * in err; the counter figures go to rd->st. */
int pcp_series_read(reader *rd, strbuf *err);

#endif
