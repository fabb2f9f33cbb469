/* Suite: client/input/pcp_counters, pmdastaprelay's counters as samples:
 * stack instance names decoded, windows by value-set times, subsecond
 * increments placed in their closed second, names standing for counters. */
#include <check.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "client/input/pcp_counters.h"
#include "tests/testutil.h"

#define S 1764450000LL
#define NS 1000000000LL

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
}
END_TEST

TEST_SUITE(client_pcp_counters)
{
    Suite *s = suite_create(test_suite_name);
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, stacks_decoded_and_windowed);
    tcase_add_test(tc, subsecond_columns);
    tcase_add_test(tc, names_stand_for_counters);
    suite_add_tcase(s, tc);
    return s;
}
