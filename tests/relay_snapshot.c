/* Suite: relay/snapshot, a data document mapped through its metadata:
 * values follow their own instance names, a mismatch touches only that
 * metric. */
#include "relay/metadata.h"
#include "relay/snapshot.h"
#include "tests/testutil.h"
#include "tests/testutil_relay.h"

#include <string.h>

static const char *two_arrays_meta =
    "{\"metrics\": ["
    " {\"name\": \"n\", \"pointer\": \"/n\", \"type\": \"integer\"},"
    " {\"name\": \"str\", \"pointer\": \"/s\", \"type\": \"string\"},"
    " {\"name\": \"d\", \"pointer\": \"/d\", \"type\": \"double\"},"
    " {\"name\": \"a\", \"pointer\": \"/a\", \"type\": \"array\", \"index\": \"/id\","
    "  \"metrics\": [{\"name\": \"v\", \"pointer\": \"/v\", \"type\": \"integer\"}]},"
    " {\"name\": \"b\", \"pointer\": \"/b\", \"type\": \"array\", \"index\": \"/id\","
    "  \"metrics\": [{\"name\": \"v\", \"pointer\": \"/v\", \"type\": \"integer\"}]}]}";

START_TEST(snapshot_two_arrays_and_spaces)
{
    source_meta *m = tu_meta_parse(two_arrays_meta);
    json_t *d = json_loads("{\"n\": 5, \"s\": \"hi\", \"d\": 2,"
                           " \"a\": [{\"id\": \"10.0.0.1 --> 10.0.0.2\", \"v\": 1},"
                           "        {\"id\": \"10.0.0.1 --> 10.0.0.3\", \"v\": 2}],"
                           " \"b\": [{\"id\": 7, \"v\": 70}, {\"id\": 8, \"v\": 80},"
                           "        {\"id\": 7, \"v\": 99}, {\"id\": [1], \"v\": 1}]}",
                           0, NULL);
    snapshot *s = snapshot_build(m, d);
    json_decref(d);
    ck_assert_uint_eq(s->arrays[0].ninsts, 2);
    ck_assert_str_eq(s->arrays[0].insts[1].name, "10.0.0.1 --> 10.0.0.3");
    int av = tu_meta_index(m, "a.v"), bv = tu_meta_index(m, "b.v");
    ck_assert_int_eq(s->values[av][1].u.i, 2);   /* value follows its own name */
    ck_assert_uint_eq(s->arrays[1].ninsts, 2);   /* duplicate 7 and [1] dropped */
    ck_assert_uint_eq(s->arrays[1].skipped, 2);
    ck_assert(s->arrays[1].insts[0].is_number);
    ck_assert_str_eq(s->arrays[1].insts[0].name, "7");
    ck_assert_int_eq(s->values[bv][1].u.i, 80);
    ck_assert_double_eq(s->values[tu_meta_index(m, "d")][0].u.d, 2.0);
    ck_assert_str_eq(s->values[tu_meta_index(m, "str")][0].u.s, "hi");
    ck_assert_uint_eq(s->nproblems, 0);
    snapshot_free(s);
    metadata_free(m);
}
END_TEST

START_TEST(snapshot_mismatch_touches_only_that_metric)
{
    source_meta *m = tu_meta_parse(two_arrays_meta);
    json_t *d = json_loads("{\"n\": \"five\", \"s\": 3, \"d\": true, \"a\": {},"
                           " \"b\": [{\"id\": \"x\", \"v\": 1}, {\"id\": \"y\"}]}", 0, NULL);
    snapshot *s = snapshot_build(m, d);
    json_decref(d);
    char buf[256];
    int n = tu_meta_index(m, "n"), bv = tu_meta_index(m, "b.v");
    ck_assert_int_eq(s->values[n][0].state, VAL_BADTYPE);
    ck_assert_int_eq(s->values[tu_meta_index(m, "str")][0].state, VAL_BADTYPE);
    ck_assert_int_eq(s->values[tu_meta_index(m, "d")][0].state, VAL_BADTYPE);
    ck_assert_int_eq(s->values[bv][0].state, VAL_OK);
    ck_assert_int_eq(s->values[bv][1].state, VAL_MISSING);
    ck_assert_str_eq(snapshot_problem(s, m, n, buf, sizeof(buf)),
                     "JSON value is not of type integer (pointer \"/n\")");
    ck_assert_str_eq(snapshot_problem(s, m, bv, buf, sizeof(buf)),
                     "instance \"y\": no value at pointer (pointer \"/v\")");
    ck_assert_ptr_nonnull(strstr(snapshot_problem(s, m, tu_meta_index(m, "a.v"), buf, sizeof(buf)),
                                 "not lead to a JSON array"));
    ck_assert_uint_eq(s->nproblems, 5);
    snapshot_free(s);
    metadata_free(m);
}
END_TEST

TEST_SUITE(relay_snapshot)
{
    Suite *s = suite_create(test_suite_name);
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, snapshot_two_arrays_and_spaces);
    tcase_add_test(tc, snapshot_mismatch_touches_only_that_metric);
    suite_add_tcase(s, tc);
    return s;
}
