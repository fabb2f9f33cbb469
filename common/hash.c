/* hash: FNV-1a (see hash.h). */
#include "common/hash.h"

uint64_t fnv1a64(const void *data, size_t n)
{
    const unsigned char *p = data;
    uint64_t h = 1469598103934665603ULL;      /* offset basis (see hash.h) */
    for (size_t i = 0; i < n; i++) {
        h ^= p[i];
        h *= 1099511628211ULL;                /* FNV prime */
    }
    return h;
}
