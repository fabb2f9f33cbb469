/* pcp_result: what one fetch brought (a pmResult, live or from an
 * archive) into samples for the reader's sink: event records decoded
 * (pcp_events.h) and kept by the source's window, counters' value sets
 * handed to their pcp_counter (pcp_counters.h), MISSED records counted.
 * While rd->scan, records only widen the time span (rd->scan_lo,
 * rd->scan_hi) and nothing is delivered.  Internal to client/input's
 * PCP reader (pcp_reader.h). */
#ifndef STAPRELAY_PCP_RESULT_H
#define STAPRELAY_PCP_RESULT_H

#include <stddef.h>
#include <stdint.h>
#include <pcp/pmapi.h>

#include "client/input/pcp_reader.h"

/* One result of source s: its values of s's metrics. */
void pcp_result_process(reader *rd, source *s, const pmResult *r);

/* The pcp_counter_fn of a source's counters (arg: the reader, whose
 * rd->cur is the source): a sample a counter stands for, delivered like
 * a record's stack. */
void pcp_result_counted(void *arg, const char *folded, size_t len,
                        double weight, int64_t when_ns);

#endif
