/* Suite: client/stack/top: self/total aggregation and output. */
#include <check.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "client/stack/top.h"
#include "tests/testutil.h"

static stacktab *table(void)
{
    stacktab *t = stacktab_new();
    const char *s[] = { "main;f;g", "main;f", "main;h;f", "main;rec;rec;rec" };
    double w[] = { 5, 3, 2, 4 };
    for (int i = 0; i < 4; i++)
        stacktab_add(t, s[i], strlen(s[i]), 0, w[i]);
    return t;
}

static const top_row *row(const top_result *r, const char *name)
{
    for (size_t i = 0; i < r->n; i++)
        if (r->rows[i].len == strlen(name)
            && memcmp(r->rows[i].name, name, r->rows[i].len) == 0)
            return &r->rows[i];
    return NULL;
}

START_TEST(self_and_total)
{
    stacktab *t = table();
    top_result *r = top_compute(t, 0);
    ck_assert_double_eq(r->grand_total, 14);
    ck_assert_double_eq(row(r, "main")->total, 14);
    ck_assert_double_eq(row(r, "main")->self, 0);
    ck_assert_double_eq(row(r, "f")->self, 5);     /* 3 + 2 */
    ck_assert_double_eq(row(r, "f")->total, 10);   /* 5 + 3 + 2 */
    ck_assert_double_eq(row(r, "g")->self, 5);
    ck_assert_double_eq(row(r, "rec")->total, 4);  /* recursion once */
    ck_assert_double_eq(row(r, "rec")->self, 4);
    top_sort(r, false);
    for (size_t i = 1; i < r->n; i++)
        ck_assert(r->rows[i - 1].self >= r->rows[i].self);
    top_sort(r, true);
    ck_assert_uint_eq(r->rows[0].len, 4);
    ck_assert_int_eq(memcmp(r->rows[0].name, "main", 4), 0);
    top_free(r);
    stacktab_free(t);
}
END_TEST

START_TEST(table_and_json_output)
{
    stacktab *t = table();
    top_result *r = top_compute(t, 0);
    top_sort(r, false);
    char *buf = NULL;
    size_t len = 0;
    FILE *fp = open_memstream(&buf, &len);
    top_write_table(fp, r, 2, "samples");
    fclose(fp);
    /* header + 2 rows; percentages of 14 */
    int lines = 0;
    for (char *p = buf; *p; p++)
        lines += *p == '\n';
    ck_assert_int_eq(lines, 3);
    ck_assert_ptr_nonnull(strstr(buf, "35.71%"));     /* 5/14 */
    free(buf);

    fp = open_memstream(&buf, &len);
    top_write_json(fp, r, 0, "samples", "self");
    fclose(fp);
    json_error_t err;
    json_t *doc = json_loads(buf, 0, &err);
    ck_assert_msg(doc != NULL, "bad JSON: %s", err.text);
    ck_assert_int_eq(json_integer_value(json_object_get(doc, "total")), 14);
    json_t *frames = json_object_get(doc, "frames");
    ck_assert_uint_eq(json_array_size(frames), r->n);
    double self_sum = 0;
    for (size_t i = 0; i < json_array_size(frames); i++)
        self_sum += json_number_value(json_object_get(json_array_get(frames, i), "self"));
    ck_assert_double_eq(self_sum, 14);   /* self weights partition */
    json_decref(doc);
    free(buf);
    top_free(r);
    stacktab_free(t);
}
END_TEST

/* Three load levels of different totals: "hot" rises 10 % -> 30 % ->
 * 50 % of self weight, "cold" falls 60 % -> 45 % -> 25 %, "warm" 30 % ->
 * 25 % -> 25 %; "main" is never a leaf. */
static top_result *level(double hot, double warm, double cold)
{
    stacktab *t = stacktab_new();
    stacktab_add(t, "main;hot", 8, 0, hot);
    stacktab_add(t, "main;warm", 9, 0, warm);
    stacktab_add(t, "main;cold", 9, 0, cold);
    top_result *r = top_compute(t, 0);
    /* the rows' names live in r->names, not in t */
    stacktab_free(t);
    return r;
}

START_TEST(changes_ranked)
{
    top_result *r[3] = { level(10, 30, 60), level(60, 50, 90),
                         level(500, 250, 250) };
    top_changes *c = top_changes_compute(r, 3, false, false);
    ck_assert_uint_eq(c->n, 3);
    ck_assert_uint_eq(c->nrows, 3);            /* main left out */
    const char *order[] = { "hot", "cold", "warm" };
    const double change[] = { 40, -35, -5 };
    for (size_t i = 0; i < 3; i++) {
        const top_change_row *row = &c->rows[i];
        ck_assert_uint_eq(row->len, strlen(order[i]));
        ck_assert_int_eq(memcmp(row->name, order[i], row->len), 0);
        ck_assert_double_eq_tol(row->change, change[i], 1e-9);
    }
    ck_assert_double_eq_tol(c->rows[0].value[1], 30, 1e-9);
    ck_assert_double_eq(c->totals[2], 1000);

    char *buf = NULL;
    size_t len = 0;
    FILE *fp = open_memstream(&buf, &len);
    const char *labels[] = { "low", "mid", "high" };
    top_write_changes(fp, c, 1, "samples", labels);
    fclose(fp);
    ck_assert_ptr_nonnull(strstr(buf, " 10.00%   30.00%   50.00%  +40.00  hot\n"));
    ck_assert_ptr_null(strstr(buf, "cold"));   /* --limit 1 */
    ck_assert_ptr_nonnull(strstr(buf, "      3  1,000  high\n"));
    free(buf);
    top_changes_free(c);

    /* by total: main is in every stack (100 % each time, change 0, last);
     * absolute: the weights, hot +490 first */
    c = top_changes_compute(r, 3, true, false);
    ck_assert_uint_eq(c->nrows, 4);
    ck_assert_uint_eq(c->rows[3].len, 4);
    ck_assert_double_eq_tol(c->rows[3].change, 0, 1e-9);
    top_changes_free(c);
    c = top_changes_compute(r, 3, false, true);
    ck_assert_double_eq(c->rows[0].change, 490);
    ck_assert_double_eq(c->rows[1].change, 220);   /* warm */
    top_changes_free(c);
    for (int i = 0; i < 3; i++)
        top_free(r[i]);
}
END_TEST

/* Equal changes: the larger last share first, then by name; two
 * profiles work as N. */
START_TEST(changes_ties)
{
    top_result *r[2] = { level(20, 20, 60), level(40, 40, 20) };
    top_changes *c = top_changes_compute(r, 2, false, false);
    ck_assert_uint_eq(c->nrows, 3);
    ck_assert_int_eq(memcmp(c->rows[0].name, "cold", 4), 0);   /* -40 */
    ck_assert_int_eq(memcmp(c->rows[1].name, "hot", 3), 0);    /* +20 */
    ck_assert_int_eq(memcmp(c->rows[2].name, "warm", 4), 0);   /* +20 */
    top_changes_free(c);
    for (int i = 0; i < 2; i++)
        top_free(r[i]);
}
END_TEST

TEST_SUITE(client_top)
{
    Suite *s = suite_create(test_suite_name);
    TCase *tc = tcase_create("top");
    tcase_add_test(tc, self_and_total);
    tcase_add_test(tc, table_and_json_output);
    tcase_add_test(tc, changes_ranked);
    tcase_add_test(tc, changes_ties);
    suite_add_tcase(s, tc);
    return s;
}
