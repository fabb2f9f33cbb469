/* Suite: relay/exec, data-exec children on a real libev loop: output
 * collected, time-outs kill the process group, floods are capped,
 * failures described, and contained commands take every descendant
 * with them. */
#include "relay/exec.h"
#include "tests/testutil.h"

#include <dirent.h>
#include <ev.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

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

static exec_capture run_contained(char *const argv[], double timeout, size_t max,
                                  exec_containment how)
{
    struct ev_loop *loop = ev_default_loop(0);
    exec_opts o = {.timeout = timeout, .max_output = max, .containment = how};
    exec_capture c = {0};
    char err[256];
    exec_job *j = exec_start(loop, argv, &o, capture, &c, err, sizeof(err));
    ck_assert_msg(j != NULL, "%s", err);
    run_until(loop, &c.done, 20);
    ck_assert_int_eq(c.done, 1);
    return c;
}

static exec_capture run_cmd(char *const argv[], double timeout, size_t max)
{
    return run_contained(argv, timeout, max, EXEC_PLAIN);
}

/* Processes whose command line is "sleep MARKER" (zombies aside);
 * with kill_them, each is sent SIGKILL by its pid. */
static int sleepers(const char *marker, bool kill_them)
{
    int n = 0;
    DIR *d = opendir("/proc");
    struct dirent *e;
    while (d != NULL && (e = readdir(d)) != NULL) {
        char path[300], buf[256], st[512];
        if (atoi(e->d_name) <= 0)
            continue;
        snprintf(path, sizeof(path), "/proc/%s/cmdline", e->d_name);
        FILE *f = fopen(path, "r");
        if (f == NULL)
            continue;
        size_t len = fread(buf, 1, sizeof(buf) - 1, f);
        fclose(f);
        buf[len] = '\0';
        if (strcmp(buf, "sleep") != 0 || len < 7 || strcmp(buf + 6, marker) != 0)
            continue;
        snprintf(path, sizeof(path), "/proc/%s/stat", e->d_name);
        f = fopen(path, "r");
        size_t sl = f != NULL ? fread(st, 1, sizeof(st) - 1, f) : 0;
        if (f != NULL)
            fclose(f);
        st[sl] = '\0';
        const char *cp = strrchr(st, ')');
        if (cp == NULL || cp[2] != 'Z') {
            n++;
            if (kill_them)
                kill(atoi(e->d_name), SIGKILL);
        }
    }
    if (d != NULL)
        closedir(d);
    return n;
}

/* Issue 13: a command that starts a daemon in a new session, double
 * forks or uses nohup left those processes running for ever (killing its
 * process group missed them).  Contained, in a PID namespace (root) or
 * under the reaper, every one of them dies when the command ends, when
 * its time-out kills it, and when the job is cancelled (the PMDA
 * exiting).  The plain process group misses them (checked, then cleaned). */
START_TEST(exec_escapes_die_with_the_command)
{
    static const exec_containment hows[] = {EXEC_CONTAIN, EXEC_CONTAIN_REAPER, EXEC_PLAIN};
    for (size_t k = 0; k < 3; k++) {
        char marker[32], script[512];
        snprintf(marker, sizeof(marker), "%d.%zu1", 1000 + (int)getpid() % 1000, k);
        snprintf(script, sizeof(script),
                 "setsid sh -c 'sleep %s' </dev/null >/dev/null 2>&1 & "
                 "( sh -c 'sleep %s </dev/null >/dev/null 2>&1 &' & ) ; "
                 "nohup sleep %s </dev/null >/dev/null 2>&1 & "
                 "sleep 0.3; echo '{\"v\": 1}'", marker, marker, marker);
        char *argv[] = {"/bin/sh", "-c", script, NULL};
        exec_capture c = run_contained(argv, 10, 1 << 20, hows[k]);
        ck_assert(WIFEXITED(c.res.wait_status) && WEXITSTATUS(c.res.wait_status) == 0);
        ck_assert_str_eq(c.out, "{\"v\": 1}\n");
        free(c.out);
        int left = sleepers(marker, false);
        if (hows[k] != EXEC_PLAIN) {
            ck_assert_msg(left == 0, "containment %zu: %d escaped processes left", k, left);
            continue;
        }
        ck_assert_int_gt(left, 0);   /* the process group alone misses them */
        sleepers(marker, true);
    }
    /* killed by the time-out, and cancelled mid-run */
    for (size_t k = 0; k < 2; k++) {
        char marker[32], script[300];
        snprintf(marker, sizeof(marker), "%d.%zu2", 1000 + (int)getpid() % 1000, k);
        snprintf(script, sizeof(script), "setsid sh -c 'sleep %s' & "
                 "( sh -c 'sleep %s &' & ) ; sleep %s", marker, marker, marker);
        char *argv[] = {"/bin/sh", "-c", script, NULL};
        exec_capture c = run_contained(argv, 0.5, 1 << 20, hows[k]);
        ck_assert(c.res.timed_out);
        free(c.out);
        ck_assert_int_eq(sleepers(marker, false), 0);
        struct ev_loop *loop = ev_default_loop(0);
        exec_opts o = {.timeout = 30, .max_output = 1 << 20, .containment = hows[k]};
        exec_capture c2 = {0};
        char err[256];
        exec_job *j = exec_start(loop, argv, &o, capture, &c2, err, sizeof(err));
        ck_assert_ptr_nonnull(j);
        double end = ev_time() + 60;
        while (sleepers(marker, false) < 3 && ev_time() < end)
            ev_run(loop, EVRUN_NOWAIT);
        ck_assert_int_ge(sleepers(marker, false), 3);
        exec_cancel(j);
        ck_assert_int_eq(c2.done, 0);
        ck_assert_int_eq(sleepers(marker, false), 0);
    }
}
END_TEST

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
    ck_assert(ev_time() - t0 < 20);   /* not the sleep's 30 s: killed */
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
    tcase_add_test(tc, exec_escapes_die_with_the_command);
    suite_add_tcase(s, tc);
    return s;
}
