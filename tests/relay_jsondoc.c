/* Suites: bounded parsing and wide numbers (relay/jsondoc.h), snapshots
 * that keep values rather than documents, and hostile numbers, counts
 * and names in events and metadata (issue 13's classes 2, 5-8). */
#include "relay/events.h"
#include "relay/jsondoc.h"
#include "relay/metadata.h"
#include "relay/snapshot.h"
#include "relay/stackcount.h"
#include "tests/testutil.h"
#include "tests/testutil_relay.h"

#include <malloc.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- what jansson really allocates ----------------------------------- */

static size_t live, peak;

static void *counting_malloc(size_t n)
{
    void *p = malloc(n);
    if (p != NULL) {
        live += malloc_usable_size(p) + 8;
        if (live > peak)
            peak = live;
    }
    return p;
}

static void counting_free(void *p)
{
    if (p != NULL) {
        live -= malloc_usable_size(p) + 8;
        free(p);
    }
}

/* text of n copies of unit, comma-separated, between pre and post */
static char *repeat(const char *pre, const char *unit, size_t n, const char *post)
{
    size_t ul = strlen(unit), len = strlen(pre) + strlen(post) + n * (ul + 1) + 1;
    char *b = malloc(len), *p = b;
    ck_assert_ptr_nonnull(b);
    p += sprintf(p, "%s", pre);
    for (size_t i = 0; i < n; i++) {
        memcpy(p, unit, ul);
        p += ul;
        if (i + 1 < n)
            *p++ = ',';
    }
    strcpy(p, post);
    return b;
}

/* Measured jansson peak never above the estimate, shape by shape. */
START_TEST(estimate_bounds_what_jansson_takes)
{
    struct { const char *pre, *unit, *post; size_t n; } shapes[] = {
        {"[", "{}", "]", 100000},          {"[", "[]", "]", 100000},
        {"[", "1", "]", 100000},           {"[", "1.5e3", "]", 100000},
        {"[", "true", "]", 100000},        {"[", "\"\"", "]", 100000},
        {"[", "\"abcdefghijklmnopqrstuvwxyz\"", "]", 50000},
        {"[", "{\"a\":1}", "]", 50000},    {"[", "{\"a\":1,\"b\":\"x\",\"c\":[1,2]}", "]", 20000},
        {"[", "{\"k\":{\"k\":{\"k\":{}}}}", "]", 20000},
        {"{\"pad\":[", "{}", "]}", 100000},
        {"[", "[[[[[[[[1]]]]]]]]", "]", 10000},
    };
    json_set_alloc_funcs(counting_malloc, counting_free);
    for (size_t i = 0; i < sizeof(shapes) / sizeof(shapes[0]); i++) {
        char *text = repeat(shapes[i].pre, shapes[i].unit, shapes[i].n, shapes[i].post);
        jsondoc_scan sc;
        jsondoc_prescan(text, strlen(text), &sc);
        live = peak = 0;
        json_t *d = json_loads(text, 0, NULL);
        ck_assert_ptr_nonnull(d);
        ck_assert_msg(peak <= sc.estimate, "shape %zu (%s): jansson took %zu, estimated %zu", i,
                      shapes[i].unit, peak, sc.estimate);
        json_decref(d);
        free(text);
    }
    /* one object with many distinct keys (its hash table grows) */
    char *keys = malloc(100000 * 16 + 16), *p = keys;
    p += sprintf(p, "{");
    for (int i = 0; i < 100000; i++)
        p += sprintf(p, "%s\"k%d\":%d", i ? "," : "", i, i);
    sprintf(p, "}");
    jsondoc_scan sc;
    jsondoc_prescan(keys, strlen(keys), &sc);
    live = peak = 0;
    json_t *d = json_loads(keys, 0, NULL);
    ck_assert_msg(peak <= sc.estimate, "many keys: jansson took %zu, estimated %zu", peak,
                  sc.estimate);
    json_decref(d);
    free(keys);
    json_set_alloc_funcs(malloc, free);
}
END_TEST

/* Issue 13's 6 MiB of empty objects: refused before parsing (nothing
 * like 600 MB is ever allocated), parsed when the budget allows. */
START_TEST(padding_refused_before_parsing)
{
    char *pad = repeat("{\"pad\":[", "{}", 2 * 1024 * 1024, "], \"v\": 1}");
    char err[512];
    json_error_t jerr;
    json_set_alloc_funcs(counting_malloc, counting_free);
    live = peak = 0;
    json_t *d = jsondoc_parse(pad, strlen(pad), (size_t)128 << 20, &jerr, err, sizeof(err));
    size_t refused_peak = peak;
    json_set_alloc_funcs(malloc, free);
    ck_assert_ptr_null(d);
    ck_assert_msg(strstr(err, "max_document_memory") != NULL, "%s", err);
    ck_assert_int_eq(jerr.line, 0);
    ck_assert_uint_lt(refused_peak, 1024 * 1024);
    d = jsondoc_parse(pad, strlen(pad), (size_t)4 << 30, &jerr, err, sizeof(err));
    ck_assert_ptr_nonnull(d);
    json_decref(d);
    free(pad);
}
END_TEST

static json_t *parse_doc(const char *text)
{
    char err[512];
    json_error_t jerr;
    json_t *d = jsondoc_parse(text, strlen(text), (size_t)1 << 30, &jerr, err, sizeof(err));
    ck_assert_msg(d != NULL, "%s", err);
    return d;
}

/* One number outside int64 (or double) no longer fails the document:
 * it is kept exactly and read by what can hold it. */
START_TEST(wide_numbers_kept_exactly)
{
    json_t *d = parse_doc("{\"u\": 18446744073709551615, \"u1\": 9223372036854775808,"
                          " \"neg\": -9223372036854775809, \"max\": 9223372036854775807,"
                          " \"min\": -9223372036854775808, \"huge\": 1e400, \"tiny\": 1e-400,"
                          " \"over\": 18446744073709551616, \"text\": \"18446744073709551615\","
                          " \"arr\": [99999999999999999999999, 1]}");
    uint64_t u;
    int64_t i;
    double x;
    ck_assert_int_eq(jsondoc_uint64(json_object_get(d, "u"), &u), NUM_OK);
    ck_assert(u == UINT64_MAX);
    ck_assert_int_eq(jsondoc_uint64(json_object_get(d, "u1"), &u), NUM_OK);
    ck_assert(u == (uint64_t)INT64_MAX + 1);
    ck_assert_int_eq(jsondoc_int64(json_object_get(d, "u"), &i), NUM_RANGE);
    ck_assert_int_eq(jsondoc_double(json_object_get(d, "u"), &x), NUM_OK);
    ck_assert(x > 1.8e19 && x < 1.9e19);
    ck_assert_int_eq(jsondoc_int64(json_object_get(d, "neg"), &i), NUM_RANGE);
    ck_assert_int_eq(jsondoc_uint64(json_object_get(d, "neg"), &u), NUM_RANGE);
    ck_assert_int_eq(jsondoc_int64(json_object_get(d, "max"), &i), NUM_OK);
    ck_assert(i == INT64_MAX);
    ck_assert_int_eq(jsondoc_int64(json_object_get(d, "min"), &i), NUM_OK);
    ck_assert(i == INT64_MIN);
    ck_assert_int_eq(jsondoc_uint64(json_object_get(d, "min"), &u), NUM_RANGE);
    ck_assert_int_eq(jsondoc_double(json_object_get(d, "huge"), &x), NUM_RANGE);
    ck_assert_int_eq(jsondoc_double(json_object_get(d, "tiny"), &x), NUM_OK);
    ck_assert_int_eq(jsondoc_uint64(json_object_get(d, "over"), &u), NUM_RANGE);
    /* a string that looks like a number stays a string; a kept number is no string */
    ck_assert_str_eq(jsondoc_string(json_object_get(d, "text"), NULL), "18446744073709551615");
    ck_assert_int_eq(jsondoc_uint64(json_object_get(d, "text"), &u), NUM_NOT_NUMBER);
    ck_assert_ptr_null(jsondoc_string(json_object_get(d, "u"), NULL));
    ck_assert_str_eq(jsondoc_number_text(json_object_get(d, "u")), "18446744073709551615");
    ck_assert(jsondoc_is_integer(json_array_get(json_object_get(d, "arr"), 0)));
    json_decref(d);
    /* the document's own NUL is still refused, wide numbers or not */
    char err[512];
    json_error_t jerr;
    const char *nul = "{\"u\": 18446744073709551615, \"s\": \"a\\u0000b\"}";
    ck_assert_ptr_null(jsondoc_parse(nul, strlen(nul), 1 << 30, &jerr, err, sizeof(err)));
    ck_assert_msg(strstr(err, "invalid JSON") != NULL, "%s", err);
}
END_TEST

/* A u64 metric serves any uint64; an integer metric reading it is out of
 * range (that metric only); an index beyond int64 names its instance by
 * its digits; the snapshot keeps no reference to the document (ASan
 * sees every value read after the document is freed). */
START_TEST(snapshot_unsigned_and_owned_values)
{
    source_meta *m = tu_meta_parse(
        "{\"prefix\": \"p\", \"metrics\": ["
        " {\"name\": \"u\", \"pointer\": \"/c\", \"type\": \"unsigned\", \"semantics\": \"counter\"},"
        " {\"name\": \"i\", \"pointer\": \"/c\", \"type\": \"integer\"},"
        " {\"name\": \"d\", \"pointer\": \"/c\", \"type\": \"double\"},"
        " {\"name\": \"s\", \"pointer\": \"/s\", \"type\": \"string\"},"
        " {\"name\": \"neg\", \"pointer\": \"/n\", \"type\": \"unsigned\"},"
        " {\"name\": \"ok\", \"pointer\": \"/ok\", \"type\": \"integer\"},"
        " {\"name\": \"t\", \"pointer\": \"/t\", \"type\": \"array\", \"index\": \"/k\","
        "  \"metrics\": [{\"name\": \"v\", \"pointer\": \"/v\", \"type\": \"unsigned\"}]}]}");
    json_t *d = parse_doc("{\"c\": 18446744073709551615, \"s\": \"kept\", \"n\": -1, \"ok\": 7,"
                          " \"unread\": 99999999999999999999999999,"
                          " \"t\": [{\"k\": 18446744073709551616, \"v\": 3},"
                          "        {\"k\": \"plain\", \"v\": 18446744073709551614}]}");
    snapshot *s = snapshot_build(m, d);
    json_decref(d);
    ck_assert_ptr_nonnull(s);
    ck_assert(s->values[tu_meta_index(m, "u")][0].state == VAL_OK);
    ck_assert(s->values[tu_meta_index(m, "u")][0].u.u == UINT64_MAX);
    ck_assert_int_eq(s->values[tu_meta_index(m, "i")][0].state, VAL_RANGE);
    ck_assert_int_eq(s->values[tu_meta_index(m, "d")][0].state, VAL_OK);
    ck_assert_str_eq(s->values[tu_meta_index(m, "s")][0].u.s, "kept");
    ck_assert_int_eq(s->values[tu_meta_index(m, "neg")][0].state, VAL_RANGE);
    ck_assert_int_eq(s->values[tu_meta_index(m, "ok")][0].u.i, 7);
    char buf[256];
    const char *why = snapshot_problem(s, m, (size_t)tu_meta_index(m, "i"), buf, sizeof(buf));
    ck_assert_msg(why != NULL && strstr(why, "out of range for type integer"), "%s", why);
    ck_assert_uint_eq(s->arrays[0].ninsts, 2);
    ck_assert_str_eq(s->arrays[0].insts[0].name, "18446744073709551616");
    ck_assert(s->values[tu_meta_index(m, "t.v")][1].u.u == UINT64_MAX - 1);
    snapshot_free(s);
    metadata_free(m);
}
END_TEST

/* What a snapshot holds is what its metrics read, whatever the padding
 * around it; a limit refuses a snapshot that needs more. */
START_TEST(snapshot_holds_what_metrics_read)
{
    source_meta *m = tu_meta_parse("{\"prefix\": \"p\", \"metrics\": ["
                             " {\"name\": \"v\", \"pointer\": \"/v\", \"type\": \"integer\"},"
                             " {\"name\": \"t\", \"pointer\": \"/t\", \"type\": \"array\","
                             "  \"index\": \"/k\", \"metrics\": [{\"name\": \"x\","
                             "  \"pointer\": \"/x\", \"type\": \"integer\"}]}]}");
    char *pad = repeat("{\"v\": 1, \"t\": [], \"pad\":[", "{}", 300000, "]}");
    json_t *d = parse_doc(pad);
    snapshot *s = snapshot_build(m, d);
    json_decref(d);
    free(pad);
    ck_assert_ptr_nonnull(s);
    ck_assert_uint_lt(s->bytes, 16 * 1024);
    snapshot_free(s);
    char *many = repeat("{\"v\": 1, \"t\": [", "{\"k\": \"instance-name-of-some-length\", \"x\": 1}",
                        50000, "]}");
    d = parse_doc(many);
    free(many);
    char err[256];
    s = snapshot_build_limited(m, d, 1024 * 1024, err, sizeof(err));
    ck_assert_ptr_null(s);
    ck_assert_msg(strstr(err, "need more than 1048576 bytes") != NULL, "%s", err);
    s = snapshot_build_limited(m, d, 64 * 1024 * 1024, err, sizeof(err));
    ck_assert_ptr_nonnull(s);
    ck_assert_uint_gt(s->bytes, 1024 * 1024);
    snapshot_free(s);
    json_decref(d);
    metadata_free(m);
}
END_TEST

/* ---- events: overflowing numbers and counts ------------------------------ */

static const char *ev_meta =
    "{\"prefix\": \"p\", \"metrics\": [{\"name\": \"e\", \"type\": \"event\","
    " \"pointer\": \"/r\", \"timestamp\": \"/ts\", \"timestamp_units\": \"sec\","
    " \"sequence\": \"/seq\", \"dropped\": \"/dropped\", \"fields\": ["
    "  {\"name\": \"stack\", \"pointer\": \"/stack\", \"type\": \"stack\"},"
    "  {\"name\": \"count\", \"pointer\": \"/count\", \"type\": \"unsigned\", \"optional\": true},"
    "  {\"name\": \"v\", \"pointer\": \"/v\", \"type\": \"integer\", \"optional\": true}]}]}";

#define NOW_NS 1764450000000000000LL

static void feed(event_stream *es, const char *doc)
{
    json_t *d = parse_doc(doc);
    event_stream_ingest(es, d, NOW_NS, NULL, "test");
    json_decref(d);
}

/* Timestamps times their scale, sequence gaps, producer drops and counts
 * overflow int64 or uint64 no more (the UBSan build aborted here, the
 * plain build took a wrapped time; a sequence jump from INT64_MIN to
 * INT64_MAX reported 18446744073709551614 lost): out-of-range input is
 * a rejected record with a reason, counters saturate, non-positive counts
 * are refused, an impossible gap is a sequence reset. */
START_TEST(event_numbers_checked)
{
    source_meta *m = tu_meta_parse(ev_meta);
    event_limits lim = {1 << 20, 4096, 100, 600, 600, 2};
    event_stream *es = event_stream_new(&m->events[0], &lim);
    /* timestamps: x scale overflows, negative, beyond int64 */
    feed(es, "{\"r\": [{\"ts\": 9223372036854775807, \"stack\": \"a\"},"
             " {\"ts\": -9223372036854775807, \"stack\": \"a\"},"
             " {\"ts\": 18446744073709551615, \"stack\": \"a\"},"
             " {\"ts\": 9223372037, \"stack\": \"a\"}]}");
    ck_assert_uint_eq(es->rejected, 4);
    ck_assert_uint_eq(es->received, 0);
    ck_assert_msg(strstr(es->last_reject, "absurd timestamp") != NULL, "%s", es->last_reject);
    /* sequence numbers from INT64_MIN to INT64_MAX: no loss of 2^64 - 2
     * records but a sequence reset (relay_events tests the rule) */
    feed(es, "{\"r\": [{\"seq\": -9223372036854775808, \"ts\": 1764449999, \"stack\": \"a\"},"
             " {\"seq\": 9223372036854775807, \"ts\": 1764449999, \"stack\": \"a\"}]}");
    ck_assert_uint_eq(es->received, 2);
    ck_assert_uint_eq(es->lost, 0);
    ck_assert_uint_eq(es->seq_resets, 1);
    feed(es, "{\"r\": [{\"seq\": 99999999999999999999, \"ts\": 1764449999, \"stack\": \"a\"}]}");
    ck_assert_msg(strstr(es->last_reject, "sequence number out of range") != NULL, "%s",
                  es->last_reject);
    /* lost saturates (the producer's count, restarting between huge
     * values); a negative or too wide producer count is ignored */
    feed(es, "{\"dropped\": 9223372036854775807, \"r\": []}");
    ck_assert(es->lost == (uint64_t)INT64_MAX);
    feed(es, "{\"dropped\": 0, \"r\": []}");
    feed(es, "{\"dropped\": 9223372036854775807, \"r\": []}");
    feed(es, "{\"dropped\": 0, \"r\": []}");
    feed(es, "{\"dropped\": 9223372036854775807, \"r\": []}");
    ck_assert(es->lost == UINT64_MAX);
    feed(es, "{\"dropped\": -5, \"r\": []}");
    feed(es, "{\"dropped\": 99999999999999999999, \"r\": []}");
    ck_assert(es->lost == UINT64_MAX);
    event_stream_free(es);

    /* counts: 0 and negative rejected, not counted as 1; the stacks counter saturates */
    es = event_stream_new(&m->events[0], &lim);
    uint64_t rejected = es->rejected;
    feed(es, "{\"r\": [{\"ts\": 1764449999, \"stack\": \"z\", \"count\": 0},"
             " {\"ts\": 1764449999, \"stack\": \"z\", \"count\": -3},"
             " {\"ts\": 1764449999, \"stack\": \"z\", \"count\": 1.5}]}");
    ck_assert_uint_eq(es->rejected, rejected + 3);
    ck_assert_msg(strstr(es->last_reject, "count") != NULL, "%s", es->last_reject);
    /* nothing counted: the counter has only its [other] row, at zero */
    ck_assert_uint_eq(stackcount_size(es->stacks), 1);
    ck_assert_uint_eq(stackcount_entry(es->stacks, 0)->count, 0);
    feed(es, "{\"r\": [{\"ts\": 1764449999, \"stack\": \"z\", \"count\": 18446744073709551615},"
             " {\"ts\": 1764449999, \"stack\": \"z\", \"count\": 18446744073709551615},"
             " {\"ts\": 1764449999, \"stack\": \"z\", \"count\": 9223372036854775807}]}");
    /* rows change at refreshes: z then has its row (first) beside [other] */
    stackcount_tick(es->stacks, stackcount_next_refresh(es->stacks));
    ck_assert_uint_eq(stackcount_size(es->stacks), 2);
    ck_assert(stackcount_entry(es->stacks, 0)->count == UINT64_MAX);
    /* an integer field beyond int64 rejects its record */
    feed(es, "{\"r\": [{\"ts\": 1764449999, \"stack\": \"z\", \"v\": 9223372036854775808}]}");
    ck_assert_msg(strstr(es->last_reject, "out of range") != NULL, "%s", es->last_reject);
    event_stream_free(es);
    metadata_free(m);
}
END_TEST

/* ---- names ------------------------------------------------------------------ */

static char *long_name(char c, size_t n)
{
    char *s = malloc(n + 1);
    ck_assert_ptr_nonnull(s);
    memset(s, c, n);
    s[n] = '\0';
    return s;
}

/* Names are never cut: one too long for PCP is refused with its length,
 * two long names that differ only at their end are both refused (they
 * used to collide as "duplicate" after a cut at 511), one that fits is
 * kept whole, and so are event leaves; a source has at most
 * META_MAX_NAMES names and its problems list is bounded. */
START_TEST(names_never_cut)
{
    size_t room = META_NAME_MAX - strlen("p.");
    char *fits = long_name('a', room), *over1 = long_name('b', room + 1);
    char *over2 = long_name('b', room + 1), *ev = long_name('e', room - 7);
    over2[room] = 'c';
    size_t n = 4 * META_NAME_MAX + 1024;
    char *text = malloc(n);
    snprintf(text, n, "{\"prefix\": \"p\", \"metrics\": ["
             "{\"name\": \"%s\", \"pointer\": \"/v\", \"type\": \"integer\"},"
             "{\"name\": \"%s\", \"pointer\": \"/v\", \"type\": \"integer\"},"
             "{\"name\": \"%s\", \"pointer\": \"/v\", \"type\": \"integer\"},"
             "{\"name\": \"%s\", \"pointer\": \"/r\", \"type\": \"event\", \"fields\": ["
             " {\"name\": \"stack\", \"pointer\": \"/s\", \"type\": \"stack\"}]}]}",
             fits, over1, over2, ev);
    source_meta *m = tu_meta_parse(text);
    ck_assert_uint_eq(m->nmetrics, 1);
    ck_assert_uint_eq(strlen(m->metrics[0].name), room);
    ck_assert_uint_eq(m->nevents, 0);   /* "<ev>.records" is 8 bytes too long */
    size_t too_long = 0;
    for (size_t i = 0; i < m->nproblems; i++) {
        ck_assert_ptr_null(strstr(m->problems[i], "duplicate"));
        too_long += strstr(m->problems[i], "bytes long with its prefix") != NULL;
    }
    ck_assert_uint_eq(too_long, 3);
    metadata_free(m);
    /* more names than PCP numbers: a bounded list, problems counted */
    size_t many = META_MAX_NAMES + 500;
    char *big = malloc(many * 80 + 64), *p = big;
    p += sprintf(p, "{\"prefix\": \"p\", \"metrics\": [");
    for (size_t i = 0; i < many; i++)
        p += sprintf(p, "%s{\"name\": \"m%zu\", \"pointer\": \"/v\", \"type\": \"integer\"}",
                     i ? "," : "", i);
    sprintf(p, "]}");
    m = tu_meta_parse(big);
    ck_assert_uint_eq(m->nmetrics, META_MAX_NAMES);
    ck_assert_uint_eq(m->nproblems, 1);   /* said once */
    ck_assert_msg(strstr(m->problems[0], "500 more skipped") != NULL, "%s", m->problems[0]);
    metadata_free(m);
    /* 500 distinct problems: the first ones listed, the rest counted */
    p = big;
    p += sprintf(p, "{\"prefix\": \"p\", \"metrics\": [");
    for (size_t i = 0; i < 500; i++)
        p += sprintf(p, "%s{\"name\": \"m%zu\", \"pointer\": \"/v\", \"type\": \"bad\"}",
                     i ? "," : "", i);
    sprintf(p, "]}");
    m = tu_meta_parse(big);
    ck_assert_uint_eq(m->nproblems, META_MAX_PROBLEMS);
    ck_assert_msg(strstr(m->problems[META_MAX_PROBLEMS - 1], "and 437 more problems") != NULL,
                  "%s", m->problems[META_MAX_PROBLEMS - 1]);
    metadata_free(m);
    /* the grammar is PCP's, in ASCII: a Latin-1 letter is no letter */
    char err[256];
    const char *latin = "{\"prefix\": \"p\", \"metrics\": [{\"name\": \"caf\\u00e9\","
                        " \"pointer\": \"/v\", \"type\": \"integer\"}]}";
    m = metadata_parse(latin, strlen(latin), "d", err, sizeof(err));
    ck_assert_uint_eq(m->nmetrics, 0);
    metadata_free(m);
    free(fits);
    free(over1);
    free(over2);
    free(ev);
    free(text);
    free(big);
}
END_TEST

/* ---- the arena and its fast path against jansson ---------------------- */

/* jsondoc_parse_arena (the fast path, jansson as its fallback) against
 * jsondoc_parse (jansson alone): the same tree, keys in the same order,
 * reals to the last digit, or the same error at the same place. */
static void same_as_jansson(const char *text, size_t len)
{
    char err1[512], err2[512];
    json_error_t j1, j2;
    json_t *ref = jsondoc_parse(text, len, (size_t)1 << 30, &j1, err1, sizeof(err1));
    jsondoc_arena arena = JSONDOC_ARENA_INIT;
    json_t *got = jsondoc_parse_arena(text, len, (size_t)1 << 30, &arena, &j2, err2, sizeof(err2));
    if (ref == NULL) {
        ck_assert_msg(got == NULL, "jansson refuses %.60s (%s), the arena parse took it", text,
                      err1);
        ck_assert_str_eq(err2, err1);
        ck_assert_ptr_null(arena.chunks);
        return;
    }
    ck_assert_msg(got != NULL, "%.60s: jansson takes it, the arena parse says %s", text, err2);
    size_t flags = JSON_ENCODE_ANY | JSON_REAL_PRECISION(17);
    char *a = json_dumps(ref, flags), *b = json_dumps(got, flags);
    ck_assert_ptr_nonnull(a);
    ck_assert_ptr_nonnull(b);
    ck_assert_str_eq(b, a);
    free(a);
    free(b);
    json_decref(ref);
    jsondoc_arena_release(&arena);
    ck_assert_ptr_null(arena.chunks);
}

static void same_str(const char *text)
{
    same_as_jansson(text, strlen(text));
}

START_TEST(arena_parse_is_janssons)
{
    /* what the fast path takes */
    same_str("{\"a\":1,\"b\":-0,\"c\":-9223372036854775808,\"d\":9223372036854775807,"
             "\"e\":1.5,\"f\":-0.0,\"g\":1e300,\"h\":1E-400,\"i\":2.5e+3,\"i2\":7e-3,"
             "\"j\":true,\"k\":false,\"l\":null,\"m\":[],\"n\":{},\"o\":[1,[2,[3,{}]]],"
             "\"p\":0.1,\"q\":123456789.123456789,\"r\":4.9e-324}");
    same_str("{\"s\":\"plain\",\"t\":\"tab\\tnl\\nq\\\"bs\\\\sl\\/bf\\b\\f\\r\",\"\":\"\","
             "\"u\":\"h\xc3\xa9llo \xe2\x82\xac \xf0\x9f\x98\x80 \xf4\x8f\xbf\xbf\","
             "\"v\":\"\x7f\",\"k\\\"ey\":1,\"k\\\\\":2,\"k\\n\":\"x\\ny\"}");
    /* an escape first: nothing to copy before it (the buffer not yet made) */
    same_str("{\"\\tk\":\"\\nx\",\"e\":\"\\\"\",\"f\":[\"\\\\\",\"\\/a\\/\"]}");
    same_str("{\"a\":1,\"b\":2,\"a\":3,\"c\":{\"x\":1,\"x\":[2]}}");   /* the last one wins */
    same_str(" \t\r\n[ 1 ,\n2 ,\t\"x\" , { } , [ ] ]\r\n ");
    same_str("[]");
    same_str("{}");
    same_str("{\"samples\":[{\"seq\":1,\"ts\":1700000000000000000,\"pid\":42,\"comm\":\"bash\","
             "\"stack\":\"main\\nfoo+0x1/0x20\\nbar\"},{\"seq\":2,\"stack\":\"\"}],\"dropped\":0}");
    /* what it hands to jansson, which must still answer */
    same_str("{\"u\":\"\\u00e9\\ud83d\\ude00\"}");
    same_str("[18446744073709551615, 9223372036854775808, -9223372036854775809, 1e400]");
    same_str("[12345678901234567890123]");
    /* errors: jansson's message and place */
    const char *bad[] = {
        "{\"a\":01}", "[1.]", "[-]", "[.5]", "[1e]", "[1e+]", "[+1]", "{\"a\" 1}", "[1,]",
        "[1 2]", "{\"a\":1,}", "{,}", "[truex]", "[tru]", "[nul]", "[True]", "{\"a\":1}x",
        "{\"a\":1}{", "\"str\"", "1", "", "   ", "[", "{", "{\"a\"", "{\"a\":", "[\"abc",
        "[\"\x01\"]", "[\"\t\"]", "[\"\xc0\x80\"]", "[\"\xc3\"]", "[\"\xed\xa0\x80\"]",
        "[\"\xf4\x90\x80\x80\"]", "[\"\xe0\x80\xaf\"]", "[\"\xff\"]", "[\xc3\xa9]",
        "[\"a\\x\"]", "[\"a\\\"]", "[\"\\u0000\"]", "{\"\\u0000\":1}", "[\"\\ud800\"]",
        "{1:2}", "[1]]", "[nan]", "[Infinity]", "[0x10]", "[--1]", "[1-2]",
    };
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
        same_str(bad[i]);
    same_as_jansson("[1,\0 2]", 7);     /* a NUL byte in the text */
    same_as_jansson("[\"a\0b\"]", 7);
    /* nesting: beyond the fast path's depth, and beyond jansson's */
    for (size_t depth = 600; depth <= 2100; depth += 1500) {
        char *deep = malloc(2 * depth + 1);
        ck_assert_ptr_nonnull(deep);
        memset(deep, '[', depth);
        memset(deep + depth, ']', depth);
        deep[2 * depth] = '\0';
        same_str(deep);
        free(deep);
    }
}
END_TEST

TEST_SUITE(relay_jsondoc)
{
    Suite *s = suite_create(test_suite_name);
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, estimate_bounds_what_jansson_takes);
    tcase_add_test(tc, padding_refused_before_parsing);
    tcase_add_test(tc, wide_numbers_kept_exactly);
    tcase_add_test(tc, snapshot_unsigned_and_owned_values);
    tcase_add_test(tc, snapshot_holds_what_metrics_read);
    tcase_add_test(tc, event_numbers_checked);
    tcase_add_test(tc, names_never_cut);
    tcase_add_test(tc, arena_parse_is_janssons);
    suite_add_tcase(s, tc);
    return s;
}
