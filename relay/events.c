/* events: validate, fold and queue event records. */
#include "relay/events.h"
#include "relay/jsondoc.h"
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

/* Tags whose payload is 8 bytes: integers, unsigned and doubles. */
static bool fixed8(uint8_t tag)
{
    return tag == 1 + FT_INT64 || tag == 1 + FT_DOUBLE || tag == 1 + FT_UINT64;
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
        if (fixed8(tag)) {
            if (end - p < 8)
                return -1;
            if (tag == 1 + FT_DOUBLE)
                memcpy(&vals[f].d, p, 8);
            else
                memcpy(&vals[f].i, p, 8);   /* FT_UINT64: the same 8 bytes */
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
        if (fixed8(tag)) {
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

static const char *const type_names[] = {
    [FT_INT64] = "an integer", [FT_DOUBLE] = "a number", [FT_STRING] = "a string",
    [FT_STACK] = "a stack string", [FT_UINT64] = "an unsigned integer",
};

/* Encode one 8-byte field value, or say why not. */
static const char *encode_number(blob *b, const meta_field *f, json_t *v, char *why,
                                 size_t whylen)
{
    uint8_t tag = (uint8_t)(1 + f->type);
    unsigned char raw[8];
    num_status st;
    if (f->type == FT_INT64) {
        int64_t i;
        st = jsondoc_int64(v, &i);
        memcpy(raw, &i, 8);
    } else if (f->type == FT_UINT64) {
        uint64_t u;
        st = jsondoc_uint64(v, &u);
        memcpy(raw, &u, 8);
    } else {
        double d;
        st = jsondoc_double(v, &d);
        memcpy(raw, &d, 8);
    }
    if (st == NUM_RANGE) {
        snprintf(why, whylen, "field \"%s\": number out of range for %s", f->name,
                 type_names[f->type]);
        return why;
    }
    if (st != NUM_OK) {
        snprintf(why, whylen, "field \"%s\" is not %s", f->name, type_names[f->type]);
        return why;
    }
    blob_put(b, &tag, 1);
    blob_put(b, raw, 8);
    return NULL;
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
    if (f->type == FT_INT64 || f->type == FT_UINT64 || f->type == FT_DOUBLE)
        return encode_number(b, f, v, why, whylen);
    size_t len;
    const char *text = jsondoc_string(v, &len);
    if (text == NULL) {
        snprintf(why, whylen, "field \"%s\" is not %s", f->name, type_names[f->type]);
        return why;
    }
    if (f->type == FT_STRING) {
        blob_string(b, tag, text, len);
        return NULL;
    }
    size_t nframes;
    char err[160];   /* names the line that is not a frame */
    char *fs = stack_fold(text, &nframes, err, sizeof(err));
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

static const char *record_time(const event_stream *es, json_t *rec, int64_t now_ns,
                               int64_t *when, char *why, size_t whylen)
{
    *when = now_ns;
    if (es->meta->timestamp == NULL)
        return NULL;
    json_t *t = pointer_get(rec, es->meta->timestamp, NULL);
    int64_t v, ns;
    num_status st = jsondoc_int64(t, &v);
    if (st == NUM_NOT_NUMBER) {
        snprintf(why, whylen, "timestamp missing or not an integer");
        return why;
    }
    if (st == NUM_RANGE || __builtin_mul_overflow(v, es->meta->ts_scale, &ns) ||
        ns < TS_MIN_NS || ns > now_ns + TS_FUTURE_NS) {
        const char *text = jsondoc_number_text(t);
        if (text != NULL)
            snprintf(why, whylen, "absurd timestamp %.40s", text);
        else
            snprintf(why, whylen, "absurd timestamp %" PRId64, v);
        return why;
    }
    *when = ns;
    return NULL;
}

/* Counters only go up: a sum that would pass UINT64_MAX stays there. */
static uint64_t sat_add(uint64_t a, uint64_t b)
{
    uint64_t r;
    return __builtin_add_overflow(a, b, &r) ? UINT64_MAX : r;
}

/* Sequence numbers: an old number is a duplicate (the same document read
 * again); a jump forward means records were lost at the source.  A read
 * whose first record is numbered 0 or 1 after higher numbers is a
 * producer restart (a module loaded again) only with evidence: its
 * timestamp differs from that of the record that started the history we
 * have (the same history read again repeats it exactly), or the producer's
 * dropped counter went back in the same read.  Otherwise its records are
 * duplicates.  (Comparing with the newest time seen instead would miss a
 * restart of a producer whose clock ran ahead.)
 *
 * A distance that no loss and no re-read explains is a new numbering, a
 * "sequence reset": a jump forward of more than SEQ_MAX_GAP records that
 * is also more than one record per nanosecond since the previous number
 * was read (no producer writes that fast), or a number more than
 * SEQ_MAX_GAP before the first one of the history (a wrap from INT64_MAX
 * to INT64_MIN, a producer that renumbered).  Its record is new, nothing
 * is counted as lost, the numbering goes on from it, and the stream
 * counts and describes the reset (events.sequence_resets, the source's
 * last_error).  The numbers seen before the latest reset are remembered
 * as a range, so a document read again across a reset still yields
 * duplicates.  Distances are computed in unsigned 64-bit arithmetic: two
 * int64 numbers are at most 2^64 - 1 apart, and nothing here subtracts
 * signed numbers (no overflow, nothing for UBSan). */
#define SEQ_MAX_GAP ((uint64_t)1 << 32)

typedef enum { SEQ_NEW, SEQ_DUPLICATE, SEQ_BAD } seq_verdict;

/* How far b is ahead of a (a <= b): exact, whatever their signs. */
static uint64_t seq_distance(int64_t a, int64_t b)
{
    return (uint64_t)b - (uint64_t)a;
}

/* Whether a jump forward over gap missing records, at read time now_ns,
 * can be records lost at the source. */
static bool gap_is_real(const event_stream *es, uint64_t gap, int64_t now_ns)
{
    if (gap <= SEQ_MAX_GAP)
        return true;
    /* at most one record per nanosecond since the previous number */
    return now_ns > es->last_seq_read && gap <= seq_distance(es->last_seq_read, now_ns);
}

/* A number seen already: in the current history or in the one before the
 * latest sequence reset. */
static bool seq_known(const event_stream *es, int64_t seq)
{
    return (seq >= es->first_seq && seq <= es->last_seq) ||
           (es->have_prev && seq >= es->prev_first && seq <= es->prev_last);
}

static void sequence_reset(event_stream *es, int64_t seq, const log_sink *log, const char *src)
{
    es->seq_resets++;
    snprintf(es->last_seq_reset, sizeof(es->last_seq_reset),
             "sequence number went from %" PRId64 " to %" PRId64 ", farther than any loss "
             "explains: counted as a sequence reset, not as lost records", es->last_seq, seq);
    if (ratelimit_allow(&es->reset_rl, "sequence reset", time(NULL), 300))
        log_msg(log, LOG_LVL_WARNING, "source %s: event %s: %s", src, es->meta->name,
                es->last_seq_reset);
    es->have_prev = true;
    es->prev_first = es->first_seq;
    es->prev_last = es->last_seq;
    /* the numbering starts again here; the history (first_when) goes on */
    es->first_seq = seq;
}

static seq_verdict sequence_ok(event_stream *es, json_t *rec, bool first_of_read, int64_t when,
                               int64_t now_ns, const log_sink *log, const char *src)
{
    if (es->meta->sequence == NULL)
        return SEQ_NEW;
    int64_t seq;
    num_status st = jsondoc_int64(pointer_get(rec, es->meta->sequence, NULL), &seq);
    if (st == NUM_NOT_NUMBER)
        return SEQ_NEW;   /* a record without a number is taken as new */
    if (st == NUM_RANGE)
        return SEQ_BAD;
    if (es->have_seq && seq <= es->last_seq) {
        bool new_history = es->meta->timestamp != NULL && when != INT64_MIN &&
                           when != es->first_when;
        bool restart = first_of_read && seq <= 1 && es->last_seq > 1 &&
                       (new_history || es->dropped_went_back);
        if (restart) {
            es->have_seq = false;
            es->have_prev = false;   /* a new history may use every number again */
        } else if (seq_known(es, seq) || seq_distance(seq, es->first_seq) <= SEQ_MAX_GAP) {
            es->duplicates++;
            return SEQ_DUPLICATE;
        } else {
            sequence_reset(es, seq, log, src);   /* far before the history */
        }
    } else if (es->have_seq) {
        uint64_t gap = seq_distance(es->last_seq, seq) - 1;   /* seq > last_seq */
        if (seq_known(es, seq)) {
            es->duplicates++;   /* read again from before a reset backwards */
            return SEQ_DUPLICATE;
        }
        if (gap_is_real(es, gap, now_ns))
            es->lost = sat_add(es->lost, gap);
        else
            sequence_reset(es, seq, log, src);
    }
    if (!es->have_seq) {
        es->first_when = when;   /* the record a history starts with */
        es->first_seq = seq;
    }
    es->have_seq = true;
    es->last_seq = seq;
    es->last_seq_read = now_ns;
    return SEQ_NEW;
}

static void note_producer_drops(event_stream *es, json_t *doc)
{
    if (es->meta->dropped == NULL)
        return;
    int64_t v;
    /* a count below zero, or beyond int64, is no count: ignored */
    if (jsondoc_int64(pointer_get(doc, es->meta->dropped, NULL), &v) != NUM_OK || v < 0)
        return;
    es->dropped_went_back = es->have_dropped && v < es->last_dropped;
    /* a running count: add what is new; a smaller value means the
     * producer restarted and counts from zero again */
    if (es->have_dropped && v >= es->last_dropped)
        es->lost = sat_add(es->lost, (uint64_t)(v - es->last_dropped));
    else
        es->lost = sat_add(es->lost, (uint64_t)v);
    es->have_dropped = true;
    es->last_dropped = v;
}

/* A record's weight: its count field (at least 1), or 1 without one --
 * the samples it stands for (the subsecond histogram counts those); and
 * its weight in the stacks counter: its duration field (ns) when the
 * stream has one and the record carries it, else that count.  NULL, or
 * the reason the record is rejected. */
static const char *record_weight(const event_stream *es, json_t *rec, uint64_t *weight,
                                 uint64_t *stack_weight, char *why, size_t whylen)
{
    const meta_event *me = es->meta;
    *weight = 1;
    int64_t i;
    json_t *c = me->count_field < 0 ? NULL
                                    : pointer_get(rec, me->fields[me->count_field].pointer, NULL);
    /* optional and absent: one sample */
    if (c != NULL && !json_is_null(c)
        && !(jsondoc_uint64(c, weight) == NUM_OK && *weight >= 1)) {
        if (jsondoc_int64(c, &i) == NUM_OK)
            snprintf(why, whylen, "field \"count\" is %" PRId64 ": a count must be at least 1", i);
        else
            snprintf(why, whylen, "field \"count\" must be an integer of at least 1");
        return why;
    }
    *stack_weight = *weight;
    json_t *d = me->duration_field < 0
                    ? NULL : pointer_get(rec, me->fields[me->duration_field].pointer, NULL);
    if (d == NULL || json_is_null(d))
        return NULL;   /* optional and absent: weighs its count */
    if (jsondoc_uint64(d, stack_weight) == NUM_OK)
        return NULL;
    if (jsondoc_int64(d, &i) == NUM_OK)
        snprintf(why, whylen, "field \"duration\" is %" PRId64 ": a time cannot be negative", i);
    else
        snprintf(why, whylen, "field \"duration\" must be an integer (nanoseconds)");
    return why;
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
        seq_verdict sv = sequence_ok(es, rec, i == 0, bad == NULL ? when : INT64_MIN, now_ns,
                                     log, source_name);
        if (sv == SEQ_DUPLICATE)
            continue;
        if (sv == SEQ_BAD && bad == NULL) {
            snprintf(why, sizeof(why), "sequence number out of range (beyond 64-bit signed)");
            bad = why;
        }
        uint64_t weight = 1, stack_weight = 1;
        if (bad == NULL)
            bad = record_weight(es, rec, &weight, &stack_weight, why, sizeof(why));
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
            stackcount_add(es->stacks, folded, stack_weight, (double)now_ns / 1e9);
            subsecond_add(es->subsec, when, weight);
        }
        free(folded);
    }
    free(b.buf);
}
