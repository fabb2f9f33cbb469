/* Suite: client/input/pcp_sibling's names: the metric beside an event
 * metric, with or without its .records. */
#include <check.h>

#include "client/input/pcp_sibling.h"
#include "tests/testutil.h"

START_TEST(sibling_names)
{
    char out[64];
    ck_assert(pcp_sibling_name("staprelay.P.samples", "frequency", out, sizeof out));
    ck_assert_str_eq(out, "staprelay.P.frequency");
    ck_assert(pcp_sibling_name("staprelay.P.samples.records", "frequency", out, sizeof out));
    ck_assert_str_eq(out, "staprelay.P.frequency");
    ck_assert(!pcp_sibling_name("samples", "frequency", out, sizeof out));
    ck_assert(!pcp_sibling_name(".records", "frequency", out, sizeof out));
    /* too long for out: refused, not cut */
    ck_assert(!pcp_sibling_name("staprelay.P.samples", "frequency", out, 16));
}
END_TEST

TEST_SUITE(client_pcp_sibling)
{
    Suite *s = suite_create(test_suite_name);
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, sibling_names);
    suite_add_tcase(s, tc);
    return s;
}
