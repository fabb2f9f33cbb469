/* Suite: client/run/run, what `staprelay run` stands on: its options
 * (OPTS_SCRIPT), the script catalog, the machine probe, the backend
 * choice and the kernel runtime's command line. */
#include <check.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "client/cmd/options.h"
#include "client/run/backend_stap.h"
#include "client/run/run.h"
#include "tests/testutil.h"

/* run's options through the one parser (cmd/options.c, OPTS_SCRIPT);
 * the usage error it prints is kept in err. */
static int parse(run_opts *o, char *err, size_t len, ...)
{
    char *argv[32];
    int argc = 0;
    va_list ap;
    va_start(ap, len);
    argv[argc++] = (char *)"run";
    const char *a;
    while ((a = va_arg(ap, const char *)) != NULL && argc < 31)
        argv[argc++] = (char *)a;
    va_end(ap);
    argv[argc] = NULL;
    static cmd_opts co;
    fflush(stderr);
    int saved = dup(2);
    FILE *devnull = fopen("/dev/null", "w");
    dup2(fileno(devnull), 2);
    int rc = cmd_opts_parse(&co, OPTS_SCRIPT, argc, argv, "test");
    fflush(stderr);
    dup2(saved, 2);
    close(saved);
    fclose(devnull);
    *o = co.script;
    snprintf(err, len, "%s", co.error);
    return rc;
}

/* The module cache is never beside the sources: $STAPRELAY_CACHE, else
 * /var/cache/staprelay for root, else $XDG_CACHE_HOME (absolute), else
 * ~/.cache. */
START_TEST(cache_dir_rule)
{
    char *d = backend_stap_cache_dir_for("/srv/c", 0, "/x", "/home/u");
    ck_assert_str_eq(d, "/srv/c");
    free(d);
    d = backend_stap_cache_dir_for("", 0, "/x", "/root");
    ck_assert_str_eq(d, "/var/cache/staprelay");
    free(d);
    d = backend_stap_cache_dir_for(NULL, 1000, "/x/cache", "/home/u");
    ck_assert_str_eq(d, "/x/cache/staprelay");
    free(d);
    d = backend_stap_cache_dir_for(NULL, 1000, "relative", "/home/u");
    ck_assert_str_eq(d, "/home/u/.cache/staprelay");
    free(d);
    d = backend_stap_cache_dir_for(NULL, 1000, NULL, "/home/u");
    ck_assert_str_eq(d, "/home/u/.cache/staprelay");
    free(d);
    /* the environment: a source tree no longer chooses build/stapcache */
    char *saved = getenv("STAPRELAY_CACHE") ? strdup(getenv("STAPRELAY_CACHE")) : NULL;
    unsetenv("STAPRELAY_CACHE");
    d = backend_stap_cache_dir();
    ck_assert_ptr_null(strstr(d, "stapcache"));
    ck_assert(strcmp(d, "/var/cache/staprelay") == 0 || strstr(d, "/staprelay") != NULL);
    free(d);
    setenv("STAPRELAY_CACHE", "/tmp/qq", 1);
    d = backend_stap_cache_dir();
    ck_assert_str_eq(d, "/tmp/qq");
    free(d);
    if (saved)
        setenv("STAPRELAY_CACHE", saved, 1);
    else
        unsetenv("STAPRELAY_CACHE");
    free(saved);
}
END_TEST

START_TEST(args_basic)
{
    run_opts o;
    char err[512];
    ck_assert_int_eq(parse(&o, err, sizeof err, "profile", "-T", "4", "--hz", "199",
                           "--pid", "42", "--name", "p1", "--kernel-only", NULL), 0);
    ck_assert_str_eq(o.script, "profile");
    ck_assert_double_eq(o.duration, 4);
    ck_assert_int_eq(o.hz, 199);
    ck_assert_int_eq(o.pid, 42);
    ck_assert_str_eq(o.name, "p1");
    ck_assert(o.kernel_only);
    ck_assert_uint_eq(o.given, RUN_OPT_HZ | RUN_OPT_PID | RUN_OPT_KERNEL_ONLY);
    /* options before the script name too */
    ck_assert_int_eq(parse(&o, err, sizeof err, "--dir", "/tmp/x", "-T", "2m", "syslat",
                           "--backend", "bpf", NULL), 0);
    ck_assert_str_eq(o.script, "syslat");
    ck_assert_str_eq(o.dir, "/tmp/x");
    ck_assert_double_eq(o.duration, 120);
    ck_assert_str_eq(o.backend, "bpf");
    ck_assert_uint_eq(o.given, 0);
}
END_TEST

START_TEST(args_errors)
{
    run_opts o;
    char err[512];
    ck_assert_int_eq(parse(&o, err, sizeof err, NULL), 2);
    ck_assert_ptr_nonnull(strstr(err, "no script"));
    ck_assert_int_eq(parse(&o, err, sizeof err, "profile", "-T", "soon", NULL), 2);
    ck_assert_ptr_nonnull(strstr(err, "bad duration"));
    ck_assert_int_eq(parse(&o, err, sizeof err, "profile", "--hz", "0", NULL), 2);
    ck_assert_int_eq(parse(&o, err, sizeof err, "profile", "--hz", "9x", NULL), 2);
    ck_assert_int_eq(parse(&o, err, sizeof err, "profile", "--pid", "-3", NULL), 2);
    ck_assert_int_eq(parse(&o, err, sizeof err, "profile", "--pid", "3", "--cmd", "ls", NULL), 2);
    ck_assert_ptr_nonnull(strstr(err, "exclude"));
    ck_assert_int_eq(parse(&o, err, sizeof err, "profile", "--kernel-only", "--user-only", NULL), 2);
    ck_assert_int_eq(parse(&o, err, sizeof err, "profile", "--name", "1abc", NULL), 2);
    ck_assert_int_eq(parse(&o, err, sizeof err, "profile", "--name", "a.b", NULL), 2);
    ck_assert_int_eq(parse(&o, err, sizeof err, "profile", "--backend", "dtrace", NULL), 2);
    ck_assert_int_eq(parse(&o, err, sizeof err, "profile", "--frobnicate", NULL), 2);
    ck_assert_ptr_nonnull(strstr(err, "unknown option"));
    ck_assert_int_eq(parse(&o, err, sizeof err, "profile", "-T", NULL), 2);
    ck_assert_ptr_nonnull(strstr(err, "missing argument"));
    ck_assert_int_eq(parse(&o, err, sizeof err, "profile", "syslat", NULL), 2);
    ck_assert_ptr_nonnull(strstr(err, "unexpected argument"));
}
END_TEST

START_TEST(durations_and_names)
{
    run_opts o;
    char err[512];
    /* the limits are common/script_opts' table, the PMDA's too */
    ck_assert_int_eq(parse(&o, err, sizeof err, "profile", "--hz", "10000", NULL), 0);
    ck_assert_int_eq(parse(&o, err, sizeof err, "profile", "--hz", "10001", NULL), 2);
    ck_assert_str_eq(err, "bad --hz '10001' (an integer 1..10000)");
    ck_assert_int_eq(parse(&o, err, sizeof err, "profile", "--pid", "4194305", NULL), 2);
    ck_assert_int_eq(parse(&o, err, sizeof err, "profile", "-T", "1.5min", NULL), 0);
    ck_assert_double_eq(o.duration, 90);
    ck_assert(run_name_ok("staprelay_profile"));
    ck_assert(run_name_ok("P2"));
    ck_assert(!run_name_ok(""));
    ck_assert(!run_name_ok("_x"));
    ck_assert(!run_name_ok("a-b"));
    ck_assert(!run_name_ok("abcdefghijabcdefghijabcdefghijabcdefghijabcdefghij"));
}
END_TEST

static const char profile_head[] =
    "#!/usr/bin/stap\n"
    "// profile.stp - CPU sampling profiler with kernel + user stacks (staprelay)\n"
    "//\n"
    "// What it measures\n"
    "//   Samples every CPU at HZ Hz.\n"
    "//\n"
    "// Options\n"
    "//   HZ           first argument, default 99\n"
    "//   -x PID       only that process;  -c CMD  runs CMD\n"
    "//   -G kernel_only=1   kernel frames only\n"
    "//   -G user_only=1     user frames only\n"
    "//\n"
    "// Run (kernel with module support):\n"
    "//   stap -x PID\n"
    "\n"
    "global x\n";

START_TEST(header_parse)
{
    run_script s;
    memset(&s, 0, sizeof s);
    run_parse_header(&s, profile_head);
    ck_assert_str_eq(s.desc, "CPU sampling profiler with kernel + user stacks");
    ck_assert_uint_eq(s.opts, RUN_OPT_HZ | RUN_OPT_PID | RUN_OPT_CMD | RUN_OPT_KERNEL_ONLY
                      | RUN_OPT_USER_ONLY);
    run_parse_header(&s, "// iolat.stp - block I/O (staprelay)\n//\n// Options\n"
                         "//   -G prefix=NAME     metric prefix\n//\n// Run:\n//   -x PID\n");
    ck_assert_str_eq(s.desc, "block I/O");
    ck_assert_uint_eq(s.opts, 0);       /* -x PID outside Options does not count */
    free(s.desc);
    char buf[128];
    run_opts_text(RUN_OPT_PID | RUN_OPT_HZ, buf, sizeof buf);
    ck_assert_str_eq(buf, "--hz N, --pid P");
    run_opts_text(0, buf, sizeof buf);
    ck_assert_str_eq(buf, "-");
}
END_TEST

START_TEST(catalog)
{
    char *d = tu_mkdtemp();
    ck_assert_int_eq(tu_write(d, "profile.stp", profile_head), 0);
    ck_assert_int_eq(tu_write(d, "syslat.stp", "// syslat.stp - syscalls (staprelay)\n"
                                               "// Options\n//   -x PID / -c CMD\n"), 0);
    ck_assert_int_eq(tu_write(d, "bpf/syslat.stp", "// bpf/syslat.stp - other words\n"), 0);
    ck_assert_int_eq(tu_write(d, "bpf/only.stp", "// bpf/only.stp - BPF only (staprelay)\n"
                                                 "// Options\n//   -x PID\n"), 0);
    ck_assert_int_eq(tu_write(d, "README.md", "not a script"), 0);
    run_catalog c;
    ck_assert_int_eq(run_catalog_load(&c, d), 0);
    ck_assert_uint_eq(c.n, 3);
    ck_assert_str_eq(c.v[0].name, "only");
    ck_assert_str_eq(c.v[1].name, "profile");
    ck_assert_str_eq(c.v[2].name, "syslat");
    const run_script *s = run_catalog_find(&c, "syslat");
    ck_assert_ptr_nonnull(s);
    ck_assert_str_eq(s->desc, "syscalls");          /* the kernel script's header */
    ck_assert_uint_eq(s->backends, RUN_BK_STAP | RUN_BK_BPF);
    ck_assert_uint_eq(s->opts, RUN_OPT_PID | RUN_OPT_CMD);
    s = run_catalog_find(&c, "profile");
    ck_assert_uint_eq(s->backends, RUN_BK_STAP | RUN_BK_PERF);
    s = run_catalog_find(&c, "only");
    ck_assert_ptr_null(s->path);
    ck_assert_uint_eq(s->backends, RUN_BK_BPF);
    ck_assert_str_eq(s->desc, "BPF only");
    /* a script perf stands in for but without its .stp is not listed */
    ck_assert_ptr_null(run_catalog_find(&c, "offwake"));
    ck_assert_ptr_null(run_catalog_find(&c, "nope"));
    run_catalog_free(&c);
    run_catalog c2;
    ck_assert_int_eq(run_catalog_load(&c2, "/nonexistent/stap"), -1);
    /* the repository's offcpu: perf stands in for it (script_offcpu.c) */
    run_catalog r;
    ck_assert_int_eq(run_catalog_load(&r, "stap"), 0);
    ck_assert_uint_eq(run_catalog_find(&r, "offcpu")->backends, RUN_BK_STAP | RUN_BK_PERF);
    /* offwake: stap/offwake.stp for the kernel runtime, perf where no
     * module loads; the script's header names it */
    const run_script *ow = run_catalog_find(&r, "offwake");
    ck_assert_uint_eq(ow->backends, RUN_BK_STAP | RUN_BK_PERF);
    ck_assert_ptr_nonnull(ow->path);
    ck_assert_uint_eq(ow->opts, RUN_OPT_PID | RUN_OPT_CMD);
    ck_assert_ptr_nonnull(strstr(ow->desc, "woke"));
    ow = run_catalog_find(&r, "hotcold");
    ck_assert_uint_eq(ow->backends, RUN_BK_STAP | RUN_BK_PERF);
    ck_assert_uint_eq(ow->opts, RUN_OPT_HZ | RUN_OPT_PID | RUN_OPT_CMD);
    /* ... and for iolat (its block events from tracefs, script_iolat.c) */
    ck_assert_uint_eq(run_catalog_find(&r, "iolat")->backends, RUN_BK_STAP | RUN_BK_PERF);
    run_catalog_free(&r);
    tu_rmtree(d);
    free(d);
}
END_TEST

START_TEST(module_probe)
{
    char *d = tu_mkdtemp();
    char why[256];
    ck_assert(!run_probe_modules(d, why, sizeof why));
    ck_assert_ptr_nonnull(strstr(why, "no loadable-module support"));
    tu_write(d, "proc/modules", "");
    ck_assert(run_probe_modules(d, why, sizeof why));
    tu_write(d, "sys/kernel/security/lockdown", "none [integrity] confidentiality\n");
    ck_assert(!run_probe_modules(d, why, sizeof why));
    ck_assert_ptr_nonnull(strstr(why, "locked down"));
    tu_write(d, "sys/kernel/security/lockdown", "[none] integrity confidentiality\n");
    ck_assert(run_probe_modules(d, why, sizeof why));
    tu_write(d, "proc/sys/kernel/modules_disabled", "1\n");
    ck_assert(!run_probe_modules(d, why, sizeof why));
    ck_assert_ptr_nonnull(strstr(why, "modules_disabled"));
    tu_rmtree(d);
    free(d);
}
END_TEST

static run_env here_env(void)
{
    /* this project's VMs: no modules, stap and perf installed, root */
    run_env e;
    memset(&e, 0, sizeof e);
    e.stap = e.stapbpf = e.perf = e.cc = e.root = e.kbuild = true;
    snprintf(e.modules_why, sizeof e.modules_why, "this kernel has no loadable-module support");
    e.perf_paranoid = 2;
    return e;
}

START_TEST(choice)
{
    run_script prof = { .name = (char *)"profile", .path = (char *)"p.stp",
                        .backends = RUN_BK_STAP | RUN_BK_PERF };
    run_script sys = { .name = (char *)"syslat", .path = (char *)"s.stp",
                       .bpf_path = (char *)"bpf/s.stp", .backends = RUN_BK_STAP | RUN_BK_BPF };
    run_script io = { .name = (char *)"iolat", .path = (char *)"i.stp",
                      .backends = RUN_BK_STAP | RUN_BK_PERF };
    run_opts o;
    memset(&o, 0, sizeof o);
    char why[2048];
    run_env e = here_env();

    ck_assert_int_eq(run_choose(&prof, &o, &e, why, sizeof why), RUN_BK_PERF);
    ck_assert_ptr_nonnull(strstr(why, "no loadable-module support"));
    ck_assert_ptr_nonnull(strstr(why, "no BPF variant"));
    ck_assert_int_eq(run_choose(&sys, &o, &e, why, sizeof why), RUN_BK_BPF);
    ck_assert_ptr_nonnull(strstr(why, "(bpf): yes"));
    /* iolat's perf backend reads tracefs: perf itself is not needed */
    ck_assert_int_eq(run_choose(&io, &o, &e, why, sizeof why), RUN_BK_PERF);
    e.perf = false;
    ck_assert_int_eq(run_choose(&io, &o, &e, why, sizeof why), RUN_BK_PERF);
    e.perf = true;

    /* a kernel that loads modules: the kernel runtime first */
    e.modules = true;
    ck_assert_int_eq(run_choose(&prof, &o, &e, why, sizeof why), RUN_BK_STAP);
    ck_assert_int_eq(run_choose(&sys, &o, &e, why, sizeof why), RUN_BK_STAP);
    ck_assert_ptr_nonnull(strstr(why, "(bpf): not needed"));
    /* ... unless a backend is forced */
    o.backend = "perf";
    ck_assert_int_eq(run_choose(&prof, &o, &e, why, sizeof why), RUN_BK_PERF);
    ck_assert_ptr_nonnull(strstr(why, "not tried (--backend perf)"));
    ck_assert_int_eq(run_choose(&sys, &o, &e, why, sizeof why), RUN_BK_NONE);
    ck_assert_ptr_nonnull(strstr(why, "only stand in for profile"));
    o.backend = NULL;
    e.stap = false;
    ck_assert_int_eq(run_choose(&io, &o, &e, why, sizeof why), RUN_BK_PERF);
    ck_assert_ptr_nonnull(strstr(why, "stap is not installed"));

    /* no perf: say so */
    e = here_env();
    e.perf = false;
    snprintf(e.perf_why, sizeof e.perf_why, "perf is not installed (apt-get install linux-perf)");
    ck_assert_int_eq(run_choose(&prof, &o, &e, why, sizeof why), RUN_BK_NONE);
    ck_assert_ptr_nonnull(strstr(why, "perf is not installed"));

    /* not root */
    e = here_env();
    e.root = false;
    ck_assert_int_eq(run_choose(&sys, &o, &e, why, sizeof why), RUN_BK_NONE);
    ck_assert_ptr_nonnull(strstr(why, "needs root"));
    ck_assert_int_eq(run_choose(&prof, &o, &e, why, sizeof why), RUN_BK_NONE);
    ck_assert_ptr_nonnull(strstr(why, "use --pid or --cmd"));
    ck_assert_int_eq(run_choose(&io, &o, &e, why, sizeof why), RUN_BK_NONE);
    ck_assert_ptr_nonnull(strstr(why, "tracefs, which needs root"));
    o.pid = 1;
    ck_assert_int_eq(run_choose(&prof, &o, &e, why, sizeof why), RUN_BK_PERF);
    e.kbuild = false;
    snprintf(e.kbuild_why, sizeof e.kbuild_why, "no kernel build tree");
    e.root = true;
    ck_assert_int_eq(run_choose(&sys, &o, &e, why, sizeof why), RUN_BK_NONE);
    ck_assert_ptr_nonnull(strstr(why, "no kernel build tree"));
}
END_TEST

/* ---- the kernel runtime's command line ---------------------------------- */

/* A fake machine under D/root for run_env_probe() and stap/kbuild.sh
 * (STAPRELAY_KB_ROOT): a kernel that loads modules, Debian-style headers
 * whose task_work.h says HDR_TEXT, and a stock SystemTap runtime whose
 * stp_task_work.c says RT_TEXT.  A stub stap on PATH answers -V and
 * otherwise writes its arguments to D/stap.args, one per line, and makes
 * the NAME.ko of -m NAME; a stub staprun writes its arguments to
 * D/staprun.args. */
static const char stock_task_work[] =
    "typedef typeof(&task_work_cancel) task_work_cancel_fn;\n"
    "fn = kallsyms_lookup_name(\"task_work_cancel\");\n";

static void fake_machine(const char *d, const char *hdr_text, const char *rt_text)
{
    char root[512], bin[512], stub[1024];
    snprintf(root, sizeof root, "%s/root", d);
    tu_rmtree(root);
    ck_assert_int_eq(tu_write(root, "proc/modules", ""), 0);
    ck_assert_int_eq(tu_write(root, "proc/sys/kernel/osrelease", "6.18.0-test\n"), 0);
    ck_assert_int_eq(tu_write(root, "usr/src/linux-headers-6.1.0-99-amd64/.config", "CONFIG_X=y\n"), 0);
    ck_assert_int_eq(tu_write(root, "usr/src/linux-headers-6.1.0-99-amd64/include/generated/x.h", ""), 0);
    ck_assert_int_eq(tu_write(root, "usr/src/linux-headers-6.1.0-99-common/include/linux/task_work.h",
                              hdr_text), 0);
    ck_assert_int_eq(tu_write(root, "usr/share/systemtap/runtime/stp_task_work.c", rt_text), 0);
    ck_assert_int_eq(tu_write(root, "usr/share/systemtap/runtime/runtime.h", "/* stock */\n"), 0);
    snprintf(bin, sizeof bin, "%s/bin", d);
    snprintf(stub, sizeof stub,
             "#!/bin/sh\n"
             "[ \"$1\" = -V ] && { echo 'Systemtap translator/driver (version 0.0 stub)'; exit 0; }\n"
             "printf '%%s\\n' \"$@\" > '%s/stap.args'\n"
             "while [ $# -gt 0 ]; do [ \"$1\" = -m ] && : > \"$2.ko\"; shift; done\n", d);
    ck_assert_int_eq(tu_write(bin, "stap", stub), 0);
    snprintf(stub, sizeof stub, "%s/stap", bin);
    ck_assert_int_eq(chmod(stub, 0755), 0);
    snprintf(stub, sizeof stub, "#!/bin/sh\nprintf '%%s\\n' \"$@\" > '%s/staprun.args'\n", d);
    ck_assert_int_eq(tu_write(bin, "staprun", stub), 0);
    snprintf(stub, sizeof stub, "%s/staprun", bin);
    ck_assert_int_eq(chmod(stub, 0755), 0);
    setenv("STAPRELAY_KB_ROOT", root, 1);
}

/* A stub's argument file as one line (malloc'd), or NULL. */
static char *args_line(const char *file)
{
    char *text = tu_slurp(file);
    if (text == NULL)
        return NULL;
    for (char *p = text; *p; p++)
        if (*p == '\n')
            *p = p[1] ? ' ' : '\0';
    return text;
}

/* run profile with the kernel runtime on the fake machine (with CACHE);
 * returns the stub stap's arguments joined by spaces (malloc'd), NULL
 * when the cache had the module (stap did not build), and in *staprun
 * what staprun was given. */
static char *kernel_run_args(const char *d, const char *cache, char **staprun)
{
    char root[512], path[1024], args[512], rargs[512];
    snprintf(root, sizeof root, "%s/root", d);
    snprintf(path, sizeof path, "%s/bin:%s", d, getenv("PATH") ? getenv("PATH") : "/usr/bin:/bin");
    setenv("PATH", path, 1);
    setenv("STAPRELAY_CACHE", cache, 1);
    unsetenv("STAPRELAY_KMOD_DEFINES");
    unsetenv("STAPRELAY_KB_RELEASE");
    snprintf(args, sizeof args, "%s/stap.args", d);
    snprintf(rargs, sizeof rargs, "%s/staprun.args", d);
    unlink(args);
    unlink(rargs);

    run_env e;
    run_env_probe(&e, root);
    ck_assert_msg(e.modules, "%s", e.modules_why);
    ck_assert(e.stap);
    ck_assert_msg(e.kbuild, "%s", e.kbuild_why);
    e.root = true;      /* what is tested is the command, not who may load it */
    run_catalog c;
    ck_assert_int_eq(run_catalog_load(&c, "stap"), 0);   /* the repository's scripts */
    const run_script *s = run_catalog_find(&c, "profile");
    ck_assert_ptr_nonnull(s);
    run_opts o;
    memset(&o, 0, sizeof o);
    o.script = "profile";
    o.hz = 199;
    char why[2048];
    ck_assert_int_eq(run_choose(s, &o, &e, why, sizeof why), RUN_BK_STAP);
    ck_assert_int_eq(backend_stap_kernel(&c, s, &o, "kprof"), RUN_EXIT_OK);
    run_catalog_free(&c);

    *staprun = args_line(rargs);
    ck_assert_msg(*staprun != NULL, "the stub staprun did not run");
    return args_line(args);
}

/* staprun was given CACHE/ko/<32 hex digits>/kprof.ko, which exists. */
static void check_staprun(const char *cache, char *args)
{
    size_t n = strlen(cache);
    ck_assert_msg(strncmp(args, cache, n) == 0 && strncmp(args + n, "/ko/", 4) == 0, "%s", args);
    ck_assert_int_eq(strspn(args + n + 4, "0123456789abcdef"), 32);
    ck_assert_str_eq(args + n + 4 + 32, "/kprof.ko");
    ck_assert_int_eq(access(args, F_OK), 0);
    free(args);
}

/* profile run on the fake machine D with a fresh cache REAL/NAME (left in
 * cache): stap was given the headers' tree, then -R the runtime copy
 * where runtime, then tail */
static void expect_headers_build(const char *d, const char *real, const char *name, bool runtime,
                                 const char *tail, char *cache, size_t n)
{
    char want[4096], *run;
    snprintf(cache, n, "%s/%s", real, name);
    char *got = kernel_run_args(d, cache, &run);
    ck_assert_ptr_nonnull(got);
    check_staprun(cache, run);
    if (runtime)
        snprintf(want, sizeof want, "-r %s/kbuild-6.1.0-99-amd64 -R %s/runtime %s", cache, cache, tail);
    else
        snprintf(want, sizeof want, "-r %s/kbuild-6.1.0-99-amd64 %s", cache, tail);
    ck_assert_str_eq(got, want);
    free(got);
}

/* CACHE's runtime copy has FILE, holding A and B */
static void runtime_copy_holds(const char *cache, const char *file, const char *a, const char *b)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/runtime/%s", cache, file);
    char *t = tu_slurp(path);
    ck_assert_ptr_nonnull(t);
    ck_assert_msg(strstr(t, a) != NULL && strstr(t, b) != NULL, "%s: %s", path, t);
    free(t);
}

START_TEST(kernel_runtime_command)
{
    char *d = tu_mkdtemp();
    char *real = realpath(d, NULL);
    ck_assert_ptr_nonnull(real);
    char cache[600], want[4096], tail[1024], root[600], *got, *t, *run;
    char *src = realpath(".", NULL);
    ck_assert_ptr_nonnull(src);
    snprintf(tail, sizeof tail, "-p4 -m kprof -I %s/stap/tapset -DMAXSKIPPED=100000 "
             "-DMAXACTION_INTERRUPTIBLE=100000 -DMAXMAPENTRIES=2048 %s/stap/profile.stp 199",
             src, src);

    /* Debian's headers with the task_work_cancel_func backport, systemtap
     * < 5.2: check.sh's tree (-r) and the patched runtime copy (-R) */
    fake_machine(d, "bool task_work_cancel_func(struct task_struct *, bool (*)(void));\n",
                 stock_task_work);
    expect_headers_build(d, real, "c1", true, tail, cache, sizeof cache);
    runtime_copy_holds(cache, "stp_task_work.c",
                       "typedef typeof(&task_work_cancel_func) task_work_cancel_fn;",
                       "kallsyms_lookup_name(\"task_work_cancel_func\")");
    snprintf(want, sizeof want, "%s/runtime/runtime.h", cache);
    t = tu_slurp(want);
    ck_assert_ptr_nonnull(t);               /* the rest of the runtime is copied */
    free(t);
    snprintf(want, sizeof want, "%s/kbuild-6.1.0-99-amd64/System.map", cache);
    ck_assert_int_eq(access(want, F_OK), 0);
    /* the stock runtime is untouched */
    snprintf(want, sizeof want, "%s/root/usr/share/systemtap/runtime/stp_task_work.c", d);
    t = tu_slurp(want);
    ck_assert_str_eq(t, stock_task_work);
    free(t);

    /* headers without the backport: no -R */
    fake_machine(d, "void task_work_cancel(struct task_struct *);\n", stock_task_work);
    expect_headers_build(d, real, "c2", false, tail, cache, sizeof cache);
    snprintf(want, sizeof want, "%s/runtime", cache);
    ck_assert_int_ne(access(want, F_OK), 0);

    /* a runtime that already knows it (systemtap >= 5.2): no -R either */
    fake_machine(d, "bool task_work_cancel_func(void);\n",
                 "typedef typeof(&task_work_cancel_func) task_work_cancel_fn;\n");
    expect_headers_build(d, real, "c3", false, tail, cache, sizeof cache);

    /* systemtap 4.8's addr-map.c tests defined(user_addr_max), which
     * Linux 5.18 removed: the copy defines it (uaccess fix), else every
     * user stack unwound in an interrupt stops at its leaf */
    static const char stock_addr_map[] =
        "#include <linux/uaccess.h>\n"
        "#if defined(user_addr_max)\n  && ((user_addr_max() - size) < addr)\n#endif\n";
    fake_machine(d, "void task_work_cancel(struct task_struct *);\n", stock_task_work);
    snprintf(root, sizeof root, "%s/root", d);
    ck_assert_int_eq(tu_write(root, "usr/share/systemtap/runtime/linux/addr-map.c", stock_addr_map), 0);
    ck_assert_int_eq(tu_write(root, "usr/src/linux-headers-6.1.0-99-common/include/linux/uaccess.h",
                              "#define TASK_SIZE_MAX 1\n"), 0);
    expect_headers_build(d, real, "c5", true, tail, cache, sizeof cache);
    runtime_copy_holds(cache, "linux/addr-map.c", "#include <linux/uaccess.h>\n/* stap/kbuild.sh",
                       "\n#define user_addr_max() TASK_SIZE_MAX\n#endif\n#if defined(user_addr_max)");
    snprintf(want, sizeof want, "%s/runtime/stp_task_work.c", cache);
    t = tu_slurp(want);
    ck_assert_str_eq(t, stock_task_work);   /* only the fix it needs */
    free(t);
    /* a kernel that still has it: no -R */
    fake_machine(d, "void task_work_cancel(struct task_struct *);\n", stock_task_work);
    ck_assert_int_eq(tu_write(root, "usr/share/systemtap/runtime/linux/addr-map.c", stock_addr_map), 0);
    ck_assert_int_eq(tu_write(root, "usr/src/linux-headers-6.1.0-99-common/arch/x86/include/asm/uaccess.h",
                              "#define user_addr_max() (current->thread.addr_limit.seg)\n"), 0);
    expect_headers_build(d, real, "c6", false, tail, cache, sizeof cache);

    /* the running kernel's own build tree (what a loadable module needs):
     * -r names the running release, and its source's task_work.h decides -R */
    fake_machine(d, "void task_work_cancel(struct task_struct *);\n", stock_task_work);
    ck_assert_int_eq(tu_write(root, "lib/modules/6.18.0-test/build/.config", "CONFIG_X=y\n"), 0);
    ck_assert_int_eq(tu_write(root, "boot/System.map-6.18.0-test", "0 T _text\n"), 0);
    ck_assert_int_eq(tu_write(root, "lib/modules/6.18.0-test/build/include/linux/task_work.h",
                              "bool task_work_cancel_func(void);\n"), 0);
    snprintf(cache, sizeof cache, "%s/c4", real);
    got = kernel_run_args(d, cache, &run);
    ck_assert_ptr_nonnull(got);
    check_staprun(cache, run);
    snprintf(want, sizeof want, "-r 6.18.0-test -R %s/runtime %s", cache, tail);
    ck_assert_str_eq(got, want);
    free(got);

    /* the same again: the cached module, no build */
    got = kernel_run_args(d, cache, &run);
    ck_assert_ptr_null(got);
    check_staprun(cache, run);

    unsetenv("STAPRELAY_KB_ROOT");
    free(src);
    unsetenv("STAPRELAY_CACHE");
    tu_rmtree(d);
    free(d);
    free(real);
}
END_TEST

TEST_SUITE(client_run)
{
    Suite *s = suite_create(test_suite_name);
    TCase *tc = tcase_create("run");
    tcase_add_test(tc, args_basic);
    tcase_add_test(tc, args_errors);
    tcase_add_test(tc, durations_and_names);
    tcase_add_test(tc, header_parse);
    tcase_add_test(tc, catalog);
    tcase_add_test(tc, module_probe);
    tcase_add_test(tc, choice);
    tcase_add_test(tc, cache_dir_rule);
    suite_add_tcase(s, tc);
    /* runs stap/kmod.sh and stap/kbuild.sh (shell, sha256sum, cp) five
     * times: seconds on a busy machine */
    TCase *km = tcase_create("kmod");
    tcase_set_timeout(km, 120);
    tcase_add_test(km, kernel_runtime_command);
    suite_add_tcase(s, km);
    return s;
}
