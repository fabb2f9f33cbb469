/* stacktab: distinct stacks of one event stream with their cumulative
 * sample counts; the shape grafana-pcp's flame graph reads.  Bounded:
 * stacks not seen for `expiry` seconds are removed, and when the table is
 * full (max_entries stacks, or max_bytes of memory) the least recently
 * seen tenth is evicted.  Counts saturate at UINT64_MAX, never wrap.  Entries are dense (0..n-1)
 * so the host can serve them positionally; `generation` changes whenever
 * the set of stacks changes. */
#ifndef STAPRELAY_STACKTAB_H
#define STAPRELAY_STACKTAB_H

#include <stddef.h>
#include <stdint.h>

typedef struct stack_entry {
    char *name;          /* instance name (stack_instance_name form) */
    uint64_t count;      /* cumulative weight */
    double last_seen;
} stack_entry;

typedef struct stacktab stacktab;

stacktab *stacktab_new(size_t max_entries, double expiry);
void stacktab_free(stacktab *t);

/* Bytes the table may hold (names and bookkeeping); SIZE_MAX at first.
 * A lower bound evicts at once.  A stack larger than the bound alone is
 * not kept (counted as evicted). */
void stacktab_set_max_bytes(stacktab *t, size_t max_bytes);
size_t stacktab_bytes(const stacktab *t);

/* Add weight to the stack (folded form). */
void stacktab_add(stacktab *t, const char *folded, uint64_t weight, double now);
void stacktab_expire(stacktab *t, double now);

size_t stacktab_count(const stacktab *t);
const stack_entry *stacktab_entry(const stacktab *t, size_t i);
uint64_t stacktab_generation(const stacktab *t);
uint64_t stacktab_evicted(const stacktab *t);

#endif
