/* Suite: relay/exec, data-exec children on a real libev loop: output
 * collected, time-outs kill the process group, floods are capped,
 * failures described. */
#include "relay/exec.h"
#include "tests/testutil.h"

#include <ev.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    int done;
    exec_result res;
    char *out;
} exec_capture;

static void capture(void *arg, exec_result *res)
{
    exec_capture *c = arg;
    c->done++;
    c->res = *res;
    c->out = strdup(res->out);
}

static void run_until(struct ev_loop *loop, int *flag, double limit)
{
    double end = ev_time() + limit;
    while (!*flag && ev_time() < end)
        ev_run(loop, EVRUN_ONCE);
}

static exec_capture run_cmd(char *const argv[], double timeout, size_t max)
{
    struct ev_loop *loop = ev_default_loop(0);
    exec_opts o = {.timeout = timeout, .max_output = max};
    exec_capture c = {0};
    char err[256];
    exec_job *j = exec_start(loop, argv, &o, capture, &c, err, sizeof(err));
    ck_assert_msg(j != NULL, "%s", err);
    run_until(loop, &c.done, 20);
    ck_assert_int_eq(c.done, 1);
    return c;
}

START_TEST(exec_collects_stdout)
{
    char *argv[] = {"/bin/sh", "-c", "echo '{\"v\": 1}'; echo oops >&2", NULL};
    exec_capture c = run_cmd(argv, 5, 1 << 20);
    ck_assert(WIFEXITED(c.res.wait_status) && WEXITSTATUS(c.res.wait_status) == 0);
    ck_assert_str_eq(c.out, "{\"v\": 1}\n");
    ck_assert_str_eq(c.res.errtext, "oops\n");
    free(c.out);
}
END_TEST

START_TEST(exec_timeout_kills_group)
{
    /* the child forks a sleeper that keeps stdout open: both must go */
    char *argv[] = {"/bin/sh", "-c", "sleep 30 & sleep 30", NULL};
    double t0 = ev_time();
    exec_capture c = run_cmd(argv, 0.3, 1 << 20);
    ck_assert(c.res.timed_out);
    ck_assert(ev_time() - t0 < 5);
    char buf[200];
    exec_describe(&c.res, 0.3, buf, sizeof(buf));
    ck_assert_str_eq(buf, "data-exec killed after the 0.3s time-out");
    free(c.out);
}
END_TEST

START_TEST(exec_flood_is_capped)
{
    char *argv[] = {"/bin/sh", "-c", "yes xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx", NULL};
    exec_capture c = run_cmd(argv, 10, 100000);
    ck_assert(c.res.too_big);
    ck_assert(!c.res.timed_out);
    free(c.out);
}
END_TEST

START_TEST(exec_failures_are_described)
{
    char *argv[] = {"/nonexistent/cmd", NULL};
    exec_capture c = run_cmd(argv, 5, 1000);
    char buf[300];
    exec_describe(&c.res, 5, buf, sizeof(buf));
    ck_assert_msg(strstr(buf, "data-exec exit status 127: cannot execute /nonexistent/cmd") == buf,
                  "%s", buf);
    free(c.out);
    char *argv2[] = {"/bin/sh", "-c", "exit 3", NULL};
    c = run_cmd(argv2, 5, 1000);
    exec_describe(&c.res, 5, buf, sizeof(buf));
    ck_assert_str_eq(buf, "data-exec exit status 3");
    free(c.out);
}
END_TEST

TEST_SUITE(relay_exec)
{
    Suite *s = suite_create(test_suite_name);
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 30);
    tcase_add_test(tc, exec_collects_stdout);
    tcase_add_test(tc, exec_timeout_kills_group);
    tcase_add_test(tc, exec_flood_is_capped);
    tcase_add_test(tc, exec_failures_are_described);
    suite_add_tcase(s, tc);
    return s;
}
