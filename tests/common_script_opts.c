/* Suite: common/script_opts, the hz/pid limits the client's `run` and
 * the PMDA's run requests both check. */
#include <check.h>

#include "common/script_opts.h"
#include "tests/testutil.h"

START_TEST(script_option_limits)
{
    const script_opt *hz = script_opt_find("hz"), *pid = script_opt_find("pid");
    ck_assert_ptr_nonnull(hz);
    ck_assert_ptr_nonnull(pid);
    ck_assert_ptr_null(script_opt_find("cmd"));
    long v;
    ck_assert(script_opt_value(hz, "1", &v) && v == 1);
    ck_assert(script_opt_value(hz, "10000", &v) && v == 10000);
    ck_assert(!script_opt_value(hz, "0", &v));
    ck_assert(!script_opt_value(hz, "10001", &v));
    ck_assert(!script_opt_value(hz, "+5", &v));
    ck_assert(!script_opt_value(hz, "5 ", &v));
    ck_assert(script_opt_value(pid, "4194304", &v));
    ck_assert(!script_opt_value(pid, "4194305", &v));
    ck_assert(!script_opt_value(pid, "-1", &v));
}
END_TEST

TEST_SUITE(common_script_opts)
{
    Suite *s = suite_create(test_suite_name);
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, script_option_limits);
    suite_add_tcase(s, tc);
    return s;
}
