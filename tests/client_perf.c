/* Tests for client/collapse_perf: stackcollapse-perf.pl semantics. */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "client/collapse_perf.h"

/* Run text through a collapser; returns the table (caller frees). */
static stacktab *collapse(const char *text, const perf_options *opt,
                          uint64_t *ignored, uint64_t *filtered)
{
    stacktab *t = stacktab_new();
    stack_sink sink;
    stack_sink_init(&sink, t, 0, false);
    perf_collapser *pc = perf_collapser_new(opt, &sink);
    const char *p = text;
    while (*p) {
        const char *nl = strchr(p, '\n');
        size_t n = nl ? (size_t)(nl - p) : strlen(p);
        perf_collapser_line(pc, p, n);
        p += n + (nl ? 1 : 0);
    }
    perf_collapser_finish(pc);
    if (ignored)
        *ignored = perf_collapser_ignored(pc);
    if (filtered)
        *filtered = perf_collapser_filtered(pc);
    perf_collapser_free(pc);
    stack_sink_free(&sink);
    return t;
}

static double weight(const stacktab *t, const char *stack)
{
    const stack_entry *e = stacktab_find(t, stack, strlen(stack));
    return e ? e->count[0] : -1;
}

static const char idle_sample[] =
    "swapper     0 [000] 12345.678901:    1001001 cpu-clock:pppH: \n"
    "\tffffffff8103ce3b native_safe_halt+0xb ([kernel.kallsyms])\n"
    "\tffffffff81020e6e default_idle+0x1e ([kernel.kallsyms])\n"
    "\n";

START_TEST(header_forms)
{
    perf_header h;
    const char *s = "java 12688/12764 6544038.708352: 10309278 cpu-clock:";
    ck_assert(perf_parse_header(s, strlen(s), &h));
    ck_assert_int_eq((int)h.comm_len, 4);
    ck_assert_int_eq(strncmp(h.pid, "12688", h.pid_len), 0);
    ck_assert_int_eq(strncmp(h.tid, "12764", h.tid_len), 0);
    ck_assert_double_eq(h.period, 10309278);
    ck_assert_int_eq(strncmp(h.event, "cpu-clock", h.event_len), 0);

    s = "V8 WorkerThread 25607 4794564.109216: cycles:";
    ck_assert(perf_parse_header(s, strlen(s), &h));
    ck_assert_int_eq(strncmp(h.comm, "V8 WorkerThread", h.comm_len), 0);
    ck_assert_ptr_null(h.pid);
    ck_assert_int_eq(strncmp(h.tid, "25607", h.tid_len), 0);
    ck_assert_double_eq(h.period, 0);
    ck_assert_int_eq(strncmp(h.event, "cycles", h.event_len), 0);

    s = "\tffffffff8103ce3b native_safe_halt ([kernel.kallsyms])";
    ck_assert(!perf_parse_header(s, strlen(s), &h));
}
END_TEST

START_TEST(frame_forms)
{
    perf_frame f;
    const char *s = "\t  7f12 foo(int) bar (/usr/lib/x y.so)";
    /* the module may not contain blanks, so this is no frame line */
    ck_assert(!perf_parse_frame(s, strlen(s), &f));
    s = "\t7f12 std::foo(int) (/usr/lib/libx.so)";
    ck_assert(perf_parse_frame(s, strlen(s), &f));
    ck_assert_int_eq(strncmp(f.func, "std::foo(int)", f.func_len), 0);
    ck_assert_int_eq(strncmp(f.mod, "/usr/lib/libx.so", f.mod_len), 0);
    s = "no module here";
    ck_assert(!perf_parse_frame(s, strlen(s), &f));
}
END_TEST

START_TEST(tidy_rules)
{
    strbuf sb = STRBUF_INIT;
    perf_tidy_symbol(&sb, "foo(int, char*)", 15, false);
    ck_assert_str_eq(sb.buf, "foo");
    sb_reset(&sb);
    const char *anon = "(anonymous namespace)::bar(int)";
    perf_tidy_symbol(&sb, anon, strlen(anon), false);
    ck_assert_str_eq(sb.buf, "(anonymous namespace)::bar");
    sb_reset(&sb);
    const char *go = "net/http.(*Client).Do";
    perf_tidy_symbol(&sb, go, strlen(go), false);
    ck_assert_str_eq(sb.buf, go);
    sb_reset(&sb);
    const char *semi = "a;b\"c'd";
    perf_tidy_symbol(&sb, semi, strlen(semi), false);
    ck_assert_str_eq(sb.buf, "a:bcd");
    sb_reset(&sb);
    const char *java = "Lorg/mozilla/Foo;.call(Lorg/X;)V";
    perf_tidy_symbol(&sb, java, strlen(java), true);
    ck_assert_str_eq(sb.buf, "org/mozilla/Foo:.call");
    sb_reset(&sb);
    perf_tidy_symbol(&sb, java, strlen(java), false);   /* not java comm */
    ck_assert_str_eq(sb.buf, "Lorg/mozilla/Foo:.call");
    sb_free(&sb);
}
END_TEST

START_TEST(collapses_root_first_with_period_weight)
{
    perf_options opt = { 0 };
    stacktab *t = collapse(idle_sample, &opt, NULL, NULL);
    ck_assert_uint_eq(stacktab_size(t), 1);
    ck_assert_double_eq(weight(t, "swapper;default_idle;native_safe_halt"),
                        1001001);
    stacktab_free(t);
}
END_TEST

START_TEST(kernel_annotation_and_pid_tid)
{
    perf_options opt = { .annotate_kernel = true, .include_tid = true };
    stacktab *t = collapse(idle_sample, &opt, NULL, NULL);
    ck_assert_double_eq(
        weight(t, "swapper-?/0;default_idle_[k];native_safe_halt_[k]"),
        1001001);
    stacktab_free(t);
    perf_options opt2 = { .include_pid = true };
    t = collapse("my prog 77/78 1.0: 3 cycles:\n\t1 f (/bin/x)\n\n", &opt2,
                 NULL, NULL);
    ck_assert_double_eq(weight(t, "my_prog-77;f"), 3);
    stacktab_free(t);
}
END_TEST

START_TEST(only_first_event_type_is_kept)
{
    const char *text =
        "ab 1 1.0: 10 cycles:\n\t1 f (/bin/a)\n\n"
        "ab 1 1.1: 99 instructions:\n\t1 g (/bin/a)\n\n"
        "ab 1 1.2: 5 cycles:\n\t1 f (/bin/a)\n\n";
    perf_options opt = { 0 };
    uint64_t filtered = 0;
    stacktab *t = collapse(text, &opt, NULL, &filtered);
    ck_assert_double_eq(weight(t, "ab;f"), 15);
    ck_assert_double_eq(weight(t, "ab;g"), -1);
    ck_assert_uint_eq(filtered, 1);
    stacktab_free(t);
}
END_TEST

START_TEST(unknown_jit_inline_and_offsets)
{
    const char *text =
        "java 5/6 1.0: 1 cpu-clock:\n"
        "\t10 Lcom/x/Y;.run()V (/tmp/perf-5.map)\n"
        "\t11 [unknown] (/usr/lib/jvm/libjvm.so)\n"
        "\t12 [unknown] ([unknown])\n"
        "\t13 outer->inner+0x1f (/bin/java)\n"
        "\t14 (deleted) (/bin/java)\n"
        "\n";
    perf_options opt = { .annotate_jit = true, .include_addrs = true };
    stacktab *t = collapse(text, &opt, NULL, NULL);
    const char *want = "java;outer;inner_[i];[unknown <12>];"
                       "[libjvm.so <11>];com/x/Y:.run_[j]";
    ck_assert_double_eq(weight(t, want), 1);
    stacktab_free(t);
}
END_TEST

START_TEST(counts_unrecognised_lines_and_skips_comments)
{
    const char *text = "# comment\n" "garbage\n" "x 1: c:\n" "ab 1 1.0: 1 c:\n\t1 f (/x)\n\n";
    perf_options opt = { 0 };
    uint64_t ignored = 0;
    stacktab *t = collapse(text, &opt, &ignored, NULL);
    /* "garbage", and "x 1: c:" (a comm needs two characters, as in
     * stackcollapse-perf.pl's (\S.+?)) */
    ck_assert_uint_eq(ignored, 2);
    ck_assert_double_eq(weight(t, "ab;f"), 1);
    stacktab_free(t);
}
END_TEST

START_TEST(last_sample_without_blank_line_counts)
{
    perf_options opt = { 0 };
    stacktab *t = collapse("ab 1 1.0: 1 c:\n\t1 f (/x)", &opt, NULL, NULL);
    ck_assert_double_eq(weight(t, "ab;f"), 1);
    stacktab_free(t);
}
END_TEST

Suite *client_perf_suite(void)
{
    Suite *s = suite_create("client_perf");
    TCase *tc = tcase_create("collapse");
    tcase_add_test(tc, header_forms);
    tcase_add_test(tc, frame_forms);
    tcase_add_test(tc, tidy_rules);
    tcase_add_test(tc, collapses_root_first_with_period_weight);
    tcase_add_test(tc, kernel_annotation_and_pid_tid);
    tcase_add_test(tc, only_first_event_type_is_kept);
    tcase_add_test(tc, unknown_jit_inline_and_offsets);
    tcase_add_test(tc, counts_unrecognised_lines_and_skips_comments);
    tcase_add_test(tc, last_sample_without_blank_line_counts);
    suite_add_tcase(s, tc);
    return s;
}
