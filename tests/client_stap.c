/* Tests for client/collapse_stap: stackcollapse-stap.pl semantics. */
#include <check.h>
#include <string.h>

#include "client/input/collapse_stap.h"

static stacktab *collapse(const char *text, uint64_t *ignored)
{
    stacktab *t = stacktab_new();
    stack_sink sink;
    stack_sink_init(&sink, t, 0, false);
    stap_collapser *sc = stap_collapser_new(&sink);
    const char *p = text;
    while (*p) {
        const char *nl = strchr(p, '\n');
        size_t n = nl ? (size_t)(nl - p) : strlen(p);
        stap_collapser_line(sc, p, n);
        p += n + (nl ? 1 : 0);
    }
    stap_collapser_finish(sc);
    *ignored = stap_collapser_ignored(sc);
    stap_collapser_free(sc);
    stack_sink_free(&sink);
    return t;
}

static void name_of(const char *line, const char *want)
{
    strbuf sb = STRBUF_INIT;
    stap_frame_name(&sb, line, strlen(line));
    ck_assert_str_eq(sb.buf, want);
    sb_free(&sb);
}

START_TEST(frame_names)
{
    name_of(" 0xffffffff8103ce3b : native_safe_halt+0xb/0xd [kernel]",
            "native_safe_halt");
    name_of(" 0xffffffff81020e6e : default_idle+0x1e/0x100 [kernel] (inexact)",
            "default_idle");
    name_of(" 0xffffffff810d8fe5", "0xffffffff810d8fe5");
    name_of("   ", "-");
    name_of(" 0x4005d0 : main+0x10/0x40 [/usr/bin/a;b]", "main");
    name_of(" 0x1 : a;b+0x1/0x2 [x]", "a:b");
}
END_TEST

/* More of what print_backtrace()/print_ustack() write, against
 * stackcollapse-stap.pl's rules (frame: leading blanks off, then from
 * the last '+', then up to the last " : "), and where we differ. */
START_TEST(frame_names_real_shapes)
{
    /* kernel module frames */
    name_of(" 0xffffffffc0a1b2c3 : ext4_file_write_iter+0x53/0x1a0 [ext4]",
            "ext4_file_write_iter");
    name_of(" 0xffffffffc0b00010 : nf_conntrack_in+0x10/0x4f0 "
            "[nf_conntrack] (inexact)", "nf_conntrack_in");
    /* user frames: a path as the module */
    name_of(" 0x4005d0 : main+0x10/0x40 [/usr/bin/foo]", "main");
    name_of(" 0x401136 : std::vector<int, std::allocator<int> >::"
            "push_back(int const&)+0x26/0x60 [/usr/bin/foo]",
            "std::vector<int, std::allocator<int> >::push_back(int const&)");
    name_of(" 0x401200 : Foo::operator+(Foo const&)+0x8/0x20 [/usr/bin/foo]",
            "Foo::operator+(Foo const&)");
    /* the Perl cuts at the '+' of "libstdc++", leaving
     * "_ZdlPv+0x9/0x20 [/usr/lib/x86_64-linux-gnu/libstdc+" */
    name_of(" 0x7f3a0000a1b9 : _ZdlPv+0x9/0x20 "
            "[/usr/lib/x86_64-linux-gnu/libstdc++.so.6]", "_ZdlPv");
    /* no symbol: the module holds the offset; the Perl gives
     * "0x7f5d8c1a2b3c [/usr/lib/libc.so.6" */
    name_of(" 0x7f5d8c1a2b3c [/usr/lib/libc.so.6+0x2b3c]",
            "0x7f5d8c1a2b3c [/usr/lib/libc.so.6]");
    name_of(" 0x7f5d8c1a2b3c [libstdc++.so.6+0x2b3c] (inexact)",
            "0x7f5d8c1a2b3c [libstdc++.so.6]");
    /* bare addresses, tabs, "(inexact)" and CR */
    name_of("\t0xffffffff810d8fe5", "0xffffffff810d8fe5");
    name_of(" 0xffffffff810d8fe5 (inexact)", "0xffffffff810d8fe5");
    name_of(" 0xffffffff810d8fe5\r", "0xffffffff810d8fe5");
    name_of(" 0xffffffff8103ce3b : native_safe_halt+0xb/0xd [kernel]\r",
            "native_safe_halt");
    /* Rust and a symbol without " : " (no address printed) */
    name_of(" 0x55d0c0de3000 : _ZN5myapp6worker3run17h0123456789abcdefE"
            "+0x5/0x80 [/usr/bin/myapp]",
            "_ZN5myapp6worker3run17h0123456789abcdefE");
    name_of("schedule+0x2a/0x90 [kernel]", "schedule");
    name_of(" 0x1 : +0x1/0x2 [kernel]", "-");
}
END_TEST

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
        /* "12 x" is no count: a frame, then a stack with no count */
        " 0x1 : orphan+0x1/0x2 [kernel]\n"
        "12 x\n";
    uint64_t ignored = 0;
    stacktab *t = collapse(text, &ignored);
    const char *k = "do_syscall_64;vfs_write;ext4_file_write_iter";
    const stack_entry *e = stacktab_find(t, k, strlen(k));
    ck_assert_ptr_nonnull(e);
    ck_assert_double_eq(e->count[0], 10);
    const char *u = "0x4004a0;0x7f5d8c1a2b3c [/usr/lib/libc.so.6];leaf";
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

Suite *client_stap_suite(void)
{
    Suite *s = suite_create("client_stap");
    TCase *tc = tcase_create("collapse");
    tcase_add_test(tc, frame_names);
    tcase_add_test(tc, frame_names_real_shapes);
    tcase_add_test(tc, count_lines_and_mixed_stacks);
    tcase_add_test(tc, stacks_end_at_count_lines_root_first);
    suite_add_tcase(s, tc);
    return s;
}
