/* instances: instance domains whose members come and go with the data.
 *
 * An inst_table gives every instance name a stable id: an integer index
 * keeps its own value (0..2^31-1), a string gets a 31-bit hash of its
 * name, so ids are also the same after a restart (collisions, which are
 * rare, probe to the next free id).  The table remembers the names of the
 * members and of the recently departed (inst_table_departed); names that
 * left long ago are forgotten, so memory follows the domain's size, not
 * its history.  A forgotten name that comes back gets its hash-derived id
 * again unless another name took it meanwhile.  We do not use
 * pmdaCache: it refuses names whose first word repeats ("10.0.0.1 -->
 * 10.0.0.2" style names) and pmdajson lost values that way. */
#ifndef STAPRELAY_INSTANCES_H
#define STAPRELAY_INSTANCES_H

#include <pcp/pmapi.h>
#include <pcp/pmda.h>
#include <stdbool.h>
#include <stdint.h>

typedef struct inst_table inst_table;

inst_table *inst_table_new(void);
void inst_table_free(inst_table *t);

/* Stable id for a name. */
int inst_table_id(inst_table *t, const char *name, bool is_number, int64_t number);
/* Names the table remembers now (members, recently departed, and those
 * not yet forgotten). */
size_t inst_table_remembered(const inst_table *t);

/* The instance id of a histogram bucket with lower bound lo (lo_open:
 * -inf): ids sort as the buckets do, so tools that list instances by id
 * (pmval) show them in bucket order.  Exact for bounds below 2^23 in
 * magnitude; beyond, bounds that share their 23 leading bits share an id
 * and the second gets the next free one (inst_table_id's probe). */
int64_t inst_bucket_id(int64_t lo, bool lo_open);

/* Replace idp's members (names are copied; idp owns them) in the given
 * order; free with inst_table_clear. */
int inst_table_fill(inst_table *t, pmdaIndom *idp, const char *const *names,
                    const bool *is_number, const int64_t *numbers, size_t n);
void inst_table_clear(pmdaIndom *idp);

/* The name of an instance that left idp at a recent fill, or NULL.  A
 * client fetches values first and asks for names after (pminfo, and
 * pmlogger when an indom changed): an instance that left in between still
 * gets its name.  The last INST_TABLE_DEPARTED departures are kept, in at
 * most 256 KiB of names. */
#define INST_TABLE_DEPARTED 4096
const char *inst_table_departed(const inst_table *t, unsigned int inst);

/* Position of inst in idp (the order given to fill), or -1.  pmdaFetch
 * walks instances in order, so a cursor makes this O(1) per value. */
long inst_table_position(inst_table *t, const pmdaIndom *idp, unsigned int inst);

#endif
