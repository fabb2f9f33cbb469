/* Suites: strmap, pointer, config. */
#include "relay/config.h"
#include "relay/pointer.h"
#include "relay/strmap.h"
#include "tests/suites.h"

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

static json_t *doc(const char *text)
{
    json_t *d = json_loads(text, 0, NULL);
    ck_assert_ptr_nonnull(d);
    return d;
}

START_TEST(pointer_rfc6901_examples)
{
    /* the examples of RFC 6901 section 5 */
    json_t *d = doc("{\"foo\": [\"bar\", \"baz\"], \"\": 0, \"a/b\": 1, \"c%d\": 2, \"e^f\": 3,"
                    " \"g|h\": 4, \"i\\\\j\": 5, \"k\\\"l\": 6, \" \": 7, \"m~n\": 8}");
    ck_assert_ptr_eq(pointer_get(d, "", NULL), d);
    ck_assert_str_eq(json_string_value(pointer_get(d, "/foo/0", NULL)), "bar");
    ck_assert_int_eq(json_integer_value(pointer_get(d, "/", NULL)), 0);
    ck_assert_int_eq(json_integer_value(pointer_get(d, "/a~1b", NULL)), 1);
    ck_assert_int_eq(json_integer_value(pointer_get(d, "/c%d", NULL)), 2);
    ck_assert_int_eq(json_integer_value(pointer_get(d, "/i\\j", NULL)), 5);
    ck_assert_int_eq(json_integer_value(pointer_get(d, "/k\"l", NULL)), 6);
    ck_assert_int_eq(json_integer_value(pointer_get(d, "/ ", NULL)), 7);
    ck_assert_int_eq(json_integer_value(pointer_get(d, "/m~0n", NULL)), 8);
    json_decref(d);
}
END_TEST

START_TEST(pointer_failures)
{
    json_t *d = doc("{\"a\": [1, 2], \"s\": \"x\"}");
    const char *why = NULL;
    ck_assert_ptr_null(pointer_get(d, "/b", &why));
    ck_assert_str_eq(why, "pointer not found in data");
    ck_assert_ptr_null(pointer_get(d, "/a/2", &why));
    ck_assert_str_eq(why, "array index out of range");
    ck_assert_ptr_null(pointer_get(d, "/a/01", &why));
    ck_assert_ptr_null(pointer_get(d, "/a/-", &why));
    ck_assert_ptr_null(pointer_get(d, "/s/x", &why));
    ck_assert_str_eq(why, "pointer goes through a non-container value");
    ck_assert_ptr_null(pointer_get(d, "a", &why));
    ck_assert_int_ne(pointer_check("/x~2"), 0);
    ck_assert_int_eq(pointer_check("/x~1~0"), 0);
    json_decref(d);
}
END_TEST

START_TEST(config_pmdajson_keys_and_ours)
{
    char err[256], warn[256];
    const char *text = "{\"directory_list\": [\"/a\", \"/b\"], \"trusted_directory_list\": [\"/t\"],"
                       " \"poll_interval\": 0.5, \"exec_timeout\": 3, \"max_document_size\": 65536,"
                       " \"colour\": \"blue\"}";
    relay_config *c = config_parse(text, strlen(text), err, sizeof(err), warn, sizeof(warn));
    ck_assert_ptr_nonnull(c);
    ck_assert_uint_eq(c->ndirectories, 2);
    ck_assert_str_eq(c->directories[1], "/b");
    ck_assert_uint_eq(c->ntrusted_directories, 1);
    ck_assert_double_eq(c->poll_interval, 0.5);
    ck_assert_double_eq(c->exec_timeout, 3);
    ck_assert_uint_eq(c->max_document_size, 65536);
    ck_assert_ptr_nonnull(strstr(warn, "unknown option \"colour\""));
    config_free(c);
}
END_TEST

START_TEST(config_defaults_and_errors)
{
    char err[256], warn[256];
    relay_config *c = config_parse("{}", 2, err, sizeof(err), warn, sizeof(warn));
    ck_assert_ptr_nonnull(c);
    ck_assert_double_eq(c->exec_timeout, 2.0);
    ck_assert_double_eq(c->poll_interval, 1.0);
    ck_assert_str_eq(c->exec_user, "nobody");
    config_free(c);
    static const char *bad[] = {
        "[1]", "{\"directory_list\": \"/a\"}", "{\"directory_list\": [3]}",
        "{\"poll_interval\": -1}", "{\"exec_timeout\": \"2\"}", "{\"max_document_size\": 5}",
        "{\"a\": 1, \"a\": 2}", "{", NULL,
    };
    for (const char **b = bad; *b; b++) {
        err[0] = '\0';
        ck_assert_msg(config_parse(*b, strlen(*b), err, sizeof(err), NULL, 0) == NULL, "%s", *b);
        ck_assert_msg(strncmp(err, "config: ", 8) == 0, "%s -> %s", *b, err);
    }
}
END_TEST

START_TEST(config_runs)
{
    char err[256], warn[256];
    /* off by default, with the documented limits */
    relay_config *c = config_parse("{}", 2, err, sizeof(err), warn, sizeof(warn));
    ck_assert_ptr_nonnull(c);
    ck_assert(!c->runs.enabled);
    ck_assert_uint_eq(c->runs.nscripts, 0);
    ck_assert_double_eq(c->runs.max_duration, 300);
    ck_assert_double_eq(c->runs.default_duration, 30);
    ck_assert_uint_eq(c->runs.max_concurrent, 1);
    ck_assert_uint_eq(c->runs.max_queued, 4);
    ck_assert_ptr_null(c->runs.command);
    config_free(c);
    const char *good = "{\"runs\": {\"enabled\": true, \"scripts\": [\"profile\", \"sys_lat2\"],"
                       " \"max_duration\": 20, \"command\": \"/opt/bin/staprelay\", \"x\": 1}}";
    c = config_parse(good, strlen(good), err, sizeof(err), warn, sizeof(warn));
    ck_assert_msg(c != NULL, "%s", err);
    ck_assert(c->runs.enabled);
    ck_assert_uint_eq(c->runs.nscripts, 2);
    ck_assert_str_eq(c->runs.scripts[1], "sys_lat2");
    ck_assert_double_eq(c->runs.default_duration, 20);   /* clamped to the maximum */
    ck_assert_str_eq(c->runs.command, "/opt/bin/staprelay");
    ck_assert_ptr_nonnull(strstr(warn, "runs.x"));
    config_free(c);
    static const char *bad[] = {
        "{\"runs\": true}", "{\"runs\": {\"enabled\": 1}}",
        "{\"runs\": {\"scripts\": [\"../x\"]}}", "{\"runs\": {\"scripts\": [\"-x\"]}}",
        "{\"runs\": {\"scripts\": [\"Profile\"]}}", "{\"runs\": {\"scripts\": \"profile\"}}",
        "{\"runs\": {\"max_duration\": 0}}", "{\"runs\": {\"max_concurrent\": 0}}",
        "{\"runs\": {\"command\": \"\"}}", "{\"runs\": {\"directory\": 5}}", NULL,
    };
    for (const char **b = bad; *b; b++) {
        err[0] = '\0';
        ck_assert_msg(config_parse(*b, strlen(*b), err, sizeof(err), NULL, 0) == NULL, "%s", *b);
        ck_assert_msg(strstr(err, "runs") != NULL, "%s -> %s", *b, err);
    }
}
END_TEST

Suite *strmap_suite(void)
{
    Suite *s = suite_create("strmap");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, strmap_put_get_del);
    suite_add_tcase(s, tc);
    return s;
}

Suite *pointer_suite(void)
{
    Suite *s = suite_create("pointer");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, pointer_rfc6901_examples);
    tcase_add_test(tc, pointer_failures);
    suite_add_tcase(s, tc);
    return s;
}

Suite *config_suite(void)
{
    Suite *s = suite_create("config");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, config_pmdajson_keys_and_ours);
    tcase_add_test(tc, config_defaults_and_errors);
    tcase_add_test(tc, config_runs);
    suite_add_tcase(s, tc);
    return s;
}
