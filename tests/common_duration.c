/* Suite: common/duration, common/script_opts and common/hash -- the
 * small rules the relay and the client share. */
#include <check.h>
#include <string.h>

#include "common/duration.h"
#include "common/hash.h"
#include "common/script_opts.h"

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

START_TEST(fnv1a)
{
    /* FNV-1a's steps from the project's offset basis (hash.h): instance
     * numbers depend on these very values */
    const uint64_t basis = 1469598103934665603ULL, prime = 1099511628211ULL;
    ck_assert_uint_eq(fnv1a64("", 0), basis);
    ck_assert_uint_eq(fnv1a64("a", 1), (basis ^ 'a') * prime);
    ck_assert_uint_eq(fnv1a64("ab", 2), (((basis ^ 'a') * prime) ^ 'b') * prime);
    ck_assert_uint_eq(fnv1a64("foobar", 6), 0x88fad7c0a8ff07f2ULL);
}
END_TEST

Suite *common_duration_suite(void)
{
    Suite *s = suite_create("common_duration");
    TCase *tc = tcase_create("rules");
    tcase_add_test(tc, durations);
    tcase_add_test(tc, script_option_limits);
    tcase_add_test(tc, fnv1a);
    suite_add_tcase(s, tc);
    return s;
}
