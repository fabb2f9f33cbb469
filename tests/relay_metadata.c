/* Suite: relay/metadata, pmdajson's metadata and our extensions parsed
 * into the metric model; problems reported, never silent. */
#include "relay/metadata.h"
#include "tests/testutil.h"
#include "tests/testutil_relay.h"

#include <string.h>

static const char *problems_text(const source_meta *m, char *buf, size_t len)
{
    buf[0] = '\0';
    for (size_t i = 0; i < m->nproblems; i++) {
        strncat(buf, m->problems[i], len - strlen(buf) - 2);
        strncat(buf, "|", len - strlen(buf) - 1);
    }
    return buf;
}

START_TEST(metadata_full_pmdajson_shape)
{
    source_meta *m = tu_meta_parse(
        "{\"prefix\": \"net\", \"data-path\": \"d.json\", \"metrics\": ["
        " {\"name\": \"count\", \"pointer\": \"/count\", \"type\": \"integer\", \"units\": \"count\","
        "  \"semantics\": \"counter\", \"description\": \"how many\"},"
        " {\"name\": \"ratio\", \"pointer\": \"/r\", \"type\": \"double\", \"semantics\": \"discrete\"},"
        " {\"name\": \"sub.name\", \"pointer\": \"/n\", \"type\": \"string\"},"
        " {\"name\": \"ifs\", \"pointer\": \"/ifs\", \"type\": \"array\", \"index\": \"/__id\","
        "  \"metrics\": [{\"name\": \"rx.bytes\", \"pointer\": \"/rx\", \"type\": \"integer\"},"
        "               {\"name\": \"tx\", \"pointer\": \"/tx\", \"type\": \"integer\"}]},"
        " {\"name\": \"ifs2\", \"pointer\": \"/ifs2\", \"type\": \"array\", \"index\": \"/__id\","
        "  \"metrics\": [{\"name\": \"rx\", \"pointer\": \"/rx\", \"type\": \"integer\"}]}]}");
    ck_assert_str_eq(m->prefix, "net");
    ck_assert_str_eq(m->data_path, "d.json");
    ck_assert_uint_eq(m->nmetrics, 6);
    ck_assert_uint_eq(m->narrays, 2);
    int c = tu_meta_index(m, "count");
    ck_assert_int_eq(m->metrics[c].semantics, SEM_COUNTER);
    ck_assert_str_eq(m->metrics[c].units, "count");
    ck_assert_str_eq(m->metrics[c].description, "how many");
    ck_assert_int_eq(m->metrics[tu_meta_index(m, "ratio")].semantics, SEM_DISCRETE);
    /* a dot inside an array sub-metric name is fine (pmdajson crashed) */
    int rx = tu_meta_index(m, "ifs.rx.bytes");
    ck_assert_int_ge(rx, 0);
    ck_assert_int_eq(m->metrics[rx].array, 0);
    ck_assert_int_eq(m->metrics[tu_meta_index(m, "ifs2.rx")].array, 1);
    ck_assert_uint_eq(m->nproblems, 0);
    metadata_free(m);
}
END_TEST

START_TEST(metadata_problems_are_reported_not_silent)
{
    char buf[2048];
    source_meta *m = tu_meta_parse(
        "{\"metrics\": ["
        " {\"name\": \"x\", \"pointer\": \"/x\", \"type\": \"integer\"},"
        " {\"name\": \"bad sem\", \"pointer\": \"/x\", \"type\": \"integer\"},"
        " {\"name\": \"s\", \"pointer\": \"/s\", \"type\": \"integer\", \"semantics\": \"rate\"},"
        " {\"name\": \"t\", \"pointer\": \"/t\", \"type\": \"boolean\"},"
        " {\"name\": \"x\", \"pointer\": \"/y\", \"type\": \"integer\"},"
        " {\"name\": \"x.y\", \"pointer\": \"/y\", \"type\": \"integer\"},"
        " {\"name\": \"p\", \"pointer\": \"nope\", \"type\": \"integer\"},"
        " {\"name\": \"a\", \"pointer\": \"/a\", \"type\": \"array\", \"index\": \"/i\","
        "  \"metrics\": [{\"name\": \"in\", \"pointer\": \"/b\", \"type\": \"array\","
        "  \"index\": \"/i\", \"metrics\": []}]}],"
        " \"extra\": true}");
    problems_text(m, buf, sizeof(buf));
    ck_assert_str_eq(m->prefix, "dflt");
    /* "x" (1 char: pmdajson rejected it), and "s" kept with instant semantics */
    ck_assert_int_ge(tu_meta_find(m, "x"), 0);
    int s = tu_meta_find(m, "s");
    ck_assert_int_ge(s, 0);
    ck_assert_int_eq(m->metrics[s].semantics, SEM_INSTANT);
    ck_assert_int_lt(tu_meta_find(m, "t"), 0);
    ck_assert_int_lt(tu_meta_find(m, "x.y"), 0);
    ck_assert_msg(strstr(buf, "invalid semantics \"rate\"") != NULL, "%s", buf);
    ck_assert_msg(strstr(buf, "unknown type \"boolean\"") != NULL, "%s", buf);
    ck_assert_msg(strstr(buf, "duplicate metric name") != NULL, "%s", buf);
    ck_assert_msg(strstr(buf, "\"x\" is already a metric") != NULL, "%s", buf);
    ck_assert_msg(strstr(buf, "arrays inside arrays") != NULL, "%s", buf);
    ck_assert_msg(strstr(buf, "unknown metadata attribute \"extra\"") != NULL, "%s", buf);
    ck_assert_msg(strstr(buf, "metric \"bad sem\": name must match") != NULL, "%s", buf);
    ck_assert_msg(strstr(buf, "metric \"p\": missing or invalid \"pointer\"") != NULL, "%s", buf);
    metadata_free(m);
}
END_TEST

START_TEST(metadata_fatal_errors)
{
    static const char *bad[] = {
        "", "[]", "{\"prefix\": \"p\"}", "{\"prefix\": \"a.b\", \"metrics\": []}",
        "{\"prefix\": \"9x\", \"metrics\": []}", "{\"data-exec\": \"a 'b\", \"metrics\": []}",
        "{\"metrics\": [", NULL,
    };
    for (const char **b = bad; *b; b++) {
        char err[256] = "";
        ck_assert_msg(metadata_parse(*b, strlen(*b), "d", err, sizeof(err)) == NULL, "%s", *b);
        ck_assert_msg(strncmp(err, "metadata: ", 10) == 0, "%s", err);
    }
}
END_TEST

START_TEST(split_command_like_shlex)
{
    char err[128];
    char **a = metadata_split_command("/bin/echo '{\"v\": 1}' a\\ b \"c \\\"d\\\"\"  ", err,
                                      sizeof(err));
    ck_assert_ptr_nonnull(a);
    ck_assert_str_eq(a[0], "/bin/echo");
    ck_assert_str_eq(a[1], "{\"v\": 1}");
    ck_assert_str_eq(a[2], "a b");
    ck_assert_str_eq(a[3], "c \"d\"");
    ck_assert_ptr_null(a[4]);
    metadata_free_argv(a);
    ck_assert_ptr_null(metadata_split_command("   ", err, sizeof(err)));
    ck_assert_ptr_null(metadata_split_command("x \"y", err, sizeof(err)));
}
END_TEST

TEST_SUITE(relay_metadata)
{
    Suite *s = suite_create(test_suite_name);
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, metadata_full_pmdajson_shape);
    tcase_add_test(tc, metadata_problems_are_reported_not_silent);
    tcase_add_test(tc, metadata_fatal_errors);
    tcase_add_test(tc, split_command_like_shlex);
    suite_add_tcase(s, tc);
    return s;
}
