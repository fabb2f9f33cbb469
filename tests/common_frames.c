/* Suite: common/frames, the one frame grammar, over the table of real
 * frame shapes (tests/frame_shapes.h) and the pieces around it. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/frames.h"
#include "tests/frame_shapes.h"
#include "tests/testutil.h"

static const frame_opts all_marks = { .mark_kernel = true, .mark_jit = true };

/* Fold a row's text line by line; every line must be of its kind. */
static char *fold_text(const char *text, const frame_opts *o, frame_kind want)
{
    stackfold sf;
    stackfold_init(&sf, o, false);
    for (const char *p = text; *p;) {
        size_t n = strcspn(p, "\n");
        frame_line fl;
        ck_assert_msg(frame_parse(p, n, &fl), "not a frame line: %.*s", (int)n, p);
        ck_assert_int_eq(fl.kind, want);
        stackfold_add(&sf, &fl);
        p += n + (p[n] == '\n');
    }
    strbuf out = STRBUF_INIT;
    ck_assert(stackfold_write(&sf, &out));
    stackfold_free(&sf);
    return sb_steal(&out);
}

/* The folded stack without the _[k] and _[j] marks (what the client
 * folds without --kernel/--jit; _[i] always stays). */
static char *strip_marks(const char *folded)
{
    strbuf sb = STRBUF_INIT;
    for (const char *p = folded; *p;) {
        size_t n = strcspn(p, ";");
        size_t k = n;
        if (k >= 4 && (memcmp(p + k - 4, "_[k]", 4) == 0 || memcmp(p + k - 4, "_[j]", 4) == 0))
            k -= 4;
        sb_add(&sb, p, k);
        p += n;
        if (*p == ';')
            sb_addc(&sb, *p++);
    }
    return sb_steal(&sb);
}

START_TEST(shapes_fold)
{
    const frame_shape *r = &frame_shapes[_i];
    char *got = fold_text(r->text, &all_marks, r->perf ? FRAME_PERF : FRAME_STAP);
    ck_assert_msg(strcmp(got, r->folded) == 0, "%s:\n got  %s\n want %s", r->what, got,
                  r->folded);
    free(got);
    /* no marks unless asked for, except _[i] */
    frame_opts none = { 0 };
    got = fold_text(r->text, &none, r->perf ? FRAME_PERF : FRAME_STAP);
    char *want = strip_marks(r->folded);
    ck_assert_msg(strcmp(got, want) == 0, "%s (no marks):\n got  %s\n want %s", r->what, got,
                  want);
    free(want);
    free(got);
}
END_TEST

START_TEST(not_frame_lines)
{
    static const char *const lines[] = {
        "main [/usr/bin/cat]",                      /* no offset, no address */
        "0xffffffff8103ce3b : ",                    /* an address and nothing */
        "@@@ this is not a frame !!!",
        "sh  8037 19621.794808:     250000 cpu-clock:ppp: ",   /* a perf header */
        "hello world (x)",                          /* the PC is hex */
        "a;b 12",                                   /* folded */
        "",
    };
    for (size_t i = 0; i < sizeof lines / sizeof lines[0]; i++) {
        frame_line fl;
        ck_assert_msg(!frame_parse(lines[i], strlen(lines[i]), &fl), "%s", lines[i]);
        ck_assert_int_eq(fl.kind, FRAME_NONE);
    }
}
END_TEST

START_TEST(lines_without_frames)
{
    frame_line fl;
    const char *nobt = "<no user backtrace at process(\"/bin/ls\").function(\"main\")>";
    ck_assert(frame_parse(nobt, strlen(nobt), &fl));
    ck_assert_int_eq(fl.kind, FRAME_STAP);
    ck_assert(fl.empty);
    const char *proc = "\t 400850 (anonymous namespace)::top() (/usr/bin/app)";
    ck_assert(frame_parse(proc, strlen(proc), &fl));
    ck_assert_int_eq(fl.kind, FRAME_PERF);
    ck_assert(fl.empty);
    stackfold sf;
    stackfold_init(&sf, &all_marks, false);
    ck_assert_uint_eq(stackfold_add(&sf, &fl), 0);
    ck_assert_uint_eq(stackfold_count(&sf), 0);
    stackfold_free(&sf);
}
END_TEST

START_TEST(perf_addrs_and_sides)
{
    frame_opts o = { .perf_addrs = true };
    char *got = fold_text("\t12 [unknown] ([unknown])\n\t11 [unknown] (/usr/lib/jvm/libjvm.so)\n",
                          &o, FRAME_PERF);
    ck_assert_str_eq(got, "[libjvm.so <11>];[unknown <12>]");
    free(got);
    frame_line fl;
    const char *k = "ffffffff8103ce3b native_safe_halt+0xb ([kernel.kallsyms])";
    ck_assert(frame_parse(k, strlen(k), &fl));
    ck_assert_int_eq(fl.side, FRAME_SIDE_KERNEL);
    const char *u = "\t    7f3c2a8e1e8e __read+0x1e (/usr/lib/x86_64-linux-gnu/libc.so.6)";
    ck_assert(frame_parse(u, strlen(u), &fl));
    ck_assert_int_eq(fl.side, FRAME_SIDE_USER);
    const char *unk = "\t0 [unknown] ([unknown])";      /* not [...] kernel */
    ck_assert(frame_parse(unk, strlen(unk), &fl));
    ck_assert_int_eq(fl.side, FRAME_SIDE_USER);
    const char *simple = "ext4_file_read_iter+0x4 [ext4]";
    ck_assert(frame_parse(simple, strlen(simple), &fl));
    ck_assert_int_eq(fl.side, FRAME_SIDE_UNKNOWN);
}
END_TEST

/* The off-wake delimiter: a frame of its own, never marked, and the
 * boundary of the kernel-side inference: the waker's frame without
 * evidence (top) stays user although blocked kernel frames lie below. */
START_TEST(offwake_delimiter)
{
    const char *text =
        "main+0x10/0x20 [app]\n"                         /* waker, no evidence */
        "0xffffffff81001000 : try_to_wake_up+0x1/0x2 [kernel]\n"
        "  --  \n"
        "0xffffffff81002000 : schedule+0x1/0x2 [kernel]\n"
        "ext4_sync_file+0x4/0x8 [ext4]\n"                /* blocked, no evidence */
        "0xffffffff81003000 : do_fsync+0x1/0x2 [kernel]\n"
        "fsync+0x10/0x20 [/usr/lib/libc.so.6]\n";
    stackfold sf;
    stackfold_init(&sf, &all_marks, false);
    for (const char *p = text; *p;) {
        size_t n = strcspn(p, "\n");
        ck_assert_int_ne(stackfold_line(&sf, p, n), FRAME_NONE);
        p += n + 1;
    }
    strbuf out = STRBUF_INIT;
    ck_assert(stackfold_write(&sf, &out));
    ck_assert_str_eq(out.buf, "fsync;do_fsync_[k];ext4_sync_file_[k];schedule_[k];--;"
                              "try_to_wake_up_[k];main");
    sb_free(&out);
    stackfold_free(&sf);
    frame_line fl;
    ck_assert(frame_parse("--", 2, &fl));
    ck_assert_int_eq(fl.kind, FRAME_DELIM);
    ck_assert(!frame_parse("---", 3, &fl));
    ck_assert(!frame_parse("-- x", 4, &fl));
}
END_TEST

START_TEST(folded_frames_and_text)
{
    stackfold sf;
    stackfold_init(&sf, &all_marks, false);
    stackfold_folded(&sf, " a ; b;;c_[k] ", 14);
    ck_assert_uint_eq(stackfold_count(&sf), 3);
    strbuf out = STRBUF_INIT;
    stackfold_write(&sf, &out);
    ck_assert_str_eq(out.buf, "a;b;c_[k]");       /* kept as they come */
    sb_reset(&out);
    frame_clean(&out, "a;b\tc\x01", 6);
    ck_assert_str_eq(out.buf, "a:b_c_");
    sb_free(&out);
    stackfold_free(&sf);
}
END_TEST

START_TEST(process_frames)
{
    strbuf sb = STRBUF_INIT;
    frame_process(&sb, "Web Content", 11, "77", 2, "78", 2, false, false);
    ck_assert_str_eq(sb.buf, "Web_Content");
    sb_reset(&sb);
    frame_process(&sb, "a;b", 3, "77", 2, "78", 2, true, false);
    ck_assert_str_eq(sb.buf, "a:b-77");
    sb_reset(&sb);
    frame_process(&sb, NULL, 0, NULL, 0, "78", 2, false, true);
    ck_assert_str_eq(sb.buf, "?-?/78");
    sb_free(&sb);
}
END_TEST

START_TEST(addressed_and_cut_lines)
{
    ck_assert(frame_line_addressed(" 0xffff : x", 11));
    ck_assert(frame_line_addressed("Returning from: junk", 20));
    ck_assert(!frame_line_addressed("main", 4));
    /* what sprint_* leaves when MAXSTRINGLEN cuts a frame */
    ck_assert(frame_line_cut_short(" 0x400556 : main+0x19/0x23 [/tmp/a.o", 36));
    ck_assert(frame_line_cut_short("main+0x19 [a.o", 14));
    ck_assert(frame_line_cut_short("__libc_sta", 10));
    ck_assert(!frame_line_cut_short("@@@ not a frame", 15));
}
END_TEST

/* frame_clean and the perf DSO scan work a word (8 bytes) at a time:
 * every byte position of a special byte, at every alignment, must give
 * what the bytewise rule gives. */
START_TEST(wordwise_scans_every_offset)
{
    static const char special[] = {';', '\x01', '\x1f', '\t', ' ', '\x7f', (char)0xc3};
    for (size_t len = 0; len < 40; len++)
        for (size_t at = 0; at < len; at++)
            for (size_t k = 0; k < sizeof special; k++) {
                char in[48], want[48];
                memset(in, 'a', len);
                in[at] = special[k];
                for (size_t i = 0; i < len; i++)
                    want[i] = in[i] == ';' ? ':' : (unsigned char)in[i] < 0x20 ? '_' : in[i];
                strbuf out = STRBUF_INIT;
                sb_adds(&out, "x");     /* unaligned destination */
                frame_clean(&out, in, len);
                ck_assert_uint_eq(out.len, len + 1);
                ck_assert_mem_eq(out.buf + 1, want, len);
                sb_free(&out);
            }
    /* a blank in the DSO (any position: a path with a space) is part of
     * it, the parentheses balanced; a '(' inside the DSO is no opening */
    for (size_t at = 1; at < 30; at++) {
        char line[96], dso[40];
        memset(dso, 'd', 30);
        dso[30] = '\0';
        dso[0] = '/';
        dso[at] = at % 3 == 0 ? '\t' : at % 3 == 1 ? ' ' : '\v';
        snprintf(line, sizeof line, "\t 4005d6 main+0x10 (%s)", dso);
        frame_line fl;
        ck_assert_msg(frame_parse(line, strlen(line), &fl) && fl.kind == FRAME_PERF,
                      "a blank in the DSO at %zu", at);
        ck_assert_uint_eq(fl.module_len, 30);
        ck_assert_mem_eq(fl.module, dso, 30);
        ck_assert_uint_eq(fl.name_len, 4);
        dso[at] = '(';
        snprintf(line, sizeof line, "\t 4005d6 main+0x10 (%s)", dso);
        ck_assert(frame_parse(line, strlen(line), &fl));
        ck_assert_int_eq(fl.kind, FRAME_PERF);
        ck_assert_uint_eq(fl.module_len, 30);
        ck_assert_uint_eq(fl.name_len, 4);
    }
    /* perf's "(deleted)" inside the DSO's parentheses, a spaced path */
    static const char *const spaced[][3] = {
        {"\t7f00 f+0x1 (/lib/libx.so (deleted))", "f", "/lib/libx.so (deleted)"},
        {"\t4005d6 hot_multiply+0x10 (/tmp/fresh co/hot)", "hot_multiply", "/tmp/fresh co/hot"},
        {"\t4005d6 a (b)+0x1 (/x y/z)", "a (b)", "/x y/z"},
        {"\t  7f12 foo(int) bar (/usr/lib/x y.so)", "foo(int) bar", "/usr/lib/x y.so"},
    };
    for (size_t i = 0; i < sizeof spaced / sizeof spaced[0]; i++) {
        frame_line fl;
        ck_assert_msg(frame_parse(spaced[i][0], strlen(spaced[i][0]), &fl), "%s", spaced[i][0]);
        ck_assert_int_eq(fl.kind, FRAME_PERF);
        ck_assert_uint_eq(fl.name_len, strlen(spaced[i][1]));
        ck_assert_mem_eq(fl.name, spaced[i][1], fl.name_len);
        ck_assert_uint_eq(fl.module_len, strlen(spaced[i][2]));
        ck_assert_mem_eq(fl.module, spaced[i][2], fl.module_len);
    }
}
END_TEST

TEST_SUITE(common_frames)
{
    Suite *s = suite_create(test_suite_name);
    TCase *tc = tcase_create("grammar");
    tcase_add_loop_test(tc, shapes_fold, 0, (int)NFRAME_SHAPES);
    tcase_add_test(tc, not_frame_lines);
    tcase_add_test(tc, lines_without_frames);
    tcase_add_test(tc, perf_addrs_and_sides);
    tcase_add_test(tc, folded_frames_and_text);
    tcase_add_test(tc, offwake_delimiter);
    tcase_add_test(tc, process_frames);
    tcase_add_test(tc, addressed_and_cut_lines);
    tcase_add_test(tc, wordwise_scans_every_offset);
    suite_add_tcase(s, tc);
    return s;
}
