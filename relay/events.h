/* events: turn the records of one read into queued event records.
 *
 * An event_stream is the runtime state of one `type: "event"` metric of a
 * source: its queue (evqueue), its stacks table, the last sequence number
 * seen, and its counters.  Each record is checked against the metadata
 * (missing field, wrong type, unparseable stack, absurd timestamp,
 * oversize: rejected and counted with the reason), stacks are folded once
 * here, and the record is encoded as a compact blob the host decodes when
 * a client fetches.
 *
 * Sizes that matter to PCP are measured here in PCP's own encoding of an
 * event record (a packed pmEventArray), so that a record the relay accepts
 * can always reach a client: see event_blob_wire_size. */
#ifndef STAPRELAY_EVENTS_H
#define STAPRELAY_EVENTS_H

#include "relay/evqueue.h"
#include "relay/log.h"
#include "relay/metadata.h"
#include "relay/stackcount.h"
#include "relay/subsecond.h"

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>

/* PCP's packed event array, as libpcp_pmda's pmdaEventAdd* build it: an
 * 8-byte array header (type and 24-bit length, record count), per record
 * a 16-byte header (32-bit seconds and microseconds, flags, parameter
 * count), per parameter an 8-byte header (pmID, type and 24-bit length)
 * then the value: 8 bytes for a 64-bit integer or a double, a string's
 * bytes (no NUL) rounded up to 4.  The relay has no PCP headers, so the
 * numbers are written out here; pmda/values.c checks them against PCP's
 * structs when it is compiled. */
#define EVENT_WIRE_ARRAY_HDR 8
#define EVENT_WIRE_RECORD_HDR 16
#define EVENT_WIRE_PARAM_HDR 8
/* ea_len, the whole array's length, is a 24-bit field: past it the
 * length wraps and clients get "IPC protocol failure". */
#define EVENT_WIRE_MAX_ARRAY 0xffffffu
/* The largest record PCP can carry: alone in an array, after a MISSED
 * record (a record's size is a multiple of 4). */
#define EVENT_WIRE_MAX_RECORD \
    ((EVENT_WIRE_MAX_ARRAY - EVENT_WIRE_ARRAY_HDR - EVENT_WIRE_RECORD_HDR) & ~(size_t)3)

typedef struct event_limits {
    size_t queue_bytes;     /* per stream */
    size_t max_record;      /* largest record in PCP's encoding (capped at
                             * EVENT_WIRE_MAX_RECORD) */
    size_t max_stacks;      /* stacks kept per stream in its .stacks counter */
    double stack_expiry;    /* seconds */
    double stacks_refresh;  /* seconds between changes of the .stacks rows */
    double subsecond_delay; /* seconds before a .subsecond column closes */
} event_limits;

typedef struct event_stream {
    const meta_event *meta;  /* borrowed from the source's metadata */
    evqueue *queue;
    stackcount *stacks;      /* NULL without a stack field */
    subsecond *subsec;       /* NULL without a stack field */
    bool have_seq;
    int64_t first_seq, last_seq; /* the numbers of the current history */
    int64_t last_seq_read;   /* when (read time, ns) last_seq was taken */
    bool have_prev;          /* the numbers before the latest sequence reset */
    int64_t prev_first, prev_last;
    int64_t first_when;      /* time of the record the current history began with */
    bool have_dropped;
    int64_t last_dropped;
    bool dropped_went_back;  /* in the current read: a producer restart sign */
    uint64_t received;       /* records queued */
    uint64_t duplicates;     /* already-seen sequence numbers */
    uint64_t lost;           /* gaps in sequence numbers + producer drops */
    uint64_t rejected;       /* records that failed validation */
    uint64_t seq_resets;     /* jumps no loss explains: a new numbering (events.c) */
    size_t max_record;       /* in PCP's encoding, at most EVENT_WIRE_MAX_RECORD */
    char last_reject[256];
    char last_seq_reset[200]; /* the latest sequence reset, "" before one */
    ratelimit reject_rl, reset_rl;
} event_stream;

event_stream *event_stream_new(const meta_event *meta, const event_limits *lim);
void event_stream_free(event_stream *es);

/* Take the records of one freshly read document.  now_ns stamps records
 * without a timestamp; log receives rate-limited reject reasons. */
void event_stream_ingest(event_stream *es, json_t *doc, int64_t now_ns, const log_sink *log,
                         const char *source_name);

/* Deliver the client's unread records (evqueue_read), as many as fit in
 * budget bytes of PCP's encoding, and never more than one event array can
 * hold next to a MISSED record; the first record always goes (ingest made
 * sure it fits).  *missed is set before the first visit, so a visitor can
 * put the MISSED record first.  Returns records delivered. */
size_t event_stream_read(event_stream *es, int client, size_t budget, uint64_t *missed,
                         evqueue_visit_fn visit, void *arg);

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

/* The record's size in PCP's encoding (header and every present field),
 * an upper bound: a string with a NUL byte is cut there by PCP. */
size_t event_blob_wire_size(const void *blob, size_t len);

#endif
