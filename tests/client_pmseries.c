/* Suite: client/input/pmseries without a pmproxy: the expression a query
 * stands for (the counter's name, labels and time specs kept), and when
 * the sets between two sparse reads must be read.  The REST
 * path itself runs against a real pmproxy and redis-server in qa 610/630. */
#include <check.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "client/input/pmseries.h"
#include "tests/testutil.h"

START_TEST(queries_stand_for_counters)
{
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

/* sets of one series: instance i has value v[i] (instances 0..n-1 but
 * `skip`, -1 for none) */
static size_t set_of(pmseries_value *out, const uint64_t *v, size_t n, long skip)
{
    size_t m = 0;
    for (size_t i = 0; i < n; i++)
        if ((long)i != skip)
            out[m++] = (pmseries_value){ 0, 0, (long)i, v[i] };
    return m;
}

START_TEST(sets_between_are_read_only_where_they_may_differ)
{
    pmseries_value a[4], b[4];
    uint64_t va[] = { 5, 7, 0, 9 }, vb[] = { 5, 8, 3, 100 };
    size_t na = set_of(a, va, 4, -1), nb = set_of(b, vb, 4, -1);
    /* same instances, none went down: A to B telescopes */
    ck_assert(!pmseries_must_read_between(a, na, b, nb));
    ck_assert(!pmseries_must_read_between(a, na, a, na));
    /* a value that went down: the agent restarted, or an instance left
     * and came back from zero */
    ck_assert(pmseries_must_read_between(b, nb, a, na));
    uint64_t vdown[] = { 5, 8, 3, 8 };
    nb = set_of(b, vdown, 4, -1);
    ck_assert(pmseries_must_read_between(a, na, b, nb));
    /* an instance left, or came */
    nb = set_of(b, vb, 4, 2);
    ck_assert(pmseries_must_read_between(a, na, b, nb));
    ck_assert(pmseries_must_read_between(b, nb, a, na));
    /* as many instances, not the same ones */
    na = set_of(a, va, 4, 1);
    ck_assert(pmseries_must_read_between(a, na, b, nb));
    /* empty sets */
    ck_assert(!pmseries_must_read_between(a, 0, b, 0));
    ck_assert(pmseries_must_read_between(a, 0, b, nb));
}
END_TEST

TEST_SUITE(client_pmseries)
{
    Suite *s = suite_create(test_suite_name);
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, queries_stand_for_counters);
    tcase_add_test(tc, sets_between_are_read_only_where_they_may_differ);
    suite_add_tcase(s, tc);
    return s;
}
