/* Suite: relay/config, the PMDA's configuration (pmdajson's keys and
 * ours, defaults, errors, the runs section). */
#include "relay/config.h"
#include "tests/testutil.h"

#include <stdio.h>
#include <string.h>

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

TEST_SUITE(relay_config)
{
    Suite *s = suite_create(test_suite_name);
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, config_pmdajson_keys_and_ours);
    tcase_add_test(tc, config_defaults_and_errors);
    tcase_add_test(tc, config_runs);
    suite_add_tcase(s, tc);
    return s;
}
