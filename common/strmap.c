/* strmap: string -> int64 hash map (linear probing, tombstones). */
#include "common/strmap.h"

#include "common/hash.h"

#include <stdlib.h>
#include <string.h>

typedef struct {
    char *key;        /* NULL = empty; TOMBSTONE = deleted */
    int64_t value;
    uint64_t hash;
} slot;

struct strmap {
    slot *slots;
    size_t cap;       /* power of two */
    size_t used;      /* live keys */
    size_t filled;    /* live keys + tombstones */
};

static char tombstone_mark;
#define TOMBSTONE (&tombstone_mark)

uint64_t strmap_hash(const char *s)
{
    return fnv1a64(s, strlen(s));
}

strmap *strmap_new(void)
{
    strmap *m = calloc(1, sizeof(*m));
    if (m == NULL)
        return NULL;
    m->cap = 16;
    m->slots = calloc(m->cap, sizeof(slot));
    if (m->slots == NULL) {
        free(m);
        return NULL;
    }
    return m;
}

void strmap_free(strmap *m)
{
    if (m == NULL)
        return;
    for (size_t i = 0; i < m->cap; i++)
        if (m->slots[i].key != NULL && m->slots[i].key != TOMBSTONE)
            free(m->slots[i].key);
    free(m->slots);
    free(m);
}

size_t strmap_count(const strmap *m)
{
    return m->used;
}

/* Slot holding key, or the slot where it would be inserted. */
static slot *find(const strmap *m, const char *key, uint64_t h)
{
    size_t mask = m->cap - 1;
    slot *grave = NULL;
    for (size_t i = h & mask;; i = (i + 1) & mask) {
        slot *s = &m->slots[i];
        if (s->key == NULL)
            return grave != NULL ? grave : s;
        if (s->key == TOMBSTONE) {
            if (grave == NULL)
                grave = s;
        } else if (s->hash == h && strcmp(s->key, key) == 0) {
            return s;
        }
    }
}

static int grow(strmap *m)
{
    size_t ncap = m->used * 4 >= m->cap ? m->cap * 2 : m->cap;
    slot *old = m->slots;
    size_t ocap = m->cap;
    slot *ns = calloc(ncap, sizeof(slot));
    if (ns == NULL)
        return -1;
    m->slots = ns;
    m->cap = ncap;
    m->filled = m->used;
    for (size_t i = 0; i < ocap; i++) {
        if (old[i].key == NULL || old[i].key == TOMBSTONE)
            continue;
        slot *s = find(m, old[i].key, old[i].hash);
        *s = old[i];
    }
    free(old);
    return 0;
}

bool strmap_get(const strmap *m, const char *key, int64_t *value)
{
    slot *s = find(m, key, strmap_hash(key));
    if (s->key == NULL || s->key == TOMBSTONE)
        return false;
    if (value != NULL)
        *value = s->value;
    return true;
}

int strmap_put(strmap *m, const char *key, int64_t value)
{
    if ((m->filled + 1) * 4 > m->cap * 3 && grow(m) < 0)
        return -1;
    uint64_t h = strmap_hash(key);
    slot *s = find(m, key, h);
    if (s->key != NULL && s->key != TOMBSTONE) {
        s->value = value;
        return 0;
    }
    char *copy = strdup(key);
    if (copy == NULL)
        return -1;
    if (s->key == NULL)
        m->filled++;
    s->key = copy;
    s->hash = h;
    s->value = value;
    m->used++;
    return 0;
}

bool strmap_del(strmap *m, const char *key)
{
    slot *s = find(m, key, strmap_hash(key));
    if (s->key == NULL || s->key == TOMBSTONE)
        return false;
    free(s->key);
    s->key = TOMBSTONE;
    m->used--;
    return true;
}

bool strmap_next(const strmap *m, size_t *cursor, const char **key, int64_t *value)
{
    while (*cursor < m->cap) {
        slot *s = &m->slots[(*cursor)++];
        if (s->key != NULL && s->key != TOMBSTONE) {
            *key = s->key;
            *value = s->value;
            return true;
        }
    }
    return false;
}
