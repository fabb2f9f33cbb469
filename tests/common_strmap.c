/* Suite: common/strmap, the string-to-integer map (insert, replace,
 * delete over tombstones, iteration). */
#include "common/strmap.h"
#include "tests/testutil.h"

#include <stdio.h>
#include <string.h>

START_TEST(strmap_put_get_del)
{
    strmap *m = strmap_new();
    char key[32];
    for (int i = 0; i < 5000; i++) {
        snprintf(key, sizeof(key), "k%d", i);
        ck_assert_int_eq(strmap_put(m, key, i * 3), 0);
    }
    ck_assert_uint_eq(strmap_count(m), 5000);
    int64_t v;
    ck_assert(strmap_get(m, "k4321", &v));
    ck_assert_int_eq(v, 4321 * 3);
    ck_assert(!strmap_get(m, "k5000", NULL));
    for (int i = 0; i < 5000; i += 2) {
        snprintf(key, sizeof(key), "k%d", i);
        ck_assert(strmap_del(m, key));
    }
    ck_assert_uint_eq(strmap_count(m), 2500);
    ck_assert(!strmap_get(m, "k10", NULL));
    ck_assert(strmap_get(m, "k11", &v) && v == 33);
    /* reinsert over tombstones, then iterate */
    ck_assert_int_eq(strmap_put(m, "k10", 7), 0);
    size_t cur = 0, n = 0;
    const char *k;
    while (strmap_next(m, &cur, &k, &v))
        n++;
    ck_assert_uint_eq(n, 2501);
    strmap_free(m);
}
END_TEST

TEST_SUITE(common_strmap)
{
    Suite *s = suite_create(test_suite_name);
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, strmap_put_get_del);
    suite_add_tcase(s, tc);
    return s;
}
