/* Suite: stack canonicalisation over real SystemTap and perf frame shapes. */
#include "relay/stack.h"
#include "tests/suites.h"

#include <stdlib.h>

static void expect_fold(const char *in, const char *out, size_t frames)
{
    char err[128];
    size_t n = 0;
    char *f = stack_fold(in, &n, err, sizeof(err));
    ck_assert_msg(f != NULL, "%s: %s", in, err);
    ck_assert_str_eq(f, out);
    ck_assert_uint_eq(n, frames);
    free(f);
}

START_TEST(stack_systemtap_kernel_backtrace)
{
    /* print_backtrace(): leaf first, [kernel], offsets, (inexact) */
    expect_fold(" 0xffffffff8103ce3b : native_safe_halt+0xb/0xd [kernel]\n"
                " 0xffffffff8101c6dd : default_idle+0x1d/0x30 [kernel]\n"
                " 0xffffffff81013296 : arch_cpu_idle+0x16/0x20 [kernel] (inexact)\n"
                " 0xffffffff810ad6c9 : cpu_startup_entry+0x1a9/0x2b0 [kernel]\n",
                "cpu_startup_entry_[k];arch_cpu_idle_[k];default_idle_[k];native_safe_halt_[k]", 4);
}
END_TEST

START_TEST(stack_systemtap_user_and_modules)
{
    /* kernel frames first, then user frames (sprint_ubacktrace) */
    expect_fold(" 0xffffffffc0451234 : ext4_file_read_iter+0x4/0x80 [ext4]\n"
                " 0xffffffff812a0000 : vfs_read+0x9/0x160 [kernel]\n"
                " 0x7f3c2a8e1e8e : __read+0xe/0x20 [/usr/lib/x86_64-linux-gnu/libc.so.6]\n"
                " 0x55d0c3a012f4 : main+0x34/0x80 [/usr/bin/cat]\n"
                " 0x7f3c2a80d24a\n",
                "0x7f3c2a80d24a;main;__read;vfs_read_[k];ext4_file_read_iter_[k]", 5);
    /* unresolved kernel address, a C++ name with ::, a ';' in a name */
    expect_fold(" 0xffffffff81234567\n 0x4005d4 : ns::Foo::bar(int)+0x10/0x30 [/opt/x]\n"
                " 0x4005e0 : weird;name+0x1/0x2 [/opt/x]\n",
                "weird:name;ns::Foo::bar(int);0xffffffff81234567_[k]", 3);
    /* without addresses (sprint_ustack-like) */
    expect_fold("main+0x34/0x80 [/usr/bin/cat]\n__libc_start_main+0xea/0x1c0 [/lib/libc.so.6]\n",
                "__libc_start_main;main", 2);
}
END_TEST

START_TEST(stack_folded_passthrough_and_errors)
{
    expect_fold("bash;main;read_[k]", "bash;main;read_[k]", 3);
    expect_fold(" a ; b;;c ", "a;b;c", 3);
    char err[128];
    size_t n;
    ck_assert_ptr_null(stack_fold("", &n, err, sizeof(err)));
    ck_assert_ptr_null(stack_fold("\n\n  \n", &n, err, sizeof(err)));
    ck_assert_str_eq(err, "stack has no frames");
    char *name = stack_instance_name("java;a b;x,y;leaf_[k]");
    ck_assert_str_eq(name, "java,a_b,x:y,leaf_[k]");
    free(name);
}
END_TEST

Suite *stack_suite(void)
{
    Suite *s = suite_create("stack");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, stack_systemtap_kernel_backtrace);
    tcase_add_test(tc, stack_systemtap_user_and_modules);
    tcase_add_test(tc, stack_folded_passthrough_and_errors);
    suite_add_tcase(s, tc);
    return s;
}
