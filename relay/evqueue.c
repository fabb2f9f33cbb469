/* evqueue: bounded multi-reader record queue. */
#include "relay/evqueue.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

typedef struct record {
    struct record *next;
    uint64_t seq;
    int64_t when_ns;
    size_t len;
    unsigned char data[];
} record;

typedef struct client {
    int id;
    uint64_t next_seq;    /* first record this client has not seen */
} client;

struct evqueue {
    record *head, *tail;
    bool replay;          /* see evqueue_set_replay */
    uint64_t next_seq;    /* sequence of the next appended record */
    size_t max_bytes;
    client *clients;
    size_t nclients;
    evqueue_stats st;
};

/* What a record really costs: the allocator's size for it plus its
 * chunk header, so the bound is on memory, not just on payload. */
#define MALLOC_HEADER 16

static size_t record_cost(size_t len)
{
    size_t n = sizeof(record) + len + 8;   /* malloc's minimum alignment slack */
    return (n + 15) / 16 * 16 + MALLOC_HEADER;
}

evqueue *evqueue_new(size_t max_bytes)
{
    evqueue *q = calloc(1, sizeof(*q));
    if (q != NULL)
        q->max_bytes = max_bytes;
    return q;
}

void evqueue_free(evqueue *q)
{
    if (q == NULL)
        return;
    for (record *r = q->head, *n; r != NULL; r = n) {
        n = r->next;
        free(r);
    }
    free(q->clients);
    free(q);
}

static uint64_t oldest_seq(const evqueue *q)
{
    return q->head != NULL ? q->head->seq : q->next_seq;
}

/* Returns true when a client still needed the record (a drop). */
static bool evict_head(evqueue *q)
{
    record *r = q->head;
    q->head = r->next;
    if (q->head == NULL)
        q->tail = NULL;
    q->st.queued--;
    q->st.bytes -= record_cost(r->len);
    /* was anybody still waiting for it? */
    bool needed = false;
    for (size_t i = 0; i < q->nclients && !needed; i++)
        needed = q->clients[i].next_seq <= r->seq;
    if (needed)
        q->st.dropped++;
    free(r);
    return needed;
}

/* Records every client has read are freed at once. */
static void trim_consumed(evqueue *q)
{
    if (q->nclients == 0 || q->replay)
        return;
    uint64_t low = UINT64_MAX;
    for (size_t i = 0; i < q->nclients; i++)
        if (q->clients[i].next_seq < low)
            low = q->clients[i].next_seq;
    while (q->head != NULL && q->head->seq < low)
        evict_head(q);
}

/* Make room for need more bytes within the bound. */
static void evict_for(evqueue *q, size_t need)
{
    while (q->head != NULL && q->st.bytes + need > q->max_bytes) {
        /* with no reader at all the record is still lost to whoever
         * connects next: counted apart from drops clients were told of */
        if (!evict_head(q) && q->nclients == 0)
            q->st.expired++;
    }
}

void evqueue_set_max_bytes(evqueue *q, size_t max_bytes)
{
    q->max_bytes = max_bytes;
    evict_for(q, 0);
}

int evqueue_append(evqueue *q, const void *data, size_t len, int64_t when_ns)
{
    size_t need = record_cost(len);
    if (need > q->max_bytes)
        return -1;
    evict_for(q, need);
    record *r = malloc(sizeof(record) + len);
    if (r == NULL)
        return -1;
    r->next = NULL;
    r->seq = q->next_seq++;
    r->when_ns = when_ns;
    r->len = len;
    memcpy(r->data, data, len);
    if (q->tail != NULL)
        q->tail->next = r;
    else
        q->head = r;
    q->tail = r;
    q->st.appended++;
    q->st.queued++;
    q->st.bytes += need;
    return 0;
}

void evqueue_set_replay(evqueue *q, bool replay)
{
    q->replay = replay;
}

static client *find_client(evqueue *q, int id, int create)
{
    for (size_t i = 0; i < q->nclients; i++)
        if (q->clients[i].id == id)
            return &q->clients[i];
    if (!create)
        return NULL;
    client *nc = realloc(q->clients, (q->nclients + 1) * sizeof(*nc));
    if (nc == NULL)
        return NULL;
    q->clients = nc;
    client *c = &q->clients[q->nclients++];
    c->id = id;
    /* starts at the tail, or when replaying at the stream's first record:
     * records the bound evicted before it came are then reported to it as
     * missed, like any other loss */
    c->next_seq = q->replay ? 0 : q->next_seq;
    q->st.clients = (uint32_t)q->nclients;
    return c;
}

size_t evqueue_read(evqueue *q, int id, size_t max_bytes, uint64_t *missed,
                    evqueue_visit_fn visit, void *arg)
{
    *missed = 0;
    client *c = find_client(q, id, 1);
    if (c == NULL)
        return 0;
    uint64_t low = oldest_seq(q);
    if (c->next_seq < low) {
        *missed = low - c->next_seq;
        q->st.missed += *missed;
        c->next_seq = low;
    }
    size_t n = 0, bytes = 0;
    for (record *r = q->head; r != NULL; r = r->next) {
        if (r->seq < c->next_seq)
            continue;
        if (n > 0 && bytes + r->len > max_bytes)
            break;
        if (visit(arg, r->data, r->len, r->when_ns) < 0)
            break;
        bytes += r->len;
        c->next_seq = r->seq + 1;
        n++;
    }
    q->st.delivered += n;
    trim_consumed(q);
    return n;
}

void evqueue_end_client(evqueue *q, int id)
{
    client *c = find_client(q, id, 0);
    if (c == NULL)
        return;
    *c = q->clients[--q->nclients];
    q->st.clients = (uint32_t)q->nclients;
    trim_consumed(q);
}

void evqueue_get_stats(const evqueue *q, evqueue_stats *st)
{
    *st = q->st;
}
