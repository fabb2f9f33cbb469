/* Suite: the subsecond histogram (relay/subsecond): buckets by integer
 * microseconds exactly as `staprelay heatmap` places records, seconds
 * counted only once closed, late and early samples counted at once. */
#include "relay/subsecond.h"
#include "tests/testutil.h"

#include <stdint.h>

#define S 1764450000LL           /* a second, in seconds since the epoch */
#define NS(sec, us) (((sec) * 1000000LL + (us)) * 1000LL)

START_TEST(buckets_by_integer_microseconds)
{
    int64_t sec;
    ck_assert_int_eq(subsecond_bucket(NS(S, 0), &sec), 0);
    ck_assert_int_eq(sec, S);
    ck_assert_int_eq(subsecond_bucket(NS(S, 19999), &sec), 0);
    ck_assert_int_eq(subsecond_bucket(NS(S, 20000), &sec), 1);
    /* .200000 is bucket 10 (200 ms) -- float arithmetic would say 9 */
    ck_assert_int_eq(subsecond_bucket(NS(S, 200000), &sec), 10);
    ck_assert_int_eq(subsecond_bucket(NS(S, 999999) + 999, &sec), 49);
    ck_assert_int_eq(sec, S);
    /* nanoseconds below a microsecond do not move a sample */
    ck_assert_int_eq(subsecond_bucket(NS(S, 20000) - 1, &sec), 0);
}
END_TEST

START_TEST(seconds_count_once_closed)
{
    subsecond h;
    subsecond_init(&h, 2.0);
    subsecond_add(&h, NS(S, 500000), 1);          /* bucket 25 */
    subsecond_add(&h, NS(S + 1, 10), 3);          /* bucket 0 */
    subsecond_close(&h, (double)S + 2.5);         /* closes seconds < S */
    ck_assert_int_eq(h.closed, S);
    ck_assert_uint_eq(h.counts[25], 0);
    subsecond_close(&h, (double)S + 3.0);         /* closes S */
    ck_assert_int_eq(h.closed, S + 1);
    ck_assert_uint_eq(h.counts[25], 1);
    ck_assert_uint_eq(h.counts[0], 0);
    subsecond_close(&h, (double)S + 2.0);         /* time going back changes nothing */
    ck_assert_int_eq(h.closed, S + 1);
    subsecond_close(&h, (double)S + 10);
    ck_assert_uint_eq(h.counts[0], 3);
    ck_assert_uint_eq(h.late + h.early, 0);
}
END_TEST

START_TEST(late_and_early_count_at_once)
{
    subsecond h;
    subsecond_init(&h, 1.0);
    subsecond_close(&h, (double)S + 10);          /* closed: S + 9 */
    subsecond_add(&h, NS(S + 5, 40000), 2);       /* late: bucket 2 at once */
    ck_assert_uint_eq(h.counts[2], 2);
    ck_assert_uint_eq(h.late, 2);
    subsecond_add(&h, NS(S + 9 + SUBSECOND_OPEN, 0), 1);   /* too far ahead */
    ck_assert_uint_eq(h.counts[0], 1);
    ck_assert_uint_eq(h.early, 1);
    subsecond_add(&h, NS(S + 9 + SUBSECOND_OPEN - 1, 0), 1);   /* the last open one */
    ck_assert_uint_eq(h.counts[0], 1);
}
END_TEST

TEST_SUITE(relay_subsecond)
{
    Suite *s = suite_create(test_suite_name);
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, buckets_by_integer_microseconds);
    tcase_add_test(tc, seconds_count_once_closed);
    tcase_add_test(tc, late_and_early_count_at_once);
    suite_add_tcase(s, tc);
    return s;
}
