/* Suite: common/hash, the names' hash behind the relay's string map and
 * the PMDA's instance numbers. */
#include <check.h>
#include <stdint.h>

#include "common/hash.h"
#include "tests/testutil.h"

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

TEST_SUITE(common_hash)
{
    Suite *s = suite_create(test_suite_name);
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, fnv1a);
    suite_add_tcase(s, tc);
    return s;
}
