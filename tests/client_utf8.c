/* Suite: client/util/utf8: validation and escaping of frame names. */
#include <check.h>
#include <string.h>

#include "client/util/utf8.h"
#include "tests/testutil.h"

static void xml_is(const char *in, size_t n, bool quot, const char *want)
{
    strbuf sb = STRBUF_INIT;
    xml_escape(&sb, in, n, quot);
    ck_assert_str_eq(sb.buf ? sb.buf : "", want);
    sb_free(&sb);
}

START_TEST(decode_rejects_bad_sequences)
{
    uint32_t cp;
    ck_assert_uint_eq(utf8_decode("\xc3\xa9", 2, &cp), 2);
    ck_assert_uint_eq(cp, 0xe9);
    ck_assert_uint_eq(utf8_decode("\xf0\x9f\x94\xa5", 4, &cp), 4);
    ck_assert_uint_eq(cp, 0x1f525);
    ck_assert_uint_eq(utf8_decode("\xc0\xaf", 2, &cp), 0);       /* overlong */
    ck_assert_uint_eq(utf8_decode("\xed\xa0\x80", 3, &cp), 0);   /* surrogate */
    ck_assert_uint_eq(utf8_decode("\xc3", 1, &cp), 0);           /* truncated */
    ck_assert_uint_eq(utf8_decode("\xff", 1, &cp), 0);
}
END_TEST

START_TEST(xml_escaping)
{
    xml_is("a<b>&\"c", 7, true, "a&lt;b&gt;&amp;&quot;c");
    xml_is("a\"c", 3, false, "a\"c");
    xml_is("x\xffy", 3, false, "x\\xFFy");
    xml_is("\x01", 1, false, "\\x01");
    xml_is("caf\xc3\xa9", 5, false, "caf\xc3\xa9");
}
END_TEST

START_TEST(units_count_characters)
{
    ck_assert_uint_eq(utf8_units("caf\xc3\xa9", 5), 4);
    ck_assert_uint_eq(utf8_units("a\xff", 2), 2);
    ck_assert_uint_eq(utf8_prefix_bytes("\xc3\xa9\xc3\xa9x", 5, 2), 4);
}
END_TEST

START_TEST(json_escaping)
{
    strbuf sb = STRBUF_INIT;
    json_escape(&sb, "\"\\\n<\xff", 5);
    ck_assert_str_eq(sb.buf, "\\\"\\\\\\n\\u003c\\\\xFF");
    sb_free(&sb);
    /* what XML refuses or JS reads as a newline never goes out raw */
    sb = (strbuf)STRBUF_INIT;
    json_escape(&sb, "\xef\xbf\xbe\xef\xbf\xbf\xc2\x85\x7f\xe2\x80\xa8", 12);
    ck_assert_str_eq(sb.buf, "\\ufffe\\uffff\\u0085\\u007f\\u2028");
    sb_free(&sb);
    /* comment text: no "--", no final '-', XML characters only */
    sb = (strbuf)STRBUF_INIT;
    xml_comment_escape(&sb, "a--b -\x01<c>-", strlen("a--b -\x01<c>-"));
    ck_assert_str_eq(sb.buf, "a- -b -\\x01c- ");
    sb_free(&sb);
}
END_TEST

TEST_SUITE(client_utf8)
{
    Suite *s = suite_create(test_suite_name);
    TCase *tc = tcase_create("utf8");
    tcase_add_test(tc, decode_rejects_bad_sequences);
    tcase_add_test(tc, xml_escaping);
    tcase_add_test(tc, units_count_characters);
    tcase_add_test(tc, json_escaping);
    suite_add_tcase(s, tc);
    return s;
}
