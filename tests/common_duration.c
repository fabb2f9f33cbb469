/* Suite: common/duration, the one rule for run durations (the client's
 * `run -T`, the PMDA's duration= requests). */
#include <check.h>
#include <string.h>

#include "common/duration.h"
#include "tests/testutil.h"

START_TEST(durations)
{
    ck_assert_double_eq(duration_parse("4"), 4);
    ck_assert_double_eq(duration_parse("20s"), 20);
    ck_assert_double_eq(duration_parse("1.5s"), 1.5);
    ck_assert_double_eq(duration_parse("500ms"), 0.5);
    ck_assert_double_eq(duration_parse("2m"), 120);
    ck_assert_double_eq(duration_parse("2min"), 120);
    ck_assert_double_eq(duration_parse("1h"), 3600);
    ck_assert_double_eq(duration_parse("366hours"), 366 * 3600.0);
    static const char *const bad[] = {
        "", "-1", "+4", " 4", "0", "0s", "4.", ".5", "1e3", "0x10", "inf", "nan",
        "3 weeks", "5x", "9000h", NULL,
    };
    for (int i = 0; bad[i]; i++)
        ck_assert_msg(duration_parse(bad[i]) < 0, "%s", bad[i]);
    ck_assert(duration_parse(NULL) < 0);
}
END_TEST

TEST_SUITE(common_duration)
{
    Suite *s = suite_create(test_suite_name);
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, durations);
    suite_add_tcase(s, tc);
    return s;
}
