/* stackcount: distinct stacks of one event stream with their cumulative
 * sample counts; the shape grafana-pcp's flame graph reads.  Bounded:
 * stacks not seen for `expiry` seconds are removed, and when the table is
 * full (max_entries stacks, or max_bytes of memory) the least recently
 * seen tenth is evicted.  Counts saturate at UINT64_MAX, never wrap.
 * Entries are dense (0..n-1)
 * so the host can serve them positionally; `generation` changes whenever
 * the set of stacks changes. */
#ifndef STAPRELAY_STACKCOUNT_H
#define STAPRELAY_STACKCOUNT_H

#include <stddef.h>
#include <stdint.h>

typedef struct stackcount_row {
    char *name;          /* instance name (stack_instance_name form) */
    uint64_t count;      /* cumulative weight */
    double last_seen;
} stackcount_row;

typedef struct stackcount stackcount;

stackcount *stackcount_new(size_t max_entries, double expiry);
void stackcount_free(stackcount *t);

/* Bytes the table may hold (names and bookkeeping); SIZE_MAX at first.
 * A lower bound evicts at once.  A stack larger than the bound alone is
 * not kept (counted as evicted). */
void stackcount_set_max_bytes(stackcount *t, size_t max_bytes);
size_t stackcount_bytes(const stackcount *t);

/* Add weight to the stack (folded form). */
void stackcount_add(stackcount *t, const char *folded, uint64_t weight, double now);
void stackcount_expire(stackcount *t, double now);

size_t stackcount_size(const stackcount *t);
const stackcount_row *stackcount_entry(const stackcount *t, size_t i);
uint64_t stackcount_generation(const stackcount *t);
uint64_t stackcount_evicted(const stackcount *t);

#endif
