/* Suite: client/stack/stackfilter, pprof's sample filters: each rule,
 * their order, bad and hostile regexes, empty stacks, samples whose
 * context is unknown, UTF-8 frames. */
#include <check.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "client/stack/stackfilter.h"
#include "tests/testutil.h"

static stack_context ctx_of(int64_t pid, int64_t tid, const char *comm,
                            const char *host)
{
    stack_context c = { .pid = pid, .tid = tid, .comm = comm,
                        .comm_len = comm ? strlen(comm) : 0, .host = host,
                        .time_ns = STACK_TIME_UNKNOWN, .samples = 1 };
    return c;
}

/* Apply spec to stack: the kept stack, or "DROPPED". */
static char result[4096];
static const char *run(const stackfilter_spec *spec, const char *stack,
                       const stack_context *ctx)
{
    strbuf err = STRBUF_INIT, out = STRBUF_INIT;
    stackfilter *f = stackfilter_new(spec, &err);
    ck_assert_msg(f != NULL, "%s", err.buf);
    bool kept = stackfilter_apply(f, stack, strlen(stack), ctx, &out);
    snprintf(result, sizeof result, "%s", kept ? out.buf : "DROPPED");
    stackfilter_free(f);
    sb_free(&err);
    sb_free(&out);
    return result;
}

static const char *compile_error(const stackfilter_spec *spec)
{
    strbuf err = STRBUF_INIT;
    stackfilter *f = stackfilter_new(spec, &err);
    ck_assert_msg(f == NULL, "compiled");
    snprintf(result, sizeof result, "%s", err.buf);
    sb_free(&err);
    return result;
}

START_TEST(empty_spec_passes_everything)
{
    stackfilter_spec sp = { 0 };
    strbuf err = STRBUF_INIT;
    stackfilter *f = stackfilter_new(&sp, &err);
    ck_assert(stackfilter_empty(f));
    stackfilter_free(f);
    ck_assert(stackfilter_empty(NULL));
    ck_assert_str_eq(run(&sp, "a;b;c", NULL), "a;b;c");
    sp.focus = "";          /* an empty form field: no filter */
    f = stackfilter_new(&sp, &err);
    ck_assert(stackfilter_empty(f));
    stackfilter_free(f);
    sp.hide = "x";
    f = stackfilter_new(&sp, &err);
    ck_assert(!stackfilter_empty(f));
    stackfilter_free(f);
    sb_free(&err);
}
END_TEST

START_TEST(focus_keeps_samples_with_a_matching_frame)
{
    stackfilter_spec sp = { .focus = "^b" };
    ck_assert_str_eq(run(&sp, "a;bar;c", NULL), "a;bar;c");
    ck_assert_str_eq(run(&sp, "a;foobar;c", NULL), "DROPPED");
    sp.focus = "oba";       /* unanchored: anywhere in a frame */
    ck_assert_str_eq(run(&sp, "a;foobar;c", NULL), "a;foobar;c");
    sp.focus = "r;c";       /* one frame at a time, never across ';' */
    ck_assert_str_eq(run(&sp, "a;foobar;c", NULL), "DROPPED");
    sp.focus = "^c$";       /* ^ and $ are the frame's own ends */
    ck_assert_str_eq(run(&sp, "a;foobar;c", NULL), "a;foobar;c");
    ck_assert_str_eq(run(&sp, "c;cc", NULL), "c;cc");
    ck_assert_str_eq(run(&sp, "cc;xc", NULL), "DROPPED");
}
END_TEST

START_TEST(ignore_drops_samples_with_a_matching_frame)
{
    stackfilter_spec sp = { .ignore = "idle" };
    ck_assert_str_eq(run(&sp, "swapper;cpu_idle", NULL), "DROPPED");
    ck_assert_str_eq(run(&sp, "sh;main;work", NULL), "sh;main;work");
}
END_TEST

START_TEST(hide_removes_frames)
{
    stackfilter_spec sp = { .hide = "^_" };
    ck_assert_str_eq(run(&sp, "main;_start;__libc;work", NULL), "main;work");
    ck_assert_str_eq(run(&sp, "_a;_b", NULL), "DROPPED");   /* none left */
    ck_assert_str_eq(run(&sp, "_a;x;_b", NULL), "x");
}
END_TEST

START_TEST(show_keeps_only_matching_frames)
{
    stackfilter_spec sp = { .show = "work|main" };
    ck_assert_str_eq(run(&sp, "sh;main;libc;work;leaf", NULL), "main;work");
    ck_assert_str_eq(run(&sp, "sh;libc", NULL), "DROPPED");
}
END_TEST

START_TEST(rules_apply_in_order)
{
    /* focus and ignore look at the stack before hide and show change it */
    stackfilter_spec sp = { .focus = "^f$", .hide = "^f$" };
    ck_assert_str_eq(run(&sp, "a;f;b", NULL), "a;b");
    stackfilter_spec sp2 = { .ignore = "^f$", .show = "^[ab]$" };
    ck_assert_str_eq(run(&sp2, "a;f;b", NULL), "DROPPED");
    ck_assert_str_eq(run(&sp2, "a;g;b", NULL), "a;b");
    /* hide then show: a frame both hide and show match is hidden */
    stackfilter_spec sp3 = { .hide = "x", .show = "^a" };
    ck_assert_str_eq(run(&sp3, "a;ax;ab;q", NULL), "a;ab");
    /* context first: a focus match does not save another pid's sample */
    stack_context c = ctx_of(7, 7, "sh", NULL);
    stackfilter_spec sp4 = { .focus = "a", .pids = { 8 }, .npids = 1 };
    ck_assert_str_eq(run(&sp4, "a;b", &c), "DROPPED");
    sp4.pids[0] = 7;
    ck_assert_str_eq(run(&sp4, "a;b", &c), "a;b");
}
END_TEST

START_TEST(context_lists)
{
    stack_context c = ctx_of(100, 101, "postgres", "db1");
    stackfilter_spec sp = { .pids = { 5, 100 }, .npids = 2 };
    ck_assert_str_eq(run(&sp, "a", &c), "a");
    sp.pids[1] = 6;
    ck_assert_str_eq(run(&sp, "a", &c), "DROPPED");
    stackfilter_spec st = { .tids = { 101 }, .ntids = 1 };
    ck_assert_str_eq(run(&st, "a", &c), "a");
    st.tids[0] = 100;       /* the pid is no tid */
    ck_assert_str_eq(run(&st, "a", &c), "DROPPED");
    stackfilter_spec sc = { .comms = { "postgre" }, .ncomms = 1 };
    ck_assert_str_eq(run(&sc, "a", &c), "DROPPED");   /* exact, no prefix */
    sc.comms[0] = "postgres";
    ck_assert_str_eq(run(&sc, "a", &c), "a");
    /* comm is not NUL-terminated in a context: its length decides */
    stack_context c2 = c;
    c2.comm = "postgresXYZ";
    c2.comm_len = 8;
    ck_assert_str_eq(run(&sc, "a", &c2), "a");
    stackfilter_spec sh = { .hosts = { "web", "db1" }, .nhosts = 2 };
    ck_assert_str_eq(run(&sh, "a", &c), "a");
    sh.nhosts = 1;
    ck_assert_str_eq(run(&sh, "a", &c), "DROPPED");
    /* every non-empty list must match */
    stackfilter_spec all = { .pids = { 100 }, .npids = 1,
                             .comms = { "bash" }, .ncomms = 1 };
    ck_assert_str_eq(run(&all, "a", &c), "DROPPED");
}
END_TEST

START_TEST(unknown_context_does_not_match)
{
    stackfilter_spec sp = { .pids = { 1 }, .npids = 1 };
    ck_assert_str_eq(run(&sp, "a;b", NULL), "DROPPED");      /* no ctx */
    stack_context c = ctx_of(-1, -1, NULL, NULL);
    ck_assert_str_eq(run(&sp, "a;b", &c), "DROPPED");        /* pid -1 */
    stackfilter_spec sc = { .comms = { "sh" }, .ncomms = 1 };
    ck_assert_str_eq(run(&sc, "a;b", &c), "DROPPED");
    stackfilter_spec sh = { .hosts = { "h" }, .nhosts = 1 };
    ck_assert_str_eq(run(&sh, "a;b", &c), "DROPPED");
    /* regex rules need no context */
    stackfilter_spec sr = { .focus = "b" };
    ck_assert_str_eq(run(&sr, "a;b", NULL), "a;b");
}
END_TEST

START_TEST(empty_stacks_are_dropped)
{
    stackfilter_spec sp = { 0 };
    strbuf err = STRBUF_INIT, out = STRBUF_INIT;
    stackfilter *f = stackfilter_new(&sp, &err);
    ck_assert(!stackfilter_apply(f, "", 0, NULL, &out));
    sb_add(&out, "old", 3);     /* out is replaced, not appended to */
    ck_assert(stackfilter_apply(f, "x;y", 3, NULL, &out));
    ck_assert_str_eq(out.buf, "x;y");
    stackfilter_free(f);
    stackfilter_spec sh = { .hide = "." };
    f = stackfilter_new(&sh, &err);
    ck_assert(!stackfilter_apply(f, "x;y", 3, NULL, &out));
    ck_assert_int_eq((int)out.len, 0);
    stackfilter_free(f);
    sb_free(&err);
    sb_free(&out);
}
END_TEST

START_TEST(bad_regexes_name_the_option)
{
    stackfilter_spec sp = { .focus = "a(" };
    const char *e = compile_error(&sp);
    ck_assert_msg(strncmp(e, "--focus: bad regex 'a(': ", 25) == 0, "%s", e);
    stackfilter_spec si = { .ignore = "[z-a]" };
    ck_assert(strncmp(compile_error(&si), "--ignore: bad regex", 19) == 0);
    stackfilter_spec ss = { .show = "(" };
    ck_assert(strncmp(compile_error(&ss), "--show: bad regex", 17) == 0);
    /* a valid one after a bad one: nothing leaks, the first error wins */
    stackfilter_spec two = { .focus = "ok", .hide = "[" };
    ck_assert(strncmp(compile_error(&two), "--hide: bad regex", 17) == 0);
    stackfilter_spec many = { .npids = STACKFILTER_MAX_IDS + 1 };
    ck_assert(strstr(compile_error(&many), "at most 32") != NULL);
}
END_TEST

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + t.tv_nsec / 1e9;
}

START_TEST(hostile_regexes_are_refused)
{
    stackfilter_spec sp = { .focus = "(a*)*\\1b" };
    ck_assert_msg(strstr(compile_error(&sp), "back-references") != NULL,
                  "%s", result);
    sp.focus = "((a{1,100}){1,100}){1,100}";
    ck_assert_msg(strstr(compile_error(&sp), "repetition") != NULL, "%s",
                  result);
    sp.focus = "x{1001}";
    ck_assert(strstr(compile_error(&sp), "repetition") != NULL);
    sp.focus = "(x{10}y{10}){101}";
    ck_assert(strstr(compile_error(&sp), "repetition") != NULL);
    char big[STACKFILTER_MAX_PATTERN + 2];
    memset(big, 'a', sizeof big - 1);
    big[sizeof big - 1] = '\0';
    sp.focus = big;
    ck_assert(strstr(compile_error(&sp), "longer than 1024") != NULL);
    /* what is allowed: bounds within the limit, an escaped digit in a
     * bracket or a literal brace, and \\ followed by a letter */
    stackfilter_spec ok = { .focus = "(x{10}y{10}){100}|[\\1]|a\\{|\\.c" };
    strbuf err = STRBUF_INIT;
    stackfilter *f = stackfilter_new(&ok, &err);
    ck_assert_msg(f != NULL, "%s", err.buf);
    stackfilter_free(f);
    sb_free(&err);
}
END_TEST

/* The patterns that are allowed and are known to be slow on
 * backtracking engines finish on a long frame: polynomial, no hang (the
 * bound is generous: it is a hang that fails, not a slow machine). */
START_TEST(catastrophic_patterns_do_not_hang)
{
    static char frame[8193];
    memset(frame, 'a', sizeof frame - 1);
    frame[sizeof frame - 2] = '!';      /* no b, and no a at the end */
    const char *pats[] = { "(a*)*b", "(a+)+$", "^(a|a?)+$", "(.*a){20}b",
                           "(a|aa)*b", "(a{1,30}){1,30}b" };
    for (size_t i = 0; i < sizeof pats / sizeof pats[0]; i++) {
        stackfilter_spec sp = { .focus = pats[i] };
        double t0 = now_s();
        ck_assert_msg(strcmp(run(&sp, frame, NULL), "DROPPED") == 0,
                      "%s matched", pats[i]);
        ck_assert_msg(now_s() - t0 < 30, "%s took %.1f s", pats[i],
                      now_s() - t0);
    }
}
END_TEST

START_TEST(utf8_frames)
{
    stackfilter_spec sp = { .focus = "caf\xc3\xa9" };
    ck_assert_str_eq(run(&sp, "main;caf\xc3\xa9_brew;x", NULL),
                     "main;caf\xc3\xa9_brew;x");
    ck_assert_str_eq(run(&sp, "main;cafe_brew", NULL), "DROPPED");
    /* bytes, not characters: '.' is one byte of a two-byte é */
    stackfilter_spec sd = { .show = "^caf..$" };
    ck_assert_str_eq(run(&sd, "caf\xc3\xa9;caf\xc3", NULL), "caf\xc3\xa9");
    /* invalid UTF-8 in a frame is matched as bytes, not refused */
    stackfilter_spec sh = { .hide = "\xff" };
    ck_assert_str_eq(run(&sh, "a\xff;b", NULL), "b");
}
END_TEST

START_TEST(frames_are_matched_by_their_own_bytes)
{
    /* REG_STARTEND: a frame's text stops at its ';' (a pattern anchored
     * at $ sees no later frame) and the stack at len */
    /* (bytes after len, then a NUL: ASan's regexec interceptor reads to
     * the NUL whatever REG_STARTEND says; glibc stops at len) */
    char buf[] = "a;bcXY";
    stackfilter_spec sp = { .show = "c$|^a$" };
    strbuf err = STRBUF_INIT, out = STRBUF_INIT;
    stackfilter *f = stackfilter_new(&sp, &err);
    ck_assert(stackfilter_apply(f, buf, 4, NULL, &out));
    ck_assert_str_eq(out.buf, "a;bc");
    stackfilter_free(f);
    sb_free(&err);
    sb_free(&out);
}
END_TEST

TEST_SUITE(client_stackfilter)
{
    Suite *s = suite_create(test_suite_name);
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, empty_spec_passes_everything);
    tcase_add_test(tc, focus_keeps_samples_with_a_matching_frame);
    tcase_add_test(tc, ignore_drops_samples_with_a_matching_frame);
    tcase_add_test(tc, hide_removes_frames);
    tcase_add_test(tc, show_keeps_only_matching_frames);
    tcase_add_test(tc, rules_apply_in_order);
    tcase_add_test(tc, context_lists);
    tcase_add_test(tc, unknown_context_does_not_match);
    tcase_add_test(tc, empty_stacks_are_dropped);
    tcase_add_test(tc, bad_regexes_name_the_option);
    tcase_add_test(tc, hostile_regexes_are_refused);
    tcase_add_test(tc, catastrophic_patterns_do_not_hang);
    tcase_add_test(tc, utf8_frames);
    tcase_add_test(tc, frames_are_matched_by_their_own_bytes);
    suite_add_tcase(s, tc);
    return s;
}
