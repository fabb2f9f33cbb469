/* Suite: stack canonicalisation over real SystemTap and perf frame shapes,
 * refusal of lines that are not frames, and instance names that never
 * merge two stacks.
 *
 * SystemTap rows use the shapes runtime/sym.c (_stp_snprint_addr) prints
 * with the flag sets of runtime/sym.h: _STP_SYM_FULL for print_backtrace
 * and print_ubacktrace, _STP_SYM_SIMPLE (module basename, no address) for
 * sprint_backtrace and sprint_ubacktrace, _STP_SYM_BRIEF for
 * print_ubacktrace_brief, _STP_SYM_DATA after " ADDR : " for
 * print_syms/sprint_ustack; several lines are copied from published
 * SystemTap output (nginx, qemu, the systemtap uprobes testsuite).  perf
 * rows are `perf script` output recorded on this machine (perf 6.1,
 * `perf record -g`), plus a C++ program built with g++ -O0. */
#include "relay/stack.h"
#include "tests/suites.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    const char *what;
    const char *in;
    const char *out;      /* NULL: refused */
    const char *err;      /* refused: the reason, exactly */
} row;

static const row rows[] = {
    /* ---- SystemTap, print_backtrace / print_ubacktrace (FULL) ---- */
    {"FULL kernel, (inexact)",
     " 0xffffffff8103ce3b : native_safe_halt+0xb/0xd [kernel]\n"
     " 0xffffffff8101c6dd : default_idle+0x1d/0x30 [kernel]\n"
     " 0xffffffff81013296 : arch_cpu_idle+0x16/0x20 [kernel] (inexact)\n"
     " 0xffffffff810ad6c9 : cpu_startup_entry+0x1a9/0x2b0 [kernel]\n",
     "cpu_startup_entry_[k];arch_cpu_idle_[k];default_idle_[k];native_safe_halt_[k]", NULL},
    {"FULL kernel module, kernel, user libs, bare address",
     " 0xffffffffc0451234 : ext4_file_read_iter+0x4/0x80 [ext4]\n"
     " 0xffffffff812a0000 : vfs_read+0x9/0x160 [kernel]\n"
     " 0x7f3c2a8e1e8e : __read+0xe/0x20 [/usr/lib/x86_64-linux-gnu/libc.so.6]\n"
     " 0x55d0c3a012f4 : main+0x34/0x80 [/usr/bin/cat]\n"
     " 0x7f3c2a80d24a\n",
     "0x7f3c2a80d24a;main;__read;vfs_read_[k];ext4_file_read_iter_[k]", NULL},
    {"FULL user (nginx, published), offset 0x0",
     "    0x49447c : ngx_spawn_process+0x17c/0x510 [/usr/local/openresty/nginx/sbin/nginx]\n"
     "    0x46af59 : main+0x819/0xb38 [/usr/local/openresty/nginx/sbin/nginx]\n"
     "    0x7fb422a43555 : __libc_start_main+0xf5/0x1c0 [/usr/lib64/libc-2.17.so]\n"
     "    0x55875b6239e0 : kvm_vm_ioctl+0x0/0x70 [/usr/bin/qemu-system-x86_64]\n",
     "kvm_vm_ioctl;__libc_start_main;main;ngx_spawn_process", NULL},
    {"FULL unresolved symbol, module known (qemu, published)",
     " 0x55875b4237e1 : qemu_init+0x3571/0x42b0 [/usr/bin/qemu-system-x86_64]\n"
     " 0x55875b284b9d : main+0xd/0x20 [/usr/bin/qemu-system-x86_64]\n"
     " 0x7fbe2af0bb4a [/usr/lib64/libc.so.6+0x27b4a/0x1de000]\n",
     "[libc.so.6];main;qemu_init", NULL},
    {"FULL 32-bit uprobes (systemtap testsuite)",
     " 0x080484ba : main_func+0xa/0x29 [.../uprobes_exe]\n"
     " 0x080484f6 : main+0x1d/0x37 [.../uprobes_exe]\n",
     "main;main_func", NULL},
    {"FULL in a return probe: Returning from/to",
     "Returning from:  0xffffffff811cb8f0 : dequeue_huge_page_node+0x0/0xe0 [kernel]\n"
     "Returning to  :  0xffffffff811cc0a3 : alloc_huge_page+0x183/0x2c0 [kernel]\n"
     " 0xffffffff811cd1e5 : hugetlb_fault+0x4a5/0x8a0 [kernel]\n",
     "hugetlb_fault_[k];alloc_huge_page_[k];dequeue_huge_page_node_[k]", NULL},
    {"FULL kernel part, then no user backtrace",
     " 0xffffffff8103ce3b : native_safe_halt+0xb/0xd [kernel]\n"
     "<no user backtrace at kernel.function(\"native_safe_halt@arch/x86/kernel/paravirt.c:110\")>\n",
     "native_safe_halt_[k]", NULL},
    {"FULL names kept whole: C++ and ';'",
     " 0xffffffff81234567\n 0x4005d4 : ns::Foo::bar(int)+0x10/0x30 [/opt/x]\n"
     " 0x4005e0 : weird;name+0x1/0x2 [/opt/x]\n",
     "weird:name;ns::Foo::bar(int);0xffffffff81234567_[k]", NULL},
    {"one FULL frame without its newline (sprint_* drop the last byte)",
     " 0xffffffff8103ce3b : native_safe_halt+0xb/0xd [kernel]",
     "native_safe_halt_[k]", NULL},
    {"one bare address", "0x7f00deadbeef", "0x7f00deadbeef", NULL},
    /* ---- print_syms / sprint_ustack (" ADDR : " + symdata) ---- */
    {"print_syms unresolved, module known and not",
     " 0xffffffffc0a01234 : 0xffffffffc0a01234 [nf_conntrack+0x1234/0x9000]\n"
     " 0xffffffff81234567 : 0xffffffff81234567\n",
     "0xffffffff81234567_[k];[nf_conntrack]_[k]", NULL},
    {"sprint_ustack",
     " 0x40053b : fun+0xe/0x10 [/tmp/malloc_program]\n"
     " 0x400556 : main+0x19/0x23 [/tmp/malloc_program]\n",
     "main;fun", NULL},
    /* ---- sprint_backtrace / sprint_ubacktrace (SIMPLE) ---- */
    {"SIMPLE kernel: module and kernel frames, no addresses",
     "ext4_file_read_iter+0x4 [ext4]\nvfs_read+0x9 [kernel]\nksys_read+0x5 [kernel]",
     "ksys_read_[k];vfs_read_[k];ext4_file_read_iter_[k]", NULL},
    {"SIMPLE user: module basenames are not kernel modules",
     "__read+0xe [libc.so.6]\nmain+0x34 [cat]\n__libc_start_main+0xea [libc.so.6]\n",
     "__libc_start_main;main;__read", NULL},
    {"SIMPLE kernel then user",
     "ext4_file_read_iter+0x4 [ext4]\nvfs_read+0x9 [kernel]\n__read+0xe [libc.so.6]\n"
     "main+0x34 [cat]",
     "main;__read;vfs_read_[k];ext4_file_read_iter_[k]", NULL},
    {"SIMPLE unresolved (address, module+offset)",
     "0x7fbe2af0bb4a [libc.so.6+0x27b4a]\nmain+0xd [qemu-kvm]\n",
     "main;[libc.so.6]", NULL},
    {"one SIMPLE frame", "native_safe_halt+0xb [kernel]", "native_safe_halt_[k]", NULL},
    /* ---- print_ubacktrace_brief (BRIEF) ---- */
    {"BRIEF", "leaf+0x16\ntop+0xe\nmain+0x1c\n__libc_start_call_main+0x7a\n",
     "__libc_start_call_main;main;top;leaf", NULL},
    /* ---- cut at MAXSTRINGLEN: the cut last line goes ---- */
    {"FULL cut inside the module",
     " 0x40053b : fun+0xe/0x10 [/tmp/a.out]\n 0x400556 : main+0x19/0x23 [/tmp/a.o",
     "fun", NULL},
    {"FULL cut inside the symbol", " 0x40053b : fun+0xe/0x10 [/tmp/a.out]\n 0x400556 : ma", "fun",
     NULL},
    {"cut inside the offset: the name is whole", "fun+0xe [a.out]\nmain+0x1", "main;fun", NULL},
    {"SIMPLE cut", "fun+0xe [a.out]\nmain+0x19 [a.o", "fun", NULL},
    {"SIMPLE cut, re-terminated by a tapset", "fun+0xe [a.out]\nmain+0x19 [a.o\n", "fun", NULL},
    {"SIMPLE cut inside the symbol", "fun+0xe [a.out]\n__libc_sta", "fun", NULL},
    /* ---- perf script ---- */
    {"perf kernel and user (ls, recorded)",
     "\tffffffff821ed4e6 do_syscall_64+0x46 ([kernel.kallsyms])\n"
     "\tffffffff81000130 entry_SYSCALL_64_after_hwframe+0x76 ([kernel.kallsyms])\n"
     "\t           20a07 __GI___close_nocancel+0x7 (/usr/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2)\n"
     "\t            80c5 _dl_map_object+0x215 (/usr/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2)\n",
     "_dl_map_object;__GI___close_nocancel;entry_SYSCALL_64_after_hwframe_[k];do_syscall_64_[k]",
     NULL},
    {"perf [unknown] symbols: dso basename, [unknown], kernel",
     "\tffffffff816ca017 inode_permission+0x17 ([kernel.kallsyms])\n"
     "\tffffffff816ca000 [unknown] ([kernel.kallsyms])\n"
     "\t           f786a __GI___fstatat64+0xa (/usr/lib/x86_64-linux-gnu/libc.so.6)\n"
     "\t            730a [unknown] (/usr/bin/ls)\n"
     "\t    5638cf5ecc18 [unknown] ([unknown])\n",
     "[unknown];[ls];__GI___fstatat64;[[kernel.kallsyms]]_[k];inode_permission_[k]", NULL},
    {"perf C++ (g++ -O0, recorded): (anonymous namespace) frame skipped as perf does",
     "\t            12b2 (anonymous namespace)::spin+0x29 (/tmp/stk/cx)\n"
     "\t            13c6 ns::Foo::bar+0x1e (/tmp/stk/cx)\n"
     "\t            15c4 run<int>+0x8c (/tmp/stk/cx)\n"
     "\t            1309 main+0x4d (/tmp/stk/cx)\n"
     "\t           2724a __libc_start_call_main+0x7a (/usr/lib/x86_64-linux-gnu/libc.so.6)\n",
     "__libc_start_call_main;main;run<int>;ns::Foo::bar", NULL},
    {"perf demangled arguments cut, quotes dropped, ';' to ':'",
     "\t    55d0c3a012f4 std::vector<int, std::allocator<int> >::push_back(int const&)+0x2e (/opt/x)\n"
     "\t    55d0c3a01300 Ljava/lang/Thread;::\"run\"+0x10 (/tmp/perf-1234.map)\n",
     "Ljava/lang/Thread:::run_[j];std::vector<int, std::allocator<int> >::push_back", NULL},
    {"perf vmlinux dso and inlined calls",
     "\tffffffff81000010 rest_init+0x10 (/usr/lib/debug/lib/modules/6.1.0/vmlinux)\n"
     "\t    4005d4 outer->mid->inner+0x1 (/opt/x)\n",
     "outer;mid_[i];inner_[i];rest_init_[k]", NULL},
    {"one perf frame without its newline",
     "ffffffff8103ce3b native_safe_halt+0xb ([kernel.kallsyms])", "native_safe_halt_[k]", NULL},
    /* ---- folded ---- */
    {"folded passthrough", "bash;main;read_[k]", "bash;main;read_[k]", NULL},
    {"folded blanks and empty frames", " a ; b;;c ", "a;b;c", NULL},
    {"folded frames with spaces and commas", "main;do some work;f(a,b)", "main;do some work;f(a,b)",
     NULL},
    {"folded single frame", "main", "main", NULL},
    /* ---- refused ---- */
    {"a line that is not a frame (audit)",
     " 0xffffffff8103ce3b : native_safe_halt+0xb/0xd [kernel]\n@@@ this is not a frame !!!\n",
     NULL, "line 2 is not a frame: \"@@@ this is not a frame !!!\""},
    {"a last line that is no cut frame",
     " 0xffffffff8103ce3b : native_safe_halt+0xb/0xd [kernel]\n@@@ not a frame", NULL,
     "line 2 is not a frame: \"@@@ not a frame\""},
    {"a bad line in the middle, long line shortened",
     "vfs_read+0x9 [kernel]\n\nthis line is much longer than what a reason shows\nmain+0x1 [cat]\n",
     NULL, "line 3 is not a frame: \"this line is much longer than...\""},
    {"a perf sample header is not a frame",
     "sh  8037 19621.794808:     250000 cpu-clock:ppp: \n"
     "\t           1462a handle_amd+0xa (/usr/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2)\n",
     NULL, "line 1 is not a frame: \"sh  8037 19621.794808:     25...\""},
    {"a symbol without offset or address", "main [/usr/bin/cat]\n__libc_start_main [/lib/libc.so.6]\n",
     NULL, "line 1 is not a frame: \"main [/usr/bin/cat]\""},
    {"folded stacks on several lines", "a;b\nc;d", NULL, "line 1 is not a frame: \"a;b\""},
    {"one address line that is no frame", "0xffffffff8103ce3b : ", NULL,
     "line 1 is not a frame: \"0xffffffff8103ce3b :\""},
    {"control bytes shown as ?", "f+0x1 [k]\n\x01\x02 x\n", NULL, "line 2 is not a frame: \"?? x\""},
    {"empty", "", NULL, "stack has no frames"},
    {"blank lines", "\n\n  \n", NULL, "stack has no frames"},
    {"no backtrace", "<no user backtrace at process(\"/bin/ls\").function(\"main\")>\n", NULL,
     "stack has no frames"},
};

static size_t count_frames(const char *folded)
{
    size_t n = 1;
    for (const char *c = folded; *c; c++)
        n += *c == ';';
    return n;
}

START_TEST(stack_shapes)
{
    const row *r = &rows[_i];
    char err[128] = "";
    size_t n = 0;
    char *f = stack_fold(r->in, &n, err, sizeof(err));
    if (r->out != NULL) {
        ck_assert_msg(f != NULL, "%s: refused: %s", r->what, err);
        ck_assert_msg(strcmp(f, r->out) == 0, "%s:\n got  %s\n want %s", r->what, f, r->out);
        ck_assert_uint_eq(n, count_frames(r->out));
    } else {
        ck_assert_msg(f == NULL, "%s: accepted as %s", r->what, f);
        ck_assert_msg(strcmp(err, r->err) == 0, "%s:\n got  %s\n want %s", r->what, err, r->err);
    }
    free(f);
}
END_TEST

/* events.c gives stack_fold 64 bytes for the reason: it still fits. */
START_TEST(stack_reason_fits_events_buffer)
{
    char err[64];
    size_t n;
    char *f = stack_fold("f+0x1 [k]\nx 2345678901234567890123456789012345678901234567890\n", &n,
                         err, sizeof(err));
    ck_assert_ptr_null(f);
    ck_assert_str_eq(err, "line 2 is not a frame: \"x 234567890123456789012345678...\"");
}
END_TEST

/* ---- instance names ------------------------------------------------- */

/* The inverse of stack_instance_name: ',' separates frames, %XX is a
 * byte.  Returns NULL when the name is not in the escaped form. */
static char *decode(const char *name)
{
    char *out = malloc(strlen(name) + 1);
    size_t k = 0;
    for (const char *c = name; *c; c++) {
        if (*c == ',') {
            out[k++] = ';';
        } else if (*c == '%') {
            unsigned v;
            if (sscanf(c + 1, "%2X", &v) != 1 || strlen(c) < 3) {
                free(out);
                return NULL;
            }
            out[k++] = (char)v;
            c += 2;
        } else {
            out[k++] = *c;
        }
    }
    out[k] = '\0';
    return out;
}

START_TEST(stack_instance_name_escapes)
{
    static const char *const cases[][2] = {
        {"java;a b;x,y;leaf_[k]", "java,a%20b,x%2Cy,leaf_[k]"},
        {"main;do some work;f(a,b)", "main,do%20some%20work,f(a%2Cb)"},
        {"100%;a_b", "100%25,a_b"},
        {"std::vector<int, std::allocator<int> >::push_back",
         "std::vector<int%2C%20std::allocator<int>%20>::push_back"},
        {"a\tb", "a%09b"},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        char *name = stack_instance_name(cases[i][0]);
        ck_assert_str_eq(name, cases[i][1]);
        free(name);
    }
}
END_TEST

/* Stacks the old mapping (blank to '_', ',' to ':') merged, and the
 * frames grafana-pcp sees (split on ',' and newline): one word, the
 * stack's own frames, none empty. */
START_TEST(stack_instance_names_distinct)
{
    static const char *const folded[] = {"a b", "a_b", "a,b", "a:b", "a;b", "a%20b", "a%2Cb",
                                         "a\tb", "a%b", "a%25b", "main;x y", "main;x_y"};
    size_t n = sizeof(folded) / sizeof(folded[0]);
    char *names[sizeof(folded) / sizeof(folded[0])];
    for (size_t i = 0; i < n; i++) {
        names[i] = stack_instance_name(folded[i]);
        ck_assert_ptr_null(strpbrk(names[i], " \t\n"));
        for (size_t j = 0; j < i; j++)
            ck_assert_msg(strcmp(names[i], names[j]) != 0, "\"%s\" and \"%s\" share \"%s\"",
                          folded[i], folded[j], names[i]);
        size_t frames = 1;
        for (const char *c = names[i]; *c; c++)
            frames += *c == ',';
        ck_assert_uint_eq(frames, count_frames(folded[i]));
    }
    for (size_t i = 0; i < n; i++)
        free(names[i]);
}
END_TEST

/* Every string of up to 4 bytes over the troublesome alphabet decodes
 * back to itself: the mapping is injective, so no two stacks merge. */
START_TEST(stack_instance_name_round_trip)
{
    static const char alpha[] = "a _,;:%2C\t";
    size_t A = sizeof(alpha) - 1, total = 0;
    char s[5];
    for (size_t len = 1; len <= 4; len++) {
        size_t count = 1;
        for (size_t i = 0; i < len; i++)
            count *= A;
        for (size_t v = 0; v < count; v++) {
            size_t x = v;
            for (size_t i = 0; i < len; i++, x /= A)
                s[i] = alpha[x % A];
            s[len] = '\0';
            char *name = stack_instance_name(s);
            ck_assert_ptr_null(strpbrk(name, " \t\n;"));
            char *back = decode(name);
            ck_assert_msg(back != NULL && strcmp(back, s) == 0, "\"%s\" -> \"%s\" -> \"%s\"", s,
                          name, back ? back : "(bad)");
            free(back);
            free(name);
            total++;
        }
    }
    ck_assert_uint_gt(total, 10000);
}
END_TEST

Suite *stack_suite(void)
{
    Suite *s = suite_create("stack");
    TCase *tc = tcase_create("shapes");
    tcase_add_loop_test(tc, stack_shapes, 0, (int)(sizeof(rows) / sizeof(rows[0])));
    tcase_add_test(tc, stack_reason_fits_events_buffer);
    suite_add_tcase(s, tc);
    TCase *names = tcase_create("instance names");
    tcase_add_test(names, stack_instance_name_escapes);
    tcase_add_test(names, stack_instance_names_distinct);
    tcase_add_test(names, stack_instance_name_round_trip);
    suite_add_tcase(s, names);
    return s;
}
