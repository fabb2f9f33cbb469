/* stackcount: bounded table of stacks and counts (see stackcount.h). */
#include "relay/stackcount.h"
#include "relay/stack.h"
#include "relay/strmap.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

struct stackcount {
    stackcount_row *entries;
    size_t n, cap, max;
    size_t bytes, max_bytes;
    double expiry;
    strmap *index;       /* instance name -> position */
    uint64_t generation;
    uint64_t evicted;
};

stackcount *stackcount_new(size_t max_entries, double expiry)
{
    stackcount *t = calloc(1, sizeof(*t));
    if (t == NULL)
        return NULL;
    t->max = max_entries ? max_entries : 1;
    t->max_bytes = SIZE_MAX;
    t->expiry = expiry;
    t->index = strmap_new();
    if (t->index == NULL) {
        free(t);
        return NULL;
    }
    return t;
}

void stackcount_free(stackcount *t)
{
    if (t == NULL)
        return;
    for (size_t i = 0; i < t->n; i++)
        free(t->entries[i].name);
    free(t->entries);
    strmap_free(t->index);
    free(t);
}

/* What one stack costs: its name twice (the entry's and the index's
 * copy), allocator headers, the entry and its index slot. */
static size_t entry_cost(const char *name)
{
    return 2 * (strlen(name) + 1 + 16) + sizeof(stackcount_row) + 32;
}

/* Remove entry i by moving the last one into its place. */
static void remove_at(stackcount *t, size_t i)
{
    t->bytes -= entry_cost(t->entries[i].name);
    strmap_del(t->index, t->entries[i].name);
    free(t->entries[i].name);
    t->n--;
    if (i != t->n) {
        t->entries[i] = t->entries[t->n];
        strmap_put(t->index, t->entries[i].name, (int64_t)i);
    }
    t->generation++;
    t->evicted++;
}

static int by_last_seen(const void *a, const void *b)
{
    double x = **(const double *const *)a, y = **(const double *const *)b;
    return x < y ? -1 : x > y;
}

/* Evict the least recently seen tenth in one pass, so a full table costs
 * one sort per max/10 new stacks, not a scan per stack. */
static bool evict_coldest(stackcount *t)
{
    size_t k = t->n / 10 ? t->n / 10 : 1;
    const double **order = malloc(t->n * sizeof(*order));
    if (order == NULL)
        return false;
    for (size_t i = 0; i < t->n; i++)
        order[i] = &t->entries[i].last_seen;
    qsort(order, t->n, sizeof(*order), by_last_seen);
    double cutoff = *order[k - 1];
    free(order);
    for (size_t i = t->n; i-- > 0 && k > 0;)
        if (t->entries[i].last_seen <= cutoff) {
            remove_at(t, i);
            k--;
        }
    return true;
}

void stackcount_add(stackcount *t, const char *folded, uint64_t weight, double now)
{
    char *name = stack_instance_name(folded);
    if (name == NULL)
        return;
    int64_t pos;
    if (strmap_get(t->index, name, &pos)) {
        uint64_t *c = &t->entries[pos].count;
        if (__builtin_add_overflow(*c, weight, c))
            *c = UINT64_MAX;
        t->entries[pos].last_seen = now;
        free(name);
        return;
    }
    size_t cost = entry_cost(name);
    if (cost > t->max_bytes) {
        free(name);
        t->evicted++;
        return;
    }
    if (t->n >= t->max)
        evict_coldest(t);
    while (t->n > 0 && t->bytes + cost > t->max_bytes)
        if (!evict_coldest(t))
            break;
    if (t->n == t->cap) {
        size_t nc = t->cap ? t->cap * 2 : 64;
        stackcount_row *ne = realloc(t->entries, nc * sizeof(*ne));
        if (ne == NULL) {
            free(name);
            return;
        }
        t->entries = ne;
        t->cap = nc;
    }
    t->entries[t->n] = (stackcount_row){name, weight, now};
    strmap_put(t->index, name, (int64_t)t->n);
    t->n++;
    t->bytes += cost;
    t->generation++;
}

void stackcount_set_max_bytes(stackcount *t, size_t max_bytes)
{
    t->max_bytes = max_bytes;
    while (t->n > 0 && t->bytes > t->max_bytes)
        if (!evict_coldest(t))
            break;
}

size_t stackcount_bytes(const stackcount *t)
{
    return t->bytes;
}

void stackcount_expire(stackcount *t, double now)
{
    for (size_t i = t->n; i-- > 0;)
        if (now - t->entries[i].last_seen > t->expiry)
            remove_at(t, i);
}

size_t stackcount_size(const stackcount *t)
{
    return t->n;
}

const stackcount_row *stackcount_entry(const stackcount *t, size_t i)
{
    return i < t->n ? &t->entries[i] : NULL;
}

uint64_t stackcount_generation(const stackcount *t)
{
    return t->generation;
}

uint64_t stackcount_evicted(const stackcount *t)
{
    return t->evicted;
}
