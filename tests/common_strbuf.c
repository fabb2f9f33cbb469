/* Suite: common/strbuf -- the soft out-of-memory mode and the one exact
 * number rule (num_text). */
#include <check.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "common/strbuf.h"
#include "tests/testutil.h"

static const char *num(double v)
{
    static char buf[NUM_TEXT_MAX];
    return num_text(buf, v);
}

START_TEST(numbers_read_back_exactly)
{
    /* integers exactly, without a fraction or exponent */
    ck_assert_str_eq(num(0), "0");
    ck_assert_str_eq(num(-0.0), "-0");
    ck_assert_str_eq(num(1001001), "1001001");
    ck_assert_str_eq(num(9007199254740991.0), "9007199254740991");
    ck_assert_str_eq(num(-42), "-42");
    /* fractions in the shortest form that reads back: %.15g used to
     * lose 0.1 + 0.2 and 1/3, %.17g wrote 0.1 as 0.10000000000000001 */
    ck_assert_str_eq(num(0.1), "0.1");
    ck_assert_str_eq(num(12.5), "12.5");
    ck_assert_str_eq(num(0.1 + 0.2), "0.30000000000000004");
    ck_assert_str_eq(num(1.0 / 3), "0.3333333333333333");
    static const double samples[] = { 0.1 + 0.2, 1.0 / 3, 2.0 / 3, 1e300, 5e-324,
                                      9007199254740993.0, 123456.789, 1e16 };
    for (size_t i = 0; i < sizeof samples / sizeof samples[0]; i++)
        ck_assert(strtod(num(samples[i]), NULL) == samples[i]);
    strbuf sb = STRBUF_INIT;
    sb_addnum(&sb, 2.5);
    sb_addc(&sb, ' ');
    sb_addnum(&sb, 7);
    ck_assert_str_eq(sb.buf, "2.5 7");
    sb_free(&sb);
}
END_TEST

/* ASan's allocator aborts on a request this size instead of returning
 * NULL; the plain build tests it. */
#if defined(__SANITIZE_ADDRESS__)
#define HUGE_ALLOCATION_ABORTS 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define HUGE_ALLOCATION_ABORTS 1
#endif
#endif

START_TEST(soft_buffer_fails_without_aborting)
{
#ifdef HUGE_ALLOCATION_ABORTS
    return;
#endif
    strbuf sb = STRBUF_INIT_SOFT;
    sb_adds(&sb, "kept");
    ck_assert(!sb.failed);
    /* more than any allocator grants: the buffer fails, keeps what it
     * held and ignores what follows */
    ck_assert(!sb_reserve(&sb, SIZE_MAX / 2));
    ck_assert(sb.failed);
    sb_adds(&sb, " lost");
    ck_assert_str_eq(sb.buf, "kept");
    ck_assert_ptr_null(sb_steal(&sb));
    ck_assert_ptr_null(sb.buf);
}
END_TEST

TEST_SUITE(common_strbuf)
{
    Suite *s = suite_create(test_suite_name);
    TCase *tc = tcase_create("strbuf");
    tcase_add_test(tc, numbers_read_back_exactly);
    tcase_add_test(tc, soft_buffer_fails_without_aborting);
    suite_add_tcase(s, tc);
    return s;
}
