/* strmap: an open-addressing hash map from NUL-terminated strings to
 * 64-bit values.  The map owns copies of its keys; values are plain
 * integers (callers store indexes or ids, never pointers they must free).
 * Used for PMID/instance numbering, duplicate detection and stack tables. */
#ifndef STAPRELAY_STRMAP_H
#define STAPRELAY_STRMAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct strmap strmap;

strmap *strmap_new(void);
void strmap_free(strmap *m);
size_t strmap_count(const strmap *m);

/* Returns true and sets *value when key is present. */
bool strmap_get(const strmap *m, const char *key, int64_t *value);
/* Insert or replace.  Returns 0, or -1 when out of memory. */
int strmap_put(strmap *m, const char *key, int64_t value);
/* Remove; returns true if the key was present. */
bool strmap_del(strmap *m, const char *key);

/* Iteration: start with *cursor = 0; returns false at the end. */
bool strmap_next(const strmap *m, size_t *cursor, const char **key, int64_t *value);

/* FNV-1a of a string (common/hash), exposed because instance numbering
 * wants the same hash. */
uint64_t strmap_hash(const char *s);

#endif
