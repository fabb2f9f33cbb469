/* Suite: client/run/perf_pipe, the perf backend's one process runner:
 * lines in order and whole, on_end after the last one, the --control
 * handshake (on_ready on perf's ack), a pipeline that ends by itself,
 * and a "perf record" that fails.  Real processes (bash, cat) stand in
 * for perf record and perf script: perf_pipe runs whatever argv it is
 * given. */
#include <check.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "client/run/perf_pipe.h"
#include "tests/testutil.h"

typedef struct seen {
    char log[512];
    int ready, ends;
} seen;

static void on_line(void *arg, const char *s, size_t n)
{
    seen *g = arg;
    size_t k = strlen(g->log);
    snprintf(g->log + k, sizeof g->log - k, "%.*s|", (int)n, s);
}

static void on_end(void *arg)
{
    seen *g = arg;
    g->ends++;
    size_t k = strlen(g->log);
    snprintf(g->log + k, sizeof g->log - k, "END");
}

static void on_ready(void *arg)
{
    seen *g = arg;
    g->ready++;
}

/* Run pp (its src, on_line, on_end, arg filled here) once. */
static int run(perf_pipe *pp, seen *g)
{
    char *d = tu_mkdtemp();
    char err[512];
    perf_source src;
    ck_assert_int_eq(perf_source_open(&src, d, "t", 99, false, err, sizeof err), 0);
    pp->src = &src;
    pp->on_line = on_line;
    pp->on_end = on_end;
    pp->arg = g;
    run_opts o;
    memset(&o, 0, sizeof o);
    o.duration = 60;                   /* a bound, not a measure: all end by themselves */
    int rc = perf_pipe_run(pp, &o);
    perf_source_close(&src, true);
    tu_rmtree(d);
    free(d);
    return rc;
}

START_TEST(trace_lines_then_end)
{
    int fds[2];
    ck_assert_int_eq(pipe(fds), 0);
    fcntl(fds[0], F_SETFL, O_NONBLOCK);
    const char text[] = "one\ntwo\nthe last, without a newline";
    ck_assert_int_eq(write(fds[1], text, sizeof text - 1), (ssize_t)(sizeof text - 1));
    close(fds[1]);
    seen g = { 0 };
    perf_pipe pp = { .fd = fds[0] };
    /* a trace_pipe never ends by itself: that it did is a failure */
    ck_assert_int_eq(run(&pp, &g), RUN_EXIT_FAILED);
    ck_assert_str_eq(g.log, "one|two|the last, without a newline|END");
    ck_assert_int_eq(g.ends, 1);
    close(fds[0]);
}
END_TEST

START_TEST(control_handshake)
{
    /* "perf record": acks the ping on fd 11, then writes two lines and
     * exits 0 (as perf record -p does when the process goes) */
    const char *rec[] = { "bash", "-c",     /* (dash takes no fd 10) */
                          "read c <&10 && [ \"$c\" = ping ] && printf ack >&11; "
                          "echo one; echo two", NULL };
    const char *scr[] = { "cat", NULL };
    seen g = { 0 };
    perf_pipe pp = { .record_argv = rec, .script_argv = scr, .record_follows = true,
                     .on_ready = on_ready };
    ck_assert_int_eq(run(&pp, &g), RUN_EXIT_OK);
    ck_assert_int_eq(g.ready, 1);
    ck_assert_str_eq(g.log, "one|two|END");
}
END_TEST

START_TEST(record_fails)
{
    const char *rec[] = { "sh", "-c", "echo no permission >&2; exit 3", NULL };
    const char *scr[] = { "cat", NULL };
    seen g = { 0 };
    perf_pipe pp = { .record_argv = rec, .script_argv = scr, .record_follows = true };
    ck_assert_int_eq(run(&pp, &g), RUN_EXIT_FAILED);
    ck_assert_str_eq(g.log, "END");
    ck_assert_int_eq(g.ready, 0);
}
END_TEST

TEST_SUITE(client_perf_pipe)
{
    Suite *s = suite_create(test_suite_name);
    TCase *tc = tcase_create("perf_pipe");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, trace_lines_then_end);
    tcase_add_test(tc, control_handshake);
    tcase_add_test(tc, record_fails);
    suite_add_tcase(s, tc);
    return s;
}
