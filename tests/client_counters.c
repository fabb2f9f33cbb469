/* Suite: pmdastaprelay's counters as samples (client/input/counterdelta,
 * pcp_counters), the names a query or a farm stands for (pmseries, farm):
 * the rules every path -- archive, farm, live, pmseries -- shares. */
#include <check.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "client/input/counterdelta.h"
#include "client/input/farm.h"
#include "client/input/pcp_counters.h"
#include "client/input/pmseries.h"
#include "tests/testutil.h"

#define S 1764450000LL
#define NS 1000000000LL

typedef struct got {
    int n;
    char name[16][64];
    uint64_t inc[16];
    int64_t prev[16], now[16];
} got;

static void record(void *arg, const char *name, uint64_t inc, int64_t prev,
                   int64_t now)
{
    got *g = arg;
    ck_assert_int_lt(g->n, 16);
    snprintf(g->name[g->n], 64, "%s", name);
    g->inc[g->n] = inc;
    g->prev[g->n] = prev;
    g->now[g->n] = now;
    g->n++;
}

static void set(counterdelta *cd, int64_t t, got *g, int n, ...)
{
    va_list ap;
    va_start(ap, n);
    counterdelta_begin(cd, t);
    for (int i = 0; i < n; i++) {
        const char *name = va_arg(ap, const char *);
        counterdelta_value(cd, name, va_arg(ap, uint64_t));
    }
    va_end(ap);
    counterdelta_end(cd, record, g);
}

START_TEST(delta_rules)
{
    counterdelta *cd = counterdelta_new(false);
    got g = { 0 };
    set(cd, 1, &g, 2, "a", (uint64_t)10, "b", (uint64_t)5);   /* baseline */
    ck_assert_int_eq(g.n, 0);
    set(cd, 2, &g, 0);                                          /* no value: no set */
    ck_assert_uint_eq(counterdelta_sets(cd), 1);
    /* a grew 3; b unchanged (no report); c entered from zero */
    set(cd, 3, &g, 3, "a", (uint64_t)13, "b", (uint64_t)5, "c", (uint64_t)4);
    ck_assert_int_eq(g.n, 2);
    ck_assert_str_eq(g.name[0], "a");
    ck_assert_uint_eq(g.inc[0], 3);
    ck_assert_int_eq(g.prev[0], 1);
    ck_assert_int_eq(g.now[0], 3);
    ck_assert_str_eq(g.name[1], "c");
    ck_assert_uint_eq(g.inc[1], 4);
    /* a went down: restarted, counts whole; b left; then b back from zero */
    g.n = 0;
    set(cd, 4, &g, 1, "a", (uint64_t)2);
    set(cd, 5, &g, 2, "a", (uint64_t)2, "b", (uint64_t)7);
    ck_assert_int_eq(g.n, 2);
    ck_assert_uint_eq(g.inc[0], 2);
    ck_assert_str_eq(g.name[1], "b");
    ck_assert_uint_eq(g.inc[1], 7);
    counterdelta_free(cd);

    /* a 32-bit counter wraps; a small step down is a restart */
    cd = counterdelta_new(true);
    g.n = 0;
    set(cd, 1, &g, 1, "x", (uint64_t)4294967290u);
    set(cd, 2, &g, 1, "x", (uint64_t)6);
    ck_assert_uint_eq(g.inc[0], 12);
    set(cd, 3, &g, 1, "x", (uint64_t)3);
    ck_assert_uint_eq(g.inc[1], 3);
    counterdelta_free(cd);
}
END_TEST

typedef struct samples {
    int n;
    char stack[16][80];
    double w[16];
    int64_t when[16];
} samples;

static void sample(void *arg, const char *folded, size_t len, double w,
                   int64_t when)
{
    samples *s = arg;
    ck_assert_int_lt(s->n, 16);
    snprintf(s->stack[s->n], 80, "%.*s", (int)len, folded);
    s->w[s->n] = w;
    s->when[s->n] = when;
    s->n++;
}

START_TEST(stacks_decoded_and_windowed)
{
    samples got = { 0 };
    pcp_counter *c = pcp_counter_new(PCP_COUNTER_STACKS, false, 2 * NS, 4 * NS,
                                     sample, &got);
    const char *name = "main,do\tsome\twork,f(a;b),50%25";
    for (int t = 1; t <= 5; t++) {
        pcp_counter_begin(c, t * NS);
        pcp_counter_value(c, name, (uint64_t)(10 * t));
        pcp_counter_value(c, "[other]", 1);
        pcp_counter_end(c);
    }
    /* (1,2] is before the window, (4,5] after: (2,3] and (3,4] count */
    ck_assert_int_eq(got.n, 2);
    ck_assert_str_eq(got.stack[0], "main;do some work;f(a,b);50%");
    ck_assert_double_eq(got.w[0], 10);
    ck_assert_int_eq(got.when[1], 4 * NS);
    const pcp_counter_stats *st = pcp_counter_stats_of(c);
    ck_assert_uint_eq(st->sets, 5);
    ck_assert_uint_eq(st->samples, 20);
    ck_assert_uint_eq(st->outside, 20);
    pcp_counter_free(c);
}
END_TEST

static void sub_set(pcp_counter *c, int64_t t, int64_t end, uint64_t b0,
                    uint64_t b49)
{
    pcp_counter_begin(c, t);
    pcp_counter_value(c, "0-19", b0);
    pcp_counter_value(c, "980-999", b49);
    pcp_counter_end_second(c, end);
    pcp_counter_end(c);
}

START_TEST(subsecond_columns)
{
    samples got = { 0 };
    pcp_counter *c = pcp_counter_new(PCP_COUNTER_SUBSECOND, true, INT64_MIN,
                                     INT64_MAX, sample, &got);
    sub_set(c, (S + 3) * NS, S, 5, 5);            /* baseline */
    sub_set(c, (S + 4) * NS, S + 1, 7, 5);        /* second S: bucket 0 +2 */
    sub_set(c, (S + 5) * NS, S + 2, 7, 6);        /* second S+1: bucket 49 +1 */
    sub_set(c, (S + 7) * NS, S + 4, 8, 6);        /* two seconds: merged into S+3 */
    ck_assert_int_eq(got.n, 3);
    ck_assert_str_eq(got.stack[0], PCP_SUBSECOND_STACK);
    ck_assert_int_eq(got.when[0], S * NS);
    ck_assert_double_eq(got.w[0], 2);
    ck_assert_int_eq(got.when[1], (S + 1) * NS + 980000000LL);
    ck_assert_int_eq(got.when[2], (S + 3) * NS);
    ck_assert_uint_eq(pcp_counter_stats_of(c)->merged, 1);
    pcp_counter_free(c);
}
END_TEST

START_TEST(names_stand_for_counters)
{
    char out[128];
    pcp_counter_name("staprelay.p.samples", PCP_COUNTER_STACKS, out, sizeof out);
    ck_assert_str_eq(out, "staprelay.p.samples.stacks");
    pcp_counter_name("staprelay.p.samples.stacks", PCP_COUNTER_STACKS, out, sizeof out);
    ck_assert_str_eq(out, "staprelay.p.samples.stacks");
    pcp_counter_name("staprelay.p.samples", PCP_COUNTER_SUBSECOND, out, sizeof out);
    ck_assert_str_eq(out, "staprelay.p.samples.subsecond");
    strbuf q = STRBUF_INIT;
    pmseries_counter_query("staprelay.p.samples{hostname==\"a b\"}",
                           PCP_COUNTER_STACKS, "", &q);
    ck_assert_str_eq(q.buf, "staprelay.p.samples.stacks{hostname==\"a b\"}");
    pmseries_counter_query("staprelay.p.samples.subsecond", PCP_COUNTER_STACKS,
                           "_end", &q);
    ck_assert_str_eq(q.buf, "staprelay.p.samples.subsecond_end");
    pmseries_counter_query("x.y[samples:10]", PCP_COUNTER_SUBSECOND, "", &q);
    ck_assert_str_eq(q.buf, "x.y.subsecond[samples:10]");
    sb_free(&q);
}
END_TEST

START_TEST(farm_directories)
{
    char *d = tu_mkdtemp();
    char path[512];
    /* a farm: two hosts' directories, a stray file, an empty directory */
    snprintf(path, sizeof path, "%s/farm", d);
    ck_assert_int_eq(tu_write(path, "web2/20261201.00.10.meta", "x"), 0);
    ck_assert_int_eq(tu_write(path, "web1/20261201.meta.xz", "x"), 0);
    ck_assert_int_eq(tu_write(path, "pmlogger.log", "x"), 0);
    snprintf(path, sizeof path, "%s/farm/empty", d);
    ck_assert_int_eq(mkdir(path, 0755), 0);
    char farm[512], host[512], none[512];
    snprintf(farm, sizeof farm, "%s/farm", d);
    snprintf(host, sizeof host, "%s/farm/web2", d);
    snprintf(none, sizeof none, "%s/farm/empty", d);
    const char *args[] = { "some/archive", farm, host };
    farm_list f;
    strbuf err = STRBUF_INIT;
    ck_assert_int_eq(farm_expand(args, 3, &f, &err), 0);
    ck_assert_uint_eq(f.n, 4);
    ck_assert_str_eq(f.specs[0], "some/archive");
    ck_assert_ptr_nonnull(strstr(f.specs[1], "/farm/web1"));
    ck_assert_ptr_nonnull(strstr(f.specs[2], "/farm/web2"));
    ck_assert_int_eq(f.origin[2], 1);
    ck_assert_str_eq(f.specs[3], host);      /* a host directory: as it is */
    ck_assert_int_eq(f.origin[3], 2);
    farm_free(&f);
    const char *bad[] = { none };
    ck_assert_int_eq(farm_expand(bad, 1, &f, &err), 1);
    ck_assert_ptr_nonnull(strstr(err.buf, "no PCP archives"));
    sb_free(&err);
    tu_rmtree(d);
    free(d);
}
END_TEST

Suite *client_counters_suite(void)
{
    Suite *s = suite_create("client_counters");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, delta_rules);
    tcase_add_test(tc, stacks_decoded_and_windowed);
    tcase_add_test(tc, subsecond_columns);
    tcase_add_test(tc, names_stand_for_counters);
    tcase_add_test(tc, farm_directories);
    suite_add_tcase(s, tc);
    return s;
}
