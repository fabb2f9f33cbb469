/* Suite: client/stack/live_window: the sample window (pruning by time,
 * stacks freed with their last sample, ids reused, the --max-samples
 * cap), the atomic file replacement (new inode, mode, no temp file
 * left, old file intact when the writer fails), the gap list, and the
 * command's usage errors. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "client/cmd/builtin.h"
#include "client/stack/live_window.h"
#include "tests/testutil.h"

#define S(sec) ((int64_t)(sec) * 1000000)

static void add(live_window *w, const char *stack, int64_t t)
{
    lw_add(w, stack, strlen(stack), 1, t);
}

START_TEST(window_prune)
{
    live_window *w = lw_new(0);
    add(w, "a;b", S(100));
    add(w, "a;c", S(101));
    add(w, "a;b", S(102));
    add(w, "a;d", S(103));
    ck_assert_uint_eq(lw_count(w), 4);
    ck_assert_uint_eq(lw_nstacks(w), 3);
    /* out of order: an old sample after newer ones is pruned too */
    add(w, "old", S(50));
    ck_assert_uint_eq(lw_prune(w, S(101)), 2);       /* a;b@100, old@50 */
    ck_assert_uint_eq(lw_count(w), 3);
    ck_assert_uint_eq(lw_nstacks(w), 3);             /* a;b still used */
    ck_assert_uint_eq(lw_prune(w, S(103)), 2);
    ck_assert_uint_eq(lw_count(w), 1);
    ck_assert_uint_eq(lw_nstacks(w), 1);
    const lw_sample *s = lw_get(w, 0);
    size_t len;
    ck_assert_str_eq(lw_stack(w, s->stack, &len), "a;d");
    ck_assert_uint_eq(len, 3);
    ck_assert_ptr_null(lw_get(w, 1));
    ck_assert_uint_eq(lw_prune(w, S(1000)), 1);
    ck_assert_uint_eq(lw_count(w), 0);
    ck_assert_uint_eq(lw_nstacks(w), 0);
    lw_free(w);
}
END_TEST

START_TEST(window_bounded)
{
    /* an hour of a steady stream of ever-new stacks through a 60 s
     * window: memory (samples, stacks) follows the window */
    live_window *w = lw_new(0);
    char buf[64];
    size_t max_stacks = 0;
    for (int sec = 0; sec < 3600; sec++) {
        for (int k = 0; k < 10; k++) {
            snprintf(buf, sizeof buf, "main;f%d;g%d", sec, k % 3);
            lw_add(w, buf, strlen(buf), 2, S(sec) + k * 1000);
        }
        lw_prune(w, S(sec - 60));
        if (lw_nstacks(w) > max_stacks)
            max_stacks = lw_nstacks(w);
        ck_assert_uint_le(lw_count(w), 61 * 10);
    }
    ck_assert_uint_le(max_stacks, 61 * 3);
    /* the survivors are intact after all the id reuse */
    for (size_t i = 0; i < lw_count(w); i++) {
        const lw_sample *s = lw_get(w, i);
        const char *st = lw_stack(w, s->stack, NULL);
        ck_assert_ptr_nonnull(st);
        int sec, g;
        ck_assert_int_eq(sscanf(st, "main;f%d;g%d", &sec, &g), 2);
        ck_assert_int_eq(sec, (int)(s->t_us / 1000000));
        ck_assert(s->weight == 2);
    }
    lw_free(w);
}
END_TEST

START_TEST(window_cap)
{
    live_window *w = lw_new(1000);
    for (int i = 0; i < 5000; i++)
        add(w, i % 2 ? "odd" : "even", S(i));
    ck_assert_uint_le(lw_count(w), 1000);
    ck_assert_uint_eq(lw_count(w) + lw_dropped(w), 5000);
    /* the newest arrivals survive */
    ck_assert_int_eq(lw_get(w, lw_count(w) - 1)->t_us, S(4999));
    ck_assert_uint_eq(lw_nstacks(w), 2);
    lw_free(w);
}
END_TEST

static int write_text(FILE *out, void *arg)
{
    fputs(arg, out);
    return 0;
}

static int write_fail(FILE *out, void *arg)
{
    fputs(arg, out);
    return -1;
}

START_TEST(atomic_write)
{
    char *dir = tu_mkdtemp();
    char path[4096];
    snprintf(path, sizeof path, "%s/index.html", dir);
    strbuf err = STRBUF_INIT;
    ck_assert_int_eq(live_write_atomic(dir, "index.html", write_text,
                                       "one\n", &err), 0);
    struct stat a, b;
    ck_assert_int_eq(stat(path, &a), 0);
    ck_assert_int_eq(a.st_mode & 0044, 0044);      /* a web server reads it */
    char *t = tu_slurp(path);
    ck_assert_str_eq(t, "one\n");
    free(t);
    ck_assert_int_eq(live_write_atomic(dir, "index.html", write_text,
                                       "two\n", &err), 0);
    ck_assert_int_eq(stat(path, &b), 0);
    ck_assert(a.st_ino != b.st_ino);               /* replaced, not rewritten */
    t = tu_slurp(path);
    ck_assert_str_eq(t, "two\n");
    free(t);
    ck_assert_int_eq(tu_count_entries(dir), 1);       /* no temp file left */

    /* a failing writer leaves the old file and no temp file */
    ck_assert_int_eq(live_write_atomic(dir, "index.html", write_fail,
                                       "half", &err), -1);
    ck_assert_ptr_nonnull(strstr(err.buf, "write error"));
    t = tu_slurp(path);
    ck_assert_str_eq(t, "two\n");
    free(t);
    ck_assert_int_eq(tu_count_entries(dir), 1);

    /* a missing directory is an error, not a crash */
    sb_reset(&err);
    snprintf(path, sizeof path, "%s/nosuch", dir);
    ck_assert_int_eq(live_write_atomic(path, "x", write_text, "x", &err), -1);
    ck_assert_ptr_nonnull(strstr(err.buf, "temp file"));
    sb_free(&err);
    tu_rmtree(dir);
    free(dir);
}
END_TEST

START_TEST(gaps)
{
    setenv("TZ", "UTC", 1);
    tzset();
    live_gaps g = { .n = 0 };
    live_gaps_round(&g, true, S(0), S(10));
    ck_assert_int_eq(g.n, 0);
    live_gaps_round(&g, false, S(3600), S(3605));     /* 01:00:00 */
    live_gaps_round(&g, false, S(3600), S(3610));     /* still down */
    ck_assert_int_eq(g.n, 1);
    strbuf sb = STRBUF_INIT;
    live_gaps_text(&g, "; ", &sb);
    ck_assert_str_eq(sb.buf, "no data since 01:00:00 (pmcd unreachable)");
    live_gaps_round(&g, true, S(3600), S(3625));
    live_gaps_round(&g, false, S(3700), S(3701));
    live_gaps_round(&g, true, S(3700), S(3702));
    sb_reset(&sb);
    live_gaps_text(&g, "; ", &sb);
    ck_assert_str_eq(sb.buf, "no data from 01:00:00 to 01:00:25 (pmcd "
                     "unreachable); no data from 01:01:40 to 01:01:42 (pmcd "
                     "unreachable)");
    live_gaps_prune(&g, S(3630));          /* the first one left the window */
    ck_assert_int_eq(g.n, 1);
    ck_assert_int_eq(g.g[0].from_us, S(3700));
    /* bounded */
    for (int i = 0; i < 100; i++) {
        live_gaps_round(&g, false, S(4000 + 2 * i), S(4000 + 2 * i));
        live_gaps_round(&g, true, S(4000 + 2 * i), S(4001 + 2 * i));
    }
    ck_assert_int_eq(g.n, LIVE_MAX_GAPS);
    sb_free(&sb);
}
END_TEST

START_TEST(usage_errors)
{
    char *a1[] = { "live", "-h", "localhost:1", "m", NULL };
    ck_assert_int_eq(cmd_live(4, a1), 2);                /* no --dir */
    char *a2[] = { "live", "--dir", "/tmp", "-a", "arch", "m", NULL };
    ck_assert_int_eq(cmd_live(6, a2), 2);                /* archive */
    char *a3[] = { "live", "--dir", "/tmp", "--window-minutes", "0", "-h",
                   "localhost:1", "m", NULL };
    ck_assert_int_eq(cmd_live(8, a3), 2);
    char *a4[] = { "live", "--dir", "/nonexistent/dir", "-h", "localhost:1",
                   "m", NULL };
    ck_assert_int_eq(cmd_live(6, a4), 1);
}
END_TEST

TEST_SUITE(client_live_window)
{
    Suite *s = suite_create(test_suite_name);
    TCase *tc = tcase_create("live");
    tcase_add_test(tc, window_prune);
    tcase_add_test(tc, window_bounded);
    tcase_add_test(tc, window_cap);
    tcase_add_test(tc, atomic_write);
    tcase_add_test(tc, gaps);
    tcase_add_test(tc, usage_errors);
    suite_add_tcase(s, tc);
    return s;
}
