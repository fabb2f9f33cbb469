/* Suite: pmda/idmap, the persistent name-to-number maps behind PMIDs and
 * indoms: numbers survive a restart, bad state lines are reported,
 * clusters of prefixes long gone are taken back within the bounds of
 * who may write what. */
#include "pmda/idmap.h"
#include "tests/testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int cl(idmap *m, const char *prefix, const char *owner)
{
    char why[300] = "";
    return idmap_cluster(m, prefix, owner, NULL, why, sizeof(why));
}

START_TEST(idmap_numbers_survive_restart)
{
    char *dir = tu_mkdtemp();
    char err[256];
    idmap *m = idmap_open(dir, err, sizeof(err));
    ck_assert_str_eq(err, "");
    idmap_begin(m, 1000000);
    int c1 = cl(m, "alpha", NULL), c2 = cl(m, "beta", NULL);
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
    idmap_begin(m, 1000000);
    ck_assert_int_eq(cl(m, "beta", NULL), 2);
    ck_assert_int_eq(idmap_item(m, 1, "y.z"), 1);
    ck_assert_int_eq(idmap_item(m, 1, "new"), 2);
    ck_assert_int_eq(cl(m, "gamma", NULL), 3);
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
    ck_assert_int_eq(cl(m, "a", NULL), 1);
    ck_assert_int_eq(cl(m, "b", NULL), 2);
    idmap_free(m);
    tu_rmtree(dir);
    free(dir);
}
END_TEST

/* Issue 13: 4,100 short-lived prefixes in an untrusted directory used
 * every cluster for good.  Now: one untrusted root holds at most per_root
 * clusters and untrusted roots at most 4095 - reserve, the clusters of
 * prefixes unpublished longest are taken back (items and indoms with
 * them, serials reused), a published prefix keeps its cluster, trusted
 * prefixes always find one, and all of it survives a restart. */
START_TEST(idmap_clusters_taken_back_from_gone_prefixes)
{
    char *dir = tu_mkdtemp();
    char err[256], why[300], name[64];
    idmap *m = idmap_open(dir, err, sizeof(err));
    idmap_set_policy(m, 100, 20);
    time_t now = 1700000000;
    /* a churning root: each prefix published once, then gone */
    for (int i = 0; i < 4100; i++) {
        idmap_begin(m, now + i * 7200);
        snprintf(name, sizeof(name), "churn%d", i);
        ck_assert_int_gt(cl(m, name, "/srv/untrusted"), 0);
    }
    ck_assert_int_eq(idmap_clusters_used(m), 20);   /* per_root */
    /* the churn took back only its own, oldest first: the 20 newest stay */
    idmap_begin(m, now + 4100 * 7200);
    idmap_hold(m, "churn4099");
    snprintf(name, sizeof(name), "churn%d", 4080);
    int kept = cl(m, name, "/srv/untrusted");
    ck_assert_int_gt(kept, 0);
    /* a prefix published in this round is never taken: with all 20 of the
     * root held, a new one of that root gets none */
    idmap_begin(m, now + 4101 * 7200);
    for (int i = 4080; i < 4100; i++) {
        snprintf(name, sizeof(name), "churn%d", i);
        idmap_hold(m, name);
    }
    ck_assert_int_lt(idmap_cluster(m, "onemore", "/srv/untrusted", NULL, why, sizeof(why)), 0);
    ck_assert_msg(strstr(why, "published now") != NULL, "%s", why);
    /* another root and trusted sources still get clusters */
    ck_assert_int_gt(cl(m, "legit", "/var/tmp/systemtap-alice"), 0);
    int t = cl(m, "trusted", NULL);
    ck_assert_int_gt(t, 0);
    ck_assert_int_eq(idmap_item(m, t, "v"), 0);
    ck_assert_int_eq(idmap_save(m), 0);
    idmap_free(m);

    /* restart: the same numbers, owners and ages */
    m = idmap_open(dir, err, sizeof(err));
    ck_assert_msg(err[0] == '\0', "%s", err);
    idmap_set_policy(m, 100, 20);
    idmap_begin(m, now + 4102 * 7200);
    ck_assert_int_eq(cl(m, "trusted", NULL), t);
    ck_assert_int_eq(idmap_item(m, t, "v"), 0);
    ck_assert_int_eq(cl(m, "churn4080", "/srv/untrusted"), kept);
    ck_assert_int_eq(idmap_clusters_used(m), 22);
    /* a new prefix of the churning root takes back its oldest (4081...) */
    idmap_reclaim rec;
    int n = idmap_cluster(m, "fresh", "/srv/untrusted", &rec, why, sizeof(why));
    ck_assert_int_gt(n, 0);
    ck_assert(rec.happened);
    ck_assert_str_eq(rec.prefix, "churn4081");
    idmap_free(m);
    tu_rmtree(dir);
    free(dir);
}
END_TEST

/* The untrusted total is bounded too (many roots, one prefix each), so
 * the reserve stays for trusted sources; a trusted prefix takes back an
 * untrusted cluster before a trusted one; instance-domain serials of a
 * taken-back cluster are handed out again, also after a restart. */
START_TEST(idmap_reserve_for_trusted)
{
    char *dir = tu_mkdtemp();
    char err[256], name[64], root[64];
    idmap *m = idmap_open(dir, err, sizeof(err));
    idmap_set_policy(m, 4000, 256);
    idmap_begin(m, 1000);
    for (int i = 0; i < 95; i++) {
        snprintf(name, sizeof(name), "u%d", i);
        snprintf(root, sizeof(root), "/home/u%d", i);
        ck_assert_int_gt(cl(m, name, root), 0);
    }
    ck_assert_int_eq(idmap_indom(m, "u0", "arr"), 1);
    ck_assert_int_eq(idmap_indom(m, "u0", "arr2"), 2);
    ck_assert_int_eq(idmap_clusters_used(m), 95);
    /* the 96th untrusted prefix: only by taking back (u0, seen first) */
    idmap_begin(m, 2000);
    idmap_reclaim rec;
    char why[300];
    ck_assert_int_gt(idmap_cluster(m, "late", "/home/late", &rec, why, sizeof(why)), 0);
    ck_assert(rec.happened);
    ck_assert_str_eq(rec.prefix, "u0");
    ck_assert_int_eq(idmap_clusters_used(m), 95);
    /* u0's serials are reused */
    int s = idmap_indom(m, "late", "x");
    ck_assert(s == 1 || s == 2);
    /* trusted prefixes fill the reserve */
    for (int i = 0; i < 4000; i++) {
        snprintf(name, sizeof(name), "t%d", i);
        ck_assert_int_gt(cl(m, name, NULL), 0);
    }
    ck_assert_int_eq(idmap_clusters_used(m), 4095);
    /* full: the next trusted prefix takes back an untrusted cluster */
    idmap_begin(m, 3000);
    ck_assert_int_gt(idmap_cluster(m, "tlast", NULL, &rec, why, sizeof(why)), 0);
    ck_assert(rec.happened);
    ck_assert_int_eq(rec.prefix[0], 'u');
    ck_assert_int_eq(idmap_save(m), 0);
    idmap_free(m);
    m = idmap_open(dir, err, sizeof(err));
    ck_assert_msg(err[0] == '\0', "%s", err);
    idmap_begin(m, 4000);
    ck_assert_int_eq(cl(m, "tlast", NULL) > 0, 1);
    idmap_free(m);
    tu_rmtree(dir);
    free(dir);
}
END_TEST

/* A map written before owners were recorded still loads (its prefixes
 * count as untrusted of no known root until published again). */
START_TEST(idmap_old_format_loads)
{
    char *dir = tu_mkdtemp();
    tu_write(dir, "pmids", "cluster 1 old\nitem 1 0 v\nindom 3 old.arr\n");
    char err[256];
    idmap *m = idmap_open(dir, err, sizeof(err));
    ck_assert_msg(err[0] == '\0', "%s", err);
    idmap_begin(m, 5000);
    ck_assert_int_eq(cl(m, "old", NULL), 1);
    ck_assert_int_eq(idmap_item(m, 1, "v"), 0);
    ck_assert_int_eq(idmap_indom(m, "old", "arr"), 3);
    ck_assert_int_eq(idmap_indom(m, "old", "new"), 1);   /* a gap below the highest */
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
    tcase_add_test(tc, idmap_clusters_taken_back_from_gone_prefixes);
    tcase_add_test(tc, idmap_reserve_for_trusted);
    tcase_add_test(tc, idmap_old_format_loads);
    suite_add_tcase(s, tc);
    return s;
}
