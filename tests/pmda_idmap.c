/* Suite: pmda/idmap, the persistent name-to-number maps behind PMIDs and
 * indoms: numbers survive a restart, bad state lines are reported. */
#include "pmda/idmap.h"
#include "tests/testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

START_TEST(idmap_numbers_survive_restart)
{
    char *dir = tu_mkdtemp();
    char err[256];
    idmap *m = idmap_open(dir, err, sizeof(err));
    ck_assert_str_eq(err, "");
    int c1 = idmap_cluster(m, "alpha"), c2 = idmap_cluster(m, "beta");
    ck_assert_int_eq(c1, 1);
    ck_assert_int_eq(c2, 2);
    ck_assert_int_eq(idmap_item(m, c1, "x"), 0);
    ck_assert_int_eq(idmap_item(m, c1, "y.z"), 1);
    ck_assert_int_eq(idmap_item(m, c2, "x"), 0);
    ck_assert_int_eq(idmap_indom(m, "alpha", "arr"), 1);
    ck_assert(idmap_dirty(m));
    ck_assert_int_eq(idmap_save(m), 0);
    ck_assert(!idmap_dirty(m));
    idmap_free(m);

    m = idmap_open(dir, err, sizeof(err));
    ck_assert_str_eq(err, "");
    /* order of asking differs; numbers do not */
    ck_assert_int_eq(idmap_cluster(m, "beta"), 2);
    ck_assert_int_eq(idmap_item(m, 1, "y.z"), 1);
    ck_assert_int_eq(idmap_item(m, 1, "new"), 2);
    ck_assert_int_eq(idmap_cluster(m, "gamma"), 3);
    ck_assert_int_eq(idmap_indom(m, "alpha", "arr"), 1);
    ck_assert_int_eq(idmap_indom(m, "beta", "arr"), 2);
    ck_assert_int_eq(idmap_save(m), 0);
    idmap_free(m);
    tu_rmtree(dir);
    free(dir);
}
END_TEST

START_TEST(idmap_bad_lines_reported)
{
    char *dir = tu_mkdtemp();
    tu_write(dir, "pmids", "cluster 1 a\ngarbage here\ncluster 99999 b\n");
    char err[256];
    idmap *m = idmap_open(dir, err, sizeof(err));
    ck_assert_ptr_nonnull(strstr(err, "line 2 not understood"));
    ck_assert_int_eq(idmap_cluster(m, "a"), 1);
    ck_assert_int_eq(idmap_cluster(m, "b"), 2);
    idmap_free(m);
    tu_rmtree(dir);
    free(dir);
}
END_TEST

TEST_SUITE(pmda_idmap)
{
    Suite *s = suite_create(test_suite_name);
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, idmap_numbers_survive_restart);
    tcase_add_test(tc, idmap_bad_lines_reported);
    suite_add_tcase(s, tc);
    return s;
}
