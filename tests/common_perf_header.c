/* Suite: common/perf_header, the one reader of `perf script` sample
 * headers (the client's collapser and heat map, run's perf backend). */
#include <check.h>
#include <string.h>

#include "common/perf_header.h"
#include "tests/testutil.h"

static bool parse(const char *s, perf_header *h)
{
    return perf_header_parse(s, strlen(s), h);
}

static bool is(const char *p, size_t n, const char *want)
{
    return p != NULL && n == strlen(want) && memcmp(p, want, n) == 0;
}

START_TEST(timed_headers)
{
    perf_header h;
    ck_assert(parse("java 12688/12764 6544038.708352: 10309278 cpu-clock:", &h));
    ck_assert(is(h.comm, h.comm_len, "java"));
    ck_assert(is(h.pid, h.pid_len, "12688"));
    ck_assert(is(h.tid, h.tid_len, "12764"));
    ck_assert_double_eq(h.period, 10309278);
    ck_assert(is(h.event, h.event_len, "cpu-clock"));
    ck_assert(h.has_time);
    ck_assert_int_eq(h.time_ns, 6544038708352000LL);
    ck_assert_int_eq(h.cpu, -1);

    ck_assert(parse("V8 WorkerThread 25607 4794564.109216: cycles:", &h));
    ck_assert(is(h.comm, h.comm_len, "V8 WorkerThread"));
    ck_assert_ptr_null(h.pid);
    ck_assert(is(h.tid, h.tid_len, "25607"));
    ck_assert_double_eq(h.period, 0);
    ck_assert(is(h.event, h.event_len, "cycles"));

    /* recorded here: perf 6.1's default fields; run's perf backend's */
    ck_assert(parse("cx  3979  2370.370634:    1001001 cpu-clock:ppp: ", &h));
    ck_assert(is(h.comm, h.comm_len, "cx"));
    ck_assert(is(h.event, h.event_len, "cpu-clock:ppp"));
    ck_assert_double_eq(h.period, 1001001);
    ck_assert(parse("swapper     0/0     [000] 1796141008.089239418: ", &h));
    ck_assert(is(h.pid, h.pid_len, "0"));
    ck_assert_int_eq(h.cpu, 0);
    ck_assert_int_eq(h.time_ns, 1796141008089239418LL);
    ck_assert_ptr_null(h.event);
    ck_assert(parse("perf-exec 12/12 [003] 5.000000001:", &h));
    ck_assert_int_eq(h.cpu, 3);
    ck_assert_int_eq(h.time_ns, 5000000001LL);
    /* FlameScope's float arithmetic puts 5086.200000 in the 180 ms
     * bucket; the heat map works on these exact integers */
    ck_assert(parse("java 12345 [001] 5086.200000: 1001001 cpu-clock:pppH: ", &h));
    ck_assert_int_eq(h.time_ns, 5086200000000LL);
    /* times: digits past the ninth dropped, short fractions padded */
    ck_assert(parse("swapper     0 [000] 12345.6789012345:    1 cpu-clock: ", &h));
    ck_assert_int_eq(h.time_ns, 12345678901234LL);
    ck_assert(parse("kworker/0:1 7 [000] 3.5: cycles: ", &h));
    ck_assert(is(h.comm, h.comm_len, "kworker/0:1"));
    ck_assert_int_eq(h.time_ns, 3500000000LL);
    /* a comm holding a number: the PID is the one a PID's fields follow */
    ck_assert(parse("GC Thread 2 1234/1235 [001] 9.25: 10 cycles:", &h));
    ck_assert(is(h.comm, h.comm_len, "GC Thread 2"));
    ck_assert(is(h.pid, h.pid_len, "1234"));
    ck_assert_int_eq(h.cpu, 1);
    ck_assert_int_eq(h.time_ns, 9250000000LL);
}
END_TEST

START_TEST(untimed_headers)
{
    perf_header h;
    ck_assert(parse("java 12688/12764 10309278 cpu-clock:", &h));
    ck_assert(is(h.pid, h.pid_len, "12688"));
    ck_assert_double_eq(h.period, 10309278);
    ck_assert(is(h.event, h.event_len, "cpu-clock"));
    ck_assert(!h.has_time);

    ck_assert(parse("swapper     0 [000] cpu-clock:", &h));
    ck_assert(is(h.comm, h.comm_len, "swapper"));
    ck_assert(is(h.tid, h.tid_len, "0"));
    ck_assert_int_eq(h.cpu, 0);
    ck_assert(is(h.event, h.event_len, "cpu-clock"));

    ck_assert(parse("swapper     0 [003]     250000 cycles:ppp:  ", &h));
    ck_assert_double_eq(h.period, 250000);
    ck_assert(is(h.event, h.event_len, "cycles:ppp"));

    ck_assert(parse("V8 WorkerThread 24636/25607 [000] 3 cycles:", &h));
    ck_assert(is(h.comm, h.comm_len, "V8 WorkerThread"));
    ck_assert_double_eq(h.period, 3);

    /* -F comm,pid,tid: no time, no event (recorded) */
    ck_assert(parse("cx  3979/3979  ", &h));
    ck_assert(is(h.tid, h.tid_len, "3979"));
    ck_assert_ptr_null(h.event);
    /* a timestamp with no event after it is no event */
    ck_assert(parse("java 12688 [002] 6544038.708352:", &h));
    ck_assert_ptr_null(h.event);
    /* anything else between PID and event: no event, as the Perl */
    ck_assert(parse("java 12688 sym+0x1 cycles:", &h));
    ck_assert(is(h.tid, h.tid_len, "12688"));
    ck_assert_ptr_null(h.event);
    ck_assert_double_eq(h.period, 0);
}
END_TEST

START_TEST(not_headers)
{
    perf_header h;
    ck_assert(!parse("\tffffffff8103ce3b native_safe_halt ([kernel.kallsyms])", &h));
    ck_assert(!parse("ffffffff8103ce3b native_safe_halt+0xb ([kernel.kallsyms])", &h));
    ck_assert(!parse("x 1: c:", &h));        /* a comm has two characters */
    ck_assert(!parse("bash x/y [0] 1.0:", &h));
    ck_assert(!parse("garbage", &h));
    ck_assert(!parse("", &h));
}
END_TEST

TEST_SUITE(common_perf_header)
{
    Suite *s = suite_create(test_suite_name);
    TCase *tc = tcase_create("headers");
    tcase_add_test(tc, timed_headers);
    tcase_add_test(tc, untimed_headers);
    tcase_add_test(tc, not_headers);
    suite_add_tcase(s, tc);
    return s;
}
