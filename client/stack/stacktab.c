/* stacktab: hash table of folded stacks with two weight columns
 * (see stacktab.h).  Keys live in a chunked arena so their addresses
 * never move while the entry vector grows. */
#include "client/stack/stacktab.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/strbuf.h"
#include "common/xalloc.h"

#define ARENA_CHUNK (1u << 20)

typedef struct arena_chunk {
    struct arena_chunk *next;
    size_t used, cap;
    char data[];
} arena_chunk;

struct stacktab {
    stack_entry *entries;
    size_t       n, cap;
    uint32_t    *slots;      /* entry index + 1; 0 = empty */
    size_t       nslots;     /* power of two */
    arena_chunk *arena;
    double       total[2];
    bool         has_col1;
    bool         keep_seq;
    stack_event *seq;
    size_t       seq_n, seq_cap;
};

uint64_t stack_hash(const char *s, size_t n, uint64_t seed)
{
    /* 8 bytes at a time multiply-xorshift; good enough spread for
     * an open-addressing table, much faster than byte-wise FNV. */
    uint64_t h = seed ^ (n * 0xff51afd7ed558ccdull);
    while (n >= 8) {
        uint64_t w;
        memcpy(&w, s, 8);
        h = (h ^ w) * 0xbf58476d1ce4e5b9ull;
        h ^= h >> 29;
        s += 8;
        n -= 8;
    }
    uint64_t w = 0;
    memcpy(&w, s, n);
    h = (h ^ w) * 0x94d049bb133111ebull;
    h ^= h >> 31;
    h *= 0xbf58476d1ce4e5b9ull;
    h ^= h >> 32;
    return h;
}

static char *arena_copy(stacktab *t, const char *s, size_t n)
{
    arena_chunk *c = t->arena;
    if (c == NULL || c->cap - c->used < n + 1) {
        size_t cap = n + 1 > ARENA_CHUNK ? n + 1 : ARENA_CHUNK;
        arena_chunk *nc = xmalloc(sizeof *nc + cap);
        nc->next = c;
        nc->used = 0;
        nc->cap = cap;
        t->arena = c = nc;
    }
    char *p = c->data + c->used;
    memcpy(p, s, n);
    p[n] = '\0';
    c->used += n + 1;
    return p;
}

stacktab *stacktab_new(void)
{
    stacktab *t = xcalloc(1, sizeof *t);
    t->nslots = 1024;
    t->slots = xcalloc(t->nslots, sizeof *t->slots);
    return t;
}

void stacktab_free(stacktab *t)
{
    if (t == NULL)
        return;
    arena_chunk *c = t->arena;
    while (c) {
        arena_chunk *next = c->next;
        free(c);
        c = next;
    }
    free(t->entries);
    free(t->slots);
    free(t->seq);
    free(t);
}

void stacktab_keep_sequence(stacktab *t, bool keep) { t->keep_seq = keep; }

static void grow_slots(stacktab *t)
{
    size_t nslots = t->nslots * 2;
    uint32_t *slots = xcalloc(nslots, sizeof *slots);
    for (size_t i = 0; i < t->n; i++) {
        size_t j = t->entries[i].hash & (nslots - 1);
        while (slots[j])
            j = (j + 1) & (nslots - 1);
        slots[j] = (uint32_t)(i + 1);
    }
    free(t->slots);
    t->slots = slots;
    t->nslots = nslots;
}

static bool find_slot(const stacktab *t, const char *s, size_t n,
                      uint64_t h, size_t *slot)
{
    size_t j = h & (t->nslots - 1);
    for (;;) {
        uint32_t v = t->slots[j];
        if (v == 0) {
            *slot = j;
            return false;
        }
        const stack_entry *e = &t->entries[v - 1];
        if (e->hash == h && e->len == n && memcmp(e->stack, s, n) == 0) {
            *slot = j;
            return true;
        }
        j = (j + 1) & (t->nslots - 1);
    }
}

static void record_event(stacktab *t, size_t idx, int col, double w)
{
    if (t->seq_n > 0) {
        stack_event *last = &t->seq[t->seq_n - 1];
        if (last->entry == idx && last->col == (uint32_t)col) {
            last->weight += w;
            return;
        }
    }
    if (t->seq_n == t->seq_cap) {
        t->seq_cap = t->seq_cap ? t->seq_cap * 2 : 256;
        t->seq = xrealloc(t->seq, t->seq_cap * sizeof *t->seq);
    }
    t->seq[t->seq_n++] = (stack_event){ (uint32_t)idx, (uint32_t)col, w };
}

size_t stacktab_add(stacktab *t, const char *stack, size_t len, int col,
                    double weight)
{
    uint64_t h = stack_hash(stack, len, STACK_HASH_SEED);
    size_t slot;
    size_t idx;
    if (find_slot(t, stack, len, h, &slot)) {
        idx = t->slots[slot] - 1;
    } else {
        if (t->n == t->cap) {
            t->cap = t->cap ? t->cap * 2 : 1024;
            t->entries = xrealloc(t->entries, t->cap * sizeof *t->entries);
        }
        idx = t->n++;
        stack_entry *e = &t->entries[idx];
        e->stack = arena_copy(t, stack, len);
        e->len = (uint32_t)len;
        e->hash = h;
        e->count[0] = e->count[1] = 0;
        t->slots[slot] = (uint32_t)(idx + 1);
        if (t->n * 2 > t->nslots)   /* keep the load factor under 1/2 */
            grow_slots(t);
    }
    col = col ? 1 : 0;
    t->entries[idx].count[col] += weight;
    t->total[col] += weight;
    if (col)
        t->has_col1 = true;
    if (t->keep_seq)
        record_event(t, idx, col, weight);
    return idx;
}

const stack_entry *stacktab_find(const stacktab *t, const char *stack,
                                 size_t len)
{
    size_t slot;
    if (!find_slot(t, stack, len, stack_hash(stack, len, STACK_HASH_SEED), &slot))
        return NULL;
    return &t->entries[t->slots[slot] - 1];
}

size_t stacktab_size(const stacktab *t) { return t->n; }
const stack_entry *stacktab_entry(const stacktab *t, size_t i)
{
    return i < t->n ? &t->entries[i] : NULL;
}
double stacktab_total(const stacktab *t, int col) { return t->total[col ? 1 : 0]; }
bool stacktab_has_col1(const stacktab *t) { return t->has_col1; }
size_t stacktab_sequence_len(const stacktab *t) { return t->seq_n; }
const stack_event *stacktab_sequence(const stacktab *t) { return t->seq; }

int stack_bytes_cmp(const char *a, size_t alen, const char *b, size_t blen)
{
    int c = memcmp(a, b, alen < blen ? alen : blen);
    if (c)
        return c;
    return alen < blen ? -1 : alen > blen;
}

int stack_frames_cmp(const char *a, size_t alen, const char *b, size_t blen)
{
    size_t n = alen < blen ? alen : blen;
    size_t i = 0;
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    /* skip the common prefix (shared frames) a word at a time */
    while (i + 8 <= n) {
        uint64_t x, y;
        memcpy(&x, a + i, 8);
        memcpy(&y, b + i, 8);
        if (x != y) {
            i += (size_t)__builtin_ctzll(x ^ y) / 8;
            break;
        }
        i += 8;
    }
#endif
    for (; i < n; i++) {
        unsigned char ca = (unsigned char)a[i], cb = (unsigned char)b[i];
        if (ca == cb)
            continue;
        /* a frame boundary sorts before any byte, so "b;x" < "b2;x" */
        if (ca == ';')
            return -1;
        if (cb == ';')
            return 1;
        return ca < cb ? -1 : 1;
    }
    if (alen == blen)
        return 0;
    return alen < blen ? -1 : 1;   /* a prefix (parent) first */
}

/* qsort has no context argument in C11; sort pointers to entries. */
static int cmp_bytes(const void *pa, const void *pb)
{
    const stack_entry *a = *(const stack_entry *const *)pa;
    const stack_entry *b = *(const stack_entry *const *)pb;
    return stack_bytes_cmp(a->stack, a->len, b->stack, b->len);
}

static int cmp_frames(const void *pa, const void *pb)
{
    const stack_entry *a = *(const stack_entry *const *)pa;
    const stack_entry *b = *(const stack_entry *const *)pb;
    return stack_frames_cmp(a->stack, a->len, b->stack, b->len);
}

/* The bytes of an entry's folded line after its stack: " C0" or, for a
 * differential table, " C0 C1" -- as folded_out writes them. */
static size_t line_tail(const stack_entry *e, bool two, char *buf, size_t size)
{
    char n0[NUM_TEXT_MAX], n1[NUM_TEXT_MAX];
    int k = two ? snprintf(buf, size, " %s %s", num_text(n0, e->count[0]),
                           num_text(n1, e->count[1]))
                : snprintf(buf, size, " %s", num_text(n0, e->count[0]));
    return k < 0 ? 0 : (size_t)k < size ? (size_t)k : size - 1;
}

int stack_lines_cmp(const stack_entry *a, const stack_entry *b, bool two)
{
    size_t n = a->len < b->len ? a->len : b->len;
    int c = memcmp(a->stack, b->stack, n);
    if (c)
        return c;
    /* one stack is a prefix of the other: its line goes on with its
     * counts where the other's goes on with more stack */
    char ta[2 * NUM_TEXT_MAX + 2], tb[2 * NUM_TEXT_MAX + 2];
    size_t la = line_tail(a, two, ta, sizeof ta);
    size_t lb = line_tail(b, two, tb, sizeof tb);
    const char *ra = a->stack + n, *rb = b->stack + n;
    size_t na = a->len - n, nb = b->len - n;   /* one of them is 0 */
    for (size_t i = 0;; i++) {
        int ca = i < na ? (unsigned char)ra[i]
               : i - na < la ? (unsigned char)ta[i - na] : -1;
        int cb = i < nb ? (unsigned char)rb[i]
               : i - nb < lb ? (unsigned char)tb[i - nb] : -1;
        if (ca != cb || ca < 0)
            return ca < cb ? -1 : ca > cb;
    }
}

static int cmp_lines(const void *pa, const void *pb, void *two)
{
    const stack_entry *a = *(const stack_entry *const *)pa;
    const stack_entry *b = *(const stack_entry *const *)pb;
    return stack_lines_cmp(a, b, *(const bool *)two);
}

size_t *stacktab_sorted(const stacktab *t, stack_order order)
{
    const stack_entry **ptrs = xmalloc(t->n * sizeof *ptrs);
    for (size_t i = 0; i < t->n; i++)
        ptrs[i] = &t->entries[i];
    if (order == STACK_ORDER_LINES)
        qsort_r(ptrs, t->n, sizeof *ptrs, cmp_lines, (void *)&t->has_col1);
    else
        qsort(ptrs, t->n, sizeof *ptrs,
              order == STACK_ORDER_BYTES ? cmp_bytes : cmp_frames);
    size_t *idx = xmalloc(t->n * sizeof *idx);
    for (size_t i = 0; i < t->n; i++)
        idx[i] = (size_t)(ptrs[i] - t->entries);
    free(ptrs);
    return idx;
}

void stacktab_scale(stacktab *t, int col, double factor, bool truncate)
{
    col = col ? 1 : 0;
    double total = 0;
    for (size_t i = 0; i < t->n; i++) {
        double v = t->entries[i].count[col] * factor;
        if (truncate)
            v = floor(v);
        t->entries[i].count[col] = v;
        total += v;
    }
    t->total[col] = total;
}

bool stacktab_normalize(stacktab *t)
{
    double before = t->total[0], after = t->total[1];
    if (before <= 0 || after <= 0 || before == after)
        return false;
    double total = 0;
    for (size_t i = 0; i < t->n; i++) {
        /* count * after first, then / before: Perl's order, exact for
         * whole counts (a factor rounded first can floor k to k - 1) */
        double v = floor(t->entries[i].count[0] * after / before);
        t->entries[i].count[0] = v;
        total += v;
    }
    t->total[0] = total;
    return true;
}
