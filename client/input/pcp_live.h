/* pcp_live: the PCP reader's live collection from pmcd: one round of
 * fetches from every source each interval (-t) until -T, a stop signal,
 * po->on_round or the followed run (pcp_follow.h) ends it, then the
 * drain after -T; sources whose connection fails are reconnected every
 * second, between rounds too, and a source whose values vanish is said
 * gone and back (the PMDA's staprelay.control.source.state).  The rules
 * are pcp_input.h's ("Live").  Internal to client/input's PCP reader
 * (pcp_reader.h). */
#ifndef STAPRELAY_PCP_LIVE_H
#define STAPRELAY_PCP_LIVE_H

#include "client/input/pcp_follow.h"
#include "client/input/pcp_reader.h"
#include "common/strbuf.h"

/* libpcp's reconnect schedule for live inputs, once before the first
 * context is opened: every second unless the user set
 * PMCD_RECONNECT_TIMEOUT (the process's environment, which libpcp
 * reads). */
void pcp_live_reconnect_schedule(void);

/* Collect from the n open sources srcs; rf: the run followed (srcs[0]
 * only; runpo the reader's options, whose metric becomes the run's),
 * or NULL.  Returns 0, 1 (the run could not be followed) or 2 (bad -t
 * or -T), with a message in err. */
int pcp_live_collect(reader *rd, pcp_options *runpo, source *srcs, int n,
                     pcp_follow *rf, strbuf *err);

#endif
