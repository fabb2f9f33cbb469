/* Suite: client/cmd/options, the one option parser: the PCP inputs'
 * -h/-a/-t/-S/-T/--metric, groups a command does not take, unknown
 * options and missing arguments. */
#include <check.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "client/cmd/options.h"
#include "tests/testutil.h"

static int parse(cmd_opts *o, int groups, const char *args)
{
    static char copy[512];
    static char *argv[32];
    snprintf(copy, sizeof copy, "%s", args);
    int argc = 0;
    for (char *t = strtok(copy, " "); t && argc < 31; t = strtok(NULL, " "))
        argv[argc++] = t;
    argv[argc] = NULL;
    fflush(stderr);
    fflush(stdout);
    int saved = dup(2), saved1 = dup(1);
    FILE *devnull = fopen("/dev/null", "w");
    dup2(fileno(devnull), 2);
    dup2(fileno(devnull), 1);
    int rc = cmd_opts_parse(o, groups, argc, argv, "test usage");
    fflush(stderr);
    fflush(stdout);
    dup2(saved, 2);
    dup2(saved1, 1);
    close(saved);
    close(saved1);
    fclose(devnull);
    return rc;
}

#define G (OPTS_INPUT | OPTS_PCP)

START_TEST(pcp_options_parse)
{
    cmd_opts o;
    ck_assert_int_eq(parse(&o, G, "fold -h a -h b:44 -t 0.5 -T 4 --by-host "
                                  "staprelay.p.e"), 0);
    ck_assert_int_eq(o.pcp.nhosts, 2);
    ck_assert_str_eq(o.pcp.hosts[1], "b:44");
    ck_assert_str_eq(o.pcp.interval, "0.5");
    ck_assert_str_eq(o.pcp.finish, "4");
    ck_assert(o.pcp.by_host);
    ck_assert_int_eq(o.pcp.nmetrics, 1);
    ck_assert_str_eq(o.pcp.metrics[0], "staprelay.p.e");
    ck_assert_int_eq(o.nfiles, 0);

    /* --metric: the arguments stay files */
    ck_assert_int_eq(parse(&o, G, "fold --archive x --metric m f1 f2"), 0);
    ck_assert_int_eq(o.pcp.narchives, 1);
    ck_assert_int_eq(o.pcp.nmetrics, 1);
    ck_assert_int_eq(o.nfiles, 2);

    /* long names, windows */
    ck_assert_int_eq(parse(&o, G, "fold -a x --start @10:00 --finish 5min m"), 0);
    ck_assert_str_eq(o.pcp.start, "@10:00");
    ck_assert_str_eq(o.pcp.finish, "5min");

    /* files only: no PCP, -h no longer means help */
    ck_assert_int_eq(parse(&o, G, "fold f1"), 0);
    ck_assert(!pcp_options_active(&o.pcp));
    ck_assert_int_eq(parse(&o, G, "fold --help"), 1);
    ck_assert_int_eq(parse(&o, G, "fold -h"), 2);

    /* usage errors */
    ck_assert_int_eq(parse(&o, G, "fold -h a -a b m"), 2);
    ck_assert_int_eq(parse(&o, G, "fold -h a"), 2);          /* no metric */
    ck_assert_int_eq(parse(&o, G, "fold -h a -S 1 m"), 2);   /* -S live */
    ck_assert_int_eq(parse(&o, G, "fold -a a -t 1 m"), 2);   /* -t archive */
    ck_assert_int_eq(parse(&o, G, "fold -h a -t nonsense m"), 2);
    ck_assert_int_eq(parse(&o, G, "fold -h a -t 0 m"), 2);
    ck_assert_int_eq(parse(&o, G, "fold -T 4 f"), 2);
    ck_assert_int_eq(parse(&o, G, "fold --by-host f"), 2);
    ck_assert_int_eq(parse(&o, G, "fold -a x -T 1 -T 2 m"), 2);
    ck_assert_int_eq(parse(&o, OPTS_INPUT, "fold -h a m"), 2); /* not here */
    ck_assert_str_eq(o.error, "option not valid here: -h");
    ck_assert_int_eq(parse(&o, G, "fold --rows=5 f"), 2);
    ck_assert_str_eq(o.error, "option not valid here: --rows=5");
    ck_assert_int_eq(parse(&o, G, "fold --frobnicate f"), 2);
    ck_assert_str_eq(o.error, "unknown option: --frobnicate");
    ck_assert_int_eq(parse(&o, G, "fold -t"), 2);
    ck_assert_str_eq(o.error, "missing argument: -t");

    /* diff takes two windows, and its table up to CMD_MAX_PROFILES */
    ck_assert_int_eq(parse(&o, G | OPTS_DIFF, "diff -a x -S 1 -S 2 -T 3 -T 4 m"), 0);
    ck_assert_int_eq(o.nstarts, 2);
    ck_assert_str_eq(o.finishes[1], "4");
    ck_assert_int_eq(parse(&o, G | OPTS_DIFF, "diff -a x -S 1 -S 2 -S 3 m"), 0);
    ck_assert_int_eq(o.nstarts, 3);
    /* (glued: parse() splits at most 31 words) */
    ck_assert_int_eq(parse(&o, G | OPTS_DIFF, "diff -a x -S1 -S2 -S3 -S4 -S5 "
                           "-S6 -S7 -S8 -S9 -S10 -S11 -S12 -S13 -S14 -S15 "
                           "-S16 -S17 m"), 2);
    ck_assert_str_eq(o.error, "-S given more than 16 times: 17");
    ck_assert_int_eq(parse(&o, G, "fold -a x -S 1 -S 2 m"), 2);
    ck_assert_str_eq(o.error, "-S given twice: 2");
}
END_TEST

/* Each mark option adds its own mark, in any order with --no-marks:
 * stackcollapse-perf.pl's --jit, --kernel and --all. */
START_TEST(mark_options_add_their_own_mark)
{
    static const struct { const char *args; bool k, j; } cases[] = {
        { "fold f", true, true },
        { "fold --no-marks f", false, false },
        { "fold --no-marks --jit f", false, true },
        { "fold --jit --no-marks f", false, true },
        { "fold --no-marks --period --jit f", false, true },
        { "fold --no-marks --kernel f", true, false },
        { "fold --kernel --no-marks f", true, false },
        { "fold --no-marks --all f", true, true },
        { "fold --no-marks --kernel --jit f", true, true },
        { "fold --jit f", true, true },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        cmd_opts o;
        ck_assert_int_eq(parse(&o, G, cases[i].args), 0);
        frame_opts fo = perf_frame_opts(&o.in.perf);
        ck_assert_msg(fo.mark_kernel == cases[i].k && fo.mark_jit == cases[i].j,
                      "%s: _[k] %d _[j] %d", cases[i].args, fo.mark_kernel,
                      fo.mark_jit);
    }
}
END_TEST

TEST_SUITE(client_options)
{
    Suite *s = suite_create(test_suite_name);
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, pcp_options_parse);
    tcase_add_test(tc, mark_options_add_their_own_mark);
    suite_add_tcase(s, tc);
    return s;
}
