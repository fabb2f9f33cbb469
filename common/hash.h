/* hash: the hash of names shared by the relay (its string map, instance
 * numbers, log deduplication) and the client (the live window's stack
 * table): 64-bit FNV-1a, except that its offset basis is
 * 1469598103934665603 -- FNV's 14695981039346656037 a digit short, as
 * both old copies had it.  Kept so: instance numbers derive from it and
 * are part of the PMDA's contract (stable across runs and hosts). */
#ifndef STAPRELAY_HASH_H
#define STAPRELAY_HASH_H

#include <stddef.h>
#include <stdint.h>

uint64_t fnv1a64(const void *data, size_t n);

#endif
