/* instances: stable instance ids and pmdaIndom tables. */
#include "pmda/instances.h"
#include "common/strmap.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Names that left long ago are forgotten (see forget_old_names): the map
 * is rebuilt from the members and the departed ring once it holds twice
 * what those need plus this slack, so rebuilds cost O(1) per new name. */
#define FORGET_SLACK_NAMES 1024
#define FORGET_SLACK_BYTES (1024 * 1024)

/* Names longer than this are not remembered after they leave, and the
 * remembered names of one table take at most DEPARTED_BYTES (the oldest
 * go first): a churning stacks table must not hold megabytes of names. */
#define DEPARTED_MAX_NAME 4096
#define DEPARTED_BYTES (256 * 1024)

struct inst_table {
    strmap *ids;     /* name -> id */
    strmap *used;    /* decimal id -> 1 */
    size_t name_bytes;      /* of the names in ids */
    size_t cursor;
    struct departed {
        unsigned int inst;
        char *name;  /* owned; NULL when the slot is empty */
    } departed[INST_TABLE_DEPARTED];
    size_t departed_next;   /* ring position: the oldest entry */
    size_t departed_bytes;  /* of the names held */
    size_t departed_count;  /* names held */
};

inst_table *inst_table_new(void)
{
    inst_table *t = calloc(1, sizeof(*t));
    if (t == NULL)
        return NULL;
    t->ids = strmap_new();
    t->used = strmap_new();
    if (t->ids == NULL || t->used == NULL) {
        inst_table_free(t);
        return NULL;
    }
    return t;
}

void inst_table_free(inst_table *t)
{
    if (t == NULL)
        return;
    strmap_free(t->ids);
    strmap_free(t->used);
    for (size_t i = 0; i < INST_TABLE_DEPARTED; i++)
        free(t->departed[i].name);
    free(t);
}

static int cmp_int(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    return (x > y) - (x < y);
}

/* Remember the members of idp that are not in the new set: ids, sorted. */
static void note_departures(inst_table *t, const pmdaIndom *idp, const int *ids, size_t n)
{
    for (int i = 0; i < idp->it_numinst; i++) {
        int inst = idp->it_set[i].i_inst;
        if ((n > 0 && bsearch(&inst, ids, n, sizeof(int), cmp_int) != NULL) ||
            strlen(idp->it_set[i].i_name) > DEPARTED_MAX_NAME)
            continue;
        size_t len = strlen(idp->it_set[i].i_name) + 1;
        /* free the oldest entries until the new name fits both bounds */
        size_t k = t->departed_next;
        do {
            struct departed *old = &t->departed[k];
            if (old->name != NULL) {
                t->departed_bytes -= strlen(old->name) + 1;
                t->departed_count--;
                free(old->name);
                old->name = NULL;
            }
            k = (k + 1) % INST_TABLE_DEPARTED;
        } while (t->departed_bytes + len > DEPARTED_BYTES && k != t->departed_next);
        struct departed *d = &t->departed[t->departed_next];
        d->name = strdup(idp->it_set[i].i_name);
        d->inst = (unsigned int)inst;
        if (d->name != NULL) {
            t->departed_bytes += len;
            t->departed_count++;
        }
        t->departed_next = (t->departed_next + 1) % INST_TABLE_DEPARTED;
    }
}

const char *inst_table_departed(const inst_table *t, unsigned int inst)
{
    /* newest first: an id that left twice answers with its latest name */
    for (size_t k = 1; k <= INST_TABLE_DEPARTED; k++) {
        const struct departed *d =
            &t->departed[(t->departed_next + INST_TABLE_DEPARTED - k) % INST_TABLE_DEPARTED];
        if (d->name != NULL && d->inst == inst)
            return d->name;
    }
    return NULL;
}

int inst_table_id(inst_table *t, const char *name, bool is_number, int64_t number)
{
    int64_t v;
    if (strmap_get(t->ids, name, &v))
        return (int)v;
    uint32_t id = (is_number && number >= 0 && number <= INT32_MAX)
                      ? (uint32_t)number
                      : (uint32_t)(strmap_hash(name) & 0x7fffffff);
    char key[16];
    for (;;) {
        snprintf(key, sizeof(key), "%u", id);
        if (!strmap_get(t->used, key, NULL))
            break;
        id = (id + 1) & 0x7fffffff;
    }
    strmap_put(t->used, key, 1);
    if (strmap_put(t->ids, name, id) == 0)
        t->name_bytes += strlen(name) + 1;
    return (int)id;
}

/* A monotonic map of 0 .. 2^63 into 0 .. 2^28: the value itself below
 * 2^23, else its binary exponent and 22 bits after the leading one. */
static int64_t magnitude_order(uint64_t v)
{
    if (v < ((uint64_t)1 << 23))
        return (int64_t)v;
    int e = 63 - __builtin_clzll(v);
    uint64_t m = (v >> (e - 22)) - ((uint64_t)1 << 22);
    return ((int64_t)1 << 23) + (int64_t)(e - 23) * ((int64_t)1 << 22) + (int64_t)m;
}

int64_t inst_bucket_id(int64_t lo, bool lo_open)
{
    const int64_t zero = (int64_t)1 << 30;
    if (lo_open)
        return 0;
    if (lo >= 0)
        return zero + magnitude_order((uint64_t)lo);
    return zero - 1 - magnitude_order((uint64_t)(-(lo + 1)));
}

size_t inst_table_remembered(const inst_table *t)
{
    return strmap_count(t->ids);
}

static int remember(strmap *ids, strmap *used, size_t *bytes, const char *name, unsigned int id)
{
    char key[16];
    if (strmap_get(ids, name, NULL))
        return 0;
    snprintf(key, sizeof(key), "%u", id);
    if (strmap_put(ids, name, id) != 0 || strmap_put(used, key, 1) != 0)
        return -1;
    *bytes += strlen(name) + 1;
    return 0;
}

/* Keep the names of the members and of the departed ring, forget the
 * rest, once the map holds twice what those need (plus some slack).
 * Without this, a domain whose names keep changing (a stacks table under
 * churn: thousands of new stacks per document, most gone by the next)
 * grows the map by every name it ever had.  The members and the recently
 * departed keep their ids; a forgotten name that comes back gets its
 * hash-derived id again, unless another name took that id meanwhile
 * (then the next free one, as for any collision). */
static void forget_old_names(inst_table *t, const pmdaInstid *set, size_t n, size_t set_bytes)
{
    size_t keep_n = n + t->departed_count, keep_bytes = set_bytes + t->departed_bytes;
    if (strmap_count(t->ids) <= 2 * keep_n + FORGET_SLACK_NAMES &&
        t->name_bytes <= 2 * keep_bytes + FORGET_SLACK_BYTES)
        return;
    strmap *ids = strmap_new(), *used = strmap_new();
    size_t bytes = 0;
    int rc = ids != NULL && used != NULL ? 0 : -1;
    for (size_t k = 0; rc == 0 && k < n; k++)
        rc = remember(ids, used, &bytes, set[k].i_name, (unsigned int)set[k].i_inst);
    /* newest first: a name that left twice keeps its latest id */
    for (size_t k = 1; rc == 0 && k <= INST_TABLE_DEPARTED; k++) {
        const struct departed *d =
            &t->departed[(t->departed_next + INST_TABLE_DEPARTED - k) % INST_TABLE_DEPARTED];
        if (d->name != NULL)
            rc = remember(ids, used, &bytes, d->name, d->inst);
    }
    if (rc != 0) {   /* out of memory: keep remembering everything */
        strmap_free(ids);
        strmap_free(used);
        return;
    }
    strmap_free(t->ids);
    strmap_free(t->used);
    t->ids = ids;
    t->used = used;
    t->name_bytes = bytes;
}

void inst_table_clear(pmdaIndom *idp)
{
    for (int i = 0; i < idp->it_numinst; i++)
        free(idp->it_set[i].i_name);
    free(idp->it_set);
    idp->it_set = NULL;
    idp->it_numinst = 0;
}

int inst_table_fill(inst_table *t, pmdaIndom *idp, const char *const *names,
                    const bool *is_number, const int64_t *numbers, size_t n)
{
    int *ids = calloc(n ? n : 1, sizeof(int));
    pmdaInstid *set = n ? calloc(n, sizeof(pmdaInstid)) : NULL;
    if (ids == NULL || (n > 0 && set == NULL)) {
        free(ids);
        free(set);
        return -1;
    }
    size_t k = 0, set_bytes = 0;
    for (; k < n; k++) {
        char *copy = strdup(names[k]);
        if (copy == NULL)
            break;
        set_bytes += strlen(copy) + 1;
        ids[k] = inst_table_id(t, names[k], is_number ? is_number[k] : false,
                               numbers ? numbers[k] : 0);
        set[k].i_inst = ids[k];
        set[k].i_name = copy;
    }
    qsort(ids, k, sizeof(int), cmp_int);
    note_departures(t, idp, ids, k);
    free(ids);
    forget_old_names(t, set, k, set_bytes);
    inst_table_clear(idp);
    t->cursor = 0;
    idp->it_set = set;
    idp->it_numinst = (int)k;
    return 0;
}

long inst_table_position(inst_table *t, const pmdaIndom *idp, unsigned int inst)
{
    size_t n = (size_t)idp->it_numinst;
    if (t->cursor < n && (unsigned)idp->it_set[t->cursor].i_inst == inst)
        return (long)t->cursor++;
    for (size_t i = 0; i < n; i++)
        if ((unsigned)idp->it_set[i].i_inst == inst) {
            t->cursor = i + 1;
            return (long)i;
        }
    return -1;
}
