/* Suite: client/input/counterdelta, the one rule that turns a counter's
 * value sets into increments on every path (archives, a farm, live pmcds,
 * pmseries): baseline, new instances from zero, restarts, 32-bit wraps. */
#include <check.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "client/input/counterdelta.h"
#include "tests/testutil.h"

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

static void count_incs(void *arg, const char *name, uint64_t inc,
                       int64_t prev, int64_t now)
{
    uint64_t *sum = arg;
    (void)name, (void)prev, (void)now;
    sum[0]++;
    sum[1] += inc;
}

/* Many names keep their own previous values across sets (each name is
 * looked up, not taken by position); a name twice in one set is measured
 * against the previous set both times and keeps its last value; a reset
 * makes the next set a baseline again. */
START_TEST(names_sets_and_reset)
{
    counterdelta *cd = counterdelta_new(false);
    char name[32];
    uint64_t sum[2] = { 0, 0 };
    for (int round = 0; round < 3; round++) {
        counterdelta_begin(cd, round);
        for (int i = 0; i < 300; i++) {
            int k = round == 1 ? 299 - i : i;          /* another order */
            snprintf(name, sizeof name, "stack-%d", k);
            counterdelta_value(cd, name, (uint64_t)(k * 10 + round * k));
        }
        counterdelta_end(cd, count_incs, sum);
    }
    /* rounds 1 and 2: name k grew by k each time (k = 1..299) */
    ck_assert_uint_eq(sum[0], 2 * 299);
    ck_assert_uint_eq(sum[1], 2 * (299 * 300 / 2));

    got g = { 0 };
    set(cd, 10, &g, 2, "stack-5", (uint64_t)65, "stack-5", (uint64_t)70);
    ck_assert_int_eq(g.n, 2);                /* 65 - 60, 70 - 60 */
    ck_assert_uint_eq(g.inc[0], 5);
    ck_assert_uint_eq(g.inc[1], 10);
    g.n = 0;
    set(cd, 11, &g, 1, "stack-5", (uint64_t)75);
    ck_assert_int_eq(g.n, 1);
    ck_assert_uint_eq(g.inc[0], 5);          /* against the last value, 70 */

    counterdelta_reset(cd);
    ck_assert_uint_eq(counterdelta_sets(cd), 0);
    g.n = 0;
    set(cd, 12, &g, 1, "stack-5", (uint64_t)80);   /* a baseline again */
    ck_assert_int_eq(g.n, 0);
    set(cd, 13, &g, 1, "stack-5", (uint64_t)81);
    ck_assert_int_eq(g.n, 1);
    ck_assert_uint_eq(g.inc[0], 1);
    counterdelta_free(cd);
}
END_TEST

/* A view that runs for days sees new stacks all the time: what it holds
 * stays bounded by the last set, and the rule is kept across the
 * forgetting (a name that left and comes back counts from zero). */
START_TEST(names_that_left_are_forgotten)
{
    counterdelta *cd = counterdelta_new(false);
    char name[32];
    got g = { 0 };
    uint64_t sum[2] = { 0, 0 };
    for (int round = 0; round < 1000; round++) {
        counterdelta_begin(cd, round);
        counterdelta_value(cd, "steady", (uint64_t)round);
        for (int i = 0; i < 10; i++) {
            snprintf(name, sizeof name, "new-%d-%d", round, i);
            counterdelta_value(cd, name, 3);
        }
        counterdelta_end(cd, count_incs, sum);
        ck_assert_uint_le(counterdelta_names(cd), 2 * 11 + 64);
    }
    /* rounds 1..999: "steady" grew by 1, ten new names counted 3 each */
    ck_assert_uint_eq(sum[1], 999 * (1 + 30));
    /* round 0's names left long ago: from zero again */
    set(cd, 2000, &g, 2, "new-0-0", (uint64_t)7, "steady", (uint64_t)1000);
    ck_assert_int_eq(g.n, 2);
    ck_assert_str_eq(g.name[0], "new-0-0");
    ck_assert_uint_eq(g.inc[0], 7);
    ck_assert_uint_eq(g.inc[1], 1);
    counterdelta_free(cd);
}
END_TEST

TEST_SUITE(client_counterdelta)
{
    Suite *s = suite_create(test_suite_name);
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, delta_rules);
    tcase_add_test(tc, names_sets_and_reset);
    tcase_add_test(tc, names_that_left_are_forgotten);
    suite_add_tcase(s, tc);
    return s;
}
