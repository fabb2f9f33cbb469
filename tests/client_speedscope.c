/* Suite: client/render/speedscope: valid speedscope JSON whose samples and
 * weights reproduce the input stacks. */
#include <check.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "client/render/speedscope.h"
#include "common/strbuf.h"
#include "tests/testutil.h"

START_TEST(round_trips_stacks_and_weights)
{
    stacktab *t = stacktab_new();
    const char *s[] = { "main;a;b", "main;a", "main;c\"<q>", "x\xff" };
    double w[] = { 3, 4, 5, 1.5 };
    for (int i = 0; i < 4; i++)
        stacktab_add(t, s[i], strlen(s[i]), 0, w[i]);
    char *buf = NULL;
    size_t len = 0;
    FILE *fp = open_memstream(&buf, &len);
    ck_assert_int_eq(speedscope_write(fp, t, 0, "prof", "none"), 0);
    fclose(fp);
    json_error_t err;
    json_t *doc = json_loads(buf, 0, &err);
    ck_assert_msg(doc != NULL, "bad JSON: %s", err.text);
    ck_assert_str_eq(json_string_value(json_object_get(doc, "$schema")),
                     "https://www.speedscope.app/file-format-schema.json");
    json_t *frames = json_object_get(json_object_get(doc, "shared"), "frames");
    json_t *prof = json_array_get(json_object_get(doc, "profiles"), 0);
    ck_assert_str_eq(json_string_value(json_object_get(prof, "type")), "sampled");
    json_t *samples = json_object_get(prof, "samples");
    json_t *weights = json_object_get(prof, "weights");
    ck_assert_uint_eq(json_array_size(samples), 4);
    ck_assert_uint_eq(json_array_size(weights), 4);
    ck_assert_double_eq(json_number_value(json_object_get(prof, "endValue")), 13.5);
    /* rebuild each stack from frame names and compare weights */
    for (size_t i = 0; i < 4; i++) {
        json_t *st = json_array_get(samples, i);
        strbuf sb = STRBUF_INIT;
        for (size_t j = 0; j < json_array_size(st); j++) {
            json_int_t k = json_integer_value(json_array_get(st, j));
            const char *name = json_string_value(
                json_object_get(json_array_get(frames, (size_t)k), "name"));
            sb_printf(&sb, j ? ";%s" : "%s", name);
        }
        double wt = json_number_value(json_array_get(weights, i));
        const char *key = strcmp(sb.buf, "x\\xFF") == 0 ? "x\xff" : sb.buf;
        const stack_entry *e = stacktab_find(t, key, strlen(key));
        ck_assert_msg(e != NULL, "unknown stack %s", sb.buf);
        ck_assert_double_eq(e->count[0], wt);
        sb_free(&sb);
    }
    /* main, a, b, c"<q>, x\xff: shared names appear once */
    ck_assert_uint_eq(json_array_size(frames), 5);
    json_decref(doc);
    free(buf);
    stacktab_free(t);
}
END_TEST

TEST_SUITE(client_speedscope)
{
    Suite *s = suite_create(test_suite_name);
    TCase *tc = tcase_create("speedscope");
    tcase_add_test(tc, round_trips_stacks_and_weights);
    suite_add_tcase(s, tc);
    return s;
}
