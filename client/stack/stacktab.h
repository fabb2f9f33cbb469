/* stacktab: the stack-count table every input module feeds.
 *
 * A key is a folded stack (frames root first, joined by ';').  Each key
 * has two weight columns: column 0 is the ordinary count; column 1 is
 * only used by differential data (the "after" side, flamegraph.pl's
 * second count column).  Memory grows with the number of distinct
 * stacks, never with the amount of input.
 *
 * Optionally the table also records the order in which weights arrived
 * (run-length merged), which flame charts need: there, time order is
 * the x axis and only adjacent identical stacks may merge.
 *
 * This is the seam for future inputs: a PCP event-record reader only has
 * to call stacktab_add() with the record's already-folded stack. */
#ifndef STAPRELAY_STACKTAB_H
#define STAPRELAY_STACKTAB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct stack_entry {
    const char *stack;   /* NUL-terminated, owned by the table */
    uint32_t    len;
    uint64_t    hash;
    double      count[2];
} stack_entry;

typedef struct stack_event {     /* one run in arrival order */
    uint32_t entry;
    uint32_t col;
    double   weight;
} stack_event;

typedef struct stacktab stacktab;

stacktab *stacktab_new(void);
void      stacktab_free(stacktab *t);

/* Keep the arrival order (for flame charts).  Call before adding. */
void stacktab_keep_sequence(stacktab *t, bool keep);

/* Add weight to column col (0 or 1) of the stack.  The text is copied
 * the first time it is seen.  Returns the entry index. */
size_t stacktab_add(stacktab *t, const char *stack, size_t len, int col,
                    double weight);

/* Look up without inserting; returns NULL if absent. */
const stack_entry *stacktab_find(const stacktab *t, const char *stack,
                                 size_t len);

size_t             stacktab_size(const stacktab *t);       /* distinct */
const stack_entry *stacktab_entry(const stacktab *t, size_t i);
double             stacktab_total(const stacktab *t, int col);
bool               stacktab_has_col1(const stacktab *t);

/* Multiply column col by factor, truncating to an integer when
 * truncate is set (difffolded.pl -n); the total is recomputed. */
void stacktab_scale(stacktab *t, int col, double factor, bool truncate);

/* The differential's one normalisation rule (staprelay diff by default,
 * and the heat-map page's differential, heatmap_html.js, keeps to it):
 * when the two columns' totals differ, each BEFORE count (column 0)
 * becomes floor(count * AFTER total / BEFORE total), difffolded.pl -n's
 * int($count * $total2 / $total1), so shares, not lengths of window,
 * are compared.  Equal totals are left alone.  Returns true when it
 * scaled. */
bool stacktab_normalize(stacktab *t);

size_t             stacktab_sequence_len(const stacktab *t);
const stack_event *stacktab_sequence(const stacktab *t);

/* Entry indices ordered for output (malloc'd, caller frees).
 * STACK_ORDER_BYTES: plain byte comparison of the whole key (Perl's
 * `sort`, what the collapsers print).  STACK_ORDER_FRAMES: frame by
 * frame, so siblings come out in name order and a parent precedes its
 * children.  STACK_ORDER_LINES: the folded lines `fold` writes
 * ("STACK COUNT", or "STACK C0 C1" when column 1 is used) as Perl's
 * `sort` orders them, the order flamegraph.pl lays frames out in: a
 * stack's own samples before its children ("a;b 5" < "a;b;c 3") and a
 * sibling "b.x" between them (so flamegraph.pl draws two "b" frames). */
typedef enum { STACK_ORDER_BYTES, STACK_ORDER_FRAMES, STACK_ORDER_LINES } stack_order;
size_t *stacktab_sorted(const stacktab *t, stack_order order);

/* Compare two byte strings as memcmp does, a prefix first (Perl's cmp). */
int stack_bytes_cmp(const char *a, size_t alen, const char *b, size_t blen);

/* Compare two entries as their folded lines (STACK_ORDER_LINES); two:
 * the lines carry both columns. */
int stack_lines_cmp(const stack_entry *a, const stack_entry *b, bool two);

/* Compare two folded stacks frame by frame (';' sorts before any byte). */
int stack_frames_cmp(const char *a, size_t alen, const char *b, size_t blen);

/* The keys' hash: the table uses seed STACK_HASH_SEED; other tables of
 * names (the frame tree's (parent, name) hash) pass their own. */
#define STACK_HASH_SEED 0x9E3779B97F4A7C15ull
uint64_t stack_hash(const char *s, size_t n, uint64_t seed);

#endif
