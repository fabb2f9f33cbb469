/* Suite: client/input/input: detection and streaming from files. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "client/input/input.h"
#include "tests/testutil.h"

static input_format detect(const char *text)
{
    const char *lines[64];
    size_t lens[64], n = 0;
    const char *p = text;
    while (*p && n < 64) {
        const char *nl = strchr(p, '\n');
        size_t len = nl ? (size_t)(nl - p) : strlen(p);
        lines[n] = p;
        lens[n++] = len;
        p += len + (nl ? 1 : 0);
    }
    return input_detect(lines, lens, n);
}

START_TEST(detects_each_format)
{
    ck_assert_int_eq(detect("main;foo 3\nmain;bar 4\n"), INPUT_FOLDED);
    ck_assert_int_eq(detect("a 1 1.0: 1 cycles:\n"
                            "\tffffffff810 foo+0x1 ([kernel.kallsyms])\n\n"),
                     INPUT_PERF);
    ck_assert_int_eq(detect(" 0xffffffff8103ce3b : native_safe_halt+0xb/0xd"
                            " [kernel] (inexact)\n 0xffffffff810d8fe5\n\t3\n"),
                     INPUT_STAP);
    ck_assert_int_eq(detect("# ========\n# captured on: x\n"), INPUT_PERF);
    /* user stacks of frames with no symbol, CRLF, or "(inexact)" */
    ck_assert_int_eq(detect(" 0x7f5d8c1a2b3c [/usr/lib/libc.so.6+0x2b3c]\n"
                            " 0x4004a0 (inexact)\r\n"
                            " 0x4004b0\r\n\t3\n"), INPUT_STAP);
    /* "0x1a2b[" is not a frame */
    ck_assert_int_eq(detect(" 0x7f5d[x]\nmain;a 1\n"), INPUT_FOLDED);
}
END_TEST

START_TEST(format_names_round_trip)
{
    input_format f;
    ck_assert(input_format_parse("perf", &f));
    ck_assert_int_eq(f, INPUT_PERF);
    ck_assert_str_eq(input_format_name(f), "perf");
    ck_assert(input_format_parse("stap", &f));
    ck_assert_str_eq(input_format_name(f), "stap");
    ck_assert(input_format_parse("folded", &f));
    ck_assert(!input_format_parse("svg", &f));
}
END_TEST

START_TEST(reads_file_past_the_detection_window)
{
    char *dir = tu_mkdtemp();
    strbuf text = STRBUF_INIT;
    double want = 0;
    for (int i = 0; i < 3000; i++) {
        sb_printf(&text, "root;f%d;g %d\n", i % 50, i % 9 + 1);
        want += i % 9 + 1;
    }
    sb_adds(&text, "not folded\n");
    tu_write(dir, "in.folded", text.buf);
    strbuf path = STRBUF_INIT, err = STRBUF_INIT;
    sb_printf(&path, "%s/in.folded", dir);
    input_options opt = { 0 };
    input_stats st = { 0 };
    stacktab *t = stacktab_new();
    ck_assert_int_eq(input_read_path(path.buf, &opt, t, &st, &err), 0);
    ck_assert_int_eq(st.format, INPUT_FOLDED);
    ck_assert_uint_eq(st.lines, 3001);
    ck_assert_uint_eq(st.ignored, 1);
    ck_assert_uint_eq(stacktab_size(t), 50);
    ck_assert_double_eq(stacktab_total(t, 0), want);
    stacktab_free(t);
    sb_free(&text);
    sb_free(&path);
    sb_free(&err);
    tu_rmtree(dir);
    free(dir);
}
END_TEST

START_TEST(forced_format_overrides_detection)
{
    char *dir = tu_mkdtemp();
    tu_write(dir, "x", " 0xffff : f+0x1/0x2 [k]\n3\n");
    strbuf path = STRBUF_INIT, err = STRBUF_INIT;
    sb_printf(&path, "%s/x", dir);
    input_options opt = { .format = INPUT_FOLDED };
    input_stats st = { 0 };
    stacktab *t = stacktab_new();
    ck_assert_int_eq(input_read_path(path.buf, &opt, t, &st, &err), 0);
    ck_assert_uint_eq(st.ignored, 2);
    ck_assert_uint_eq(stacktab_size(t), 0);
    ck_assert_int_eq(input_read_path("/nonexistent/x", &opt, t, &st, &err), -1);
    ck_assert_ptr_nonnull(strstr(err.buf, "/nonexistent/x"));
    stacktab_free(t);
    sb_free(&path);
    sb_free(&err);
    tu_rmtree(dir);
    free(dir);
}
END_TEST

/* input_check over text split at newlines (the NULs of binary data
 * kept: the length of each line says where it ends). */
static bool check(const char *text, size_t len, input_format asked,
                  input_format *fmt, strbuf *why)
{
    const char *lines[64];
    size_t lens[64], n = 0, i = 0;
    while (i < len && n < 64) {
        const char *nl = memchr(text + i, '\n', len - i);
        size_t l = nl ? (size_t)(nl - (text + i)) : len - i;
        lines[n] = text + i;
        lens[n++] = l;
        i += l + 1;
    }
    sb_reset(why);
    return input_check(lines, lens, n, asked, fmt, why);
}
#define CHECK(lit, asked, fmt, why) check(lit, sizeof(lit) - 1, asked, fmt, why)

/* What is no profile text is refused with its reason, never drawn. */
START_TEST(refuses_what_is_no_profile_text)
{
    strbuf why = STRBUF_INIT;
    input_format f = INPUT_AUTO;
    /* perf.data, by its magic */
    ck_assert(!CHECK("PERFILE2h\0\0\0\0\0\0\0\x88\0\n", INPUT_AUTO, &f, &why));
    ck_assert_ptr_nonnull(strstr(why.buf, "perf.data"));
    ck_assert_ptr_nonnull(strstr(why.buf, "perf script"));
    /* binary: an ELF file's first bytes, one NUL; bytes that are not
     * UTF-8 -- whatever the format asked */
    ck_assert(!CHECK("\x7f" "ELF\2\1\1\0\0\0\0\0\n", INPUT_AUTO, &f, &why));
    ck_assert_ptr_nonnull(strstr(why.buf, "not text"));
    ck_assert(!CHECK("main;f 1\nmain;\0g 2\n", INPUT_FOLDED, &f, &why));
    ck_assert(!CHECK("\xc3\x28\xff\xfe\x80 1\n", INPUT_FOLDED, &f, &why));
    ck_assert_ptr_nonnull(strstr(why.buf, "not text"));
    /* perf script without -g: headers (the comm padded on the left),
     * the sampled address on the header line, no frame lines */
    ck_assert(!CHECK("           busy2 25305   781.633740:   10101010 cpu-clock:"
                     "      56229d33a167 leaf+0x1e (/tmp/busy2)\n"
                     "           busy2 25305   781.701270:   10101010 cpu-clock:"
                     "      56229d33a164 leaf+0x1b (/tmp/busy2)\n",
                     INPUT_AUTO, &f, &why));
    ck_assert_ptr_nonnull(strstr(why.buf, "perf record -g"));
    ck_assert(!CHECK("busy 1 781.633740: 10101010 cpu-clock: 56 leaf (/b)\n",
                     INPUT_PERF, &f, &why));
    ck_assert_ptr_nonnull(strstr(why.buf, "without call chains"));
    /* guessed: text of which most lines are no stacks (a help text
     * whose lines end in numbers) */
    ck_assert(!CHECK("Usage: ls [OPTION]... [FILE]...\n"
                     "  --si   likewise, but use powers of 1000 not 1024\n"
                     "  -w, --width=COLS   set output width to COLS.  0 means no limit\n",
                     INPUT_AUTO, &f, &why));
    ck_assert_ptr_nonnull(strstr(why.buf, "not a profile: 0 of 3 lines looked at"));

    /* and what is a profile passes, its format told */
    ck_assert(CHECK("main;foo 3\n# a comment\n\nmain;bar 4\nnot folded\n",
                    INPUT_AUTO, &f, &why));
    ck_assert_int_eq(f, INPUT_FOLDED);
    ck_assert(CHECK("a 1 1.0: 1 cycles:\n\tffffffff810 foo+0x1 ([kernel.kallsyms])\n\n",
                    INPUT_AUTO, &f, &why));
    ck_assert_int_eq(f, INPUT_PERF);
    ck_assert(CHECK(" 0xffffffff8103ce3b : native_safe_halt+0xb/0xd [kernel]\n\t3\n",
                    INPUT_AUTO, &f, &why));
    ck_assert_int_eq(f, INPUT_STAP);
    ck_assert(CHECK("caf\xc3\xa9;cr\xc3\xa8me 2\n\tf;g 1\n", INPUT_AUTO, &f, &why));
    ck_assert(CHECK("", INPUT_AUTO, &f, &why));     /* empty: said later */
    ck_assert(CHECK("nothing\n", INPUT_FOLDED, &f, &why));  /* asked for */
    ck_assert_int_eq(f, INPUT_FOLDED);
    sb_free(&why);
}
END_TEST

START_TEST(refuses_a_directory)
{
    char *dir = tu_mkdtemp();
    strbuf err = STRBUF_INIT;
    input_options opt = { 0 };
    input_stats st = { 0 };
    stacktab *t = stacktab_new();
    ck_assert_int_eq(input_read_path(dir, &opt, t, &st, &err), -1);
    ck_assert_ptr_nonnull(strstr(err.buf, "is a directory"));
    ck_assert_ptr_null(strstr(err.buf, "read error"));
    stacktab_free(t);
    sb_free(&err);
    tu_rmtree(dir);
    free(dir);
}
END_TEST

TEST_SUITE(client_input)
{
    Suite *s = suite_create(test_suite_name);
    TCase *tc = tcase_create("input");
    tcase_add_test(tc, detects_each_format);
    tcase_add_test(tc, format_names_round_trip);
    tcase_add_test(tc, reads_file_past_the_detection_window);
    tcase_add_test(tc, forced_format_overrides_detection);
    tcase_add_test(tc, refuses_what_is_no_profile_text);
    tcase_add_test(tc, refuses_a_directory);
    suite_add_tcase(s, tc);
    return s;
}
