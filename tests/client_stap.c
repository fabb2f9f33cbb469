/* Tests for client/collapse_stap: stackcollapse-stap.pl semantics. */
#include <check.h>
#include <string.h>

#include "client/collapse_stap.h"

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
    tcase_add_test(tc, stacks_end_at_count_lines_root_first);
    suite_add_tcase(s, tc);
    return s;
}
