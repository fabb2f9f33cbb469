/* evqueue: a bounded queue of event records with one read cursor per
 * client.
 *
 * Records are opaque byte blobs with a sequence number assigned here.
 * Memory is bounded: appending past the bound drops the oldest records;
 * a client whose unread records were dropped is told how many it missed
 * on its next read (PCP turns that into a MISSED record), and the drop is
 * counted.  A client starts at the tail: it sees records appended after
 * its first read request (as pmdalogger's clients do).  Nothing here
 * knows about PCP; clients are plain integers (pmcd context numbers). */
#ifndef STAPRELAY_EVQUEUE_H
#define STAPRELAY_EVQUEUE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct evqueue evqueue;

typedef struct evqueue_stats {
    uint64_t appended;    /* records accepted */
    uint64_t delivered;   /* record deliveries, summed over clients */
    uint64_t dropped;     /* records evicted before every client read them */
    uint64_t missed;      /* record losses reported to clients, summed */
    uint64_t expired;     /* records evicted while no client was reading */
    uint64_t queued;      /* records held now */
    uint64_t bytes;       /* bytes held now */
    uint32_t clients;
} evqueue_stats;

evqueue *evqueue_new(size_t max_bytes);
void evqueue_free(evqueue *q);
/* Replay: a new client starts at the stream's first record instead of the
 * tail, and records stay after every client read them (only the memory
 * bound evicts), so a client that comes late still gets the whole
 * stream; what the bound evicted before it came is reported to it as
 * missed.  For bounded investigations (docs/runs.md). */
void evqueue_set_replay(evqueue *q, bool replay);

/* Change the bound (a source's memory budget shrinks or grows it); the
 * oldest records go at once while more is held, counted as any eviction. */
void evqueue_set_max_bytes(evqueue *q, size_t max_bytes);

/* Copy a record in.  Returns 0, or -1 if it alone exceeds the bound. */
int evqueue_append(evqueue *q, const void *data, size_t len, int64_t when_ns);

/* Callback for each record delivered; return <0 to stop early (the record
 * is then delivered again next time). */
typedef int (*evqueue_visit_fn)(void *arg, const void *data, size_t len, int64_t when_ns);

/* Deliver the client's unread records, at most max_bytes of them (the
 * rest stay for the next read).  *missed gets the count lost since the
 * last read, before the first visit (so a visitor can report the loss
 * ahead of the records).  Registers the client on first use.  Returns
 * records delivered. */
size_t evqueue_read(evqueue *q, int client, size_t max_bytes, uint64_t *missed,
                    evqueue_visit_fn visit, void *arg);
void evqueue_end_client(evqueue *q, int client);
void evqueue_get_stats(const evqueue *q, evqueue_stats *st);

#endif
