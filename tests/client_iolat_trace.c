/* Suite: client/run/iolat_trace, what block_rq_issue/complete trace lines
 * add up to in iolat.stp's layout: both kernels' line formats, disks by
 * their sysfs name (a fake tree), directions, errors, lost events, lines
 * not understood, and documents the JSON tools read. */
#include <check.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "client/run/iolat_trace.h"
#include "tests/testutil.h"

/* A machine whose block device 254:0 is vda. */
static char *fake_sys(void)
{
    char *d = tu_mkdtemp();
    ck_assert_int_eq(tu_write(d, "sys/dev/block/254:0/uevent",
                              "MAJOR=254\nMINOR=0\nDEVNAME=vda\nDEVTYPE=disk\n"), 0);
    return d;
}

static bool feed(iolat_trace *t, const char *line)
{
    return iolat_trace_line(t, line, strlen(line));
}

static json_t *data_of(const iolat_trace *t)
{
    char *text = iolat_trace_data(t);
    json_error_t e;
    json_t *j = json_loads(text, 0, &e);
    ck_assert_msg(j != NULL, "data.json: %s: %s", e.text, text);
    free(text);
    return j;
}

static json_t *row(json_t *data, const char *id)
{
    size_t i;
    json_t *r;
    json_array_foreach(json_object_get(data, "devices"), i, r)
        if (strcmp(json_string_value(json_object_get(r, "__id")), id) == 0)
            return r;
    ck_abort_msg("no row %s", id);
    return NULL;
}

static long long num(json_t *o, const char *k)
{
    json_t *v = json_object_get(o, k);
    ck_assert_msg(json_is_integer(v), "%s is not an integer", k);
    return json_integer_value(v);
}

/* The kernel's trace_pipe, 6.18 (an I/O priority after the sectors). */
START_TEST(lines_of_a_new_kernel)
{
    char *sys = fake_sys();
    iolat_trace *t = iolat_trace_new(sys);
    ck_assert(feed(t, "              dd-20881   [001] ..... 27724.330474: block_rq_issue: "
                      "254,0 RS 65536 () 43581440 + 128 be,0,4 [dd]") == false);
    /* a new row: its histogram is new metadata */
    ck_assert(feed(t, " kworker/1:1H-77     [001] ..s.. 27724.332000: block_rq_complete: "
                      "254,0 RS () 43581440 + 128 be,0,4 [0]") == true);
    /* the same row again: no new metadata */
    feed(t, "   dd-20881   [000] ..... 27725.000000: block_rq_issue: 254,0 RS 65536 () 8 + 128 be,0,4 [dd]");
    ck_assert(feed(t, "   <idle>-0   [001] ..s.. 27725.000100: block_rq_complete: "
                      "254,0 RS () 8 + 128 be,0,4 [0]") == false);
    json_t *d = data_of(t);
    ck_assert_int_eq(num(d, "requests"), 2);
    json_t *r = row(d, "vda:read");
    ck_assert_int_eq(num(r, "requests"), 2);
    ck_assert_int_eq(num(r, "bytes"), 2 * 128 * 512);
    ck_assert_int_eq(num(r, "max"), 1526000);          /* 1.526 ms, in ns */
    ck_assert_int_eq(num(r, "time"), 1526000 + 100000);
    /* 1.526 ms in [2^20, 2^21), 0.1 ms in [2^16, 2^17) */
    json_t *h = json_object_get(d, "latency_vda_read");
    ck_assert_uint_eq(json_array_size(h), 5);
    ck_assert_int_eq(num(json_array_get(h, 0), "lo"), 65536);
    ck_assert_int_eq(num(json_array_get(h, 0), "count"), 1);
    ck_assert_int_eq(num(json_array_get(h, 4), "lo"), 1048576);
    ck_assert_int_eq(num(json_array_get(h, 4), "hi"), 2097151);
    ck_assert_int_eq(num(json_array_get(h, 4), "count"), 1);
    json_decref(d);
    char *meta = iolat_trace_metadata(t);
    ck_assert_ptr_nonnull(strstr(meta, "\"name\": \"latency_vda_read\""));
    json_t *mj = json_loads(meta, 0, NULL);
    ck_assert_ptr_nonnull(mj);
    json_decref(mj);
    free(meta);
    iolat_trace_free(t);
    tu_rmtree(sys);
    free(sys);
}
END_TEST

/* 6.1's (the VM's kernel): the comm or error right after the sectors;
 * an unknown device keeps its numbers; errors; flushes are "other". */
START_TEST(lines_of_6_1)
{
    char *sys = fake_sys();
    iolat_trace *t = iolat_trace_new(sys);
    feed(t, "kworker/u4:2-61 [000] d..1. 100.000001: block_rq_issue: 254,0 WS 4096 () 1234 + 8 [kworker/u4:2]");
    feed(t, "<idle>-0 [000] ..s1. 100.000201: block_rq_complete: 254,0 WS () 1234 + 8 [0]");
    feed(t, "jbd2/sdb1-8-300 [001] d..1. 100.1: block_rq_issue: 8,16 FF 0 () 0 + 0 [jbd2/sdb1-8]");
    feed(t, "<idle>-0 [001] ..s1. 100.2: block_rq_complete: 8,16 FF () 0 + 0 [-5]");
    /* a completion of a request issued before the run: not timed, counted */
    feed(t, "<idle>-0 [001] ..s1. 100.3: block_rq_complete: 254,0 R () 999 + 8 [0]");
    json_t *d = data_of(t);
    ck_assert_int_eq(num(d, "requests"), 2);
    ck_assert_int_eq(num(d, "errors"), 1);
    ck_assert_int_eq(num(row(d, "vda:write"), "bytes"), 4096);
    ck_assert_int_eq(num(row(d, "vda:write"), "max"), 200000);
    ck_assert_int_eq(num(row(d, "8,16:other"), "errors"), 1);
    ck_assert_ptr_nonnull(json_object_get(d, "latency_8_16_other"));
    ck_assert_int_eq(num(d, "omitted"), 0);
    json_decref(d);
    iolat_counts c;
    iolat_trace_counts(t, &c);
    ck_assert_uint_eq(c.rows, 2);
    ck_assert_uint_eq(c.unparsed, 0);
    ck_assert_uint_eq(c.untimed, 1);
    iolat_trace_free(t);
    tu_rmtree(sys);
    free(sys);
}
END_TEST

/* Flushes, as this machine's kernel (6.18) traced them: issued at sector
 * 0, completed at sector -1 (all were left untimed before), two in flight
 * at once completing oldest first; the empty second completion of a
 * write with FUA skipped; a requeued request is timed from its last
 * issue, as iolat.stp's issued[$rq] is. */
START_TEST(flushes_and_requeues)
{
    char *sys = fake_sys();
    iolat_trace *t = iolat_trace_new(sys);
    feed(t, "    kworker/1:2H-25522   [001] ..... 43414.040789: block_rq_issue: 254,0 FF 0 () 0 + 0 none,0,0 [kworker/1:2H]");
    feed(t, "    kworker/1:2H-25522   [001] ..... 43414.040800: block_rq_issue: 254,0 FF 0 () 0 + 0 none,0,0 [kworker/1:2H]");
    feed(t, "         timeout-8295    [001] ..s.. 43414.041200: block_rq_complete: 254,0 FF () 18446744073709551615 + 0 none,0,0 [0]");
    feed(t, "         timeout-8295    [001] ..s.. 43414.041900: block_rq_complete: 254,0 FF () 18446744073709551615 + 0 none,0,0 [0]");
    feed(t, "   dd-1 [000] ..... 43415.000000: block_rq_issue: 254,0 W 4096 () 8 + 8 none,0,0 [dd]");
    feed(t, "   dd-1 [000] ..... 43415.000500: block_rq_requeue: 254,0 W () 8 + 8 none,0,0 [0]");
    feed(t, "   dd-1 [000] ..... 43415.001000: block_rq_issue: 254,0 W 4096 () 8 + 8 none,0,0 [dd]");
    feed(t, "   <idle>-0 [000] ..s.. 43415.001100: block_rq_complete: 254,0 W () 8 + 8 none,0,0 [0]");
    /* a write with FUA ends its flush sequence with a second, empty
     * completion (captured here): not a request, not untimed */
    feed(t, "<idle>-0       [001] dNs2. 43527.689788: block_rq_complete: 254,0 WS () 0 + 0 be,0,4 [0]");
    /* nothing of it is left in flight to time a later completion */
    feed(t, "   <idle>-0 [000] ..s.. 43416.000000: block_rq_complete: 254,0 W () 8 + 8 none,0,0 [0]");
    json_t *d = data_of(t);
    json_t *f = row(d, "vda:other");
    ck_assert_int_eq(num(f, "requests"), 2);
    ck_assert_int_eq(num(f, "time"), 411000 + 1100000);   /* the first issued, first done */
    ck_assert_int_eq(num(f, "max"), 1100000);
    json_t *w = row(d, "vda:write");
    ck_assert_int_eq(num(w, "requests"), 1);
    ck_assert_int_eq(num(w, "max"), 100000);               /* from the last issue */
    json_decref(d);
    iolat_counts c;
    iolat_trace_counts(t, &c);
    ck_assert_uint_eq(c.untimed, 1);
    ck_assert_uint_eq(c.unparsed, 0);
    iolat_trace_free(t);
    tu_rmtree(sys);
    free(sys);
}
END_TEST

/* Events lost: a request in flight may have lost its completion, and
 * oldest-first pairing would time the next request of its key (every
 * later flush) from it.  Pairing starts again after [LOST]. */
START_TEST(pairing_restarts_after_lost_events)
{
    char *sys = fake_sys();
    iolat_trace *t = iolat_trace_new(sys);
    feed(t, "kworker/1:2H-1 [001] ..... 10.000000: block_rq_issue: 254,0 FF 0 () 0 + 0 none,0,0 [k]");
    feed(t, "CPU:1 [LOST 1 EVENTS]");    /* its completion, say */
    feed(t, "kworker/1:2H-1 [001] ..... 20.000000: block_rq_issue: 254,0 FF 0 () 0 + 0 none,0,0 [k]");
    feed(t, "<idle>-0 [001] ..s.. 20.000300: block_rq_complete: 254,0 FF () 18446744073709551615 + 0 none,0,0 [0]");
    feed(t, "dd-2 [000] ..... 21.000000: block_rq_issue: 254,0 R 4096 () 64 + 8 none,0,0 [dd]");
    feed(t, "CPU:0 [LOST 2 EVENTS]");
    feed(t, "<idle>-0 [000] ..s.. 21.000100: block_rq_complete: 254,0 R () 64 + 8 none,0,0 [0]");
    json_t *d = data_of(t);
    ck_assert_int_eq(num(row(d, "vda:other"), "requests"), 1);
    ck_assert_int_eq(num(row(d, "vda:other"), "max"), 300000);   /* not 10 s */
    ck_assert_int_eq(num(d, "requests"), 1);
    json_decref(d);
    iolat_counts c;
    iolat_trace_counts(t, &c);
    ck_assert_uint_eq(c.lost, 3);
    ck_assert_uint_eq(c.untimed, 1);    /* the read issued before the second loss */
    iolat_trace_free(t);
    tu_rmtree(sys);
    free(sys);
}
END_TEST

/* What trace_pipe says when its buffer overran, and lines that are not
 * the two events, are counted, never guessed at. */
START_TEST(lost_and_not_understood)
{
    iolat_trace *t = iolat_trace_new("/nonexistent");
    feed(t, "CPU:1 [LOST 12 EVENTS]");
    feed(t, "CPU:0 [LOST 3 EVENTS]");
    feed(t, "x-1 [000] ..... 5.0: block_rq_issue: 254,0");                 /* cut short */
    feed(t, "x-1 [000] ..... 5.0: block_rq_issue: 254,0 R 4096 (no close 7 + 8 [x]");
    feed(t, "x-1 [000] ..... five: block_rq_issue: 254,0 R 4096 () 7 + 8 [x]");
    feed(t, "x-1 [000] ..... 99999999999999999999.0: block_rq_issue: 254,0 R 4096 () 7 + 8 [x]");
    feed(t, "x-1 [000] ..... 5.0: sched_switch: prev_comm=x");
    feed(t, "");                                                             /* nothing */
    iolat_counts c;
    iolat_trace_counts(t, &c);
    ck_assert_uint_eq(c.lost, 15);
    ck_assert_uint_eq(c.unparsed, 5);
    ck_assert_uint_eq(c.requests, 0);
    json_t *d = data_of(t);
    ck_assert_uint_eq(json_array_size(json_object_get(d, "devices")), 0);
    ck_assert_uint_eq(json_array_size(json_object_get(d, "latency")), 0);
    json_decref(d);
    iolat_trace_free(t);
}
END_TEST

/* A disk name that is not a metric name, and two that sanitize alike. */
START_TEST(histogram_names)
{
    char *sys = tu_mkdtemp();
    ck_assert_int_eq(tu_write(sys, "sys/dev/block/9:1/uevent", "DEVNAME=md-1\n"), 0);
    ck_assert_int_eq(tu_write(sys, "sys/dev/block/9:2/uevent", "DEVNAME=md.1\n"), 0);
    iolat_trace *t = iolat_trace_new(sys);
    feed(t, "a-1 [0] . 1.0: block_rq_issue: 9,1 W 512 () 1 + 1 [a]");
    feed(t, "a-1 [0] . 1.5: block_rq_complete: 9,1 W () 1 + 1 [0]");
    feed(t, "a-1 [0] . 2.0: block_rq_issue: 9,2 W 512 () 1 + 1 [a]");
    feed(t, "a-1 [0] . 2.5: block_rq_complete: 9,2 W () 1 + 1 [0]");
    json_t *d = data_of(t);
    ck_assert_ptr_nonnull(json_object_get(d, "latency_md_1_write"));
    ck_assert_ptr_nonnull(json_object_get(d, "latency_md_1_write_2"));
    ck_assert_int_eq(num(row(d, "md.1:write"), "requests"), 1);
    json_decref(d);
    iolat_trace_free(t);
    tu_rmtree(sys);
    free(sys);
}
END_TEST

TEST_SUITE(client_iolat_trace)
{
    Suite *s = suite_create(test_suite_name);
    TCase *tc = tcase_create("iolat_trace");
    tcase_add_test(tc, lines_of_a_new_kernel);
    tcase_add_test(tc, lines_of_6_1);
    tcase_add_test(tc, flushes_and_requeues);
    tcase_add_test(tc, pairing_restarts_after_lost_events);
    tcase_add_test(tc, lost_and_not_understood);
    tcase_add_test(tc, histogram_names);
    suite_add_tcase(s, tc);
    return s;
}
