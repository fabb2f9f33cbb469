/* Suite: pmda/instances, instance ids: stable and distinct, departures
 * remembered within bounds, names forgotten under churn. */
#include "pmda/instances.h"
#include "tests/testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

START_TEST(instance_ids_stable_and_distinct)
{
    inst_table *t = inst_table_new();
    int a = inst_table_id(t, "10.0.0.1 --> 10.0.0.2", false, 0);
    int b = inst_table_id(t, "10.0.0.1 --> 10.0.0.3", false, 0);
    ck_assert_int_ne(a, b);
    ck_assert_int_eq(inst_table_id(t, "10.0.0.1 --> 10.0.0.2", false, 0), a);
    ck_assert_int_eq(inst_table_id(t, "42", true, 42), 42);
    /* a second table (a restart) derives the same ids */
    inst_table *t2 = inst_table_new();
    ck_assert_int_eq(inst_table_id(t2, "10.0.0.1 --> 10.0.0.3", false, 0), b);
    /* collision: an integer index equal to an existing id probes onwards */
    int c = inst_table_id(t2, "x", true, b);
    ck_assert_int_eq(c, b + 1);
    inst_table_free(t2);

    pmdaIndom idp = {0};
    const char *names[] = {"eth0", "lo", "wlan0"};
    ck_assert_int_eq(inst_table_fill(t, &idp, names, NULL, NULL, 3), 0);
    ck_assert_int_eq(idp.it_numinst, 3);
    ck_assert_str_eq(idp.it_set[2].i_name, "wlan0");
    for (int i = 0; i < 3; i++)
        ck_assert_int_eq(inst_table_position(t, &idp, idp.it_set[i].i_inst), i);
    ck_assert_int_eq(inst_table_position(t, &idp, idp.it_set[0].i_inst), 0);
    ck_assert_int_eq(inst_table_position(t, &idp, 12345), -1);
    inst_table_clear(&idp);
    inst_table_free(t);
}
END_TEST

START_TEST(instance_departures_remembered_within_bounds)
{
    inst_table *t = inst_table_new();
    pmdaIndom idp = {0};
    const char *two[] = {"a", "b"};
    ck_assert_int_eq(inst_table_fill(t, &idp, two, NULL, NULL, 2), 0);
    unsigned int b = (unsigned int)idp.it_set[1].i_inst;
    ck_assert_ptr_null(inst_table_departed(t, b));     /* still there */
    ck_assert_int_eq(inst_table_fill(t, &idp, two, NULL, NULL, 1), 0);
    ck_assert_str_eq(inst_table_departed(t, b), "b");
    ck_assert_ptr_null(inst_table_departed(t, 12345));

    /* 100 names of 4000 bytes leave at once: only the newest that fit in
     * the byte bound stay remembered */
    static char big[100][4001];
    const char *names[100];
    unsigned int ids[100];
    for (int i = 0; i < 100; i++) {
        memset(big[i], 'a' + i % 26, 4000);
        snprintf(big[i], 12, "%03d", i);
        big[i][3] = '-';
        names[i] = big[i];
    }
    ck_assert_int_eq(inst_table_fill(t, &idp, names, NULL, NULL, 100), 0);
    for (int i = 0; i < 100; i++)
        ids[i] = (unsigned int)idp.it_set[i].i_inst;
    ck_assert_int_eq(inst_table_fill(t, &idp, names, NULL, NULL, 0), 0);
    ck_assert_ptr_nonnull(inst_table_departed(t, ids[99]));
    ck_assert_str_eq(inst_table_departed(t, ids[99]), big[99]);
    ck_assert_ptr_null(inst_table_departed(t, ids[0]));
    inst_table_clear(&idp);
    inst_table_free(t);
}
END_TEST

/* A domain whose names keep changing (a stacks table under churn): the
 * table's memory follows the domain's size, not its history.  Members
 * keep their ids throughout, the recently departed keep theirs (and their
 * names for late clients), and a forgotten name that comes back gets its
 * hash-derived id again. */
START_TEST(instance_names_forgotten_under_churn)
{
    inst_table *t = inst_table_new();
    pmdaIndom idp = {0};
    static char buf[101][32];
    const char *names[101];
    names[0] = "always";
    size_t most = 0;
    int always = -1, last_gone = -1;
    for (int gen = 0; gen < 1000; gen++) {
        for (int i = 1; i <= 100; i++) {
            snprintf(buf[i], sizeof(buf[i]), "g%d;f%d", gen, i);
            names[i] = buf[i];
        }
        ck_assert_int_eq(inst_table_fill(t, &idp, names, NULL, NULL, 101), 0);
        if (always < 0)
            always = idp.it_set[0].i_inst;
        ck_assert_int_eq(idp.it_set[0].i_inst, always);
        if (last_gone >= 0)   /* g<gen-1>;f1 just left: its name is answered */
            ck_assert_ptr_nonnull(inst_table_departed(t, (unsigned int)last_gone));
        last_gone = idp.it_set[1].i_inst;
        if (inst_table_remembered(t) > most)
            most = inst_table_remembered(t);
    }
    /* 100,001 names seen; at most twice the members and the departed ring
     * (4096) plus slack are remembered */
    ck_assert_uint_le(most, 2 * (101 + INST_TABLE_DEPARTED) + 1024);
    ck_assert_uint_ge(most, 101 + INST_TABLE_DEPARTED);

    /* a name that left in the last fill comes back with its id */
    const char *back[] = {"always", "g998;f7"};
    inst_table *fresh = inst_table_new();
    int want = inst_table_id(t, "g998;f7", false, 0);
    ck_assert_int_eq(inst_table_fill(t, &idp, back, NULL, NULL, 2), 0);
    ck_assert_int_eq(idp.it_set[1].i_inst, want);
    /* one forgotten long ago comes back with the id a new table gives it */
    const char *old[] = {"always", "g3;f5"};
    ck_assert_int_eq(inst_table_fill(t, &idp, old, NULL, NULL, 2), 0);
    ck_assert_int_eq(idp.it_set[1].i_inst, inst_table_id(fresh, "g3;f5", false, 0));
    ck_assert_int_eq(idp.it_set[0].i_inst, always);
    inst_table_free(fresh);
    inst_table_clear(&idp);
    inst_table_free(t);

    /* long names: bounded in bytes too (a few hundred 4000-byte names,
     * not one per fill) */
    t = inst_table_new();
    static char lng[10][4001];
    const char *ln[10];
    most = 0;
    for (int gen = 0; gen < 2000; gen++) {
        for (int i = 0; i < 10; i++) {
            memset(lng[i], 'x', 4000);
            snprintf(lng[i], 24, "%d;%d;", gen, i);
            lng[i][strlen(lng[i])] = 'y';
            lng[i][4000] = '\0';
            ln[i] = lng[i];
        }
        ck_assert_int_eq(inst_table_fill(t, &idp, ln, NULL, NULL, 10), 0);
        if (inst_table_remembered(t) > most)
            most = inst_table_remembered(t);
    }
    ck_assert_uint_le(most, 600);
    inst_table_clear(&idp);
    inst_table_free(t);
}
END_TEST

TEST_SUITE(pmda_instances)
{
    Suite *s = suite_create(test_suite_name);
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, instance_ids_stable_and_distinct);
    tcase_add_test(tc, instance_departures_remembered_within_bounds);
    tcase_add_test(tc, instance_names_forgotten_under_churn);
    suite_add_tcase(s, tc);
    return s;
}
