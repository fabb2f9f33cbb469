/* pcp_sibling: a number published next to an event metric -- profile's
 * PREFIX.frequency (its sampling clock in Hz) beside PREFIX.samples --
 * read once from the first -h host or -a archive, so a view of the
 * records can know what they do not carry (flame --hotcold's period). */
#ifndef STAPRELAY_PCP_SIBLING_H
#define STAPRELAY_PCP_SIBLING_H

#include <stdbool.h>
#include "client/input/pcp_input.h"

/* The name of sibling beside event metric name, into out (size bytes):
 * "staprelay.P.samples" or "staprelay.P.samples.records" with
 * "frequency" give "staprelay.P.frequency".  False when name has no
 * prefix to keep or out is too small. */
bool pcp_sibling_name(const char *name, const char *sibling, char *out,
                      size_t size);

/* The value of sibling beside one of po's metrics (the first that has
 * one), from po's first host (fetched now) or first archive (its first
 * logged value): true with *value, false when none is there. */
bool pcp_sibling_value(const pcp_options *po, const char *sibling,
                       double *value);

#endif
