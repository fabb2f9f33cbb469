/* Suite: client/input/pcp_runs and --run/--output-dir without a pmcd: parsing the value of
 * staprelay.control.runs (good, missing members, wrong types, hostile
 * strings), the window a run's records are kept in, the option rules,
 * the names --output-dir writes and the atomic write behind it. */
#include <check.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "client/cmd/inout.h"
#include "client/cmd/builtin.h"
#include "client/stack/heatmap.h"
#include "client/util/outfile.h"
#include "client/input/pcp_runs.h"
#include "tests/testutil.h"

static const char good[] =
    "{\"name\": \"profile-20261130T010203\", \"script\": \"profile\","
    " \"request\": \"profile duration=20 hz=99\","
    " \"state\": \"done\", \"reason\": \"\","
    " \"queued\": 1796000523.1, \"started\": 1796000523.2,"
    " \"ended\": 1796000544.0,"
    " \"prefix\": \"staprelay.staprelay_profile\","
    " \"events\": [\"staprelay.staprelay_profile.samples.records\"]}";

/* parse s; returns 0 or -1, the message in *msg (caller frees) */
static int parse(const char *s, pcp_run *r, char **msg)
{
    strbuf err = STRBUF_INIT;
    int rc = pcp_run_parse(s, strlen(s), r, &err);
    *msg = sb_steal(&err);
    if (*msg == NULL)
        *msg = strdup("");
    return rc;
}

static void expect_error(const char *json, const char *part)
{
    pcp_run r;
    char *msg;
    ck_assert_msg(parse(json, &r, &msg) == -1, "accepted: %s", json);
    ck_assert_msg(strstr(msg, part) != NULL, "'%s': message '%s' lacks '%s'",
                  json, msg, part);
    ck_assert_ptr_null(r.name);         /* zeroed: free is safe */
    pcp_run_free(&r);
    free(msg);
}

START_TEST(parse_good_value)
{
    pcp_run r;
    char *msg;
    ck_assert_int_eq(parse(good, &r, &msg), 0);
    ck_assert_str_eq(r.name, "profile-20261130T010203");
    ck_assert_str_eq(r.script, "profile");
    ck_assert_str_eq(r.request, "profile duration=20 hz=99");
    ck_assert_int_eq(r.state, PCP_RUN_DONE);
    ck_assert(pcp_run_terminal(&r));
    ck_assert_str_eq(r.reason, "");
    ck_assert(r.started == 1796000523.2);
    ck_assert(r.ended == 1796000544.0);
    ck_assert_str_eq(r.prefix, "staprelay.staprelay_profile");
    ck_assert_int_eq(r.nevents, 1);
    ck_assert_str_eq(r.events[0], "staprelay.staprelay_profile.samples.records");
    pcp_run_free(&r);
    pcp_run_free(&r);       /* twice is harmless */
    free(msg);

    /* every state; terminal ones */
    static const struct { const char *s; pcp_run_state st; bool term; } st[] = {
        { "queued", PCP_RUN_QUEUED, false }, { "running", PCP_RUN_RUNNING, false },
        { "done", PCP_RUN_DONE, true }, { "failed", PCP_RUN_FAILED, true },
        { "stopped", PCP_RUN_STOPPED, true },
    };
    for (size_t i = 0; i < sizeof st / sizeof st[0]; i++) {
        char buf[128];
        snprintf(buf, sizeof buf, "{\"state\": \"%s\"}", st[i].s);
        ck_assert_int_eq(parse(buf, &r, &msg), 0);
        ck_assert_int_eq(r.state, st[i].st);
        ck_assert_int_eq(pcp_run_terminal(&r), st[i].term);
        ck_assert_str_eq(pcp_run_state_name(r.state), st[i].s);
        pcp_run_free(&r);
        free(msg);
    }
}
END_TEST

START_TEST(parse_missing_members)
{
    /* only "state" is required: the rest are "", 0 and [] */
    pcp_run r;
    char *msg;
    ck_assert_int_eq(parse("{\"state\": \"queued\", \"future\": [1, {}]}", &r,
                           &msg), 0);
    ck_assert_str_eq(r.name, "");
    ck_assert_str_eq(r.script, "");
    ck_assert_str_eq(r.request, "");
    ck_assert_str_eq(r.reason, "");
    ck_assert_str_eq(r.prefix, "");
    ck_assert(r.queued == 0 && r.started == 0 && r.ended == 0);
    ck_assert_int_eq(r.nevents, 0);
    pcp_run_free(&r);
    free(msg);

    expect_error("{}", "no \"state\"");
    expect_error("{\"name\": \"x\", \"events\": []}", "no \"state\"");
}
END_TEST

START_TEST(parse_wrong_types)
{
    expect_error("", "not JSON");
    expect_error("{\"state\": \"done\"", "not JSON");
    expect_error("[\"state\", \"done\"]", "not a JSON object");
    expect_error("\"done\"", "not JSON");        /* jansson: no bare values */
    expect_error("null", "not JSON");
    expect_error("{\"state\": 3}", "\"state\" is not a string");
    expect_error("{\"state\": null}", "\"state\" is not a string");
    expect_error("{\"state\": \"finished\"}", "unknown state \"finished\"");
    expect_error("{\"state\": \"DONE\"}", "unknown state");
    expect_error("{\"state\": \"done\", \"reason\": 1}", "\"reason\" is not a string");
    expect_error("{\"state\": \"done\", \"name\": []}", "\"name\" is not a string");
    expect_error("{\"state\": \"done\", \"request\": {}}", "\"request\" is not a string");
    expect_error("{\"state\": \"done\", \"script\": true}", "\"script\" is not a string");
    expect_error("{\"state\": \"done\", \"prefix\": null}", "\"prefix\" is not a string");
    expect_error("{\"state\": \"done\", \"started\": \"1796000523\"}",
                 "\"started\" is not a number");
    expect_error("{\"state\": \"done\", \"ended\": null}", "\"ended\" is not a number");
    expect_error("{\"state\": \"done\", \"queued\": -1}", "\"queued\" is not a time");
    expect_error("{\"state\": \"done\", \"started\": 1e300}", "\"started\" is not a time");
    expect_error("{\"state\": \"done\", \"started\": 20, \"ended\": 10}",
                 "\"ended\" is before \"started\"");
    expect_error("{\"state\": \"done\", \"events\": \"a.b\"}", "\"events\" is not an array");
    expect_error("{\"state\": \"done\", \"events\": {}}", "\"events\" is not an array");
    expect_error("{\"state\": \"done\", \"events\": [\"a.b\", 7]}",
                 "\"events\"[1] is not a string");
    /* one state, not a choice between two */
    expect_error("{\"state\": \"running\", \"state\": \"done\"}", "not JSON");

    /* integers are times too */
    pcp_run r;
    char *msg;
    ck_assert_int_eq(parse("{\"state\": \"running\", \"started\": 1796000523}",
                           &r, &msg), 0);
    ck_assert(r.started == 1796000523.0);
    pcp_run_free(&r);
    free(msg);
}
END_TEST

START_TEST(parse_hostile_strings)
{
    /* event names must be metric names: nothing else reaches pmLookupName */
    static const char *bad[] = {
        "", ".a", "a.", "a..b", "1a.b", "a.b c", "a.b;rm -rf /", "a/b",
        "a.b\\n", "a.-b", "staprelay.x.records\\u00e9",
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char buf[256];
        snprintf(buf, sizeof buf, "{\"state\": \"running\", \"events\": [\"%s\"]}",
                 bad[i]);
        expect_error(buf, "is not a metric name");
    }
    /* a NUL inside a string is refused by the parser */
    expect_error("{\"state\": \"failed\", \"reason\": \"a\\u0000b\"}", "not JSON");
    /* a name too long */
    char longname[400];
    memset(longname, 'a', 300);
    longname[300] = '\0';
    char buf[512];
    snprintf(buf, sizeof buf, "{\"state\": \"running\", \"events\": [\"%s\"]}",
             longname);
    expect_error(buf, "is not a metric name");

    /* terminal escapes in the reason parse, and come out defused */
    pcp_run r;
    char *msg;
    ck_assert_int_eq(parse("{\"state\": \"failed\", \"reason\": "
                           "\"perf: \\u001b[31mno\\u0007 \\u00e9t\\u00e9\\r\\n\\u007f\"}",
                           &r, &msg), 0);
    strbuf sb = STRBUF_INIT;
    pcp_run_text(&sb, r.reason, 200);
    ck_assert_str_eq(sb.buf, "perf: \\x1b[31mno\\x07 \xc3\xa9t\xc3\xa9\\x0d\\x0a\\x7f");
    pcp_run_free(&r);
    free(msg);

    /* C1 controls and invalid UTF-8 are escaped; long text is cut */
    sb_reset(&sb);
    pcp_run_text(&sb, "a\xc2\x9b" "b\xff\xfe" "c", 100);
    ck_assert_str_eq(sb.buf, "a\\xc2\\x9bb\\xff\\xfec");
    sb_reset(&sb);
    pcp_run_text(&sb, "abcdefgh", 3);
    ck_assert_str_eq(sb.buf, "abc...");
    sb_free(&sb);

    /* more events than kept: the first ones */
    strbuf big = STRBUF_INIT;
    sb_adds(&big, "{\"state\": \"running\", \"events\": [");
    for (int i = 0; i < PCP_RUN_MAX_EVENTS + 5; i++)
        sb_printf(&big, "%s\"a.e%d.records\"", i ? ", " : "", i);
    sb_adds(&big, "]}");
    ck_assert_int_eq(parse(big.buf, &r, &msg), 0);
    ck_assert_int_eq(r.nevents, PCP_RUN_MAX_EVENTS);
    ck_assert_str_eq(r.events[0], "a.e0.records");
    pcp_run_free(&r);
    free(msg);
    sb_free(&big);
}
END_TEST

START_TEST(metric_names)
{
    ck_assert(pcp_metric_name_ok("staprelay.staprelay_profile.samples.records"));
    ck_assert(pcp_metric_name_ok("a"));
    ck_assert(pcp_metric_name_ok("a1.b_2.C"));
    ck_assert(!pcp_metric_name_ok(""));
    ck_assert(!pcp_metric_name_ok("a."));
    ck_assert(!pcp_metric_name_ok("_a"));
    ck_assert(!pcp_metric_name_ok("a.1b"));
    ck_assert(!pcp_metric_name_ok("a-b"));
}
END_TEST

START_TEST(run_window)
{
    pcp_run r;
    memset(&r, 0, sizeof r);
    int64_t lo, hi;

    /* queued: nothing known, nothing excluded */
    r.state = PCP_RUN_QUEUED;
    pcp_run_window(&r, &lo, &hi);
    ck_assert(lo == INT64_MIN && hi == INT64_MAX);

    /* running: from just before started, open-ended */
    r.state = PCP_RUN_RUNNING;
    r.started = 1796000523.25;
    pcp_run_window(&r, &lo, &hi);
    ck_assert_int_eq(lo, 1796000523250000000LL - PCP_RUN_SLACK_BEFORE_NS);
    ck_assert(hi == INT64_MAX);

    /* done: closed, a little past ended */
    r.state = PCP_RUN_DONE;
    r.ended = 1796000544.5;
    pcp_run_window(&r, &lo, &hi);
    ck_assert_int_eq(lo, 1796000522750000000LL);
    ck_assert_int_eq(hi, 1796000544600000000LL);
    /* the previous run ended before this one started: its records,
     * at least a second before its end, fall outside */
    ck_assert(1796000522000000000LL < lo);

    /* live and archives without -S/-T: the run's window */
    int64_t l2 = 0, h2 = 0;
    ck_assert(pcp_run_choose_window(&r, true, false, &l2, &h2));
    ck_assert(l2 == lo && h2 == hi);
    ck_assert(pcp_run_choose_window(&r, false, false, &l2, &h2));
    ck_assert(l2 == lo && h2 == hi);
    /* live -T is when to stop, not a window */
    ck_assert(pcp_run_choose_window(&r, true, true, &l2, &h2));
    /* an archive with -S or -T: the user's window replaces the run's */
    l2 = h2 = 7;
    ck_assert(!pcp_run_choose_window(&r, false, true, &l2, &h2));
    ck_assert(l2 == 7 && h2 == 7);
}
END_TEST

/* ---- options and --output-dir ---------------------------------------- */

/* the options keep pointers into argv: the copies live until the test
 * ends (release_args) */
static char *copies[64];
static int ncopies;

static void release_args(void)
{
    while (ncopies > 0)
        free(copies[--ncopies]);
}

static int parse_args(cmd_opts *o, int groups, const char *args)
{
    char *argv[32];
    int argc = 0;
    char *copy = strdup(args);
    ck_assert_int_lt(ncopies, 64);
    copies[ncopies++] = copy;
    for (char *t = strtok(copy, " "); t && argc < 31; t = strtok(NULL, " "))
        argv[argc++] = t;
    argv[argc] = NULL;
    fflush(stderr);
    int saved = dup(2);
    FILE *devnull = fopen("/dev/null", "w");
    dup2(fileno(devnull), 2);
    int rc = cmd_opts_parse(o, groups, argc, argv, "test");
    fflush(stderr);
    dup2(saved, 2);
    close(saved);
    fclose(devnull);
    return rc;
}

#define FLAME (OPTS_INPUT | OPTS_PCP | OPTS_SVG | OPTS_TREE | OPTS_FROM_RUN)
#define DIFF  (FLAME | OPTS_DIFF)
#define FOLD  (OPTS_INPUT | OPTS_PCP)

START_TEST(run_options)
{
    cmd_opts o;
    char *dir = tu_mkdtemp();
    char buf[512];

    ck_assert_int_eq(parse_args(&o, FLAME, "flame -h localhost --run r1"), 0);
    ck_assert_str_eq(o.pcp.run, "r1");
    ck_assert_int_eq(o.pcp.nmetrics, 0);        /* the run's own */
    ck_assert_int_eq(parse_args(&o, FLAME, "flame -a arch --run r1 a.b.records"), 0);
    ck_assert_int_eq(o.pcp.nmetrics, 1);        /* named: used instead */
    ck_assert_int_eq(parse_args(&o, FLAME, "flame -a arch --run r1 -S @10:00"), 0);

    ck_assert_int_eq(parse_args(&o, FLAME, "flame --run r1"), 2);     /* no source */
    ck_assert_int_eq(parse_args(&o, FLAME, "flame -h a -h b --run r1"), 2);
    ck_assert_int_eq(parse_args(&o, FLAME, "flame -a a -a b --run r1"), 2);
    ck_assert_int_eq(parse_args(&o, FLAME, "flame -h a --run r1 --run r2"), 2);
    ck_assert_int_eq(parse_args(&o, FLAME, "flame -h a --run r1 m1 m2"), 2);
    ck_assert_int_eq(parse_args(&o, FLAME, "flame -h a --run r1 -S 10"), 2);
    ck_assert_int_eq(parse_args(&o, FOLD, "fold -h a --run r1"), 2);  /* not here */
    ck_assert_int_eq(parse_args(&o, DIFF, "diff -h a --run r1 --run r2"), 0);
    ck_assert_int_eq(o.nruns, 2);
    ck_assert_int_eq(parse_args(&o, DIFF, "diff -h a --run r1 --run r2 --run r3"), 2);

    /* --output-dir: named after the run, -o excluded, --name */
    snprintf(buf, sizeof buf, "flame -h a --run profile-20261130T010203 "
             "--output-dir %s", dir);
    ck_assert_int_eq(parse_args(&o, FLAME, buf), 0);
    char *n = inout_output_name(&o, "flame.svg");
    ck_assert_str_eq(n, "profile-20261130T010203-flame.svg");
    free(n);
    n = inout_output_name(&o, "heatmap.html");
    ck_assert_str_eq(n, "profile-20261130T010203-heatmap.html");
    free(n);
    snprintf(buf, sizeof buf, "diff -a x --run A --run B --output-dir %s", dir);
    ck_assert_int_eq(parse_args(&o, DIFF, buf), 0);
    n = inout_output_name(&o, "diff.svg");
    ck_assert_str_eq(n, "A-vs-B-diff.svg");
    free(n);
    snprintf(buf, sizeof buf, "flame --output-dir %s --name cpu f.folded", dir);
    ck_assert_int_eq(parse_args(&o, FLAME, buf), 0);
    n = inout_output_name(&o, "flame.svg");
    ck_assert_str_eq(n, "cpu-flame.svg");
    free(n);
    snprintf(buf, sizeof buf, "flame -h a --run r1 --name web1 --output-dir %s", dir);
    ck_assert_int_eq(parse_args(&o, FLAME, buf), 0);
    n = inout_output_name(&o, "flame.svg");
    ck_assert_str_eq(n, "web1-flame.svg");    /* --name wins */
    free(n);
    ck_assert_int_eq(parse_args(&o, FLAME, "flame -h a --run r1"), 0);
    ck_assert_ptr_null(inout_output_name(&o, "flame.svg"));

    snprintf(buf, sizeof buf, "flame --output-dir %s f.folded", dir);
    ck_assert_int_eq(parse_args(&o, FLAME, buf), 2);        /* no name */
    snprintf(buf, sizeof buf, "flame -h a --run r1 --output-dir %s -o x.svg", dir);
    ck_assert_int_eq(parse_args(&o, FLAME, buf), 2);
    ck_assert_int_eq(parse_args(&o, FLAME, "flame --name x f.folded"), 2);
    snprintf(buf, sizeof buf, "flame --output-dir %s/nosuch --name x f", dir);
    ck_assert_int_eq(parse_args(&o, FLAME, buf), 2);
    snprintf(buf, sizeof buf, "flame --output-dir %s/f --name x f", dir);
    tu_write(dir, "f", "not a directory\n");
    ck_assert_int_eq(parse_args(&o, FLAME, buf), 2);
    /* names that are not file names */
    static const char *bad[] = { "../x", "a/b", ".hidden", "-rf", "a:b", "a*" };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        snprintf(buf, sizeof buf, "flame -h a --run %s --output-dir %s",
                 bad[i], dir);
        ck_assert_msg(parse_args(&o, FLAME, buf) == 2, "run %s", bad[i]);
        snprintf(buf, sizeof buf, "flame --name %s --output-dir %s f",
                 bad[i], dir);
        ck_assert_msg(parse_args(&o, FLAME, buf) == 2, "name %s", bad[i]);
    }
    /* ... but --name rescues a run name that is not */
    snprintf(buf, sizeof buf, "flame -h a --run ../x --name ok --output-dir %s",
             dir);
    ck_assert_int_eq(parse_args(&o, FLAME, buf), 0);
    ck_assert(outfile_stem_ok("profile-20261130T010203-2"));
    ck_assert(!outfile_stem_ok(""));
    char longname[300];
    memset(longname, 'a', 201);
    longname[201] = '\0';
    ck_assert(!outfile_stem_ok(longname));
    longname[200] = '\0';
    ck_assert(outfile_stem_ok(longname));
    release_args();
    tu_rmtree(dir);
    free(dir);
}
END_TEST

START_TEST(atomic_output)
{
    char *dir = tu_mkdtemp();
    char path[4096];
    snprintf(path, sizeof path, "%s/r1-flame.svg", dir);
    strbuf err = STRBUF_INIT;
    outfile of;

    /* while it is written, only the hidden temp file exists */
    FILE *fp = outfile_open(&of, dir, "r1-flame.svg", &err);
    ck_assert_ptr_nonnull(fp);
    ck_assert_int_eq(access(path, F_OK), -1);
    ck_assert_ptr_nonnull(strstr(of.tmp, "/.r1-flame.svg.tmp"));
    fputs("<svg>whole</svg>\n", fp);
    ck_assert_int_eq(tu_count_entries(dir), 1);
    ck_assert_int_eq(outfile_commit(&of, &err), 0);
    char *t = tu_slurp(path);
    ck_assert_str_eq(t, "<svg>whole</svg>\n");
    free(t);
    struct stat st;
    ck_assert_int_eq(stat(path, &st), 0);
    ck_assert_int_eq(st.st_mode & 0044, 0044);     /* a web server reads it */
    ck_assert_int_eq(tu_count_entries(dir), 1);

    /* abort: the old file stays, no temp file */
    fp = outfile_open(&of, dir, "r1-flame.svg", &err);
    fputs("<svg>half", fp);
    outfile_abort(&of);
    outfile_abort(&of);                            /* harmless */
    t = tu_slurp(path);
    ck_assert_str_eq(t, "<svg>whole</svg>\n");
    free(t);
    ck_assert_int_eq(tu_count_entries(dir), 1);

    /* a write error: commit fails, the old file stays, no temp file */
    fp = outfile_open(&of, dir, "r1-flame.svg", &err);
    close(fileno(fp));                             /* writes now fail */
    for (int i = 0; i < 10000; i++)
        fputs("<g>more than a stdio buffer</g>\n", fp);
    ck_assert_int_eq(outfile_commit(&of, &err), -1);
    ck_assert_ptr_nonnull(strstr(err.buf, "write error"));
    t = tu_slurp(path);
    ck_assert_str_eq(t, "<svg>whole</svg>\n");
    free(t);
    ck_assert_int_eq(tu_count_entries(dir), 1);

    /* the rename fails (a directory in the way): no temp file left */
    sb_reset(&err);
    snprintf(path, sizeof path, "%s/busy-flame.svg", dir);
    mkdir(path, 0755);
    tu_write(path, "x", "x\n");
    fp = outfile_open(&of, dir, "busy-flame.svg", &err);
    fputs("<svg/>\n", fp);
    ck_assert_int_eq(outfile_commit(&of, &err), -1);
    ck_assert_ptr_nonnull(strstr(err.buf, "busy-flame.svg"));
    ck_assert_int_eq(tu_count_entries(dir), 2);       /* r1-flame.svg, busy-flame.svg/ */

    /* no such directory: an error, nothing created */
    sb_reset(&err);
    snprintf(path, sizeof path, "%s/nosuch", dir);
    ck_assert_ptr_null(outfile_open(&of, path, "x", &err));
    ck_assert_ptr_nonnull(strstr(err.buf, "temp file"));
    ck_assert_int_eq(tu_count_entries(dir), 2);
    sb_free(&err);
    tu_rmtree(dir);
    free(dir);
}
END_TEST

/* A whole command: flame --output-dir writes NAME-flame.svg and nothing
 * else; a failure leaves nothing behind. */
static int run_cmd(int (*fn)(int, char **), const char *args)
{
    char *argv[32];
    int argc = 0;
    char *copy = strdup(args);
    for (char *t = strtok(copy, " "); t && argc < 31; t = strtok(NULL, " "))
        argv[argc++] = t;
    argv[argc] = NULL;
    fflush(stderr);
    int saved = dup(2);
    FILE *devnull = fopen("/dev/null", "w");
    dup2(fileno(devnull), 2);
    int rc = fn(argc, argv);
    fflush(stderr);
    dup2(saved, 2);
    close(saved);
    fclose(devnull);
    free(copy);
    return rc;
}

START_TEST(commands_write_output_dir)
{
    char *dir = tu_mkdtemp();
    char *in = tu_mkdtemp();
    tu_write(in, "a.folded", "main;a 3\nmain;b 1\n");
    tu_write(in, "b.folded", "main;a 1\nmain;b 3\n");
    tu_write(in, "perf.txt",
             "sh 10/10 [000] 100.000100: cpu-clock:\n\tffff a (/bin/sh)\n\n"
             "sh 10/10 [000] 100.500100: cpu-clock:\n\tffff b (/bin/sh)\n\n");
    tu_write(in, "empty.folded", "\n");
    char buf[1024], path[4096];

    snprintf(buf, sizeof buf, "flame --output-dir %s --name cpu %s/a.folded",
             dir, in);
    ck_assert_int_eq(run_cmd(cmd_flame, buf), 0);
    snprintf(path, sizeof path, "%s/cpu-flame.svg", dir);
    char *t = tu_slurp(path);
    ck_assert_ptr_nonnull(t);
    ck_assert_ptr_nonnull(strstr(t, "</svg>"));     /* whole */
    free(t);
    snprintf(buf, sizeof buf, "flame --format speedscope --output-dir %s "
             "--name cpu %s/a.folded", dir, in);
    ck_assert_int_eq(run_cmd(cmd_flame, buf), 0);
    snprintf(path, sizeof path, "%s/cpu-flame.json", dir);
    ck_assert_int_eq(access(path, R_OK), 0);
    snprintf(buf, sizeof buf, "diff --output-dir %s --name ab %s/a.folded "
             "%s/b.folded", dir, in, in);
    ck_assert_int_eq(run_cmd(cmd_diff, buf), 0);
    snprintf(path, sizeof path, "%s/ab-diff.svg", dir);
    ck_assert_int_eq(access(path, R_OK), 0);
    snprintf(buf, sizeof buf, "heatmap --output-dir %s --name p %s/perf.txt",
             dir, in);
    ck_assert_int_eq(run_cmd(cmd_heatmap, buf), 0);
    snprintf(path, sizeof path, "%s/p-heatmap.html", dir);
    ck_assert_int_eq(access(path, R_OK), 0);
    ck_assert_int_eq(tu_count_entries(dir), 4);

    /* failures write nothing: no input, no stacks to show */
    snprintf(buf, sizeof buf, "flame --output-dir %s --name none %s/empty.folded",
             dir, in);
    ck_assert_int_eq(run_cmd(cmd_flame, buf), 2);
    snprintf(buf, sizeof buf, "diff --elided --output-dir %s --name same "
             "%s/a.folded %s/a.folded", dir, in, in);
    ck_assert_int_eq(run_cmd(cmd_diff, buf), 2);
    ck_assert_int_eq(tu_count_entries(dir), 4);
    tu_rmtree(dir);
    tu_rmtree(in);
    free(dir);
    free(in);
}
END_TEST

TEST_SUITE(client_pcp_runs)
{
    Suite *s = suite_create(test_suite_name);
    TCase *tc = tcase_create("runs");
    tcase_add_test(tc, parse_good_value);
    tcase_add_test(tc, parse_missing_members);
    tcase_add_test(tc, parse_wrong_types);
    tcase_add_test(tc, parse_hostile_strings);
    tcase_add_test(tc, metric_names);
    tcase_add_test(tc, run_window);
    tcase_add_test(tc, run_options);
    tcase_add_test(tc, atomic_output);
    tcase_add_test(tc, commands_write_output_dir);
    suite_add_tcase(s, tc);
    return s;
}
