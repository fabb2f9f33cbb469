/* pprof_codec: pprof's profile.proto in and out of staprelay.  Owns the
 * wire side only: gzip (zlib) with a cap on what a profile may inflate
 * to, protobuf-c's generated code for client/pprof/profile.proto, and
 * the checks that make an untrusted profile safe to walk -- after
 * pprof_decode() every string index, id and value count in it has been
 * checked, so readers (input/pprof_read) follow them without checking
 * again.  What the samples mean is the reader's and the writer's
 * (render/pprof_write) business. */
#ifndef STAPRELAY_PPROF_CODEC_H
#define STAPRELAY_PPROF_CODEC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "client/pprof/profile.pb-c.h"
#include "common/strbuf.h"

typedef Perftools__Profiles__Profile pprof_msg;

/* The most a profile may be, compressed or inflated: unpacking costs up
 * to about 30 times its size in memory (an empty Sample is two bytes on
 * the wire and a 64-byte struct in memory). */
#define PPROF_MAX_BYTES ((size_t)64 << 20)

/* A decoded, checked profile with its id -> message lookups. */
typedef struct pprof_profile {
    pprof_msg *msg;
    struct pprof_ids *locations, *functions, *mappings;
} pprof_profile;

/* True when the bytes start with gzip's magic (1f 8b). */
bool pprof_is_gzip(const uint8_t *buf, size_t n);

/* Inflate gzip data (concatenated members too) into a malloc'd buffer
 * of at most cap bytes.  Returns 0, or -1 with a message in err. */
int pprof_gunzip(const uint8_t *in, size_t n, size_t cap, uint8_t **out,
                 size_t *outn, strbuf *err);

/* Read a whole stream (at most PPROF_MAX_BYTES) into a malloc'd buffer;
 * the first byte may already have been read (first >= 0).  Returns 0,
 * or -1 with a message in err. */
int pprof_slurp(FILE *fp, int first, uint8_t **out, size_t *outn,
                strbuf *err);

/* Decode a profile (gzip-compressed or not) and check it.  NULL with a
 * message in err when it is not a profile or not a valid one. */
pprof_profile *pprof_decode(const uint8_t *buf, size_t n, strbuf *err);
void pprof_free(pprof_profile *p);

/* Lookups by id; NULL when the profile has no such id (0 never is). */
const Perftools__Profiles__Location *pprof_location(const pprof_profile *p,
                                                    uint64_t id);
const Perftools__Profiles__Function *pprof_function(const pprof_profile *p,
                                                    uint64_t id);
const Perftools__Profiles__Mapping *pprof_mapping(const pprof_profile *p,
                                                  uint64_t id);
/* A string by its (checked) index. */
const char *pprof_str(const pprof_profile *p, int64_t index);

/* pprof's choice of sample value: want NULL or "" -> the profile's
 * default_sample_type, else the last type; a number -> that index; a
 * name -> that type (also without an "inuse_" prefix, as pprof
 * accepts).  Returns the index, or -1 with a message in err. */
int pprof_sample_index(const pprof_profile *p, const char *want, strbuf *err);

/* Encode msg gzip-compressed to out.  Returns 0, or -1 on a write
 * error (errno set) or a zlib failure. */
int pprof_write_gz(const pprof_msg *msg, FILE *out);

#endif
