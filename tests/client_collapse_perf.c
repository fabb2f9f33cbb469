/* Suite: client/input/collapse_perf: stackcollapse-perf.pl's sample
 * rules (root frame, period weights, the first event type), and the
 * table of real frame shapes read as perf script text, which must fold
 * to the frames the relay gives (tests/frame_shapes.h). */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "client/input/collapse_perf.h"
#include "tests/frame_shapes.h"
#include "tests/testutil.h"

/* Run text through a collapser; returns the table (caller frees). */
static stacktab *collapse(const char *text, const perf_options *opt,
                          uint64_t *ignored, uint64_t *filtered)
{
    stacktab *t = stacktab_new();
    stack_sink sink;
    stack_sink_init(&sink, t, 0, false);
    collapse_perf *pc = collapse_perf_new(opt, &sink);
    const char *p = text;
    while (*p) {
        const char *nl = strchr(p, '\n');
        size_t n = nl ? (size_t)(nl - p) : strlen(p);
        collapse_perf_line(pc, p, n);
        p += n + (nl ? 1 : 0);
    }
    collapse_perf_finish(pc);
    if (ignored)
        *ignored = collapse_perf_ignored(pc);
    if (filtered)
        *filtered = collapse_perf_filtered(pc);
    collapse_perf_free(pc);
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

START_TEST(collapses_root_first_with_period_weight)
{
    /* --period --no-marks: stackcollapse-perf.pl's stacks and weights */
    perf_options opt = { .period = true, .no_marks = true };
    stacktab *t = collapse(idle_sample, &opt, NULL, NULL);
    ck_assert_uint_eq(stacktab_size(t), 1);
    ck_assert_double_eq(weight(t, "swapper;default_idle;native_safe_halt"),
                        1001001);
    stacktab_free(t);
    /* by default a sample weighs 1 (as a PCP record counts samples) and
     * kernel frames are marked, as the relay marks them */
    perf_options dflt = { 0 };
    t = collapse(idle_sample, &dflt, NULL, NULL);
    ck_assert_double_eq(weight(t, "swapper;default_idle_[k];native_safe_halt_[k]"), 1);
    stacktab_free(t);
    /* --no-comm: no process root frame */
    perf_options nocomm = { .no_comm = true };
    t = collapse(idle_sample, &nocomm, NULL, NULL);
    ck_assert_double_eq(weight(t, "default_idle_[k];native_safe_halt_[k]"), 1);
    stacktab_free(t);
}
END_TEST

START_TEST(kernel_annotation_and_pid_tid)
{
    perf_options opt = { .include_tid = true, .period = true };
    stacktab *t = collapse(idle_sample, &opt, NULL, NULL);
    ck_assert_double_eq(
        weight(t, "swapper-?/0;default_idle_[k];native_safe_halt_[k]"),
        1001001);
    stacktab_free(t);
    perf_options opt2 = { .include_pid = true, .period = true };
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
    perf_options opt = { .period = true };
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
    perf_options opt = { .include_addrs = true };
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

/* The shapes of real `perf script` output, each compared with what
 * stackcollapse-perf.pl's rules give (/work/shared/notes/flamegraph.md
 * 4.7; the Perl's output is in the comments where we differ). */
static const char java_untimed[] =
    "java 12688/12764 10309278 cpu-clock:\n"
    "\t7f0a1c2d3e4f Lcom/example/Foo;.bar(I)V (/tmp/perf-12688.map)\n"
    "\t7f0a1c2d3e00 Lcom/example/Foo;.inl->Lcom/example/Baz;.leaf (/tmp/perf-12688.map)\n"
    "\t7f0a1c2d3000 Interpreter (/tmp/perf-12688.map)\n"
    "\t7f0a2b3c4d5e JavaCalls::call_helper(JavaValue*, methodHandle const&, Thread*)+0x2f2 (/usr/lib/jvm/java-17/lib/server/libjvm.so)\n"
    "\t7f0a2b3c0000 [unknown] (/usr/lib/jvm/java-17/lib/server/libjvm.so)\n"
    "\t7f0a3c4d5e6f start_thread+0xd7 (/usr/lib/x86_64-linux-gnu/libc.so.6)\n"
    "\n";

START_TEST(java_jit_and_inlined_frames_without_timestamp)
{
    perf_options opt = { .period = true };
    stacktab *t = collapse(java_untimed, &opt, NULL, NULL);
    ck_assert_uint_eq(stacktab_size(t), 1);
    /* "->" splits one line into frames, the first keeps _[j], the
     * others are _[i]; [unknown] takes the module's base name */
    ck_assert_double_eq(weight(t,
        "java;start_thread;[libjvm.so];JavaCalls::call_helper;"
        "Interpreter_[j];com/example/Foo:.inl_[j];com/example/Baz:.leaf_[i];"
        "com/example/Foo:.bar_[j]"), 10309278);
    stacktab_free(t);
    perf_options none = { .no_marks = true, .period = true };
    t = collapse(java_untimed, &none, NULL, NULL);   /* --no-marks */
    ck_assert_double_eq(weight(t,
        "java;start_thread;[libjvm.so];JavaCalls::call_helper;"
        "Interpreter;com/example/Foo:.inl;com/example/Baz:.leaf_[i];"
        "com/example/Foo:.bar"), 10309278);
    stacktab_free(t);
}
END_TEST

/* Each mark option adds its own mark only: --no-marks --jit is
 * stackcollapse-perf.pl --jit (JIT frames marked, kernel frames not),
 * --no-marks --kernel its --kernel, and the order does not matter. */
static const char java_kernel[] =
    "java 12688/12764 6544038.708352: 10309278 cpu-clock:ppp:\n"
    "\tffffffff8103ce3b native_safe_halt+0xB ([kernel.kallsyms])\n"
    "\t7f0a1c2d3e4f Lcom/foo/Bar;.baz(I)V (/tmp/perf-12688.map)\n"
    "\t7f0a3c4d5e6f start_thread+0xd7 (/usr/lib/x86_64-linux-gnu/libc.so.6)\n"
    "\n";

START_TEST(each_mark_option_adds_its_own_mark)
{
    static const struct { perf_options opt; const char *stack; } cases[] = {
        { { .no_marks = true, .jit_marks = true, .period = true },
          "java;start_thread;com/foo/Bar:.baz_[j];native_safe_halt" },
        { { .no_marks = true, .kernel_marks = true, .period = true },
          "java;start_thread;com/foo/Bar:.baz;native_safe_halt_[k]" },
        { { .no_marks = true, .kernel_marks = true, .jit_marks = true,
            .period = true },
          "java;start_thread;com/foo/Bar:.baz_[j];native_safe_halt_[k]" },
        { { .jit_marks = true, .period = true },   /* the default kept */
          "java;start_thread;com/foo/Bar:.baz_[j];native_safe_halt_[k]" },
        { { .no_marks = true, .period = true },
          "java;start_thread;com/foo/Bar:.baz;native_safe_halt" },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        stacktab *t = collapse(java_kernel, &cases[i].opt, NULL, NULL);
        ck_assert_msg(weight(t, cases[i].stack) == 10309278,
                      "case %zu: no stack %s", i, cases[i].stack);
        ck_assert_uint_eq(stacktab_size(t), 1);
        stacktab_free(t);
    }
}
END_TEST

static const char kernel_untimed[] =
    "swapper     0 [000] cpu-clock:\n"
    "\tffffffff8103ce3b native_safe_halt+0xb ([kernel.kallsyms])\n"
    "\tffffffffc0a1b2c3 ext4_file_write_iter+0x53 ([ext4])\n"
    "\tffffffffc0b00010 nf_conntrack_in+0x10 ([nf_conntrack])\n"
    "\tffffffff81aebbfe start_kernel+0x3ba ([kernel.kallsyms].init.text)\n"
    "\t8c3453 tcp_sendmsg (/lib/modules/6.1.0/build/vmlinux)\n"
    "\t7ffd1234 __vdso_clock_gettime+0x2 ([vdso])\n"
    "\t0 [unknown] ([unknown])\n"
    "\t7f0000000001 __libc_start_main+0xf3 (/usr/lib/libc.so.6)\n"
    "\n"
    "swapper     0 [001] cpu-clock:\n"
    "\tffffffff8103ce3b native_safe_halt+0xb ([kernel.kallsyms])\n"
    "\n";

START_TEST(kernel_modules_get_k_under_kernel)
{
    perf_options opt = { 0 };
    stacktab *t = collapse(kernel_untimed, &opt, NULL, NULL);
    ck_assert_uint_eq(stacktab_size(t), 2);
    /* _[k]: a module starting with '[' or ending in vmlinux, not
     * [unknown] ([vdso] too: the Perl's rule) */
    ck_assert_double_eq(weight(t,
        "swapper;__libc_start_main;[unknown];__vdso_clock_gettime_[k];"
        "tcp_sendmsg_[k];start_kernel_[k];nf_conntrack_in_[k];"
        "ext4_file_write_iter_[k];native_safe_halt_[k]"), 1);
    ck_assert_double_eq(weight(t, "swapper;native_safe_halt_[k]"), 1);
    stacktab_free(t);
    perf_options none = { .no_marks = true };
    t = collapse(kernel_untimed, &none, NULL, NULL);
    ck_assert_double_eq(weight(t, "swapper;native_safe_halt"), 1);
    stacktab_free(t);
}
END_TEST

START_TEST(two_event_types_without_timestamps)
{
    const char *text =
        "ab 1/2 100 cycles:\n\t1 f (/bin/a)\n\n"
        "ab 1/2 7 instructions:\n\t1 g (/bin/a)\n\n"
        "ab 1/2 50 cycles:\n\t1 f (/bin/a)\n\n"
        "ab 1/3 cycles:\n\t1 h (/bin/a)\n\n";
    perf_options opt = { .include_tid = true, .period = true };
    uint64_t filtered = 0;
    stacktab *t = collapse(text, &opt, NULL, &filtered);
    /* (the Perl finds no event here, keeps g, and counts f 1 + 1 or
     * with stale periods) */
    ck_assert_double_eq(weight(t, "ab-1/2;f"), 150);
    ck_assert_double_eq(weight(t, "ab-1/3;h"), 1);
    ck_assert_double_eq(weight(t, "ab-1/2;g"), -1);
    ck_assert_uint_eq(filtered, 1);
    stacktab_free(t);
}
END_TEST

START_TEST(two_event_types_with_timestamps_and_modifiers)
{
    const char *text =
        "perf 9 [000] 1.000001:    10 cpu-clock:pppH:\n"
        "\tffffffff81000001 a ([kernel.kallsyms])\n\n"
        "perf 9 [000] 1.000002:    99 page-faults:u:\n"
        "\t400001 b (/usr/bin/perf)\n\n"
        "perf 9 [000] 1.000003:    10 cpu-clock:pppH:\n"
        "\tffffffff81000001 a ([kernel.kallsyms])\n\n";
    perf_options opt = { .include_pid = true, .period = true };
    uint64_t filtered = 0;
    stacktab *t = collapse(text, &opt, NULL, &filtered);
    ck_assert_double_eq(weight(t, "perf-?;a_[k]"), 20);     /* no PID: ? */
    ck_assert_uint_eq(stacktab_size(t), 1);
    ck_assert_uint_eq(filtered, 1);
    stacktab_free(t);
}
END_TEST

/* `staprelay fold --all` of a table row as one perf sample: the
 * process frame, then the relay's frames. */
START_TEST(frame_shapes_as_the_relay_folds_them)
{
    const frame_shape *r = &frame_shapes[_i];
    if (!r->perf)
        return;
    strbuf text = STRBUF_INIT;
    sb_printf(&text, "prog 41/42 [000] 7.5: 3 cpu-clock:\n%s\n", r->text);
    perf_options all = { .period = true };
    stacktab *t = collapse(text.buf, &all, NULL, NULL);
    ck_assert_uint_eq(stacktab_size(t), 1);
    const stack_entry *e = stacktab_entry(t, 0);
    strbuf want = STRBUF_INIT;
    sb_printf(&want, "prog;%s", r->folded);
    ck_assert_msg(strcmp(e->stack, want.buf) == 0, "%s:\n got  %s\n want %s", r->what,
                  e->stack, want.buf);
    ck_assert_double_eq(e->count[0], 3);
    sb_free(&want);
    sb_free(&text);
    stacktab_free(t);
}
END_TEST

TEST_SUITE(client_collapse_perf)
{
    Suite *s = suite_create(test_suite_name);
    TCase *tc = tcase_create("collapse");
    tcase_add_test(tc, collapses_root_first_with_period_weight);
    tcase_add_test(tc, kernel_annotation_and_pid_tid);
    tcase_add_test(tc, only_first_event_type_is_kept);
    tcase_add_test(tc, unknown_jit_inline_and_offsets);
    tcase_add_test(tc, counts_unrecognised_lines_and_skips_comments);
    tcase_add_test(tc, last_sample_without_blank_line_counts);
    tcase_add_test(tc, java_jit_and_inlined_frames_without_timestamp);
    tcase_add_test(tc, each_mark_option_adds_its_own_mark);
    tcase_add_test(tc, kernel_modules_get_k_under_kernel);
    tcase_add_test(tc, two_event_types_without_timestamps);
    tcase_add_test(tc, two_event_types_with_timestamps_and_modifiers);
    tcase_add_loop_test(tc, frame_shapes_as_the_relay_folds_them, 0, (int)NFRAME_SHAPES);
    suite_add_tcase(s, tc);
    return s;
}
