/* events: turn the records of one read into queued event records.
 *
 * An event_stream is the runtime state of one `type: "event"` metric of a
 * source: its queue (evqueue), its stacks table, the last sequence number
 * seen, and its counters.  Each record is checked against the metadata
 * (missing field, wrong type, unparseable stack, absurd timestamp,
 * oversize: rejected and counted with the reason), stacks are folded once
 * here, and the record is encoded as a compact blob the host decodes when
 * a client fetches. */
#ifndef STAPRELAY_EVENTS_H
#define STAPRELAY_EVENTS_H

#include "relay/evqueue.h"
#include "relay/log.h"
#include "relay/metadata.h"
#include "relay/stacktab.h"

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>

typedef struct event_limits {
    size_t queue_bytes;     /* per stream */
    size_t max_record;      /* largest encoded record */
    size_t max_stacks;      /* distinct stacks kept per stream */
    double stack_expiry;    /* seconds */
} event_limits;

typedef struct event_stream {
    const meta_event *meta;  /* borrowed from the source's metadata */
    evqueue *queue;
    stacktab *stacks;        /* NULL without a stack field */
    bool have_seq;
    int64_t last_seq;
    int64_t first_when;      /* time of the record the current history began with */
    bool have_dropped;
    int64_t last_dropped;
    bool dropped_went_back;  /* in the current read: a producer restart sign */
    uint64_t received;       /* records queued */
    uint64_t duplicates;     /* already-seen sequence numbers */
    uint64_t lost;           /* gaps in sequence numbers + producer drops */
    uint64_t rejected;       /* records that failed validation */
    size_t max_record;
    char last_reject[256];
    ratelimit reject_rl;
} event_stream;

event_stream *event_stream_new(const meta_event *meta, const event_limits *lim);
void event_stream_free(event_stream *es);

/* Take the records of one freshly read document.  now_ns stamps records
 * without a timestamp; log receives rate-limited reject reasons. */
void event_stream_ingest(event_stream *es, json_t *doc, int64_t now_ns, const log_sink *log,
                         const char *source_name);

/* ---- record blobs ---------------------------------------------------- */

typedef struct field_value {
    bool present;
    field_type type;
    int64_t i;
    double d;
    const char *s;           /* points into the blob; not NUL-terminated */
    size_t slen;
} field_value;

/* Decode field values from a blob into vals[nfields]; returns 0 or -1. */
int event_blob_decode(const void *blob, size_t len, field_value *vals, size_t nfields);

#endif
