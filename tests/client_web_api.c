/* Suite: client/web/api_profile: the handlers called directly, as
 * httpd calls them -- /api/folded is fold's text of the selection (the
 * window's end included, as fold -S/-T; files' untimed samples in every
 * window; filters by frame and by context), /api/heatmap heatmap's JSON
 * grid, /api/top, /api/diff.svg's baseline, /api/info's counts, and 400
 * with the reason for every bad parameter. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "client/cmd/options.h"
#include "client/web/api_profile.h"
#include "tests/testutil.h"

#define SEC 1000000000LL

typedef struct fixture {
    cmd_opts    o;
    web_store  *store;
    web_profile p;
} fixture;

static void setup(fixture *f)
{
    static char *argv[] = { "web", "x.folded", NULL };  /* o keeps it */
    ck_assert_int_eq(cmd_opts_parse(&f->o, OPTS_INPUT | OPTS_PCP | OPTS_SVG
                                    | OPTS_HEATMAP | OPTS_WEB, 2, argv,
                                    "usage"), 0);
    f->store = store_new(0, 0);
    f->p = (web_profile){ &f->o, f->store, NULL, NULL, false, NULL, 99, NULL };
    /* 1000 s .. 1002 s: a;b twice, a;c, b (pid 7, comm w), one untimed */
    const struct { const char *st; int64_t t; int64_t pid; const char *comm; }
    v[] = {
        { "a;b", 1000 * SEC, 1, "s" },
        { "a;c", 1000 * SEC + 500000000, 1, "s" },
        { "a;b", 1001 * SEC, 7, "w" },
        { "b", 1002 * SEC, 7, "w" },
    };
    for (size_t i = 0; i < sizeof v / sizeof v[0]; i++) {
        stack_context ctx = { .comm = v[i].comm, .comm_len = 1,
                              .pid = v[i].pid, .tid = v[i].pid,
                              .host = "h", .time_ns = STACK_TIME_UNKNOWN };
        store_add(f->store, v[i].st, strlen(v[i].st), 1, v[i].t, &ctx);
    }
    store_add(f->store, "file", 4, 3, STACK_TIME_UNKNOWN, NULL);
}

static void teardown(fixture *f)
{
    store_free(f->store);
    cmd_opts_free(&f->o);
}

/* Call handler fn with the query "a=1&b=2" (no decoding: the tests'
 * values need none). */
static int call(fixture *f, web_handler fn, const char *query, web_reply *rp)
{
    static char buf[1024];
    web_request rq;
    memset(&rq, 0, sizeof rq);
    rq.method = "GET";
    rq.path = "/api/x";
    snprintf(buf, sizeof buf, "%s", query);
    for (char *p = buf, *amp; p && *p; p = amp) {
        amp = strchr(p, '&');
        if (amp)
            *amp++ = '\0';
        char *eq = strchr(p, '=');
        if (eq)
            *eq++ = '\0';
        rq.params[rq.nparams++] = (web_param){ p, eq ? eq : "" };
    }
    *rp = (web_reply){ .status = 200, .body = STRBUF_INIT };
    fn(&f->p, &rq, rp);
    return rp->status;
}

static void expect(fixture *f, web_handler fn, const char *query, int status,
                   const char *body)
{
    web_reply rp;
    int st = call(f, fn, query, &rp);
    ck_assert_msg(st == status, "%s: status %d, not %d (%s)", query, st,
                  status, rp.body.buf ? rp.body.buf : "");
    if (body)
        ck_assert_str_eq(rp.body.buf ? rp.body.buf : "", body);
    sb_free(&rp.body);
}

START_TEST(folded_windows)
{
    fixture f;
    setup(&f);
    expect(&f, api_folded, "", 200, "a;b 2\na;c 1\nb 1\nfile 3\n");
    /* the end is in the window (fold -S/-T's rule), the file always */
    expect(&f, api_folded, "start=1000.5&end=1001", 200,
           "a;b 1\na;c 1\nfile 3\n");
    expect(&f, api_folded, "start=1000.500000001&end=1001", 200,
           "a;b 1\nfile 3\n");
    expect(&f, api_folded, "start=1001.000000001", 200, "b 1\nfile 3\n");
    expect(&f, api_folded, "end=999", 200, "file 3\n");
    /* PCP time syntax against what is held */
    expect(&f, api_folded, "start=-1sec", 200, "a;b 1\nb 1\nfile 3\n");
    teardown(&f);
}
END_TEST

/* by_host=1: fold --by-host's root frame (pcp_host_frame: frame_clean of the name, a
 * frame), before the filters see the stack; no host, no frame */
START_TEST(folded_by_host)
{
    fixture f;
    setup(&f);
    stack_context ctx = { .pid = -1, .tid = -1, .host = "x;y z",
                          .time_ns = STACK_TIME_UNKNOWN };
    store_add(f.store, "q", 1, 2, 1001 * SEC, &ctx);
    expect(&f, api_folded, "by_host=1", 200,
           "file 3\nh;a;b 2\nh;a;c 1\nh;b 1\nx:y z;q 2\n");
    expect(&f, api_folded, "by_host=1&host=x;y z", 200, "x:y z;q 2\n");
    expect(&f, api_folded, "by_host=1&hide=^h$", 200,
           "a;b 2\na;c 1\nb 1\nfile 3\nx:y z;q 2\n");
    expect(&f, api_folded, "by_host=1&focus=^x:y", 200, "x:y z;q 2\n");
    expect(&f, api_folded, "by_host=0&host=h&end=1000", 200, "a;b 1\n");
    expect(&f, api_folded, "by_host=2", 400, NULL);
    f.p.by_host = true;                 /* web --by-host */
    expect(&f, api_folded, "host=h&end=1000", 200, "h;a;b 1\n");
    expect(&f, api_folded, "by_host=0&host=h&end=1000", 200, "a;b 1\n");
    teardown(&f);
}
END_TEST

START_TEST(folded_filters)
{
    fixture f;
    setup(&f);
    expect(&f, api_folded, "pid=7", 200, "a;b 1\nb 1\n");
    expect(&f, api_folded, "comm=s&comm=w&focus=^c", 200, "a;c 1\n");
    expect(&f, api_folded, "focus=^c$", 200, "a;c 1\n");
    expect(&f, api_folded, "hide=^a$", 200, "b 3\nc 1\nfile 3\n");
    expect(&f, api_folded, "host=h&end=1000", 200, "a;b 1\n");
    teardown(&f);
}
END_TEST

/* state= keeps blocks of a class (--only-state); hotcold=1 is fold
 * --hotcold of the selection: a block weighed by its time is off-CPU,
 * any other sample on-CPU at 1/hotcold_hz s */
START_TEST(folded_state_hotcold)
{
    fixture f;
    setup(&f);
    f.p.hotcold_hz = 100;
    stack_context ctx = { .pid = 9, .tid = 9, .host = "h", .state = BLOCK_STATE_LOCK,
                          .time_ns = STACK_TIME_UNKNOWN, .samples = -1,
                          .weight_type = STACK_TIME_WEIGHT_TYPE,
                          .weight_unit = STACK_TIME_WEIGHT_UNIT };
    store_add(f.store, "x;futex_wait", 12, 250000000, 1001 * SEC + 500000000, &ctx);
    expect(&f, api_folded, "state=lock", 200, "x;futex_wait 250000000\n");
    expect(&f, api_folded, "state=io,sleep", 200, "");
    expect(&f, api_folded, "state=lock&pid=7", 200, "");
    expect(&f, api_folded, "state=busy", 400, NULL);
    expect(&f, api_folded, "hotcold=1", 200,
           "offcpu;x;futex_wait 250000000\noncpu;a;b 20000000\noncpu;a;c 10000000\n"
           "oncpu;b 10000000\noncpu;file 30000000\n");
    expect(&f, api_folded, "hotcold=1&pid=9", 200, "offcpu;x;futex_wait 250000000\n");
    expect(&f, api_folded, "hotcold=maybe", 400, NULL);
    web_reply rp;
    ck_assert_int_eq(call(&f, api_info, "", &rp), 200);
    ck_assert_ptr_nonnull(strstr(rp.body.buf, "\"hotcold_hz\":100,"));
    sb_free(&rp.body);
    teardown(&f);
}
END_TEST

START_TEST(bad_parameters)
{
    fixture f;
    setup(&f);
    expect(&f, api_folded, "start=nonsense", 400, NULL);
    expect(&f, api_folded, "start=1002&end=1001", 400,
           "start is after end\n");
    expect(&f, api_folded, "rows=0", 400, "bad rows: '0' (1 to 1000)\n");
    expect(&f, api_folded, "pid=x", 400, "bad pid: 'x' (a number)\n");
    expect(&f, api_folded, "focus=(", 400, NULL);
    expect(&f, api_top, "by=x", 400, "bad by: 'x' (self or total)\n");
    expect(&f, api_flame_svg, "inverted=2", 400,
           "bad inverted: '2' (1 or 0)\n");
    expect(&f, api_diff_svg, "start=1000", 400,
           "diff needs a baseline: base_start and/or base_end\n");
    expect(&f, api_diff_svg, "base_start=5&base_end=1", 400,
           "base_start is after base_end\n");
    expect(&f, api_heatmap, "rows=abc", 400, NULL);
    /* a run that is not followed (here: no runs at all) */
    expect(&f, api_folded, "run=profile-1", 400, "bad run: 'profile-1' is "
           "not followed here (GET /api/runs lists those that are)\n");
    expect(&f, api_folded, "run=", 200, "a;b 2\na;c 1\nb 1\nfile 3\n");
    teardown(&f);
}
END_TEST

START_TEST(heatmap_grid)
{
    fixture f;
    setup(&f);
    web_reply rp;
    ck_assert_int_eq(call(&f, api_heatmap, "rows=2", &rp), 200);
    /* 3 columns (1000, 1001, 1002 s), 2 rows; row 0 the later half */
    ck_assert_str_eq(rp.body.buf,
                     "{\"rows\": [500, 0], \"columns\": [0, 1, 2], "
                     "\"values\": [[1, 1], [0, 1], [0, 1]], \"maxvalue\": 1, "
                     "\"start\": 1000.000000, \"end\": 1002.000000}\n");
    sb_free(&rp.body);
    ck_assert_int_eq(call(&f, api_heatmap, "end=10", &rp), 200);
    ck_assert_ptr_nonnull(strstr(rp.body.buf, "\"empty\""));
    sb_free(&rp.body);
    teardown(&f);
}
END_TEST

START_TEST(top_info_svg)
{
    fixture f;
    setup(&f);
    web_reply rp;
    ck_assert_int_eq(call(&f, api_top, "limit=1&by=total", &rp), 200);
    /* b: 3 of a;b, b; a is 3 too: the tie goes by name, a's self is 0 */
    ck_assert_ptr_nonnull(strstr(rp.body.buf, "\"name\":\"b\",\"self\":3"));
    ck_assert_ptr_null(strstr(rp.body.buf, "\"name\":\"a\""));   /* limit */
    sb_free(&rp.body);
    ck_assert_int_eq(call(&f, api_info, "", &rp), 200);
    ck_assert_ptr_nonnull(strstr(rp.body.buf, "\"samples\":5,"));
    ck_assert_ptr_nonnull(strstr(rp.body.buf, "\"hosts\":[\"h\"]"));
    ck_assert_ptr_nonnull(strstr(rp.body.buf, "\"first_ns\":1000000000000,"));
    ck_assert_ptr_nonnull(strstr(rp.body.buf, "\"files\":[\"x.folded\"]"));
    sb_free(&rp.body);
    ck_assert_int_eq(call(&f, api_flame_svg, "inverted=1", &rp), 200);
    ck_assert_str_eq(rp.content_type, "image/svg+xml");
    ck_assert_ptr_nonnull(strstr(rp.body.buf, "Icicle Graph"));
    sb_free(&rp.body);
    ck_assert_int_eq(call(&f, api_diff_svg, "base_end=1000&start=1001", &rp),
                     200);
    ck_assert_ptr_nonnull(strstr(rp.body.buf, "normalised: BEFORE's"));
    sb_free(&rp.body);
    teardown(&f);
}
END_TEST

TEST_SUITE(client_web_api)
{
    Suite *s = suite_create(test_suite_name);
    TCase *tc = tcase_create("api");
    tcase_add_test(tc, folded_windows);
    tcase_add_test(tc, folded_filters);
    tcase_add_test(tc, folded_by_host);
    tcase_add_test(tc, bad_parameters);
    tcase_add_test(tc, folded_state_hotcold);
    tcase_add_test(tc, heatmap_grid);
    tcase_add_test(tc, top_info_svg);
    suite_add_tcase(s, tc);
    return s;
}
