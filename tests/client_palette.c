/* Suite: client/render/palette: flamegraph.pl-identical colours. */
#include <check.h>
#include <string.h>

#include "client/render/palette.h"
#include "tests/testutil.h"

static void hot_is(const char *name, int r, int g, int b)
{
    rgb c = palette_color(PAL_HOT, false, name, strlen(name));
    ck_assert_msg(c.r == r && c.g == g && c.b == b,
                  "%s: rgb(%d,%d,%d), want rgb(%d,%d,%d)", name, c.r, c.g,
                  c.b, r, g, b);
}

START_TEST(hot_palette_matches_perl)
{
    /* values produced by flamegraph.pl itself (shared notes, 4.6) */
    hot_is("main", 243, 179, 42);
    hot_is("noploop", 207, 9, 2);
    hot_is("tcp_sendmsg", 223, 83, 19);
    hot_is("java/lang/Thread:::run", 253, 221, 52);
}
END_TEST

START_TEST(drand48_emulation)
{
    /* srand(S); rand(): first drand48 output for X0 = S<<16 | 0x330E */
    double v = perl_srand_rand(0);
    ck_assert(v > 0 && v < 1);
    ck_assert_uint_eq(name_codepoint_sum("main", 4), 421);
    /* code points, not bytes: U+00E9 is one character worth 233 */
    ck_assert_uint_eq(name_codepoint_sum("\xc3\xa9", 2), 233);
    ck_assert_double_eq(perl_srand_rand(421),
                        perl_srand_rand(name_codepoint_sum("main", 4)));
}
END_TEST

START_TEST(special_names_and_flat_palettes)
{
    rgb c = palette_color(PAL_HOT, false, "--", 2);
    ck_assert(c.r == 160 && c.g == 160 && c.b == 160);
    c = palette_color(PAL_HOT, false, "-", 1);
    ck_assert(c.r == 200 && c.g == 200 && c.b == 200);
    c = palette_color(PAL_ORANGE, false, "x", 1);
    ck_assert_int_eq(c.b, 0);
    ck_assert(c.r >= 190 && c.r <= 255);
    c = palette_color(PAL_JAVA, false, "foo_[k]", 7);   /* kernel: orange */
    ck_assert_int_eq(c.b, 0);
    c = palette_color(PAL_JAVA, false, "org/x/Y:.run_[j]", 16);  /* green */
    ck_assert(c.g >= 200 && c.r == c.b);
    c = palette_color(PAL_MEM, false, "malloc", 6);
    ck_assert_int_eq(c.r, 0);
    palette p;
    ck_assert(palette_parse("aqua", &p));
    ck_assert_str_eq(palette_name(p), "aqua");
    ck_assert(!palette_parse("pink", &p));
}
END_TEST

START_TEST(namehash_is_stable_and_prefix_weighted)
{
    double a = flame_namehash("tcp_sendmsg", 11);
    ck_assert(a >= 0 && a <= 1);
    /* only the first three characters matter */
    ck_assert_double_eq(flame_namehash("abcdef", 6), flame_namehash("abcxyz", 6));
    /* a module prefix "mod`" is ignored */
    ck_assert_double_eq(flame_namehash("libc.so`abc", 11),
                        flame_namehash("abc", 3));
    rgb c1 = palette_color(PAL_HOT, true, "tcp_sendmsg", 11);
    rgb c2 = palette_color(PAL_HOT, true, "tcp_sendmsg", 11);
    ck_assert(c1.r == c2.r && c1.g == c2.g && c1.b == c2.b);
}
END_TEST

START_TEST(differential_scale)
{
    rgb c = palette_diff_color(10, 10, false);
    ck_assert(c.r == 255 && c.g == 0 && c.b == 0);
    c = palette_diff_color(-5, 10, false);
    ck_assert(c.r == 105 && c.g == 105 && c.b == 255);
    c = palette_diff_color(-5, 10, true);
    ck_assert(c.r == 255 && c.g == 105 && c.b == 105);
    c = palette_diff_color(0, 10, false);
    ck_assert(c.r == 255 && c.g == 255 && c.b == 255);
}
END_TEST

TEST_SUITE(client_palette)
{
    Suite *s = suite_create(test_suite_name);
    TCase *tc = tcase_create("colours");
    tcase_add_test(tc, hot_palette_matches_perl);
    tcase_add_test(tc, drand48_emulation);
    tcase_add_test(tc, special_names_and_flat_palettes);
    tcase_add_test(tc, namehash_is_stable_and_prefix_weighted);
    tcase_add_test(tc, differential_scale);
    suite_add_tcase(s, tc);
    return s;
}
