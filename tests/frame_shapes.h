/* frame_shapes: the one table of real frame shapes, for the one frame
 * grammar (common/frames).  Each row is one stack as text, leaf first,
 * and what it folds to with every mark asked for (the relay's view:
 * _[k] kernel, _[j] JIT, _[i] inlined).  Four suites run it:
 * tests/common_frames.c through common/frames, tests/relay_stack.c
 * through the relay's stack_fold, and tests/client_perf.c and
 * client_stap.c through the client's file collapsers (what `staprelay
 * fold --all` does with the text), so the relay and the client cannot
 * drift apart on any shape here.
 *
 * Where the rows come from:
 *   - SystemTap: the shapes runtime/sym.c (_stp_snprint_addr) prints
 *     with the flag sets of runtime/sym.h -- _STP_SYM_FULL for
 *     print_backtrace/print_ubacktrace, _STP_SYM_SIMPLE (module basename,
 *     no address) for sprint_backtrace/sprint_ubacktrace, _STP_SYM_BRIEF
 *     for print_ubacktrace_brief, _STP_SYM_DATA after " ADDR : " for
 *     print_syms/sprint_ustack; lines copied from published SystemTap
 *     output (nginx, qemu, the systemtap uprobes testsuite) and from our
 *     own fixtures (stap/fixtures/profile, offcpu);
 *   - perf: `perf script` of `perf record -g` captures made on this
 *     machine (perf 6.1): ls, a g++ -O1 program (anonymous namespace,
 *     templates), OpenJDK 17 with -XX:+DumpPerfMapAtExit, node 18 with
 *     --perf-basic-prof, an idle system; perf-map-agent's JVM-signature
 *     names as published; Rust names as rustc mangles and demangles
 *     them.
 * A row's text is one stack; `perf` says which kind it is (the client
 * reads perf script text with a sample header, SystemTap text with a
 * count line). */
#ifndef STAPRELAY_FRAME_SHAPES_H
#define STAPRELAY_FRAME_SHAPES_H

#include <stdbool.h>
#include <stddef.h>

typedef struct frame_shape {
    const char *what;
    bool        perf;     /* perf script frame lines (else SystemTap) */
    const char *text;     /* one frame line per line, leaf first */
    const char *folded;   /* root first, every mark asked for */
} frame_shape;

static const frame_shape frame_shapes[] = {
    /* ---- SystemTap, print_backtrace / print_ubacktrace (FULL) ---- */
    {"FULL kernel, (inexact)", false,
     " 0xffffffff8103ce3b : native_safe_halt+0xb/0xd [kernel]\n"
     " 0xffffffff8101c6dd : default_idle+0x1d/0x30 [kernel]\n"
     " 0xffffffff81013296 : arch_cpu_idle+0x16/0x20 [kernel] (inexact)\n"
     " 0xffffffff810ad6c9 : cpu_startup_entry+0x1a9/0x2b0 [kernel]\n",
     "cpu_startup_entry_[k];arch_cpu_idle_[k];default_idle_[k];native_safe_halt_[k]"},
    {"FULL kernel module, kernel, user libs, bare address", false,
     " 0xffffffffc0451234 : ext4_file_read_iter+0x4/0x80 [ext4]\n"
     " 0xffffffff812a0000 : vfs_read+0x9/0x160 [kernel]\n"
     " 0x7f3c2a8e1e8e : __read+0xe/0x20 [/usr/lib/x86_64-linux-gnu/libc.so.6]\n"
     " 0x55d0c3a012f4 : main+0x34/0x80 [/usr/bin/cat]\n"
     " 0x7f3c2a80d24a\n",
     "0x7f3c2a80d24a;main;__read;vfs_read_[k];ext4_file_read_iter_[k]"},
    {"FULL user (nginx, published), offset 0x0", false,
     "    0x49447c : ngx_spawn_process+0x17c/0x510 [/usr/local/openresty/nginx/sbin/nginx]\n"
     "    0x46af59 : main+0x819/0xb38 [/usr/local/openresty/nginx/sbin/nginx]\n"
     "    0x7fb422a43555 : __libc_start_main+0xf5/0x1c0 [/usr/lib64/libc-2.17.so]\n"
     "    0x55875b6239e0 : kvm_vm_ioctl+0x0/0x70 [/usr/bin/qemu-system-x86_64]\n",
     "kvm_vm_ioctl;__libc_start_main;main;ngx_spawn_process"},
    {"FULL unresolved symbol, module known (qemu, published)", false,
     " 0x55875b4237e1 : qemu_init+0x3571/0x42b0 [/usr/bin/qemu-system-x86_64]\n"
     " 0x55875b284b9d : main+0xd/0x20 [/usr/bin/qemu-system-x86_64]\n"
     " 0x7fbe2af0bb4a [/usr/lib64/libc.so.6+0x27b4a/0x1de000]\n",
     "[libc.so.6];main;qemu_init"},
    {"FULL 32-bit uprobes (systemtap testsuite)", false,
     " 0x080484ba : main_func+0xa/0x29 [.../uprobes_exe]\n"
     " 0x080484f6 : main+0x1d/0x37 [.../uprobes_exe]\n",
     "main;main_func"},
    {"FULL in a return probe: Returning from/to", false,
     "Returning from:  0xffffffff811cb8f0 : dequeue_huge_page_node+0x0/0xe0 [kernel]\n"
     "Returning to  :  0xffffffff811cc0a3 : alloc_huge_page+0x183/0x2c0 [kernel]\n"
     " 0xffffffff811cd1e5 : hugetlb_fault+0x4a5/0x8a0 [kernel]\n",
     "hugetlb_fault_[k];alloc_huge_page_[k];dequeue_huge_page_node_[k]"},
    {"FULL kernel part, then no user backtrace", false,
     " 0xffffffff8103ce3b : native_safe_halt+0xb/0xd [kernel]\n"
     "<no user backtrace at kernel.function(\"native_safe_halt@arch/x86/kernel/paravirt.c:110\")>\n",
     "native_safe_halt_[k]"},
    {"FULL names kept whole: C++ and ';'", false,
     " 0xffffffff81234567\n 0x4005d4 : ns::Foo::bar(int)+0x10/0x30 [/opt/x]\n"
     " 0x4005e0 : weird;name+0x1/0x2 [/opt/x]\n",
     "weird:name;ns::Foo::bar(int);0xffffffff81234567_[k]"},
    {"FULL kernel modules, (inexact) after the module", false,
     " 0xffffffffc0a1b2c3 : ext4_file_write_iter+0x53/0x1a0 [ext4]\n"
     " 0xffffffffc0b00010 : nf_conntrack_in+0x10/0x4f0 [nf_conntrack] (inexact)\n",
     "nf_conntrack_in_[k];ext4_file_write_iter_[k]"},
    {"FULL C++ operators, '+' in a module name (libstdc++)", false,
     " 0x401200 : Foo::operator+(Foo const&)+0x8/0x20 [/usr/bin/foo]\n"
     " 0x7f3a0000a1b9 : _ZdlPv+0x9/0x20 [/usr/lib/x86_64-linux-gnu/libstdc++.so.6]\n"
     " 0x401136 : std::vector<int, std::allocator<int> >::push_back(int const&)+0x26/0x60"
     " [/usr/bin/foo]\n",
     "std::vector<int, std::allocator<int> >::push_back(int const&);_ZdlPv;"
     "Foo::operator+(Foo const&)"},
    {"FULL no symbol: the module holds the offset, libstdc++, tabs and CR", false,
     " 0x7f5d8c1a2b3c [/usr/lib/libc.so.6+0x2b3c]\n"
     " 0x7f5d8c1a2b3c [libstdc++.so.6+0x2b3c] (inexact)\n"
     "\t0x55d0c0de3000 : _ZN5myapp6worker3run17h0123456789abcdefE+0x5/0x80 [/usr/bin/myapp]\r\n",
     "_ZN5myapp6worker3run17h0123456789abcdefE;[libstdc++.so.6];[libc.so.6]"},
    {"FULL then SIMPLE with path modules (stap/fixtures/profile)", false,
     " 0xffffffff81cdb1b0 : copy_user_enhanced_fast_string+0x10/0x40 [kernel]\n"
     " 0xffffffff8133f6f5 : filemap_read+0x1d5/0x340 [kernel]\n"
     " 0xffffffff813c0c29 : vfs_read+0x1a9/0x2c0 [kernel]\n"
     " 0xffffffff81e000e6 : entry_SYSCALL_64_after_hwframe+0x6e/0xd8 [kernel]\n"
     "__GI___libc_read+0x12 [/usr/lib/x86_64-linux-gnu/libc.so.6]\n"
     "safe_read+0x1a [/usr/bin/cat]\n"
     "main+0x2d4 [/usr/bin/cat]\n"
     "__libc_start_call_main+0x7a [/usr/lib/x86_64-linux-gnu/libc.so.6]\n",
     "__libc_start_call_main;main;safe_read;__GI___libc_read;"
     "entry_SYSCALL_64_after_hwframe_[k];vfs_read_[k];filemap_read_[k];"
     "copy_user_enhanced_fast_string_[k]"},
    /* ---- print_syms / sprint_ustack (" ADDR : " + symdata) ---- */
    {"print_syms unresolved, module known and not", false,
     " 0xffffffffc0a01234 : 0xffffffffc0a01234 [nf_conntrack+0x1234/0x9000]\n"
     " 0xffffffff81234567 : 0xffffffff81234567\n",
     "0xffffffff81234567_[k];[nf_conntrack]_[k]"},
    {"sprint_ustack", false,
     " 0x40053b : fun+0xe/0x10 [/tmp/malloc_program]\n"
     " 0x400556 : main+0x19/0x23 [/tmp/malloc_program]\n",
     "main;fun"},
    /* ---- sprint_backtrace / sprint_ubacktrace (SIMPLE) ---- */
    {"SIMPLE kernel: module and kernel frames, no addresses", false,
     "ext4_file_read_iter+0x4 [ext4]\nvfs_read+0x9 [kernel]\nksys_read+0x5 [kernel]",
     "ksys_read_[k];vfs_read_[k];ext4_file_read_iter_[k]"},
    {"SIMPLE user: module basenames are not kernel modules", false,
     "__read+0xe [libc.so.6]\nmain+0x34 [cat]\n__libc_start_main+0xea [libc.so.6]\n",
     "__libc_start_main;main;__read"},
    {"SIMPLE kernel then user", false,
     "ext4_file_read_iter+0x4 [ext4]\nvfs_read+0x9 [kernel]\n__read+0xe [libc.so.6]\n"
     "main+0x34 [cat]",
     "main;__read;vfs_read_[k];ext4_file_read_iter_[k]"},
    {"SIMPLE unresolved (address, module+offset)", false,
     "0x7fbe2af0bb4a [libc.so.6+0x27b4a]\nmain+0xd [qemu-kvm]\n",
     "main;[libc.so.6]"},
    /* ---- print_ubacktrace_brief (BRIEF) ---- */
    {"BRIEF", false, "leaf+0x16\ntop+0xe\nmain+0x1c\n__libc_start_call_main+0x7a\n",
     "__libc_start_call_main;main;top;leaf"},
    /* ---- perf script ---- */
    {"perf kernel and user (ls, recorded)", true,
     "\tffffffff821ed4e6 do_syscall_64+0x46 ([kernel.kallsyms])\n"
     "\tffffffff81000130 entry_SYSCALL_64_after_hwframe+0x76 ([kernel.kallsyms])\n"
     "\t           20a07 __GI___close_nocancel+0x7 (/usr/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2)\n"
     "\t            80c5 _dl_map_object+0x215 (/usr/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2)\n",
     "_dl_map_object;__GI___close_nocancel;entry_SYSCALL_64_after_hwframe_[k];do_syscall_64_[k]"},
    {"perf [unknown] symbols: dso basename, [unknown], kernel", true,
     "\tffffffff816ca017 inode_permission+0x17 ([kernel.kallsyms])\n"
     "\tffffffff816ca000 [unknown] ([kernel.kallsyms])\n"
     "\t           f786a __GI___fstatat64+0xa (/usr/lib/x86_64-linux-gnu/libc.so.6)\n"
     "\t            730a [unknown] (/usr/bin/ls)\n"
     "\t    5638cf5ecc18 [unknown] ([unknown])\n",
     "[unknown];[ls];__GI___fstatat64;[[kernel.kallsyms]]_[k];inode_permission_[k]"},
    {"perf C++ (g++ -O0, recorded): (anonymous namespace) frame skipped as perf does", true,
     "\t            12b2 (anonymous namespace)::spin+0x29 (/tmp/stk/cx)\n"
     "\t            13c6 ns::Foo::bar+0x1e (/tmp/stk/cx)\n"
     "\t            15c4 run<int>+0x8c (/tmp/stk/cx)\n"
     "\t            1309 main+0x4d (/tmp/stk/cx)\n"
     "\t           2724a __libc_start_call_main+0x7a (/usr/lib/x86_64-linux-gnu/libc.so.6)\n",
     "__libc_start_call_main;main;run<int>;ns::Foo::bar"},
    {"perf C++ (g++ -O1, recorded): a template and the loader's [unknown]", true,
     "\t            148c (anonymous namespace)::spin+0x12 (/tmp/mapcap/cx)\n"
     "\t            1530 run<long>+0x14 (/tmp/mapcap/cx)\n"
     "\t            132b main+0x182 (/tmp/mapcap/cx)\n"
     "\t           2724a __libc_start_call_main+0x7a (/usr/lib/x86_64-linux-gnu/libc.so.6)\n"
     "\t               0 [unknown] ([unknown])\n",
     "[unknown];__libc_start_call_main;main;run<long>"},
    {"perf demangled arguments cut, quotes dropped, ';' to ':', JVM signature", true,
     "\t    55d0c3a012f4 std::vector<int, std::allocator<int> >::push_back(int const&)+0x2e (/opt/x)\n"
     "\t    55d0c3a01300 Ljava/lang/Thread;::\"run\"+0x10 (/tmp/perf-1234.map)\n",
     "java/lang/Thread:::run_[j];std::vector<int, std::allocator<int> >::push_back"},
    {"perf vmlinux dso and inlined calls", true,
     "\tffffffff81000010 rest_init+0x10 (/usr/lib/debug/lib/modules/6.1.0/vmlinux)\n"
     "\t    4005d4 outer->mid->inner+0x1 (/opt/x)\n",
     "outer;mid_[i];inner_[i];rest_init_[k]"},
    {"perf OpenJDK 17 DumpPerfMapAtExit (recorded): Java names, stubs", true,
     "\t    7f3a84ecafe8 long Hot.work(long)+0xc8 (/tmp/perf-4519.map)\n"
     "\t    7f3a7d40346c long Hot$$Lambda$1/0x00007f3a14000c08.run(long)+0xac (/tmp/perf-4519.map)\n"
     "\t    7f3a849417b5 Interpreter+0xc35 (/tmp/perf-4519.map)\n"
     "\t    7f3a84938cc9 StubRoutines (1)+0xc9 (/tmp/perf-4519.map)\n"
     "\t          8282d2 JavaCalls::call_helper+0x302 (/usr/lib/jvm/java-17-openjdk-amd64/lib/server/libjvm.so)\n"
     "\t           891f5 start_thread+0x305 (/usr/lib/x86_64-linux-gnu/libc.so.6)\n",
     "start_thread;JavaCalls::call_helper;StubRoutines _[j];Interpreter_[j];"
     "long Hot$$Lambda$1/0x00007f3a14000c08.run_[j];long Hot.work_[j]"},
    {"perf perf-map-agent JVM signatures (published), inlined JIT frames", true,
     "\t7f0a1c2d3e4f Lcom/example/Foo;.bar(I)V (/tmp/perf-12688.map)\n"
     "\t7f0a1c2d3e00 Lcom/example/Foo;.inl->Lcom/example/Baz;.leaf (/tmp/perf-12688.map)\n"
     "\t7f0a2b3c4d5e JavaCalls::call_helper(JavaValue*, methodHandle const&, Thread*)+0x2f2"
     " (/usr/lib/jvm/java-17/lib/server/libjvm.so)\n"
     "\t7f0a2b3c0000 [unknown] (/usr/lib/jvm/java-17/lib/server/libjvm.so)\n",
     "[libjvm.so];JavaCalls::call_helper;com/example/Foo:.inl_[j];com/example/Baz:.leaf_[i];"
     "com/example/Foo:.bar_[j]"},
    {"perf node --perf-basic-prof (recorded): JS names with blanks", true,
     "\t    7f76b80065c4 JS:*work /tmp/mapcap/hot.js:1:14+0x1c4 (/tmp/perf-4808.map)\n"
     "\t         14cfd1c Builtins_InterpreterEntryTrampoline+0xdc (/usr/bin/node)\n"
     "\t          c494db v8::internal::(anonymous namespace)::Invoke+0x12b (/usr/bin/node)\n"
     "\t          86853f node::Start+0x58f (/usr/bin/node)\n",
     "node::Start;v8::internal::(anonymous namespace)::Invoke;"
     "Builtins_InterpreterEntryTrampoline;JS:*work /tmp/mapcap/hot.js:1:14_[j]"},
    {"perf kernel without offsets, modules, vdso (recorded idle system)", true,
     "\tffffffff8225f7a5 pvm_safe_halt_hc ([kernel.kallsyms])\n"
     "\tffffffffc0a1b2c3 ext4_file_write_iter+0x53 ([ext4])\n"
     "\tffffffff81aebbfe start_kernel+0x3ba ([kernel.kallsyms].init.text)\n"
     "\t7ffd1234 __vdso_clock_gettime+0x2 ([vdso])\n"
     "\t7f0000000001 __libc_start_main+0xf3 (/usr/lib/libc.so.6)\n",
     "__libc_start_main;__vdso_clock_gettime_[k];start_kernel_[k];ext4_file_write_iter_[k];"
     "pvm_safe_halt_hc_[k]"},
    {"perf offsets in upper-case hex go too", true,
     "\tffffffff8103ce3b native_safe_halt+0xB ([kernel.kallsyms])\n"
     "\t55d0c3a01300 main+0x1C (/usr/bin/x)\n",
     "main;native_safe_halt_[k]"},
    {"perf Rust names kept whole", true,
     "\t55d0c0de1000 _ZN4core3ptr13drop_in_place17h0123456789abcdefE+0x10 (/usr/bin/myapp)\n"
     "\t55d0c0de2000 <alloc::vec::Vec<T,A> as core::ops::drop::Drop>::drop+0x22 (/usr/bin/myapp)\n"
     "\t55d0c0de3100 myapp::main::{{closure}}::hfedcba9876543210 (/usr/bin/myapp)\n",
     "myapp::main::{{closure}}::hfedcba9876543210;<alloc::vec::Vec<T,A> as core::ops::drop::Drop>::drop;"
     "_ZN4core3ptr13drop_in_place17h0123456789abcdefE"},
    {"perf C++ operators and templates: cut at the first '('", true,
     "\t4006a0 Foo::operator()(int) const (/usr/bin/app)\n"
     "\t4007b0 std::_Function_handler<void (int), Foo>::_M_invoke(std::_Any_data const&, int&&) (/usr/bin/app)\n"
     "\t400800 ns::(anonymous namespace)::helper(int) (/usr/bin/app)\n"
     "\t4008ff net/http.(*Client).Do+0x10 (/usr/bin/app)\n"
     "\t400900 operator new(unsigned long)+0x1c (/usr/lib/x86_64-linux-gnu/libstdc++.so.6)\n",
     "operator new;net/http.(*Client).Do;ns::(anonymous namespace)::helper;"
     "std::_Function_handler<void ;Foo::operator"},
};

#define NFRAME_SHAPES (sizeof frame_shapes / sizeof frame_shapes[0])

#endif
