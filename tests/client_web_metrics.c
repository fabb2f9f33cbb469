/* Suite: client/web/api_metrics, the handlers called directly with a
 * web_request: what they refuse before any PCP call (a bad or missing
 * metric name, prefix, host, script, seconds, hz, pid; runs without
 * --allow-runs, runs on archives; no PCP source at all), and what they
 * say when pmcd cannot be reached (502 with the reason).  The answers
 * from a real pmcd are qa 711 and 712's. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "client/web/api_metrics.h"
#include "tests/testutil.h"

/* A pmcd that is not there: a port nothing listens on. */
#define NO_PMCD "127.0.0.1:1"

static web_request req(const char *method, const char *const *kv, int n,
                       const char *body)
{
    web_request rq;
    memset(&rq, 0, sizeof rq);
    rq.method = method;
    rq.path = "/api/x";
    for (int i = 0; i < n; i++) {
        rq.params[i].name = kv[2 * i];
        rq.params[i].value = kv[2 * i + 1];
    }
    rq.nparams = n;
    rq.body = body;
    rq.body_len = body ? strlen(body) : 0;
    return rq;
}

static web_metrics *live(bool allow_runs)
{
    pcp_options po;
    memset(&po, 0, sizeof po);
    po.hosts[0] = NO_PMCD;
    po.nhosts = 1;
    strbuf err = STRBUF_INIT;
    web_metrics *m = web_metrics_new(&po, 0.2, 1, allow_runs, &err);
    ck_assert_msg(m != NULL, "%s", err.buf);
    sb_free(&err);
    return m;
}

/* Call fn; the status, the body in body (static). */
static char body[4096];
static int call(web_handler fn, web_metrics *m, const web_request *rq)
{
    web_reply rp = { .status = 200, .body = STRBUF_INIT };
    fn(m, rq, &rp);
    snprintf(body, sizeof body, "%s", rp.body.buf ? rp.body.buf : "");
    sb_free(&rp.body);
    return rp.status;
}

START_TEST(values_refuses_bad_names)
{
    web_metrics *m = live(false);
    web_request rq = req("GET", NULL, 0, NULL);
    ck_assert_int_eq(call(api_values, m, &rq), 400);
    ck_assert_msg(strstr(body, "metric=NAME is missing"), "%s", body);
    const char *bad[] = { "a..b", ".a", "a.", "a b", "a;rm", "kernel.all/x",
                          "" };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        const char *kv[] = { "metric", bad[i] };
        rq = req("GET", kv, 1, NULL);
        ck_assert_int_eq(call(api_values, m, &rq), 400);
    }
    char longname[300];
    memset(longname, 'a', sizeof longname - 1);
    longname[sizeof longname - 1] = '\0';
    const char *kv[] = { "metric", longname };
    rq = req("GET", kv, 1, NULL);
    ck_assert_int_eq(call(api_values, m, &rq), 400);
    web_metrics_free(m);
}
END_TEST

START_TEST(unknown_host_is_404)
{
    web_metrics *m = live(false);
    const char *kv[] = { "metric", "kernel.all.load", "host", "elsewhere" };
    web_request rq = req("GET", kv, 2, NULL);
    ck_assert_int_eq(call(api_values, m, &rq), 404);
    ck_assert_msg(strstr(body, "unknown host 'elsewhere'"), "%s", body);
    const char *kp[] = { "prefix", "kernel", "host", "elsewhere" };
    rq = req("GET", kp, 2, NULL);
    ck_assert_int_eq(call(api_pmns, m, &rq), 404);
    web_metrics_free(m);
}
END_TEST

START_TEST(unreachable_pmcd_is_502_with_the_reason)
{
    web_metrics *m = live(true);
    const char *kv[] = { "metric", "kernel.all.load" };
    web_request rq = req("GET", kv, 1, NULL);
    ck_assert_int_eq(call(api_values, m, &rq), 502);
    ck_assert_msg(strstr(body, "cannot connect to pmcd on " NO_PMCD), "%s",
                  body);
    /* host= may name it without the port */
    const char *kh[] = { "metric", "kernel.all.load", "host", "127.0.0.1" };
    rq = req("GET", kh, 2, NULL);
    ck_assert_int_eq(call(api_values, m, &rq), 502);
    const char *kp[] = { "prefix", "kernel" };
    rq = req("GET", kp, 1, NULL);
    ck_assert_int_eq(call(api_pmns, m, &rq), 502);
    rq = req("POST", NULL, 0, "script=profile&seconds=5");
    ck_assert_int_eq(call(api_run, m, &rq), 502);
    ck_assert_msg(strstr(body, "cannot connect"), "%s", body);
    web_metrics_free(m);
}
END_TEST

START_TEST(pmns_refuses_bad_prefixes)
{
    web_metrics *m = live(false);
    const char *bad[] = { "..", "a..b", "a b", "%2e", "a/b" };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        const char *kv[] = { "prefix", bad[i] };
        web_request rq = req("GET", kv, 1, NULL);
        ck_assert_int_eq(call(api_pmns, m, &rq), 400);
        ck_assert_msg(strstr(body, "bad prefix"), "%s", body);
    }
    web_metrics_free(m);
}
END_TEST

START_TEST(runs_need_allow_runs)
{
    web_metrics *m = live(false);
    web_request rq = req("POST", NULL, 0, "script=profile&seconds=5");
    ck_assert_int_eq(call(api_run, m, &rq), 403);
    ck_assert_msg(strstr(body, "--allow-runs"), "%s", body);
    web_metrics_free(m);
}
END_TEST

/* The request is validated by the PMDA's own rules before anything is
 * stored: no second rule (run_name_ok, duration_parse, script_opts). */
START_TEST(run_requests_are_validated)
{
    web_metrics *m = live(true);
    static const struct { const char *body, *why; } bad[] = {
        { "", "script=NAME is missing" },
        { "seconds=5", "script=NAME is missing" },
        { "script=profile", "seconds=N is missing" },
        { "script=profile&seconds=", "seconds=N is missing" },
        { "script=1abc&seconds=5", "bad script '1abc'" },
        { "script=pro+file&seconds=5", "bad script 'pro file'" },
        { "script=profile%3Brm&seconds=5", "bad script 'profile;rm'" },
        { "script=profile&seconds=0", "bad seconds '0'" },
        { "script=profile&seconds=-3", "bad seconds '-3'" },
        { "script=profile&seconds=5+hz%3D1", "bad seconds '5 hz=1'" },
        { "script=profile&seconds=5x", "bad seconds '5x'" },
        { "script=profile&seconds=400d", "bad seconds" },
        { "script=profile&seconds=5&hz=0", "bad hz '0'" },
        { "script=profile&seconds=5&hz=99999", "bad hz '99999'" },
        { "script=profile&seconds=5&pid=abc", "bad pid 'abc'" },
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        web_request rq = req("POST", NULL, 0, bad[i].body);
        ck_assert_msg(call(api_run, m, &rq) == 400, "%s: %s", bad[i].body,
                      body);
        ck_assert_msg(strstr(body, bad[i].why), "%s: %s", bad[i].body, body);
    }
    /* a GET is no run request */
    web_request rq = req("GET", NULL, 0, NULL);
    ck_assert_int_eq(call(api_run, m, &rq), 405);
    /* valid: it gets as far as pmcd (which is not there) */
    rq = req("POST", NULL, 0, "script=profile&seconds=1.5&hz=99&pid=1");
    ck_assert_int_eq(call(api_run, m, &rq), 502);
    rq = req("POST", NULL, 0, "seconds=90s&script=profile");
    ck_assert_int_eq(call(api_run, m, &rq), 502);
    web_metrics_free(m);
}
END_TEST

START_TEST(no_pcp_source)
{
    pcp_options po;
    memset(&po, 0, sizeof po);
    strbuf err = STRBUF_INIT;
    web_metrics *m = web_metrics_new(&po, 1, 10, true, &err);
    ck_assert(m != NULL);
    const char *kv[] = { "metric", "kernel.all.load", "prefix", "kernel" };
    web_request rq = req("GET", kv, 2, NULL);
    ck_assert_int_eq(call(api_values, m, &rq), 404);
    ck_assert_msg(strstr(body, "no PCP source"), "%s", body);
    ck_assert_int_eq(call(api_pmns, m, &rq), 404);
    rq = req("POST", NULL, 0, "script=profile&seconds=5");
    ck_assert_int_eq(call(api_run, m, &rq), 400);
    ck_assert_msg(strstr(body, "runs need a live host"), "%s", body);
    web_metrics_free(m);
    sb_free(&err);
}
END_TEST

/* A farm directory without archives is the farm's own error. */
START_TEST(archives_must_exist)
{
    char *dir = tu_mkdtemp();
    pcp_options po;
    memset(&po, 0, sizeof po);
    po.archives[0] = dir;
    po.narchives = 1;
    strbuf err = STRBUF_INIT;
    web_metrics *m = web_metrics_new(&po, 1, 10, false, &err);
    ck_assert(m == NULL);
    ck_assert(err.len > 0);
    sb_free(&err);
    tu_rmtree(dir);
    free(dir);
}
END_TEST

TEST_SUITE(client_web_metrics)
{
    Suite *s = suite_create(test_suite_name);
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, values_refuses_bad_names);
    tcase_add_test(tc, unknown_host_is_404);
    tcase_add_test(tc, unreachable_pmcd_is_502_with_the_reason);
    tcase_add_test(tc, pmns_refuses_bad_prefixes);
    tcase_add_test(tc, runs_need_allow_runs);
    tcase_add_test(tc, run_requests_are_validated);
    tcase_add_test(tc, no_pcp_source);
    tcase_add_test(tc, archives_must_exist);
    suite_add_tcase(s, tc);
    return s;
}
