/* Suite: client/stack/hotcold, the hot/cold graph's rules: on-CPU
 * samples as periods of the clock, off-CPU blocks as their time, each
 * under its mark, and a thread over the window scaled to it. */
#include <check.h>
#include <string.h>

#include "client/render/palette.h"
#include "client/stack/hotcold.h"
#include "tests/testutil.h"

#define MS 1000000LL

static stack_context thread_ctx(int64_t tid, bool off, double samples)
{
    stack_context c = { .pid = 7, .tid = tid, .samples = samples,
                        .time_ns = STACK_TIME_UNKNOWN };
    if (off) {
        c.weight_type = "wall";
        c.weight_unit = "nanoseconds";
        c.samples = 1;
    }
    return c;
}

static double count_of(const stacktab *t, const char *stack)
{
    const stack_entry *e = stacktab_find(t, stack, strlen(stack));
    return e ? e->count[0] : -1;
}

START_TEST(marks_and_units)
{
    hotcold *hc = hotcold_new(10 * MS);          /* 100 Hz */
    stack_context on = thread_ctx(1, false, 3);  /* a record of 3 samples */
    stack_context off = thread_ctx(2, true, 1);
    hotcold_observe(hc, "main;spin", 9, 3, 0, STACK_TIME_UNKNOWN, &on);
    hotcold_observe(hc, "main;nap", 8, 20 * MS, 0, STACK_TIME_UNKNOWN, &off);
    /* a record without a context: one sample */
    hotcold_observe(hc, "main;spin", 9, 1, 0, STACK_TIME_UNKNOWN, NULL);
    stacktab *t = stacktab_new();
    hotcold_fill(hc, t);
    ck_assert_int_eq((int)stacktab_size(t), 2);
    ck_assert(count_of(t, "oncpu;main;spin") == 40 * MS);
    ck_assert(count_of(t, "offcpu;main;nap") == 20 * MS);
    ck_assert(count_of(t, "main;spin") < 0);     /* never unmarked */
    ck_assert_int_eq((int)hotcold_samples(hc, false), 2);
    ck_assert_int_eq((int)hotcold_samples(hc, true), 1);
    ck_assert_int_eq((int)hotcold_threads(hc), 3);
    /* no sample had a time: no window, nothing scaled */
    ck_assert(hotcold_window_ns(hc) == 0);
    ck_assert_int_eq((int)hotcold_scaled(hc), 0);
    stacktab_free(t);
    hotcold_free(hc);
}
END_TEST

START_TEST(threads_at_most_the_window)
{
    const int64_t base = 1700000000LL * 1000000000LL;
    hotcold *hc = hotcold_new(10 * MS);
    /* thread 1 spins: 50 samples at 100 Hz, stamped 10 ms .. 500 ms */
    for (int i = 1; i <= 50; i++) {
        stack_context on = thread_ctx(1, false, 1);
        hotcold_observe(hc, "main;spin", 9, 1, 0, base + i * 10 * MS, &on);
    }
    /* thread 2 blocks 500 ms (ending at 500 ms and at 1000 ms) and
     * 250 ms (ending at 750 ms): 1250 ms in a 1000 ms window */
    stack_context off = thread_ctx(2, true, 1);
    hotcold_observe(hc, "main;nap", 8, 500 * MS, 0, base + 500 * MS, &off);
    hotcold_observe(hc, "main;doze", 9, 250 * MS, 0, base + 750 * MS, &off);
    hotcold_observe(hc, "main;nap", 8, 500 * MS, 0, base + 1000 * MS, &off);
    /* the window starts at the earliest start: the first sample's
     * period (0 ms) and the first block's start (0 ms) */
    ck_assert(hotcold_window_ns(hc) == 1000 * MS);
    ck_assert_int_eq((int)hotcold_threads(hc), 2);
    ck_assert_int_eq((int)hotcold_scaled(hc), 1);
    stacktab *t = stacktab_new();
    hotcold_fill(hc, t);
    /* thread 1 within the window: as it was; thread 2 times 1000/1250 */
    ck_assert(count_of(t, "oncpu;main;spin") == 500 * MS);
    ck_assert(count_of(t, "offcpu;main;nap") == 800 * MS);
    ck_assert(count_of(t, "offcpu;main;doze") == 200 * MS);
    stacktab_free(t);
    hotcold_free(hc);
}
END_TEST

START_TEST(same_stack_two_threads_scaled_apart)
{
    /* two threads blocked in the same stack: each is scaled by its own
     * total, and their times add up under the one stack */
    hotcold *hc = hotcold_new(10 * MS);
    stack_context a = thread_ctx(1, true, 1), b = thread_ctx(2, true, 1);
    hotcold_observe(hc, "main;nap", 8, 100 * MS, 0, 100 * MS, &a);  /* 0..100 */
    hotcold_observe(hc, "main;nap", 8, 400 * MS, 0, 100 * MS, &b);  /* over */
    ck_assert(hotcold_window_ns(hc) == 400 * MS);   /* -300 .. 100 */
    hotcold_observe(hc, "main;nap", 8, 400 * MS, 0, 100 * MS, &b);  /* 800 */
    stacktab *t = stacktab_new();
    hotcold_fill(hc, t);
    ck_assert(count_of(t, "offcpu;main;nap") == 100 * MS + 400 * MS);
    ck_assert_int_eq((int)hotcold_scaled(hc), 1);
    stacktab_free(t);
    hotcold_free(hc);
}
END_TEST

START_TEST(palette_by_part)
{
    palette p;
    ck_assert(palette_parse("hotcold", &p) && p == PAL_HOTCOLD);
    ck_assert_str_eq(palette_name(PAL_HOTCOLD), "hotcold");
    ck_assert(palette_of_part(PAL_HOTCOLD, "offcpu", 6) == PAL_BLUE);
    ck_assert(palette_of_part(PAL_HOTCOLD, "oncpu", 5) == PAL_HOT);
    ck_assert(palette_of_part(PAL_HOTCOLD, "offcpux", 7) == PAL_HOT);
    ck_assert(palette_of_part(PAL_JAVA, "offcpu", 6) == PAL_JAVA);
    /* the mark's own frame, by name alone, is in its part's colours */
    rgb off = palette_color(PAL_HOTCOLD, false, "offcpu", 6);
    rgb blue = palette_color(PAL_BLUE, false, "offcpu", 6);
    ck_assert(off.r == blue.r && off.g == blue.g && off.b == blue.b);
    rgb on = palette_color(PAL_HOTCOLD, false, "main", 4);
    rgb hot = palette_color(PAL_HOT, false, "main", 4);
    ck_assert(on.r == hot.r && on.g == hot.g && on.b == hot.b);
}
END_TEST

TEST_SUITE(client_hotcold)
{
    Suite *s = suite_create(test_suite_name);
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, marks_and_units);
    tcase_add_test(tc, threads_at_most_the_window);
    tcase_add_test(tc, same_stack_two_threads_scaled_apart);
    tcase_add_test(tc, palette_by_part);
    suite_add_tcase(s, tc);
    return s;
}
