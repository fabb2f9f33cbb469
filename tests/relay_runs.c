/* Suite: relay/runs, the request grammar, the policy, and children on a real
 * libev loop (a shell script stands in for the staprelay command). */
#include "relay/runs.h"
#include "tests/testutil.h"

#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

typedef struct fixture {
    char *dir;
    char *command;
    runs_config cfg;
    char *scripts[3];
    runs *rs;
} fixture;

/* The stand-in prints where metrics go, its arguments, then sleeps for
 * the -T it was given and exits with $FAKE_EXIT (a file) or 0. */
static void setup(fixture *f, const char *body)
{
    memset(f, 0, sizeof *f);
    f->dir = tu_mkdtemp();
    char text[1024];
    snprintf(text, sizeof text, "#!/bin/sh\n%s\n", body);
    ck_assert_int_eq(tu_write(f->dir, "cmd", text), 0);
    size_t n = strlen(f->dir) + 8;
    f->command = malloc(n);
    snprintf(f->command, n, "%s/cmd", f->dir);
    chmod(f->command, 0755);
    f->scripts[0] = "profile";
    f->scripts[1] = "syslat";
    f->cfg = (runs_config){.enabled = true, .scripts = f->scripts, .nscripts = 2,
                           .max_duration = 60, .default_duration = 30, .max_concurrent = 1,
                           .max_queued = 1, .history = 2, .start_timeout = 30};
    f->rs = runs_new(ev_default_loop(0), &f->cfg, f->command, f->dir, NULL);
    ck_assert_ptr_nonnull(f->rs);
}

static void teardown(fixture *f)
{
    runs_free(f->rs);
    tu_rmtree(f->dir);
    free(f->dir);
    free(f->command);
}

static json_t *run_obj(fixture *f, size_t i)
{
    const char *text = runs_json(f->rs, i);
    ck_assert_ptr_nonnull(text);
    json_error_t e;
    json_t *o = json_loads(text, 0, &e);
    ck_assert_msg(o != NULL, "%s: %s", text, e.text);
    return o;
}

static const char *field(json_t *o, const char *key)
{
    return json_string_value(json_object_get(o, key));
}

static void wait_state(fixture *f, size_t i, run_state want, double limit)
{
    double end = ev_time() + limit;
    while (runs_state(f->rs, i) != want && ev_time() < end)
        ev_run(ev_default_loop(0), EVRUN_ONCE);
    ck_assert_str_eq(run_state_name(runs_state(f->rs, i)), run_state_name(want));
}

START_TEST(runs_refuse_bad_requests_and_start_nothing)
{
    fixture f;
    setup(&f, "echo started >> \"$(dirname \"$0\")/started\"");
    static const struct { const char *req; int rc; } cases[] = {
        {"", -EINVAL}, {"  \t ", -EINVAL}, {"nosuch duration=5", -EPERM},
        {"profile duration=61", -ERANGE}, {"profile duration=2m", -ERANGE},
        {"profile duration=0", -EINVAL}, {"profile duration=5x", -EINVAL},
        {"profile hz=10001", -EINVAL}, {"profile pid=-1", -EINVAL},
        {"profile cmd=a/b", -EINVAL}, {"profile cmd=--help", -EINVAL},
        {"profile stacks=both", -EINVAL}, {"profile x", -EINVAL}, {"profile =1", -EINVAL},
        {"profile hz=1 hz=2", -EINVAL}, {"-profile", -EINVAL}, {"PROFILE", -EINVAL},
        {"profile name=x", -EINVAL},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        ck_assert_msg(runs_request(f.rs, cases[i].req) == cases[i].rc, "%s", cases[i].req);
        ck_assert_msg(strncmp(f.rs->last, "refused: ", 9) == 0, "%s", f.rs->last);
    }
    char big[2000];
    memset(big, 'a', sizeof big - 1);
    big[sizeof big - 1] = '\0';
    ck_assert_int_eq(runs_request(f.rs, big), -EINVAL);
    ck_assert_uint_eq(runs_count(f.rs), 0);
    ck_assert_uint_eq(f.rs->refusals, f.rs->requests);
    f.cfg.enabled = false;
    ck_assert_int_eq(runs_request(f.rs, "profile"), -EPERM);
    ck_assert_ptr_nonnull(strstr(f.rs->last, "disabled"));
    ck_assert_int_eq(access("started", F_OK), -1);
    teardown(&f);
}
END_TEST

START_TEST(runs_run_to_done_with_argv_and_prefix)
{
    fixture f;
    /* the PMDA names the run's metrics itself (--name): it reads
     * nothing back from what the command prints */
    setup(&f, "echo \"args: $*\"\n"
              "case \"$*\" in *' --name staprelay_profile'*) exit 0;; esac\nexit 1");
    ck_assert_int_eq(runs_request(f.rs, "profile hz=99 duration=2 pid=1 stacks=user cmd=a.b"), 0);
    ck_assert_uint_eq(runs_count(f.rs), 1);
    ck_assert_ptr_nonnull(strstr(f.rs->last, "accepted: profile-"));
    wait_state(&f, 0, RUN_DONE, 10);
    json_t *o = run_obj(&f, 0);
    ck_assert_str_eq(field(o, "state"), "done");
    ck_assert_str_eq(field(o, "script"), "profile");
    ck_assert_str_eq(field(o, "request"), "profile duration=2 hz=99 pid=1 cmd=a.b stacks=user");
    ck_assert_str_eq(field(o, "prefix"), "staprelay.staprelay_profile");
    ck_assert_str_eq(field(o, "reason"), "");
    double q = json_number_value(json_object_get(o, "queued"));
    double s = json_number_value(json_object_get(o, "started"));
    double e = json_number_value(json_object_get(o, "ended"));
    ck_assert(q > 1e9 && s >= q && e >= s);
    ck_assert_str_eq(runs_name(f.rs, 0), field(o, "name"));
    json_decref(o);
    teardown(&f);
}
END_TEST

START_TEST(runs_failure_reason_is_the_last_line)
{
    fixture f;
    setup(&f, "echo 'first line'\necho 'staprelay run: no backend can run it here' >&2\nexit 3");
    ck_assert_int_eq(runs_request(f.rs, "syslat"), 0);
    wait_state(&f, 0, RUN_FAILED, 10);
    json_t *o = run_obj(&f, 0);
    ck_assert_str_eq(field(o, "reason"),
                     "staprelay run: no backend can run it here (exit status 3)");
    json_decref(o);
    teardown(&f);
}
END_TEST

START_TEST(runs_queue_stop_and_history)
{
    fixture f;
    setup(&f, "sleep 30");
    ck_assert_int_eq(runs_request(f.rs, "profile duration=30"), 0);
    ck_assert_int_eq(runs_request(f.rs, "syslat duration=30"), 0);   /* waits: 1 at once */
    ck_assert_int_eq(runs_request(f.rs, "syslat duration=30"), -EBUSY); /* max_queued 1 */
    ck_assert_uint_eq(runs_count(f.rs), 2);
    ck_assert_int_eq(runs_state(f.rs, 0), RUN_RUNNING);
    ck_assert_int_eq(runs_state(f.rs, 1), RUN_QUEUED);
    /* names differ even within one second */
    ck_assert_str_ne(runs_name(f.rs, 0), runs_name(f.rs, 1));
    char first[128];
    snprintf(first, sizeof first, "%s", runs_name(f.rs, 0));
    ck_assert_int_eq(runs_stop(f.rs, first), 0);
    wait_state(&f, 0, RUN_STOPPED, 10);
    /* the queued one starts when the first has gone */
    ck_assert_int_eq(runs_state(f.rs, 1), RUN_RUNNING);
    ck_assert_int_eq(runs_stop(f.rs, first), -ESRCH);
    ck_assert_int_eq(runs_stop(f.rs, "nosuch"), -ESRCH);
    ck_assert_int_eq(runs_stop(f.rs, runs_name(f.rs, 1)), 0);
    wait_state(&f, 1, RUN_STOPPED, 10);
    /* history 2: a third finished run pushes the oldest out */
    ck_assert_int_eq(runs_request(f.rs, "profile duration=30"), 0);
    ck_assert_int_eq(runs_stop(f.rs, runs_name(f.rs, 2)), 0);
    wait_state(&f, 2, RUN_STOPPED, 10);
    ck_assert_uint_eq(runs_count(f.rs), 2);
    ck_assert_str_ne(runs_name(f.rs, 0), first);
    teardown(&f);
}
END_TEST

START_TEST(runs_free_stops_running_children)
{
    fixture f;
    setup(&f, "echo $$ > \"$(dirname \"$0\")/pid\"\nexec sleep 30");
    ck_assert_int_eq(runs_request(f.rs, "profile duration=30"), 0);
    char path[512];
    snprintf(path, sizeof path, "%s/pid", f.dir);
    double end = ev_time() + 60;
    char *pid = NULL;
    while ((pid = tu_slurp(path)) == NULL && ev_time() < end)
        ev_run(ev_default_loop(0), EVRUN_NOWAIT), usleep(10000);
    ck_assert_ptr_nonnull(pid);
    runs_free(f.rs);
    f.rs = NULL;
    ck_assert_int_eq(kill(atoi(pid), 0), -1);
    free(pid);
    f.rs = runs_new(ev_default_loop(0), &f.cfg, f.command, f.dir, NULL);
    teardown(&f);
}
END_TEST

TEST_SUITE(relay_runs)
{
    Suite *s = suite_create(test_suite_name);
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, runs_refuse_bad_requests_and_start_nothing);
    tcase_add_test(tc, runs_run_to_done_with_argv_and_prefix);
    tcase_add_test(tc, runs_failure_reason_is_the_last_line);
    tcase_add_test(tc, runs_queue_stop_and_history);
    tcase_add_test(tc, runs_free_stops_running_children);
    suite_add_tcase(s, tc);
    return s;
}
