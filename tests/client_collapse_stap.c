/* Suite: client/input/collapse_stap: stackcollapse-stap.pl's framing
 * (count lines end stacks), and the table of real frame shapes read as
 * SystemTap text, which must fold to the frames the relay gives
 * (tests/frame_shapes.h). */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "client/input/collapse_stap.h"
#include "tests/frame_shapes.h"
#include "tests/testutil.h"

static stacktab *collapse_with(const char *text, const frame_opts *o, uint64_t *ignored)
{
    stacktab *t = stacktab_new();
    stack_sink sink;
    stack_sink_init(&sink, t, 0, false);
    collapse_stap *sc = collapse_stap_new(o, &sink);
    const char *p = text;
    while (*p) {
        const char *nl = strchr(p, '\n');
        size_t n = nl ? (size_t)(nl - p) : strlen(p);
        collapse_stap_line(sc, p, n);
        p += n + (nl ? 1 : 0);
    }
    collapse_stap_finish(sc);
    *ignored = collapse_stap_ignored(sc);
    collapse_stap_free(sc);
    stack_sink_free(&sink);
    return t;
}

static stacktab *collapse(const char *text, uint64_t *ignored)
{
    frame_opts none = { 0 };
    return collapse_with(text, &none, ignored);
}

START_TEST(count_lines_and_mixed_stacks)
{
    const char *text =
        /* kernel stack with module frames, count as "\tN" */
        " 0xffffffffc0a1b2c3 : ext4_file_write_iter+0x53/0x1a0 [ext4]\n"
        " 0xffffffff811f0000 : vfs_write+0xb6/0x1a0 [kernel]\n"
        " 0xffffffff81000000 : do_syscall_64+0x3b/0x90 [kernel] (inexact)\n"
        "\t7\n"
        /* the same stack again, count as a bare "N", CRLF */
        " 0xffffffffc0a1b2c3 : ext4_file_write_iter+0x11/0x1a0 [ext4]\r\n"
        " 0xffffffff811f0000 : vfs_write+0x10/0x1a0 [kernel]\r\n"
        " 0xffffffff81000000 : do_syscall_64+0x3b/0x90 [kernel]\r\n"
        "3\r\n"
        "\n"
        /* a user stack: symbols, no-symbol frame and bare address */
        " 0x4005d0 : leaf+0x10/0x40 [/usr/bin/foo]\n"
        " 0x7f5d8c1a2b3c [/usr/lib/libc.so.6+0x2b3c]\n"
        " 0x4004a0\n"
        "  12  \n"
        /* "12 x" is neither a count nor a frame; the orphan frame has
         * no count */
        " 0x1 : orphan+0x1/0x2 [kernel]\n"
        "12 x\n";
    uint64_t ignored = 0;
    stacktab *t = collapse(text, &ignored);
    const char *k = "do_syscall_64;vfs_write;ext4_file_write_iter";
    const stack_entry *e = stacktab_find(t, k, strlen(k));
    ck_assert_ptr_nonnull(e);
    ck_assert_double_eq(e->count[0], 10);
    const char *u = "0x4004a0;[libc.so.6];leaf";
    e = stacktab_find(t, u, strlen(u));
    ck_assert_ptr_nonnull(e);
    ck_assert_double_eq(e->count[0], 12);
    ck_assert_uint_eq(stacktab_size(t), 2);
    ck_assert_uint_eq(ignored, 2);     /* orphan and "12 x" */
    stacktab_free(t);
}
END_TEST

START_TEST(stacks_end_at_count_lines_root_first)
{
    const char *text =
        " 0xffffffff8103ce3b : native_safe_halt+0xb/0xd [kernel]\n"
        " 0xffffffff81020e6e : default_idle+0x1e/0x100 [kernel] (inexact)\n"
        " 0xffffffff810d8fe5\n"
        "\t12\n"
        "\n"
        " 0xffffffff8103ce3b : native_safe_halt+0xb/0xd [kernel]\n"
        " 0xffffffff81020e6e : default_idle+0x1e/0x100 [kernel]\n"
        " 0xffffffff810d8fe5\n"
        "5\n"
        " 0x1 : orphan+0x1/0x2 [kernel]\n";
    uint64_t ignored = 0;
    stacktab *t = collapse(text, &ignored);
    const char *want = "0xffffffff810d8fe5;default_idle;native_safe_halt";
    const stack_entry *e = stacktab_find(t, want, strlen(want));
    ck_assert_ptr_nonnull(e);
    ck_assert_double_eq(e->count[0], 17);
    ck_assert_uint_eq(stacktab_size(t), 1);
    ck_assert_uint_eq(ignored, 1);     /* the frame with no count */
    stacktab_free(t);
}
END_TEST

/* `staprelay fold --all` of a table row ended by a count line. */
START_TEST(frame_shapes_as_the_relay_folds_them)
{
    const frame_shape *r = &frame_shapes[_i];
    if (r->perf)
        return;
    strbuf text = STRBUF_INIT;
    sb_printf(&text, "%s\n\t5\n", r->text);
    frame_opts all = { .mark_kernel = true, .mark_jit = true };
    uint64_t ignored = 0;
    stacktab *t = collapse_with(text.buf, &all, &ignored);
    ck_assert_uint_eq(ignored, 0);
    ck_assert_uint_eq(stacktab_size(t), 1);
    const stack_entry *e = stacktab_entry(t, 0);
    ck_assert_msg(strcmp(e->stack, r->folded) == 0, "%s:\n got  %s\n want %s", r->what,
                  e->stack, r->folded);
    ck_assert_double_eq(e->count[0], 5);
    sb_free(&text);
    stacktab_free(t);
}
END_TEST

TEST_SUITE(client_collapse_stap)
{
    Suite *s = suite_create(test_suite_name);
    TCase *tc = tcase_create("collapse");
    tcase_add_test(tc, count_lines_and_mixed_stacks);
    tcase_add_test(tc, stacks_end_at_count_lines_root_first);
    tcase_add_loop_test(tc, frame_shapes_as_the_relay_folds_them, 0, (int)NFRAME_SHAPES);
    suite_add_tcase(s, tc);
    return s;
}
