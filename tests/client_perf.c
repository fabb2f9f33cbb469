/* Tests for client/collapse_perf: stackcollapse-perf.pl semantics. */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "client/input/collapse_perf.h"

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

/* Headers of `perf script -F ...` without the time field: no ':' before
 * the period.  We still take the event and the period (see
 * perf_parse_header); the PID never passes for a period. */
START_TEST(header_forms_without_timestamp)
{
    perf_header h;
    const char *s = "java 12688/12764 10309278 cpu-clock:";
    ck_assert(perf_parse_header(s, strlen(s), &h));
    ck_assert_int_eq(strncmp(h.comm, "java", h.comm_len), 0);
    ck_assert_int_eq(strncmp(h.pid, "12688", h.pid_len), 0);
    ck_assert_int_eq(strncmp(h.tid, "12764", h.tid_len), 0);
    ck_assert_double_eq(h.period, 10309278);
    ck_assert_int_eq((int)h.event_len, 9);
    ck_assert_int_eq(strncmp(h.event, "cpu-clock", h.event_len), 0);

    s = "swapper     0 [000] cpu-clock:";
    ck_assert(perf_parse_header(s, strlen(s), &h));
    ck_assert_int_eq(strncmp(h.comm, "swapper", h.comm_len), 0);
    ck_assert_ptr_null(h.pid);
    ck_assert_int_eq(strncmp(h.tid, "0", h.tid_len), 0);
    ck_assert_double_eq(h.period, 0);
    ck_assert_int_eq(strncmp(h.event, "cpu-clock", h.event_len), 0);

    s = "swapper     0 [003]     250000 cycles:ppp:  ";
    ck_assert(perf_parse_header(s, strlen(s), &h));
    ck_assert_double_eq(h.period, 250000);
    ck_assert_int_eq((int)h.event_len, 10);
    ck_assert_int_eq(strncmp(h.event, "cycles:ppp", h.event_len), 0);

    s = "java 12688 cpu-clock:";             /* 12688 is the TID */
    ck_assert(perf_parse_header(s, strlen(s), &h));
    ck_assert_int_eq(strncmp(h.tid, "12688", h.tid_len), 0);
    ck_assert_double_eq(h.period, 0);
    ck_assert_int_eq(strncmp(h.event, "cpu-clock", h.event_len), 0);

    s = "V8 WorkerThread 24636/25607 [000] 3 cycles:";
    ck_assert(perf_parse_header(s, strlen(s), &h));
    ck_assert_int_eq(strncmp(h.comm, "V8 WorkerThread", h.comm_len), 0);
    ck_assert_double_eq(h.period, 3);
    ck_assert_int_eq(strncmp(h.event, "cycles", h.event_len), 0);

    /* a timestamp with no event after it is no event */
    s = "java 12688 [002] 6544038.708352:";
    ck_assert(perf_parse_header(s, strlen(s), &h));
    ck_assert_ptr_null(h.event);
    /* anything else between PID and event: no event, as the Perl */
    s = "java 12688 sym+0x1 cycles:";
    ck_assert(perf_parse_header(s, strlen(s), &h));
    ck_assert_ptr_null(h.event);
    ck_assert_double_eq(h.period, 0);
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
    perf_options opt = { .annotate_jit = true };
    stacktab *t = collapse(java_untimed, &opt, NULL, NULL);
    ck_assert_uint_eq(stacktab_size(t), 1);
    /* "->" splits one line into frames, the first keeps _[j], the
     * others are _[i]; [unknown] takes the module's base name */
    ck_assert_double_eq(weight(t,
        "java;start_thread;[libjvm.so];JavaCalls::call_helper;"
        "Interpreter_[j];com/example/Foo:.inl_[j];com/example/Baz:.leaf_[i];"
        "com/example/Foo:.bar_[j]"), 10309278);
    stacktab_free(t);
    perf_options none = { 0 };
    t = collapse(java_untimed, &none, NULL, NULL);   /* no --jit */
    ck_assert_double_eq(weight(t,
        "java;start_thread;[libjvm.so];JavaCalls::call_helper;"
        "Interpreter;com/example/Foo:.inl;com/example/Baz:.leaf_[i];"
        "com/example/Foo:.bar"), 10309278);
    stacktab_free(t);
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
    perf_options opt = { .annotate_kernel = true };
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
    perf_options none = { 0 };
    t = collapse(kernel_untimed, &none, NULL, NULL);
    ck_assert_double_eq(weight(t, "swapper;native_safe_halt"), 1);
    stacktab_free(t);
}
END_TEST

START_TEST(rust_names_are_kept)
{
    const char *text =
        "myapp 4242/4243 [001] 100.000001:     250000 cycles:u:\n"
        "\t55d0c0de1000 _ZN4core3ptr13drop_in_place17h0123456789abcdefE+0x10 (/usr/bin/myapp)\n"
        "\t55d0c0de2000 <alloc::vec::Vec<T,A> as core::ops::drop::Drop>::drop+0x22 (/usr/bin/myapp)\n"
        "\t55d0c0de2100 <myapp::Job as core::future::Future>::poll (/usr/bin/myapp)\n"
        "\t55d0c0de3000 myapp::worker::run::h0123456789abcdef+0x5 (/usr/bin/myapp)\n"
        "\t55d0c0de3100 myapp::main::{{closure}}::hfedcba9876543210 (/usr/bin/myapp)\n"
        "\t55d0c0de4000 std::sys::unix::thread::Thread::new::thread_start+0x2a (/usr/bin/myapp)\n"
        "\n";
    perf_options opt = { .annotate_kernel = true };
    stacktab *t = collapse(text, &opt, NULL, NULL);
    /* mangled names, "<T as Trait>::f" and legacy ::h<hash> suffixes
     * stay whole (no '(' to cut at); only the +0x offsets go */
    ck_assert_double_eq(weight(t,
        "myapp;std::sys::unix::thread::Thread::new::thread_start;"
        "myapp::main::{{closure}}::hfedcba9876543210;"
        "myapp::worker::run::h0123456789abcdef;"
        "<myapp::Job as core::future::Future>::poll;"
        "<alloc::vec::Vec<T,A> as core::ops::drop::Drop>::drop;"
        "_ZN4core3ptr13drop_in_place17h0123456789abcdefE"), 250000);
    stacktab_free(t);
}
END_TEST

START_TEST(cpp_templates_and_operators)
{
    const char *text =
        "app 77 [002] 5.500000: 1000 cycles:u:\n"
        "\t4005d6 std::vector<int, std::allocator<int> >::push_back(int const&)+0x26 (/usr/bin/app)\n"
        "\t4006a0 Foo::operator()(int) const (/usr/bin/app)\n"
        "\t4006b0 bool std::operator< <char>(std::string const&, std::string const&) (/usr/bin/app)\n"
        "\t4007b0 std::_Function_handler<void (int), Foo>::_M_invoke(std::_Any_data const&, int&&) (/usr/bin/app)\n"
        "\t400800 ns::(anonymous namespace)::helper(int) (/usr/bin/app)\n"
        "\t400850 (anonymous namespace)::top() (/usr/bin/app)\n"
        "\t400900 operator new(unsigned long)+0x1c (/usr/lib/x86_64-linux-gnu/libstdc++.so.6)\n"
        "\t400a00 main (/usr/bin/app)\n"
        "\n";
    perf_options opt = { 0 };
    stacktab *t = collapse(text, &opt, NULL, NULL);
    /* everything from the first '(' goes (operator() becomes
     * "operator", "<void (int)" becomes "<void "), but
     * "(anonymous namespace)" stays; a frame starting with '(' is
     * dropped as a process name, as the Perl does */
    ck_assert_double_eq(weight(t,
        "app;main;operator new;ns::(anonymous namespace)::helper;"
        "std::_Function_handler<void ;bool std::operator< <char>;"
        "Foo::operator;std::vector<int, std::allocator<int> >::push_back"),
        1000);
    ck_assert_uint_eq(stacktab_size(t), 1);
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
    perf_options opt = { .include_tid = true };
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
    perf_options opt = { .include_pid = true };
    uint64_t filtered = 0;
    stacktab *t = collapse(text, &opt, NULL, &filtered);
    ck_assert_double_eq(weight(t, "perf-?;a"), 20);     /* no PID: ? */
    ck_assert_uint_eq(stacktab_size(t), 1);
    ck_assert_uint_eq(filtered, 1);
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
    tcase_add_test(tc, header_forms_without_timestamp);
    tcase_add_test(tc, java_jit_and_inlined_frames_without_timestamp);
    tcase_add_test(tc, kernel_modules_get_k_under_kernel);
    tcase_add_test(tc, rust_names_are_kept);
    tcase_add_test(tc, cpp_templates_and_operators);
    tcase_add_test(tc, two_event_types_without_timestamps);
    tcase_add_test(tc, two_event_types_with_timestamps_and_modifiers);
    suite_add_tcase(s, tc);
    return s;
}
