/* Suite: client/input/pmseries without a pmproxy: the expression a query
 * stands for (the counter's name, labels and time specs kept).  The REST
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

TEST_SUITE(client_pmseries)
{
    Suite *s = suite_create(test_suite_name);
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, queries_stand_for_counters);
    suite_add_tcase(s, tc);
    return s;
}
