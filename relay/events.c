/* events: validate, fold and queue event records. */
#include "relay/events.h"
#include "relay/pointer.h"
#include "relay/stack.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* Timestamps outside [2000-01-01, now + 1 day] are taken as garbage. */
#define TS_MIN_NS 946684800000000000LL
#define TS_FUTURE_NS (86400LL * 1000000000LL)

event_stream *event_stream_new(const meta_event *meta, const event_limits *lim)
{
    event_stream *es = calloc(1, sizeof(*es));
    if (es == NULL)
        return NULL;
    es->meta = meta;
    es->max_record = lim->max_record < EVENT_WIRE_MAX_RECORD ? lim->max_record
                                                             : EVENT_WIRE_MAX_RECORD;
    es->queue = evqueue_new(lim->queue_bytes);
    if (es->queue != NULL && meta->replay)
        evqueue_set_replay(es->queue, true);
    if (meta->stack_field >= 0) {
        stackcount_limits sl = {lim->max_stacks, 4 * lim->max_stacks, lim->stacks_refresh,
                                lim->stack_expiry};
        es->stacks = stackcount_new(&sl);
        es->subsec = malloc(sizeof(*es->subsec));
        if (es->subsec != NULL)
            subsecond_init(es->subsec, lim->subsecond_delay);
    }
    if (es->queue == NULL ||
        (meta->stack_field >= 0 && (es->stacks == NULL || es->subsec == NULL))) {
        event_stream_free(es);
        return NULL;
    }
    return es;
}

void event_stream_free(event_stream *es)
{
    if (es == NULL)
        return;
    evqueue_free(es->queue);
    stackcount_free(es->stacks);
    free(es->subsec);
    free(es);
}

/* ---- blob encoding: [u8 type][payload] per field, in metadata order ---- */

typedef struct {
    unsigned char *buf;
    size_t len, cap;
} blob;

static int blob_put(blob *b, const void *data, size_t n)
{
    if (b->len + n > b->cap) {
        size_t nc = b->cap ? b->cap : 256;
        while (nc < b->len + n)
            nc *= 2;
        unsigned char *nb = realloc(b->buf, nc);
        if (nb == NULL)
            return -1;
        b->buf = nb;
        b->cap = nc;
    }
    memcpy(b->buf + b->len, data, n);
    b->len += n;
    return 0;
}

static int blob_string(blob *b, uint8_t tag, const char *s, size_t n)
{
    uint32_t len = (uint32_t)n;
    return blob_put(b, &tag, 1) | blob_put(b, &len, sizeof(len)) | blob_put(b, s, n);
}

int event_blob_decode(const void *data, size_t len, field_value *vals, size_t nfields)
{
    const unsigned char *p = data, *end = p + len;
    for (size_t f = 0; f < nfields; f++) {
        memset(&vals[f], 0, sizeof(vals[f]));
        if (p >= end)
            return -1;
        uint8_t tag = *p++;
        if (tag == 0)
            continue;
        vals[f].present = true;
        vals[f].type = (field_type)(tag - 1);
        if (tag == 1 + FT_INT64 || tag == 1 + FT_DOUBLE) {
            if (end - p < 8)
                return -1;
            if (tag == 1 + FT_INT64)
                memcpy(&vals[f].i, p, 8);
            else
                memcpy(&vals[f].d, p, 8);
            p += 8;
        } else {
            uint32_t n;
            if (end - p < 4)
                return -1;
            memcpy(&n, p, 4);
            p += 4;
            if ((size_t)(end - p) < n)
                return -1;
            vals[f].s = (const char *)p;
            vals[f].slen = n;
            p += n;
        }
    }
    return 0;
}

static size_t round4(size_t n)
{
    return (n + 3) & ~(size_t)3;
}

size_t event_blob_wire_size(const void *data, size_t len)
{
    const unsigned char *p = data, *end = p + len;
    size_t wire = EVENT_WIRE_RECORD_HDR;
    while (p < end) {
        uint8_t tag = *p++;
        if (tag == 0)
            continue;   /* absent: no parameter at all */
        if (tag == 1 + FT_INT64 || tag == 1 + FT_DOUBLE) {
            wire += EVENT_WIRE_PARAM_HDR + 8;
            p += 8;
            continue;
        }
        uint32_t n;
        if (end - p < 4)
            break;
        memcpy(&n, p, 4);
        p += 4;
        wire += EVENT_WIRE_PARAM_HDR + round4(n);
        p += n;
    }
    return wire;
}

/* ---- reading ------------------------------------------------------------ */

typedef struct {
    evqueue_visit_fn visit;
    void *arg;
    size_t budget, used;
} wire_reader;

static int wire_visit(void *arg, const void *data, size_t len, int64_t when_ns)
{
    wire_reader *w = arg;
    size_t need = event_blob_wire_size(data, len);
    if (w->used > 0 && w->used + need > w->budget)
        return -1;   /* stays queued for the client's next fetch */
    int rc = w->visit(w->arg, data, len, when_ns);
    if (rc >= 0)
        w->used += need;
    return rc;
}

size_t event_stream_read(event_stream *es, int client, size_t budget, uint64_t *missed,
                         evqueue_visit_fn visit, void *arg)
{
    /* room for the array's header and a MISSED record besides the records */
    const size_t cap = EVENT_WIRE_MAX_ARRAY - EVENT_WIRE_ARRAY_HDR - EVENT_WIRE_RECORD_HDR;
    wire_reader w = {visit, arg, budget < cap ? budget : cap, 0};
    return evqueue_read(es->queue, client, SIZE_MAX, missed, wire_visit, &w);
}

/* ---- ingest ---------------------------------------------------------------- */

static void reject(event_stream *es, const log_sink *log, const char *src, size_t idx,
                   const char *why)
{
    es->rejected++;
    snprintf(es->last_reject, sizeof(es->last_reject), "record %zu: %s", idx, why);
    if (ratelimit_allow(&es->reject_rl, why, time(NULL), 300))
        log_msg(log, LOG_LVL_WARNING, "source %s: event %s: record rejected: %s", src,
                es->meta->name, why);
}

/* Encode one field; *folded gets the canonical stack for a stack field.
 * Returns NULL on success or the reason the record is rejected. */
static const char *encode_field(blob *b, const meta_field *f, json_t *v, char **folded,
                                char *why, size_t whylen)
{
    uint8_t absent = 0, tag = (uint8_t)(1 + f->type);
    if (v == NULL || json_is_null(v)) {
        if (!f->optional) {
            snprintf(why, whylen, "missing field \"%s\"", f->name);
            return why;
        }
        blob_put(b, &absent, 1);
        return NULL;
    }
    switch (f->type) {
    case FT_INT64:
        if (!json_is_integer(v))
            break;
        {
            int64_t i = json_integer_value(v);
            blob_put(b, &tag, 1);
            blob_put(b, &i, 8);
        }
        return NULL;
    case FT_DOUBLE:
        if (!json_is_number(v))
            break;
        {
            double d = json_number_value(v);
            blob_put(b, &tag, 1);
            blob_put(b, &d, 8);
        }
        return NULL;
    case FT_STRING:
        if (!json_is_string(v))
            break;
        blob_string(b, tag, json_string_value(v), json_string_length(v));
        return NULL;
    case FT_STACK: {
        if (!json_is_string(v))
            break;
        size_t nframes;
        char err[160];   /* names the line that is not a frame */
        char *fs = stack_fold(json_string_value(v), &nframes, err, sizeof(err));
        if (fs == NULL) {
            snprintf(why, whylen, "field \"%s\": %s", f->name, err);
            return why;
        }
        blob_string(b, tag, fs, strlen(fs));
        if (*folded == NULL)
            *folded = fs;
        else
            free(fs);
        return NULL;
    }
    }
    static const char *tn[] = {"an integer", "a number", "a string", "a stack string"};
    snprintf(why, whylen, "field \"%s\" is not %s", f->name, tn[f->type]);
    return why;
}

static const char *record_time(const event_stream *es, json_t *rec, int64_t now_ns,
                               int64_t *when, char *why, size_t whylen)
{
    *when = now_ns;
    if (es->meta->timestamp == NULL)
        return NULL;
    json_t *t = pointer_get(rec, es->meta->timestamp, NULL);
    if (!json_is_integer(t)) {
        snprintf(why, whylen, "timestamp missing or not an integer");
        return why;
    }
    int64_t v = json_integer_value(t);
    if (v > INT64_MAX / es->meta->ts_scale || v * es->meta->ts_scale < TS_MIN_NS ||
        v * es->meta->ts_scale > now_ns + TS_FUTURE_NS) {
        snprintf(why, whylen, "absurd timestamp %" PRId64, v);
        return why;
    }
    *when = v * es->meta->ts_scale;
    return NULL;
}

/* Sequence numbers: an old number is a duplicate (the same document read
 * again); a jump forward means records were lost at the source.  A read
 * whose first record is numbered 0 or 1 after higher numbers is a
 * producer restart (a module loaded again) only with evidence: its
 * timestamp differs from that of the record that started the history we
 * have (the same history read again repeats it exactly), or the producer's
 * dropped counter went back in the same read.  Otherwise its records are
 * duplicates.  (Comparing with the newest time seen instead would miss a
 * restart of a producer whose clock ran ahead.) */
static bool sequence_ok(event_stream *es, json_t *rec, bool first_of_read, int64_t when)
{
    if (es->meta->sequence == NULL)
        return true;
    json_t *s = pointer_get(rec, es->meta->sequence, NULL);
    if (!json_is_integer(s))
        return true;
    int64_t seq = json_integer_value(s);
    if (es->have_seq && seq <= es->last_seq) {
        bool new_history = es->meta->timestamp != NULL && when != INT64_MIN &&
                           when != es->first_when;
        bool restart = first_of_read && seq <= 1 && es->last_seq > 1 &&
                       (new_history || es->dropped_went_back);
        if (!restart) {
            es->duplicates++;
            return false;
        }
        es->have_seq = false;
    }
    if (es->have_seq && seq > es->last_seq + 1)
        es->lost += (uint64_t)(seq - es->last_seq - 1);
    if (!es->have_seq)
        es->first_when = when;   /* the record a history starts with */
    es->have_seq = true;
    es->last_seq = seq;
    return true;
}

static void note_producer_drops(event_stream *es, json_t *doc)
{
    if (es->meta->dropped == NULL)
        return;
    json_t *d = pointer_get(doc, es->meta->dropped, NULL);
    if (!json_is_integer(d))
        return;
    int64_t v = json_integer_value(d);
    es->dropped_went_back = es->have_dropped && v < es->last_dropped;
    /* a running count: add what is new; a smaller value means the
     * producer restarted and counts from zero again */
    if (es->have_dropped && v >= es->last_dropped)
        es->lost += (uint64_t)(v - es->last_dropped);
    else if (v > 0)
        es->lost += (uint64_t)v;
    es->have_dropped = true;
    es->last_dropped = v;
}

void event_stream_ingest(event_stream *es, json_t *doc, int64_t now_ns, const log_sink *log,
                         const char *source_name)
{
    const meta_event *me = es->meta;
    es->dropped_went_back = false;
    note_producer_drops(es, doc);
    json_t *list = pointer_get(doc, me->pointer, NULL);
    if (!json_is_array(list))
        return;   /* no records this time */
    blob b = {0};
    char why[200];
    size_t i;
    json_t *rec;
    json_array_foreach(list, i, rec) {
        if (!json_is_object(rec)) {
            reject(es, log, source_name, i, "record is not an object");
            continue;
        }
        int64_t when;
        const char *bad = record_time(es, rec, now_ns, &when, why, sizeof(why));
        /* a rejected record still takes its number: it is not lost too */
        if (!sequence_ok(es, rec, i == 0, bad == NULL ? when : INT64_MIN))
            continue;
        char *folded = NULL;
        b.len = 0;
        for (size_t f = 0; bad == NULL && f < me->nfields; f++)
            bad = encode_field(&b, &me->fields[f], pointer_get(rec, me->fields[f].pointer, NULL),
                               &folded, why, sizeof(why));
        if (bad == NULL && (b.buf == NULL || b.len > 0x7fffffff)) {
            snprintf(why, sizeof(why), "out of memory");
            bad = why;
        }
        size_t wire = bad == NULL ? event_blob_wire_size(b.buf, b.len) : 0;
        if (bad == NULL && wire > es->max_record) {
            snprintf(why, sizeof(why), "record of %zu bytes in PCP's encoding is larger than "
                     "max_record_size (%zu%s)", wire, es->max_record,
                     es->max_record == EVENT_WIRE_MAX_RECORD ? ", the most PCP can carry" : "");
            bad = why;
        }
        if (bad != NULL) {
            free(folded);
            reject(es, log, source_name, i, bad);
            continue;
        }
        if (evqueue_append(es->queue, b.buf, b.len, when) != 0) {
            free(folded);
            snprintf(why, sizeof(why), "record of %zu bytes is larger than the queue", b.len);
            reject(es, log, source_name, i, why);
            continue;
        }
        es->received++;
        if (folded != NULL && es->stacks != NULL) {
            uint64_t weight = 1;
            if (me->count_field >= 0) {
                json_t *c = pointer_get(rec, me->fields[me->count_field].pointer, NULL);
                if (json_is_integer(c) && json_integer_value(c) > 0)
                    weight = (uint64_t)json_integer_value(c);
            }
            stackcount_add(es->stacks, folded, weight, (double)now_ns / 1e9);
            subsecond_add(es->subsec, when, weight);
        }
        free(folded);
    }
    free(b.buf);
}
