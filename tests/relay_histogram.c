/* Suite: SystemTap histograms through the relay.  The documents are
 * written as stap/tapset/staprelay.stpm writes them (buckets from the one
 * holding @min to the one holding @max, `{"lo": L, "hi": H, "count": N}`
 * joined by ",\n    "), with bucket numbers and bounds taken from
 * SystemTap's own runtime, restated below, not from the tapset:
 *
 *   @hist_log (runtime/stat-common.c _stp_val_to_bucket, 128 buckets):
 *     bucket 64 holds 0; 64+k holds [2^(k-1), 2^k-1]; 64-k holds
 *     [-(2^k-1), -2^(k-1)]; INT64_MIN alone is bucket 0.  The bound
 *     nearest zero is what _stp_bucket_to_val prints as the row label.
 *   @hist_linear(v, start, stop, interval) (__stp_stat_add,
 *     _stp_stat_calc_buckets): (stop-start)/interval + 3 buckets; 0 is
 *     the underflow (< start), the last the overflow, the others
 *     [start+(i-1)*interval, start+i*interval-1].  "From start to stop
 *     (inclusive)" (stap(1)): the last normal bucket starts at stop when
 *     interval divides stop-start, so the overflow holds v >=
 *     stop+interval there, not v >= stop.
 *
 * The checks: instance names "lo-hi" ("-inf-H", "L-inf" for open ends),
 * bounds, counts, every value counted in the one bucket that contains
 * it, and the tapset fixture stap/fixtures/hostile (made by
 * stap/tests/fixtures.py) byte-equal to what this layout gives. */
#include "relay/metadata.h"
#include "relay/snapshot.h"
#include "tests/testutil.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define LOG_BUCKETS 128
#define LOG_BUCKET0 64

/* ---- SystemTap's layout ------------------------------------------------ */

/* _stp_val_to_bucket: 64 + bit length of |v| (64 - it for v < 0); |v| is
 * taken in 64 bits, so INT64_MIN has bit length 64 and lands in 0. */
static int stp_log_bucket(int64_t v)
{
    if (v == 0)
        return LOG_BUCKET0;
    uint64_t a = v < 0 ? 0 - (uint64_t)v : (uint64_t)v;
    int k = 0;
    while (a) {
        k++;
        a >>= 1;
    }
    return v < 0 ? LOG_BUCKETS - (LOG_BUCKET0 + k) : LOG_BUCKET0 + k;
}

/* _stp_bucket_to_val: the row label, the bound nearest zero. */
static int64_t stp_log_label(int b)
{
    if (b == LOG_BUCKET0)
        return 0;
    if (b < LOG_BUCKET0)
        return b == 0 ? INT64_MIN : -(int64_t)(UINT64_C(1) << (63 - b));
    return (int64_t)(UINT64_C(1) << (b - LOG_BUCKET0 - 1));
}

/* Inclusive bounds of a log bucket: from its label to the next label. */
static void stp_log_bounds(int b, int64_t *lo, int64_t *hi)
{
    if (b == LOG_BUCKET0) {
        *lo = *hi = 0;
    } else if (b > LOG_BUCKET0) {
        *lo = stp_log_label(b);
        *hi = b == LOG_BUCKETS - 1 ? INT64_MAX : stp_log_label(b + 1) - 1;
    } else {
        *hi = stp_log_label(b);
        *lo = b == 0 ? INT64_MIN : stp_log_label(b - 1) + 1;
    }
}

typedef struct {
    int64_t start, stop, interval;
} linear;

static int stp_lin_nbuckets(linear l)
{
    return (int)((l.stop - l.start) / l.interval + 3);
}

/* __stp_stat_add, HIST_LINEAR */
static int stp_lin_bucket(linear l, int64_t v)
{
    int64_t n = v - l.start;
    if (n < 0)
        n = 0;
    else
        n = (int64_t)((uint64_t)n / (uint64_t)l.interval) + 1;
    if (n >= stp_lin_nbuckets(l) - 1)
        n = stp_lin_nbuckets(l) - 1;
    return (int)n;
}

/* Bounds of linear bucket b; an open end is reported through *open. */
static void stp_lin_bounds(linear l, int b, int64_t *lo, int64_t *hi, int *lo_open, int *hi_open)
{
    int last = stp_lin_nbuckets(l) - 1;
    *lo_open = b == 0;
    *hi_open = b == last;
    *lo = l.start + (b - 1) * l.interval;
    *hi = b == 0 ? l.start - 1 : *lo + l.interval - 1;
}

/* ---- a histogram as the tapset writes it ------------------------------- */

typedef struct {
    int nb;                       /* buckets written */
    int first;                    /* bucket number of the first one */
    int64_t lo[LOG_BUCKETS], hi[LOG_BUCKETS], count[LOG_BUCKETS];
    int lo_open[LOG_BUCKETS], hi_open[LOG_BUCKETS];
    char name[LOG_BUCKETS][48];
} expected;

static void expect_bucket(expected *x, int i, int64_t lo, int64_t hi, int lo_open, int hi_open)
{
    x->lo[i] = lo, x->hi[i] = hi, x->lo_open[i] = lo_open, x->hi_open[i] = hi_open;
    if (lo_open)
        snprintf(x->name[i], sizeof(x->name[i]), "-inf-%" PRId64, hi);
    else if (hi_open)
        snprintf(x->name[i], sizeof(x->name[i]), "%" PRId64 "-inf", lo);
    else
        snprintf(x->name[i], sizeof(x->name[i]), "%" PRId64 "-%" PRId64, lo, hi);
}

/* values -> buckets; lin NULL for @hist_log */
static void expect_hist(expected *x, const linear *lin, const int64_t *v, size_t n)
{
    memset(x, 0, sizeof(*x));
    if (n == 0)
        return;
    int64_t mn = v[0], mx = v[0];
    for (size_t i = 1; i < n; i++) {
        mn = v[i] < mn ? v[i] : mn;
        mx = v[i] > mx ? v[i] : mx;
    }
    int blo = lin ? stp_lin_bucket(*lin, mn) : stp_log_bucket(mn);
    int bhi = lin ? stp_lin_bucket(*lin, mx) : stp_log_bucket(mx);
    x->first = blo;
    x->nb = bhi - blo + 1;
    for (int b = blo; b <= bhi; b++) {
        int64_t lo, hi;
        int lo_open = 0, hi_open = 0;
        if (lin)
            stp_lin_bounds(*lin, b, &lo, &hi, &lo_open, &hi_open);
        else
            stp_log_bounds(b, &lo, &hi);
        expect_bucket(x, b - blo, lo, hi, lo_open, hi_open);
    }
    for (size_t i = 0; i < n; i++)
        x->count[(lin ? stp_lin_bucket(*lin, v[i]) : stp_log_bucket(v[i])) - blo]++;
}

/* `"NAME": [...]` exactly as @staprelay_out_hist_log/_linear write it */
static char *tapset_text(const char *name, const expected *x)
{
    size_t cap = 256 + (size_t)x->nb * 96;
    char *t = malloc(cap), *p = t;
    p += sprintf(p, "\"%s\": [", name);
    for (int i = 0; i < x->nb; i++) {
        char lo[24] = "null", hi[24] = "null";
        if (!x->lo_open[i])
            snprintf(lo, sizeof(lo), "%" PRId64, x->lo[i]);
        if (!x->hi_open[i])
            snprintf(hi, sizeof(hi), "%" PRId64, x->hi[i]);
        p += sprintf(p, "%s{\"lo\": %s, \"hi\": %s, \"count\": %" PRId64 "}",
                     i ? ",\n    " : "\n    ", lo, hi, x->count[i]);
    }
    sprintf(p, "%s", x->nb ? "\n  ]" : "]");
    return t;
}

/* ---- through the relay -------------------------------------------------- */

static source_meta *hist_meta(void)
{
    static const char text[] = "{\"metrics\": [{\"name\": \"h\", \"pointer\": \"/h\","
                               " \"type\": \"histogram\", \"units\": \"nanosec\"}]}";
    char err[256] = "";
    source_meta *m = metadata_parse(text, strlen(text), "t", err, sizeof(err));
    ck_assert_msg(m != NULL && m->nproblems == 0, "%s", err);
    return m;
}

/* Map `{"h": [...]}` and compare every bucket with x. */
static snapshot *check_mapped(const source_meta *m, const char *doc_text, const expected *x)
{
    json_error_t jerr;
    json_t *doc = json_loads(doc_text, 0, &jerr);
    ck_assert_msg(doc != NULL, "tapset text is not JSON: %s\n%s", jerr.text, doc_text);
    snapshot *s = snapshot_build(m, doc);
    json_decref(doc);
    const array_snapshot *as = &s->arrays[m->metrics[0].array];
    ck_assert_uint_eq(as->skipped, 0);
    ck_assert_uint_eq(as->ninsts, (size_t)x->nb);
    for (int i = 0; i < x->nb; i++) {
        const instance *in = &as->insts[i];
        ck_assert_str_eq(in->name, x->name[i]);
        ck_assert_int_eq(in->lo_open, x->lo_open[i]);
        ck_assert_int_eq(in->hi_open, x->hi_open[i]);
        if (!x->lo_open[i])
            ck_assert_int_eq(in->lo, x->lo[i]);
        if (!x->hi_open[i])
            ck_assert_int_eq(in->hi, x->hi[i]);
        ck_assert_int_eq(s->values[0][i].state, VAL_OK);
        ck_assert_int_eq(s->values[0][i].u.i, x->count[i]);
    }
    return s;
}

/* Each value is counted in the one relay bucket whose bounds hold it. */
static void check_values_in_bounds(const snapshot *s, const int64_t *v, size_t n)
{
    const array_snapshot *as = &s->arrays[0];
    int64_t *seen = calloc(as->ninsts ? as->ninsts : 1, sizeof(int64_t));
    for (size_t i = 0; i < n; i++) {
        int hits = 0;
        for (size_t k = 0; k < as->ninsts; k++) {
            const instance *in = &as->insts[k];
            if ((in->lo_open || in->lo <= v[i]) && (in->hi_open || v[i] <= in->hi)) {
                hits++;
                seen[k]++;
            }
        }
        ck_assert_msg(hits == 1, "value %" PRId64 " is in %d buckets", v[i], hits);
    }
    for (size_t k = 0; k < as->ninsts; k++)
        ck_assert_int_eq(seen[k], s->values[0][k].u.i);
    free(seen);
}

static snapshot *run(const source_meta *m, const linear *lin, const int64_t *v, size_t n,
                     expected *x)
{
    expect_hist(x, lin, v, n);
    char *h = tapset_text("h", x);
    char *doc = malloc(strlen(h) + 16);
    sprintf(doc, "{\n  %s\n}\n", h);
    snapshot *s = check_mapped(m, doc, x);
    check_values_in_bounds(s, v, n);
    free(doc);
    free(h);
    return s;
}

#define N(a) (sizeof(a) / sizeof((a)[0]))

/* The restated runtime agrees with itself at every bucket edge: lo and hi
 * are in the bucket, lo-1 and hi+1 are not (so the bounds are exact). */
START_TEST(systemtap_layout_edges_are_exact)
{
    for (int b = 0; b < LOG_BUCKETS; b++) {
        int64_t lo, hi;
        stp_log_bounds(b, &lo, &hi);
        ck_assert_int_eq(stp_log_bucket(lo), b);
        ck_assert_int_eq(stp_log_bucket(hi), b);
        if (lo != INT64_MIN)
            ck_assert_int_eq(stp_log_bucket(lo - 1), b - 1);
        if (hi != INT64_MAX)
            ck_assert_int_eq(stp_log_bucket(hi + 1), b + 1);
    }
    linear ls[] = {{0, 100, 25}, {1, 3, 1}, {0, 100, 30}, {-50, 50, 10}, {-7, -1, 2}};
    for (size_t i = 0; i < N(ls); i++) {
        int last = stp_lin_nbuckets(ls[i]) - 1;
        for (int b = 0; b <= last; b++) {
            int64_t lo, hi;
            int lo_open, hi_open;
            stp_lin_bounds(ls[i], b, &lo, &hi, &lo_open, &hi_open);
            if (!lo_open) {
                ck_assert_int_eq(stp_lin_bucket(ls[i], lo), b);
                ck_assert_int_eq(stp_lin_bucket(ls[i], lo - 1), b - 1);
            }
            if (!hi_open) {
                ck_assert_int_eq(stp_lin_bucket(ls[i], hi), b);
                ck_assert_int_eq(stp_lin_bucket(ls[i], hi + 1), b + 1);
            }
        }
    }
}
END_TEST

START_TEST(hist_log_zero_negative_and_extremes)
{
    source_meta *m = hist_meta();
    const int64_t v[] = {0, 0, 1, 2, 3, 4, 7, 8, 1000, -1, -2, -3, -4, -5,
                         INT64_MAX, INT64_MIN, INT64_MIN + 1, -(INT64_C(1) << 62)};
    expected x;
    snapshot *s = run(m, NULL, v, N(v), &x);
    /* every bucket, INT64_MIN's (0) to INT64_MAX's (127) */
    ck_assert_int_eq(x.nb, LOG_BUCKETS);
    const array_snapshot *as = &s->arrays[0];
    ck_assert_str_eq(as->insts[0].name, "-9223372036854775808--9223372036854775808");
    ck_assert_str_eq(as->insts[1].name, "-9223372036854775807--4611686018427387904");
    ck_assert_str_eq(as->insts[61].name, "-7--4");
    ck_assert_str_eq(as->insts[62].name, "-3--2");
    ck_assert_str_eq(as->insts[63].name, "-1--1");
    ck_assert_str_eq(as->insts[64].name, "0-0");
    ck_assert_str_eq(as->insts[65].name, "1-1");
    ck_assert_str_eq(as->insts[66].name, "2-3");
    ck_assert_str_eq(as->insts[67].name, "4-7");
    ck_assert_str_eq(as->insts[68].name, "8-15");
    ck_assert_str_eq(as->insts[74].name, "512-1023");
    ck_assert_str_eq(as->insts[127].name, "4611686018427387904-9223372036854775807");
    ck_assert_int_eq(s->values[0][0].u.i, 1);      /* INT64_MIN */
    ck_assert_int_eq(s->values[0][1].u.i, 2);      /* INT64_MIN+1, -2^62 */
    ck_assert_int_eq(s->values[0][61].u.i, 2);     /* -4, -5 */
    ck_assert_int_eq(s->values[0][64].u.i, 2);     /* 0, 0 */
    ck_assert_int_eq(s->values[0][67].u.i, 2);     /* 4, 7 */
    ck_assert_int_eq(s->values[0][100].u.i, 0);
    ck_assert_int_eq(s->values[0][127].u.i, 1);
    snapshot_free(s);
    metadata_free(m);
}
END_TEST

START_TEST(hist_log_positive_range_only)
{
    /* latencies: from the zero bucket up, empty buckets in between kept */
    source_meta *m = hist_meta();
    const int64_t v[] = {3, 700, 5, 1000000};
    expected x;
    snapshot *s = run(m, NULL, v, N(v), &x);
    ck_assert_int_eq(x.first, 66);
    ck_assert_int_eq(x.nb, 20 - 2 + 1);             /* 2^19 <= 1000000 < 2^20 */
    ck_assert_str_eq(s->arrays[0].insts[0].name, "2-3");
    ck_assert_str_eq(s->arrays[0].insts[1].name, "4-7");
    ck_assert_int_eq(s->values[0][2].u.i, 0);       /* 8-15 */
    ck_assert_str_eq(s->arrays[0].insts[x.nb - 1].name, "524288-1048575");
    snapshot_free(s);
    metadata_free(m);
}
END_TEST

START_TEST(hist_linear_underflow_and_overflow)
{
    source_meta *m = hist_meta();
    const linear l = {0, 100, 25};
    const int64_t v[] = {-5, -1, 0, 24, 25, 99, 100, 124, 125, 1000, INT64_MIN + 1};
    expected x;
    snapshot *s = run(m, &l, v, N(v), &x);
    static const char *const names[] = {"-inf--1", "0-24", "25-49", "50-74",
                                        "75-99", "100-124", "125-inf"};
    static const int64_t counts[] = {3, 2, 1, 0, 1, 2, 2};
    ck_assert_int_eq(x.nb, 7);                      /* (100-0)/25 + 3 */
    for (int i = 0; i < 7; i++) {
        ck_assert_str_eq(s->arrays[0].insts[i].name, names[i]);
        ck_assert_int_eq(s->values[0][i].u.i, counts[i]);
    }
    ck_assert(s->arrays[0].insts[0].lo_open);
    ck_assert_int_eq(s->arrays[0].insts[0].hi, -1);
    ck_assert(s->arrays[0].insts[6].hi_open);
    ck_assert_int_eq(s->arrays[0].insts[6].lo, 125);
    snapshot_free(s);
    metadata_free(m);
}
END_TEST

START_TEST(hist_linear_other_shapes)
{
    source_meta *m = hist_meta();
    expected x;
    /* stap(1)'s example: @hist_linear(x,1,3,1) has 1 underflow, 3 payload
     * and 1 overflow buckets */
    const linear l1 = {1, 3, 1};
    const int64_t v1[] = {0, 1, 2, 3, 4};
    snapshot *s = run(m, &l1, v1, N(v1), &x);
    ck_assert_int_eq(x.nb, 5);
    ck_assert_str_eq(s->arrays[0].insts[0].name, "-inf-0");
    ck_assert_str_eq(s->arrays[0].insts[3].name, "3-3");
    ck_assert_str_eq(s->arrays[0].insts[4].name, "4-inf");
    snapshot_free(s);
    /* interval not dividing stop-start: 100/30 + 3 = 6 buckets */
    const linear l2 = {0, 100, 30};
    const int64_t v2[] = {89, 90, 119, 120};
    s = run(m, &l2, v2, N(v2), &x);
    ck_assert_int_eq(x.first, 3);
    ck_assert_int_eq(x.nb, 3);
    ck_assert_str_eq(s->arrays[0].insts[1].name, "90-119");
    ck_assert_str_eq(s->arrays[0].insts[2].name, "120-inf");
    snapshot_free(s);
    /* negative start; values inside the range: no under/overflow written */
    const linear l3 = {-50, 50, 10};
    const int64_t v3[] = {-50, -41, 0, 9};
    s = run(m, &l3, v3, N(v3), &x);
    ck_assert_int_eq(x.nb, 6);
    ck_assert_str_eq(s->arrays[0].insts[0].name, "-50--41");
    ck_assert_str_eq(s->arrays[0].insts[5].name, "0-9");
    ck_assert_int_eq(s->values[0][0].u.i, 2);
    snapshot_free(s);
    metadata_free(m);
}
END_TEST

/* The committed tapset fixture (stap/tests/fixtures.py, scenario hostile,
 * stap/tests/selftest.stp): its histograms are byte for byte what
 * SystemTap's layout gives for the values the scenario feeds, and map. */
START_TEST(tapset_fixture_follows_systemtap)
{
    char *meta_text = tu_slurp("stap/fixtures/hostile/metadata.json");
    char *data_text = tu_slurp("stap/fixtures/hostile/data.json");
    ck_assert_msg(meta_text && data_text, "stap/fixtures/hostile (run from the repository root)");
    char err[256] = "";
    source_meta *m = metadata_parse(meta_text, strlen(meta_text), "hostile", err, sizeof(err));
    ck_assert_msg(m != NULL, "%s", err);
    json_t *doc = json_loads(data_text, 0, NULL);
    ck_assert_ptr_nonnull(doc);
    snapshot *s = snapshot_build(m, doc);

    static const linear sizes_l = {0, 100, 25};
    static const int64_t sizes_v[] = {-5, 0, 42, 42, 1000};
    static const int64_t lat_v[] = {0, 3, 700};
    struct {
        const char *name;
        const linear *lin;
        const int64_t *v;
        size_t n;
    } h[] = {{"sizes", &sizes_l, sizes_v, N(sizes_v)}, {"latency", NULL, lat_v, N(lat_v)}};
    for (size_t i = 0; i < N(h); i++) {
        expected x;
        expect_hist(&x, h[i].lin, h[i].v, h[i].n);
        char *text = tapset_text(h[i].name, &x);
        ck_assert_msg(strstr(data_text, text) != NULL, "fixture differs from SystemTap's layout:\n%s",
                      text);
        free(text);
        size_t mi = 0;
        while (mi < m->nmetrics && strcmp(m->metrics[mi].name, h[i].name) != 0)
            mi++;
        ck_assert_uint_lt(mi, m->nmetrics);
        const array_snapshot *as = &s->arrays[m->metrics[mi].array];
        ck_assert_uint_eq(as->ninsts, (size_t)x.nb);
        for (int k = 0; k < x.nb; k++) {
            ck_assert_str_eq(as->insts[k].name, x.name[k]);
            ck_assert_int_eq(s->values[mi][k].u.i, x.count[k]);
        }
    }
    snapshot_free(s);
    json_decref(doc);
    metadata_free(m);
    free(meta_text);
    free(data_text);
}
END_TEST

TEST_SUITE(relay_histogram)
{
    Suite *s = suite_create(test_suite_name);
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, systemtap_layout_edges_are_exact);
    tcase_add_test(tc, hist_log_zero_negative_and_extremes);
    tcase_add_test(tc, hist_log_positive_range_only);
    tcase_add_test(tc, hist_linear_underflow_and_overflow);
    tcase_add_test(tc, hist_linear_other_shapes);
    tcase_add_test(tc, tapset_fixture_follows_systemtap);
    suite_add_tcase(s, tc);
    return s;
}
