/* instances: stable instance ids and pmdaIndom tables. */
#include "pmda/instances.h"
#include "relay/strmap.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Forget remembered names past this many, so hostile data cannot grow the
 * map without bound (ids stay hash-derived, so little changes). */
#define INST_TABLE_MAX_NAMES 1000000

struct inst_table {
    strmap *ids;     /* name -> id */
    strmap *used;    /* decimal id -> 1 */
    size_t cursor;
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
    free(t);
}

int inst_table_id(inst_table *t, const char *name, bool is_number, int64_t number)
{
    int64_t v;
    if (strmap_get(t->ids, name, &v))
        return (int)v;
    if (strmap_count(t->ids) >= INST_TABLE_MAX_NAMES) {
        strmap_free(t->ids);
        strmap_free(t->used);
        t->ids = strmap_new();
        t->used = strmap_new();
    }
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
    strmap_put(t->ids, name, id);
    return (int)id;
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
    inst_table_clear(idp);
    t->cursor = 0;
    if (n == 0)
        return 0;
    idp->it_set = calloc(n, sizeof(pmdaInstid));
    if (idp->it_set == NULL)
        return -1;
    for (size_t i = 0; i < n; i++) {
        char *copy = strdup(names[i]);
        if (copy == NULL)
            break;
        idp->it_set[i].i_inst = inst_table_id(t, names[i], is_number ? is_number[i] : false,
                                              numbers ? numbers[i] : 0);
        idp->it_set[i].i_name = copy;
        idp->it_numinst = (int)i + 1;
    }
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
