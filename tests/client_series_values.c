/* Suite: client/input/series_values, pmproxy's /series/values reply read
 * in place: the fields of each object, keys in any order, and every
 * shape it does not know refused (the caller then uses jansson). */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "client/input/series_values.h"
#include "tests/testutil.h"

typedef struct seen {
    int  n;
    char line[8][160];
} seen;

static void keep(void *arg, const series_value *v)
{
    seen *s = arg;
    ck_assert_int_lt(s->n, 8);
    snprintf(s->line[s->n++], sizeof s->line[0], "%.*s|%.*s|%.*s|%.3f",
             (int)v->series_len, v->series ? v->series : "",
             (int)v->instance_len, v->instance ? v->instance : "",
             (int)v->value_len, v->value ? v->value : "", v->timestamp);
}

static long scan(const char *body, seen *s)
{
    memset(s, 0, sizeof *s);
    return series_values_scan(body, strlen(body), keep, s);
}

START_TEST(replies_are_read_in_place)
{
    seen s;
    const char *body =
        "[{\"series\":\"aa\",\"instance\":\"i1\",\"timestamp\":1796212504479.377,"
        "\"value\":\"117\"},\n"
        " { \"value\" : \"5\" , \"timestamp\" : 12.5 , \"series\" : \"bb\" ,"
        " \"other\": \"x\", \"n\": -3e2 }]\n";
    ck_assert_int_eq(scan(body, &s), 2);
    ck_assert_str_eq(s.line[0], "aa|i1|117|1796212504479.377");
    /* keys in any order, no instance (a metric without instances),
     * unknown keys passed over */
    ck_assert_str_eq(s.line[1], "bb||5|12.500");
    ck_assert_int_eq(scan("[]", &s), 0);
    ck_assert_int_eq(scan(" [ ] ", &s), 0);
    ck_assert_int_eq(scan("[{}]", &s), 1);
    ck_assert_str_eq(s.line[0], "|||nan");
    /* not cut by a NUL-free but unterminated body: the length bounds it */
    const char *cut = "[{\"series\":\"aa\"}]XYZ";
    memset(&s, 0, sizeof s);
    ck_assert_int_eq(series_values_scan(cut, strlen(cut) - 3, keep, &s), 1);
}
END_TEST

START_TEST(other_shapes_are_refused)
{
    seen s;
    const char *bad[] = {
        "",                                         /* nothing */
        "{\"message\":\"no such series\"}",         /* pmproxy's error */
        "[{\"series\":\"a\\\"b\"}]",                /* an escape */
        "[{\"series\":\"a\tb\"}]",                  /* a control byte */
        "[{\"va\x93ue\":\"7\"}]",                   /* not ASCII (not UTF-8) */
        "[{\"series\":\"caf\xc3\xa9\"}]",           /* UTF-8: for jansson */
        "[{\"series\":{\"x\":1}}]",                 /* nested */
        "[{\"series\":[1]}]",
        "[{\"series\":true}]",                      /* a literal */
        "[{\"series\":\"a\"}",                      /* cut short */
        "[{\"series\":\"a}]",
        "[{\"series\":\"a\"},]",                    /* trailing comma */
        "[{\"series\":\"a\"}] x",                   /* trailing text */
        "[{\"series\" \"a\"}]",                     /* no colon */
        "[{\"timestamp\":1.2.3.4e}]",               /* not a number */
        "[{\"series\":\"a\",\"series\":\"b\"}]",      /* a key twice */
        "[{\"timestamp\":1,\"timestamp\":2}]",
        "[{\"value\":1}]",                          /* a known key's type */
        "[{\"timestamp\":\"1\"}]",
        "[{\"timestamp\":.5}]",                     /* not JSON's grammar */
        "[{\"timestamp\":+5}]",
        "[{\"timestamp\":05}]",
        "[{\"timestamp\":5.}]",
        "[{\"timestamp\":1e}]",
        "[{\"timestamp\":1e999}]",                  /* not finite */
        "[{\"timestamp\":99999999999999999999}]",   /* over a long long */
        "[{\"timestamp\":"
        "1111111111111111111111111111111111111111111111111111111111111111}]",
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++)
        ck_assert_msg(scan(bad[i], &s) == -1, "accepted: %s", bad[i]);
}
END_TEST

TEST_SUITE(client_series_values)
{
    Suite *s = suite_create(test_suite_name);
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, replies_are_read_in_place);
    tcase_add_test(tc, other_shapes_are_refused);
    suite_add_tcase(s, tc);
    return s;
}
