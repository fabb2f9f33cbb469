/* Suite: relay/pointer, RFC 6901 JSON pointers. */
#include "relay/pointer.h"
#include "tests/testutil.h"

#include <jansson.h>
#include <string.h>

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

TEST_SUITE(relay_pointer)
{
    Suite *s = suite_create(test_suite_name);
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, pointer_rfc6901_examples);
    tcase_add_test(tc, pointer_failures);
    suite_add_tcase(s, tc);
    return s;
}
