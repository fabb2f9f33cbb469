/* Suite: relay/events, event metadata, record ingest (duplicates, gaps, rejects,
 * producer drops), stacks table bounds, histogram buckets. */
#include "relay/config.h"
#include "relay/events.h"
#include "relay/metadata.h"
#include "relay/snapshot.h"
#include "relay/stackcount.h"
#include "tests/testutil.h"
#include "tests/testutil_relay.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *event_meta =
    "{\"prefix\": \"prof\", \"metrics\": ["
    " {\"name\": \"samples\", \"type\": \"event\", \"pointer\": \"/samples\","
    "  \"timestamp\": \"/ts\", \"timestamp_units\": \"usec\", \"sequence\": \"/seq\","
    "  \"dropped\": \"/dropped\", \"fields\": ["
    "   {\"name\": \"stack\", \"pointer\": \"/stack\", \"type\": \"stack\"},"
    "   {\"name\": \"pid\", \"pointer\": \"/pid\", \"type\": \"integer\"},"
    "   {\"name\": \"comm\", \"pointer\": \"/comm\", \"type\": \"string\", \"optional\": true},"
    "   {\"name\": \"count\", \"pointer\": \"/n\", \"type\": \"integer\", \"optional\": true},"
    "   {\"name\": \"records\", \"pointer\": \"/r\", \"type\": \"integer\"}]},"
    " {\"name\": \"lat\", \"type\": \"histogram\", \"pointer\": \"/lat\", \"units\": \"nanosec\"}]}";

START_TEST(event_metadata_parsed)
{
    source_meta *m = tu_meta_parse(event_meta);
    ck_assert_uint_eq(m->nevents, 1);
    const meta_event *e = &m->events[0];
    ck_assert_str_eq(e->name, "samples");
    ck_assert_uint_eq(e->nfields, 4);            /* "records" is reserved */
    ck_assert_int_eq(e->stack_field, 0);
    ck_assert_int_eq(e->count_field, 3);
    ck_assert_int_eq(e->ts_scale, 1000);
    ck_assert(e->fields[2].optional);
    ck_assert_uint_eq(m->nproblems, 1);
    ck_assert_ptr_nonnull(strstr(m->problems[0], "\"records\" is reserved"));
    /* the histogram is one counter metric over a bucket array */
    ck_assert_uint_eq(m->nmetrics, 1);
    ck_assert_str_eq(m->metrics[0].name, "lat");
    ck_assert_int_eq(m->metrics[0].semantics, SEM_COUNTER);
    ck_assert(m->arrays[m->metrics[0].array].histogram);
    metadata_free(m);
}
END_TEST

typedef struct {
    int n;
    char stacks[8][200];
    int64_t pid[8];
    int64_t when[8];
} seen_records;

static int collect(void *arg, const void *data, size_t len, int64_t when)
{
    seen_records *s = arg;
    field_value v[4];
    ck_assert_int_eq(event_blob_decode(data, len, v, 4), 0);
    snprintf(s->stacks[s->n], 200, "%.*s", (int)v[0].slen, v[0].s);
    s->pid[s->n] = v[1].i;
    s->when[s->n] = when;
    s->n++;
    return 0;
}

static void ingest(event_stream *es, const char *doc)
{
    json_t *d = json_loads(doc, 0, NULL);
    ck_assert_ptr_nonnull(d);
    event_stream_ingest(es, d, 1764450000000000000LL, NULL, "test");
    json_decref(d);
}

START_TEST(event_ingest_dedup_gaps_rejects)
{
    source_meta *m = tu_meta_parse(event_meta);
    event_limits lim = {1 << 20, 4096, 100, 600, 600, 2};
    event_stream *es = event_stream_new(&m->events[0], &lim);
    uint64_t missed;
    seen_records r = {0};
    evqueue_read(es->queue, 1, 1 << 20, &missed, collect, &r);   /* register */
    ingest(es, "{\"dropped\": 2, \"samples\": ["
               "{\"seq\": 1, \"ts\": 1764449999000000, \"pid\": 7, \"comm\": \"a\","
               " \"stack\": \" 0xffffffff8103ce3b : native_safe_halt+0xb/0xd [kernel]\\n"
               " 0xffffffff8101c6dd : default_idle+0x1d/0x30 [kernel]\"},"
               "{\"seq\": 2, \"ts\": 1764449999000001, \"pid\": 8, \"stack\": \"x;y\", \"n\": 5}]}");
    /* the same document again (a plain file re-read), then a gap of 2 */
    ingest(es, "{\"dropped\": 2, \"samples\": [{\"seq\": 2, \"ts\": 1764449999000001, \"pid\": 8,"
               " \"stack\": \"x;y\"}]}");
    ingest(es, "{\"dropped\": 5, \"samples\": ["
               "{\"seq\": 5, \"ts\": 1764449999000002, \"pid\": 9, \"stack\": \"x;y\"},"
               "{\"seq\": 6, \"ts\": 1764449999000003, \"stack\": \"x;y\"},"
               "{\"seq\": 7, \"ts\": 1764449999000003, \"pid\": \"nine\", \"stack\": \"x\"},"
               "{\"seq\": 8, \"ts\": 12, \"pid\": 9, \"stack\": \"x\"},"
               "{\"seq\": 9, \"ts\": 1764449999000004, \"pid\": 9, \"stack\": \"\\n\"},"
               "17]}");
    ck_assert_uint_eq(es->received, 3);
    ck_assert_uint_eq(es->duplicates, 1);
    ck_assert_uint_eq(es->lost, 2 + 2 + 3);   /* producer drops 2 then +3, seq gap 3..4 */
    ck_assert_uint_eq(es->rejected, 5);
    ck_assert_ptr_nonnull(strstr(es->last_reject, "record is not an object"));
    evqueue_read(es->queue, 1, 1 << 20, &missed, collect, &r);
    ck_assert_int_eq(r.n, 3);
    ck_assert_str_eq(r.stacks[0], "default_idle_[k];native_safe_halt_[k]");
    ck_assert_int_eq(r.pid[0], 7);
    ck_assert_int_eq(r.when[0], 1764449999000000000LL);
    ck_assert_str_eq(r.stacks[2], "x;y");
    /* stacks counter, at its first refresh: x;y weighted 5 + 1, the idle
     * stack 1, and [other] (last) with nothing */
    ck_assert_uint_eq(stackcount_size(es->stacks), 1);
    stackcount_tick(es->stacks, 1764450000.0);
    ck_assert_uint_eq(stackcount_size(es->stacks), 3);
    const stackcount_row *e0 = stackcount_entry(es->stacks, 0), *e1 = stackcount_entry(es->stacks, 1);
    ck_assert_str_eq(e0->name, "default_idle_[k],native_safe_halt_[k]");
    ck_assert_uint_eq(e0->count, 1);
    ck_assert_str_eq(e1->name, "x,y");
    ck_assert_uint_eq(e1->count, 6);
    ck_assert_str_eq(stackcount_entry(es->stacks, 2)->name, "[other]");
    ck_assert_uint_eq(stackcount_entry(es->stacks, 2)->count, 0);
    /* the subsecond histogram: the same samples by offset in their second
     * (.000000, .000001: the first 20 ms bucket), once the second closes */
    ck_assert_uint_eq(es->subsec->counts[0], 0);
    subsecond_close(es->subsec, 1764450000.0 + 600);
    ck_assert_uint_eq(es->subsec->counts[0], 7);
    event_stream_free(es);
    metadata_free(m);
}
END_TEST

/* An offcpu stream: the stacks counter weighs each block by its duration
 * (ns), 20 ms and 80 ms as 1:4, a block without one by its count; the
 * subsecond histogram still counts blocks; a negative duration is
 * rejected. */
START_TEST(event_duration_weighs_stacks)
{
    source_meta *m = tu_meta_parse(
        "{\"prefix\": \"off\", \"metrics\": ["
        " {\"name\": \"blocks\", \"type\": \"event\", \"pointer\": \"/blocks\","
        "  \"timestamp\": \"/ts\", \"fields\": ["
        "   {\"name\": \"duration\", \"pointer\": \"/duration\", \"type\": \"integer\","
        "    \"units\": \"nanosec\", \"optional\": true},"
        "   {\"name\": \"stack\", \"pointer\": \"/stack\", \"type\": \"stack\"}]}]}");
    ck_assert_int_eq(m->events[0].duration_field, 0);
    event_limits lim = {1 << 20, 4096, 100, 600, 600, 2};
    event_stream *es = event_stream_new(&m->events[0], &lim);
    uint64_t missed;
    seen_records r = {0};
    evqueue_read(es->queue, 1, 1 << 20, &missed, collect, &r);   /* register */
    ingest(es, "{\"blocks\": ["
               "{\"ts\": 1764449999000000000, \"duration\": 20000000, \"stack\": \"main;nap\"},"
               "{\"ts\": 1764449999000000001, \"duration\": 80000000, \"stack\": \"main;doze\"},"
               "{\"ts\": 1764449999000000002, \"stack\": \"main;doze\"},"
               "{\"ts\": 1764449999000000003, \"duration\": -5, \"stack\": \"main;nap\"}]}");
    ck_assert_uint_eq(es->received, 3);
    ck_assert_uint_eq(es->rejected, 1);
    ck_assert_ptr_nonnull(strstr(es->last_reject, "\"duration\" is -5"));
    stackcount_tick(es->stacks, 1764450000.0);
    ck_assert_uint_eq(stackcount_size(es->stacks), 3);
    uint64_t nap = 0, doze = 0;
    for (size_t i = 0; i < stackcount_size(es->stacks); i++) {
        const stackcount_row *e = stackcount_entry(es->stacks, i);
        if (strcmp(e->name, "main,nap") == 0)
            nap = e->count;
        else if (strcmp(e->name, "main,doze") == 0)
            doze = e->count;
    }
    ck_assert_uint_eq(nap, 20000000);
    ck_assert_uint_eq(doze, 80000000 + 1);
    subsecond_close(es->subsec, 1764450000.0 + 600);
    ck_assert_uint_eq(es->subsec->counts[0], 3);   /* blocks, not ns */
    event_stream_free(es);
    metadata_free(m);
}
END_TEST

START_TEST(event_restart_and_oversize)
{
    source_meta *m = tu_meta_parse(event_meta);
    event_limits lim = {1 << 20, 128, 100, 600, 600, 2};
    event_stream *es = event_stream_new(&m->events[0], &lim);
    ingest(es, "{\"samples\": [{\"seq\": 40, \"pid\": 1, \"ts\": 1764449999000000, \"stack\": \"a\"}]}");
    /* the same history read again, numbered from 1: duplicates */
    ingest(es, "{\"samples\": [{\"seq\": 1, \"pid\": 1, \"ts\": 1764449999000000, \"stack\": \"a\"}]}");
    ck_assert_uint_eq(es->received, 1);
    ck_assert_uint_eq(es->duplicates, 1);
    /* a module reload starts numbering again at 1 with newer samples */
    ingest(es, "{\"samples\": [{\"seq\": 1, \"pid\": 1, \"ts\": 1764449999000009, \"stack\": \"a\"}]}");
    ck_assert_uint_eq(es->received, 2);
    ck_assert_uint_eq(es->duplicates, 1);
    /* another reload whose clock is behind what the last one wrote (a
     * producer that ran ahead): a different history all the same */
    ingest(es, "{\"samples\": [{\"seq\": 2, \"pid\": 1, \"ts\": 1764449999000019, \"stack\": \"a\"}]}");
    ingest(es, "{\"samples\": [{\"seq\": 1, \"pid\": 1, \"ts\": 1764449998000000, \"stack\": \"a\"}]}");
    ck_assert_uint_eq(es->received, 4);
    ck_assert_uint_eq(es->duplicates, 1);
    char big[400];
    memset(big, 'f', sizeof(big) - 1);
    big[sizeof(big) - 1] = '\0';
    char doc[600];
    snprintf(doc, sizeof(doc),
             "{\"samples\": [{\"seq\": 3, \"pid\": 1, \"ts\": 1764449999000000, \"stack\": \"%s\"}]}",
             big);
    ingest(es, doc);
    ck_assert_uint_eq(es->rejected, 1);
    ck_assert_ptr_nonnull(strstr(es->last_reject, "larger than max_record_size"));
    event_stream_free(es);
    metadata_free(m);
}
END_TEST

/* Sequence numbers at the int64 extremes: a distance no loss explains is
 * a sequence reset (counted, described), never 2^64 - 2 lost records; a
 * wrap from INT64_MAX to INT64_MIN does not turn the rest of the stream
 * into duplicates; a document read again across a reset still yields
 * duplicates; real gaps up to the bound, and beyond it when the time since
 * the previous read allows one record per nanosecond, are losses. */
static const char *seq_meta =
    "{\"prefix\": \"s\", \"metrics\": [{\"name\": \"e\", \"type\": \"event\","
    " \"pointer\": \"/r\", \"sequence\": \"/seq\", \"dropped\": \"/d\", \"fields\": ["
    "  {\"name\": \"v\", \"pointer\": \"/v\", \"type\": \"integer\", \"optional\": true}]}]}";

static void ingest_at(event_stream *es, int64_t now_ns, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void ingest_at(event_stream *es, int64_t now_ns, const char *fmt, ...)
{
    char doc[1000];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(doc, sizeof(doc), fmt, ap);
    va_end(ap);
    json_t *d = json_loads(doc, 0, NULL);
    ck_assert_ptr_nonnull(d);
    event_stream_ingest(es, d, now_ns, NULL, "test");
    json_decref(d);
}

#define T0 1764450000000000000LL

static event_stream *seq_stream(source_meta **m)
{
    *m = tu_meta_parse(seq_meta);
    event_limits lim = {1 << 20, 4096, 100, 600, 600, 2};
    event_stream *es = event_stream_new(&(*m)->events[0], &lim);
    ck_assert_ptr_nonnull(es);
    return es;
}

START_TEST(event_sequence_extremes_are_resets)
{
    source_meta *m;
    event_stream *es = seq_stream(&m);
    /* INT64_MIN then INT64_MAX: 2^64 - 2 "lost" records before the fix */
    const char *jump = "{\"r\": [{\"seq\": %" PRId64 "}, {\"seq\": %" PRId64 "}]}";
    ingest_at(es, T0, jump, INT64_MIN, INT64_MAX);
    ck_assert_uint_eq(es->received, 2);
    ck_assert_uint_eq(es->lost, 0);
    ck_assert_uint_eq(es->seq_resets, 1);
    ck_assert_ptr_nonnull(strstr(es->last_seq_reset, "from -9223372036854775808 to "
                                                     "9223372036854775807"));
    ck_assert_ptr_nonnull(strstr(es->last_seq_reset, "sequence reset"));
    /* the same document again: both numbers are known, nothing new */
    ingest_at(es, T0 + 1000000000, jump, INT64_MIN, INT64_MAX);
    ck_assert_uint_eq(es->received, 2);
    ck_assert_uint_eq(es->duplicates, 2);
    ck_assert_uint_eq(es->seq_resets, 1);
    /* the wrap: INT64_MAX to INT64_MIN and on, each record new */
    const char *wrap = "{\"r\": [{\"seq\": %" PRId64 "}, {\"seq\": %" PRId64 "},"
                       " {\"seq\": %" PRId64 "}]}";
    ingest_at(es, T0 + 2000000000, wrap, INT64_MIN + 5, INT64_MIN + 6, INT64_MIN + 8);
    ck_assert_uint_eq(es->received, 5);
    ck_assert_uint_eq(es->seq_resets, 2);
    ck_assert_uint_eq(es->lost, 1);   /* INT64_MIN + 7 */
    /* read again: duplicates, from both sides of the reset */
    ingest_at(es, T0 + 3000000000, "{\"r\": [{\"seq\": %" PRId64 "}, {\"seq\": %" PRId64 "}]}",
              INT64_MAX, INT64_MIN + 6);
    ck_assert_uint_eq(es->received, 5);
    ck_assert_uint_eq(es->duplicates, 4);
    ck_assert_uint_eq(es->seq_resets, 2);
    ck_assert_uint_eq(es->lost, 1);
    event_stream_free(es);
    metadata_free(m);
}
END_TEST

START_TEST(event_sequence_gap_bound)
{
    source_meta *m;
    event_stream *es = seq_stream(&m);
    /* negative numbers count like any others */
    ingest_at(es, T0, "{\"r\": [{\"seq\": -5}, {\"seq\": -3}]}");
    ck_assert_uint_eq(es->lost, 1);
    /* a gap of exactly 2^32 in one read is real; one more is a reset */
    int64_t a = -3 + ((int64_t)1 << 32) + 1, b = a + ((int64_t)1 << 32) + 2;
    ingest_at(es, T0, "{\"r\": [{\"seq\": %" PRId64 "}, {\"seq\": %" PRId64 "}]}", a, b);
    ck_assert_uint_eq(es->lost, 1 + ((uint64_t)1 << 32));
    ck_assert_uint_eq(es->seq_resets, 1);
    ck_assert_uint_eq(es->received, 4);
    /* 10^10 missing records 20 s after the previous read: real (the
     * producer would have written one per 2 ns); 10^11 more 1 s later not */
    ingest_at(es, T0 + 20000000000LL, "{\"r\": [{\"seq\": %" PRId64 "}]}", b + (int64_t)10000000001);
    ck_assert_uint_eq(es->lost, 1 + ((uint64_t)1 << 32) + 10000000000ULL);
    ck_assert_uint_eq(es->seq_resets, 1);
    ingest_at(es, T0 + 21000000000LL, "{\"r\": [{\"seq\": %" PRId64 "}]}",
              b + (int64_t)10000000001 + (int64_t)100000000001);
    ck_assert_uint_eq(es->lost, 1 + ((uint64_t)1 << 32) + 10000000000ULL);
    ck_assert_uint_eq(es->seq_resets, 2);
    /* a little behind: duplicates, as before; far behind: a reset */
    ingest_at(es, T0 + 22000000000LL, "{\"r\": [{\"seq\": 7}]}");
    ck_assert_uint_eq(es->duplicates, 0);
    ck_assert_uint_eq(es->seq_resets, 3);
    ck_assert_uint_eq(es->received, 7);
    ingest_at(es, T0 + 23000000000LL, "{\"r\": [{\"seq\": 3}, {\"seq\": 8}]}");
    ck_assert_uint_eq(es->duplicates, 1);
    ck_assert_uint_eq(es->received, 8);
    ck_assert_uint_eq(es->lost, 1 + ((uint64_t)1 << 32) + 10000000000ULL);
    event_stream_free(es);
    metadata_free(m);
}
END_TEST

START_TEST(event_sequence_restart_not_a_reset)
{
    source_meta *m;
    event_stream *es = seq_stream(&m);
    /* a module reload (its dropped counter went back) after numbers far
     * from 1 is a restart, as it always was: no reset, no loss */
    ingest_at(es, T0, "{\"d\": 5, \"r\": [{\"seq\": 5000000000000000000}]}");
    ingest_at(es, T0 + 1000000000, "{\"d\": 0, \"r\": [{\"seq\": 1}, {\"seq\": 2}]}");
    ck_assert_uint_eq(es->received, 3);
    ck_assert_uint_eq(es->seq_resets, 0);
    ck_assert_uint_eq(es->lost, 5);
    ck_assert_str_eq(es->last_seq_reset, "");
    /* without evidence, 1 is no re-read of a history that began at 5e18
     * (the old rule made it, and every number after it, a duplicate): a
     * reset; 1 after 40 is still the history read again */
    source_meta *m2;
    event_stream *es2 = seq_stream(&m2);
    ingest_at(es2, T0, "{\"r\": [{\"seq\": 5000000000000000000}]}");
    ingest_at(es2, T0 + 1000000000, "{\"r\": [{\"seq\": 1}, {\"seq\": 2}]}");
    ck_assert_uint_eq(es2->received, 3);
    ck_assert_uint_eq(es2->seq_resets, 1);
    ck_assert_uint_eq(es2->duplicates, 0);
    ingest_at(es2, T0 + 2000000000, "{\"r\": [{\"seq\": 40}]}");
    ingest_at(es2, T0 + 3000000000, "{\"r\": [{\"seq\": 1}]}");
    ck_assert_uint_eq(es2->duplicates, 1);
    ck_assert_uint_eq(es2->lost, 37);
    ck_assert_uint_eq(es2->seq_resets, 1);
    event_stream_free(es);
    event_stream_free(es2);
    metadata_free(m2);
    metadata_free(m);
}
END_TEST

/* The producer's own drop count, restarting at 0 between huge values:
 * events.lost stops at UINT64_MAX instead of wrapping. */
START_TEST(event_producer_drops_saturate)
{
    source_meta *m;
    event_stream *es = seq_stream(&m);
    for (int k = 0; k < 3; k++) {
        ingest_at(es, T0 + k, "{\"d\": 9223372036854775807, \"r\": []}");
        ingest_at(es, T0 + k, "{\"d\": 0, \"r\": []}");
    }
    ck_assert_uint_eq(es->lost, UINT64_MAX);
    ck_assert_uint_eq(es->seq_resets, 0);
    event_stream_free(es);
    metadata_free(m);
}
END_TEST

/* A blob as ingest encodes one event_meta record: stack, pid, comm and
 * count absent. */
static size_t make_blob(unsigned char *buf, const char *stack, int64_t pid)
{
    uint32_t n = (uint32_t)strlen(stack);
    size_t k = 0;
    buf[k++] = 1 + FT_STACK;
    memcpy(buf + k, &n, 4);
    k += 4;
    memcpy(buf + k, stack, n);
    k += n;
    buf[k++] = 1 + FT_INT64;
    memcpy(buf + k, &pid, 8);
    k += 8;
    buf[k++] = 0;
    buf[k++] = 0;
    return k;
}

static int keep_last_blob(void *arg, const void *data, size_t len, int64_t when)
{
    (void)when;
    unsigned char *out = arg;
    memcpy(out, data, len < 1024 ? len : 1024);
    return 0;
}

START_TEST(event_wire_size_is_pcps)
{
    /* PCP: 16 per record, 8 per parameter, 8 per number, strings
     * rounded up to 4 with no NUL, absent fields nothing */
    unsigned char b[256];
    size_t n = make_blob(b, "x", 7);
    ck_assert_uint_eq(event_blob_wire_size(b, n), 16 + (8 + 4) + (8 + 8));
    n = make_blob(b, "abcd", 7);
    ck_assert_uint_eq(event_blob_wire_size(b, n), 16 + (8 + 4) + (8 + 8));
    n = make_blob(b, "abcde", 7);
    ck_assert_uint_eq(event_blob_wire_size(b, n), 16 + (8 + 8) + (8 + 8));
    ck_assert_uint_eq(EVENT_WIRE_MAX_RECORD, 16777188);
    ck_assert_uint_eq(EVENT_WIRE_MAX_RECORD % 4, 0);
    ck_assert_uint_le(EVENT_WIRE_ARRAY_HDR + EVENT_WIRE_RECORD_HDR + EVENT_WIRE_MAX_RECORD,
                      EVENT_WIRE_MAX_ARRAY);

    /* what ingest queues measures the same, comm and count included */
    source_meta *m = tu_meta_parse(event_meta);
    event_limits lim = {1 << 20, 4096, 100, 600, 600, 2};
    event_stream *es = event_stream_new(&m->events[0], &lim);
    uint64_t missed;
    unsigned char got[1024];
    event_stream_read(es, 1, 1 << 20, &missed, keep_last_blob, got);
    ingest(es, "{\"samples\": [{\"seq\": 1, \"ts\": 1764449999000000, \"stack\": \"a;b\","
               " \"pid\": 3, \"comm\": \"hello\", \"n\": 2}]}");
    ck_assert_uint_eq(event_stream_read(es, 1, 1 << 20, &missed, keep_last_blob, got), 1);
    field_value v[4];
    ck_assert_int_eq(event_blob_decode(got, 1024, v, 4), 0);
    size_t blen = 1 + 4 + 3 + 9 + 1 + 4 + 5 + 9;
    ck_assert_uint_eq(event_blob_wire_size(got, blen), 16 + (8 + 4) + 16 + (8 + 8) + 16);
    event_stream_free(es);
    metadata_free(m);
}
END_TEST

/* A record of exactly max_record_size bytes in PCP's encoding is taken,
 * four bytes more is not; the limit never exceeds what PCP carries. */
START_TEST(event_record_limit_in_pcp_bytes)
{
    source_meta *m = tu_meta_parse(event_meta);
    /* stack "s...": 16 + (8 + 100) + (8 + 8) = 140 */
    event_limits lim = {1 << 20, 140, 100, 600, 600, 2};
    event_stream *es = event_stream_new(&m->events[0], &lim);
    char doc[512], stack[128];
    memset(stack, 's', 100);
    stack[100] = '\0';
    snprintf(doc, sizeof(doc), "{\"samples\": [{\"seq\": 1, \"pid\": 1, \"ts\": 1764449999000000,"
             " \"stack\": \"%s\"}, {\"seq\": 2, \"pid\": 1, \"ts\": 1764449999000000,"
             " \"stack\": \"%sx\"}]}", stack, stack);
    ingest(es, doc);
    ck_assert_uint_eq(es->received, 1);
    ck_assert_uint_eq(es->rejected, 1);
    ck_assert_str_eq(es->last_reject, "record 1: record of 144 bytes in PCP's encoding is larger "
                     "than max_record_size (140)");
    event_stream_free(es);

    lim.max_record = (size_t)64 << 20;
    es = event_stream_new(&m->events[0], &lim);
    ck_assert_uint_eq(es->max_record, EVENT_WIRE_MAX_RECORD);
    event_stream_free(es);
    metadata_free(m);
}
END_TEST

typedef struct {
    int n;
    uint64_t missed_at_first;
    const uint64_t *missed;
} counter;

static int count_visit(void *arg, const void *data, size_t len, int64_t when)
{
    (void)data, (void)len, (void)when;
    counter *c = arg;
    if (c->n++ == 0)
        c->missed_at_first = *c->missed;
    return 0;
}

/* event_stream_read hands out at most budget bytes of PCP's encoding
 * (one record at least), and never more than one event array holds
 * beside a MISSED record, whatever the budget; the loss count is known
 * before the first record. */
START_TEST(event_read_bounded_in_pcp_bytes)
{
    source_meta *m = tu_meta_parse(event_meta);
    event_limits lim = {(size_t)256 << 20, 4096, 100, 600, 600, 2};
    event_stream *es = event_stream_new(&m->events[0], &lim);
    uint64_t missed;
    counter c = {0, 0, &missed};
    event_stream_read(es, 1, 1 << 20, &missed, count_visit, &c);   /* register */
    unsigned char b[64];
    size_t len = make_blob(b, "x", 1);   /* 18 bytes here, 44 in PCP */
    size_t wire = event_blob_wire_size(b, len);
    ck_assert_uint_eq(wire, 44);
    for (int i = 0; i < 10; i++)
        ck_assert_int_eq(evqueue_append(es->queue, b, len, i), 0);
    c.n = 0;
    ck_assert_uint_eq(event_stream_read(es, 1, 3 * wire + 10, &missed, count_visit, &c), 3);
    c.n = 0;
    ck_assert_uint_eq(event_stream_read(es, 1, 1, &missed, count_visit, &c), 1);
    c.n = 0;
    ck_assert_uint_eq(event_stream_read(es, 1, 1 << 20, &missed, count_visit, &c), 6);

    /* more than 16 MiB in PCP's encoding though less in the queue */
    size_t many = EVENT_WIRE_MAX_ARRAY / wire + 1000;
    for (size_t i = 0; i < many; i++)
        evqueue_append(es->queue, b, len, (int64_t)i);
    c.n = 0;
    size_t got = event_stream_read(es, 1, SIZE_MAX, &missed, count_visit, &c);
    ck_assert_uint_lt(got, many);
    ck_assert_uint_le(EVENT_WIRE_ARRAY_HDR + EVENT_WIRE_RECORD_HDR + got * wire,
                      EVENT_WIRE_MAX_ARRAY);
    ck_assert_uint_gt(EVENT_WIRE_ARRAY_HDR + EVENT_WIRE_RECORD_HDR + (got + 1) * wire,
                      EVENT_WIRE_MAX_ARRAY);
    c.n = 0;
    ck_assert_uint_eq(event_stream_read(es, 1, SIZE_MAX, &missed, count_visit, &c), many - got);
    event_stream_free(es);

    /* a client that lost records learns how many before its first record */
    lim.queue_bytes = 4096;
    es = event_stream_new(&m->events[0], &lim);
    event_stream_read(es, 1, 1 << 20, &missed, count_visit, &c);
    for (int i = 0; i < 200; i++)
        evqueue_append(es->queue, b, len, i);
    c.n = 0;
    got = event_stream_read(es, 1, 1 << 20, &missed, count_visit, &c);
    ck_assert_uint_gt(missed, 0);
    ck_assert_uint_eq(missed + got, 200);
    ck_assert_uint_eq(c.missed_at_first, missed);
    event_stream_free(es);
    metadata_free(m);
}
END_TEST

/* max_record_size up to 16 MiB was accepted before PCP's limit was
 * known: such a setting is lowered to what PCP carries, with a warning. */
START_TEST(config_max_record_capped)
{
    char err[256] = "", warn[512];
    const char *t = "{\"max_record_size\": 16777216}";
    relay_config *c = config_parse(t, strlen(t), err, sizeof(err), warn, sizeof(warn));
    ck_assert_msg(c != NULL, "%s", err);
    ck_assert_uint_eq(c->max_record_size, EVENT_WIRE_MAX_RECORD);
    ck_assert_ptr_nonnull(strstr(warn, "\"max_record_size\" 16777216 is more than PCP can carry"));
    config_free(c);
    t = "{\"max_record_size\": 16777188}";
    c = config_parse(t, strlen(t), err, sizeof(err), warn, sizeof(warn));
    ck_assert_uint_eq(c->max_record_size, 16777188);
    ck_assert_str_eq(warn, "");
    config_free(c);
    t = "{\"max_record_size\": 16777217}";
    ck_assert_ptr_null(config_parse(t, strlen(t), err, sizeof(err), warn, sizeof(warn)));
}
END_TEST

START_TEST(histogram_buckets_named_by_bounds)
{
    source_meta *m = tu_meta_parse(event_meta);
    json_t *d = json_loads("{\"lat\": [{\"lo\": 0, \"hi\": 0, \"count\": 3},"
                           " {\"lo\": 1, \"hi\": 1, \"count\": 4}, {\"lo\": 2, \"hi\": 3, \"count\": 9},"
                           " {\"lo\": null, \"hi\": -1, \"count\": 1}, {\"lo\": 1024, \"count\": 2},"
                           " {\"lo\": 5, \"hi\": 4, \"count\": 1}, {\"lo\": 2, \"hi\": 3, \"count\": 1}]}",
                           0, NULL);
    snapshot *s = snapshot_build(m, d);
    json_decref(d);
    const array_snapshot *as = &s->arrays[0];
    ck_assert_uint_eq(as->ninsts, 5);
    ck_assert_uint_eq(as->skipped, 2);     /* hi < lo, duplicate bucket */
    ck_assert_str_eq(as->insts[0].name, "0-0");
    ck_assert_str_eq(as->insts[2].name, "2-3");
    ck_assert_str_eq(as->insts[3].name, "-inf--1");
    ck_assert(as->insts[3].lo_open);
    ck_assert_str_eq(as->insts[4].name, "1024-inf");
    ck_assert_int_eq(as->insts[2].hi, 3);
    ck_assert_int_eq(s->values[0][2].u.i, 9);
    snapshot_free(s);
    metadata_free(m);
}
END_TEST

TEST_SUITE(relay_events)
{
    Suite *s = suite_create(test_suite_name);
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, event_metadata_parsed);
    tcase_add_test(tc, event_ingest_dedup_gaps_rejects);
    tcase_add_test(tc, event_duration_weighs_stacks);
    tcase_add_test(tc, event_restart_and_oversize);
    tcase_add_test(tc, event_sequence_extremes_are_resets);
    tcase_add_test(tc, event_sequence_gap_bound);
    tcase_add_test(tc, event_sequence_restart_not_a_reset);
    tcase_add_test(tc, event_producer_drops_saturate);
    tcase_add_test(tc, event_wire_size_is_pcps);
    tcase_add_test(tc, event_record_limit_in_pcp_bytes);
    tcase_add_test(tc, event_read_bounded_in_pcp_bytes);
    tcase_add_test(tc, config_max_record_capped);
    tcase_add_test(tc, histogram_buckets_named_by_bounds);
    suite_add_tcase(s, tc);
    return s;
}
