/* Suite: client/input/folded: the folded line grammar (and the counts
 * client/render/folded_out writes, read back by it). */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "client/input/folded.h"
#include "client/render/folded_out.h"
#include "tests/testutil.h"

static bool parse(const char *s, folded_line *fl)
{
    return folded_parse(s, strlen(s), fl);
}

START_TEST(plain_line)
{
    folded_line fl;
    ck_assert(parse("main;foo;bar 42", &fl));
    ck_assert_int_eq(fl.ncols, 1);
    ck_assert_uint_eq(fl.stack_len, strlen("main;foo;bar"));
    ck_assert_int_eq(strncmp(fl.stack, "main;foo;bar", fl.stack_len), 0);
    ck_assert_double_eq(fl.count[0], 42);
}
END_TEST

START_TEST(fractional_counts_and_forms_flamegraph_rejects)
{
    folded_line fl;
    ck_assert(parse("a;b 12.5", &fl));
    ck_assert_double_eq(fl.count[0], 12.5);
    ck_assert(parse("a;b 12.", &fl));
    ck_assert_double_eq(fl.count[0], 12);
    ck_assert(!parse("a;b .5", &fl));
    ck_assert(!parse("a;b 1e5", &fl));
    ck_assert(!parse("a;b -3", &fl));
    ck_assert(!parse("a;b", &fl));
    ck_assert(!parse("42", &fl));
    ck_assert(!parse("", &fl));
}
END_TEST

/* Issue 13: counts of 1e15 and more came out as "1.84467440737096e+19",
 * which fold could not read back.  Whole counts are written in full
 * digits and read back as the same value; a count of many digits is not
 * cut. */
START_TEST(large_counts_round_trip)
{
    static const double counts[] = {1e15, 9007199254740993.0, 18446744073709551615.0, 1e300,
                                    123456789012345678901234567890.0};
    for (size_t i = 0; i < sizeof(counts) / sizeof(counts[0]); i++) {
        char *text = NULL;
        size_t len = 0;
        FILE *f = open_memstream(&text, &len);
        fputs("a;b ", f);
        folded_print_count(f, counts[i]);
        fclose(f);
        ck_assert_msg(strchr(text, 'e') == NULL, "exponent in %s", text);
        folded_line fl;
        ck_assert_msg(parse(text, &fl), "cannot read back %s", text);
        ck_assert_msg(fl.count[0] == counts[i], "%s read back as %.17g", text, fl.count[0]);
        free(text);
    }
    folded_line fl;
    ck_assert(parse("a;b 100000000000000000000000000000000000000000000000000000000000000000000", &fl));
    ck_assert(fl.count[0] > 9.9e67 && fl.count[0] < 1.1e68);
}
END_TEST

START_TEST(two_columns)
{
    folded_line fl;
    ck_assert(parse("a;b 3 7", &fl));
    ck_assert_int_eq(fl.ncols, 2);
    ck_assert_double_eq(fl.count[0], 3);
    ck_assert_double_eq(fl.count[1], 7);
    ck_assert_uint_eq(fl.stack_len, 3);
}
END_TEST

START_TEST(spaces_inside_frames_survive)
{
    folded_line fl;
    ck_assert(parse("V8 WorkerThread;do thing\t9", &fl));
    ck_assert_uint_eq(fl.stack_len, strlen("V8 WorkerThread;do thing"));
    ck_assert_double_eq(fl.count[0], 9);
    ck_assert(parse("a;b   5", &fl));           /* extra blanks trimmed */
    ck_assert_uint_eq(fl.stack_len, 3);
}
END_TEST

START_TEST(feed_fills_both_columns)
{
    stacktab *t = stacktab_new();
    stack_sink sink;
    stack_sink_init(&sink, t, 0, false);
    ck_assert(folded_feed(&sink, "a;b 3 7", 7));
    ck_assert(folded_feed(&sink, "a;c 2", 5));
    ck_assert(!folded_feed(&sink, "junk", 4));
    ck_assert_double_eq(stacktab_total(t, 0), 5);
    ck_assert_double_eq(stacktab_total(t, 1), 7);
    stack_sink_free(&sink);
    stacktab_free(t);
}
END_TEST

START_TEST(strip_hex_rewrites_addresses)
{
    stacktab *t = stacktab_new();
    stack_sink sink;
    stack_sink_init(&sink, t, 0, true);
    const char *s = "main;0x7f00ab;f 0x1 3";
    ck_assert(folded_feed(&sink, s, strlen(s)));
    const char *want = "main;0x...;f 0x...";
    ck_assert_ptr_nonnull(stacktab_find(t, want, strlen(want)));
    stack_sink_free(&sink);
    stacktab_free(t);
}
END_TEST

TEST_SUITE(client_folded)
{
    Suite *s = suite_create(test_suite_name);
    TCase *tc = tcase_create("parse");
    tcase_add_test(tc, plain_line);
    tcase_add_test(tc, fractional_counts_and_forms_flamegraph_rejects);
    tcase_add_test(tc, two_columns);
    tcase_add_test(tc, large_counts_round_trip);
    tcase_add_test(tc, spaces_inside_frames_survive);
    tcase_add_test(tc, feed_fills_both_columns);
    tcase_add_test(tc, strip_hex_rewrites_addresses);
    suite_add_tcase(s, tc);
    return s;
}
