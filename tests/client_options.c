/* Suite: client/cmd/options, the one option parser: the PCP inputs'
 * -h/-a/-t/-S/-T/--metric, groups a command does not take, unknown
 * options and missing arguments; the table's rows (sound for every
 * command) and each kind of row's values and messages; the compiled
 * filter's ownership. */
#include <check.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "client/cmd/builtin.h"
#include "client/cmd/options.h"
#include "common/strbuf.h"
#include "tests/testutil.h"

/* stdout and stderr to /dev/null (saved[0], saved[1]: the real ones)
 * until output_restore. */
static void output_hide(int saved[2])
{
    fflush(stderr);
    fflush(stdout);
    saved[0] = dup(1);
    saved[1] = dup(2);
    FILE *devnull = fopen("/dev/null", "w");
    dup2(fileno(devnull), 1);
    dup2(fileno(devnull), 2);
    fclose(devnull);
}

static void output_restore(int saved[2])
{
    fflush(stderr);
    fflush(stdout);
    for (int fd = 1; fd <= 2; fd++) {
        dup2(saved[fd - 1], fd);
        close(saved[fd - 1]);
    }
}

static int parse(cmd_opts *o, int groups, const char *args)
{
    static char copy[2048];
    static char *argv[64];
    snprintf(copy, sizeof copy, "%s", args);
    int argc = 0;
    for (char *t = strtok(copy, " "); t && argc < 63; t = strtok(NULL, " "))
        argv[argc++] = t;
    argv[argc] = NULL;
    int saved[2];
    output_hide(saved);
    int rc = cmd_opts_parse(o, groups, argc, argv, "test usage");
    output_restore(saved);
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

/* Run a command with stdout and stderr to /dev/null. */
static int run_quiet(int (*fn)(int, char **), const char *name,
                     const char *opt)
{
    char *argv[] = { (char *)name, (char *)opt, NULL };
    int saved[2];
    output_hide(saved);
    int rc = fn(2, argv);
    output_restore(saved);
    return rc;
}

/* The parse checks the rows a command accepts before it parses (each
 * has its target or its callback, names its argument exactly when it
 * takes one, and no long name or letter stands twice among them):
 * every group alone, then every command's own groups through --help. */
START_TEST(every_command_s_table_is_sound)
{
    for (int bit = 0; bit < 16; bit++) {
        cmd_opts o;
        ck_assert_msg(parse(&o, 1 << bit, "x --help") == 1,
                      "group 1<<%d: %s", bit, o.error);
    }
    static const struct { const char *name; int (*fn)(int, char **); }
    cmds[] = {
        { "fold", cmd_fold }, { "flame", cmd_flame }, { "diff", cmd_diff },
        { "top", cmd_top }, { "heatmap", cmd_heatmap }, { "live", cmd_live },
        { "run", cmd_run }, { "list", cmd_list }, { "graph", cmd_graph },
        { "annotate", cmd_annotate }, { "web", cmd_web },
    };
    for (size_t i = 0; i < sizeof cmds / sizeof cmds[0]; i++)
        ck_assert_msg(run_quiet(cmds[i].fn, cmds[i].name, "--help") == 0,
                      "%s --help", cmds[i].name);
}
END_TEST

/* One parse that fails with exactly this message. */
#define REFUSED(groups, args, msg) do {                                   \
        cmd_opts o_;                                                      \
        ck_assert_int_eq(parse(&o_, (groups), (args)), 2);                \
        ck_assert_str_eq(o_.error, (msg));                                \
    } while (0)

#define FLAME (OPTS_INPUT | OPTS_PCP | OPTS_SVG | OPTS_TREE | OPTS_OUTPUT)

/* Each kind of row: its value in its field, its message when refused. */
START_TEST(each_kind_takes_its_value)
{
    cmd_opts o;
    /* flags and strings */
    ck_assert_int_eq(parse(&o, FLAME, "flame --hash --title T -o out f"), 0);
    ck_assert(o.svg.hash && !o.svg.inverted);
    ck_assert_str_eq(o.svg.title, "T");
    ck_assert_str_eq(o.output, "out");
    /* no dash: a file name never starts with '-' */
    REFUSED(FLAME, "flame -o -x f", "missing argument: -o (found the option "
            "-x)");
    ck_assert_int_eq(parse(&o, FLAME, "flame --title -x f"), 0);
    ck_assert_str_eq(o.svg.title, "-x");
    /* not empty */
    REFUSED(G, "fold --sample-index= f", "--sample-index needs a number or a "
            "sample type name");
    REFUSED(G, "fold --series q --pmproxy=", "--pmproxy needs a URL");
    /* whole numbers in a range */
    ck_assert_int_eq(parse(&o, G | OPTS_GRAPH, "graph --nodecount 5 f"), 0);
    ck_assert_int_eq(o.nodecount, 5);
    REFUSED(G | OPTS_GRAPH, "graph --nodecount 1000001 f",
            "--nodecount takes 0 to 1000000: 1000001");
    REFUSED(G | OPTS_LIVE, "live --max-samples 999", "--max-samples takes "
            "1000 to 1000000000: 999");
    ck_assert_int_eq(parse(&o, G | OPTS_HEATMAP, "heatmap --rows 20 f"), 0);
    ck_assert_int_eq(o.rows, 20);
    REFUSED(G | OPTS_HEATMAP, "heatmap --rows 0 f", "--rows takes 1 to 1000: "
            "0");
    REFUSED(G | OPTS_HEATMAP, "heatmap --rows 2x f", "--rows takes 1 to 1000: "
            "2x");
    /* reals from a bound, fractions */
    ck_assert_int_eq(parse(&o, FLAME, "flame --width 40 --factor 1e-300 f"),
                     0);
    ck_assert(o.svg.width == 40 && o.svg.factor == 1e-300);
    REFUSED(FLAME, "flame --width 39.9 f", "bad --width: 39.9");
    REFUSED(FLAME, "flame --factor 0 f", "bad --factor: 0");
    REFUSED(FLAME, "flame --fontsize 1e8 f", "bad --fontsize: 1e8");
    ck_assert_int_eq(parse(&o, G | OPTS_GRAPH, "graph --edgefraction 1 f"),
                     0);
    ck_assert(o.edgefraction == 1 && o.nodefraction == 0.005);
    REFUSED(G | OPTS_GRAPH, "graph --nodefraction 1.5 f", "--nodefraction "
            "takes a fraction from 0 to 1: 1.5");
    /* lists: up to their size */
    strbuf sb = STRBUF_INIT;
    sb_adds(&sb, "fold -a x");
    for (int i = 1; i <= 17; i++)
        sb_printf(&sb, " --metric m%d", i);
    REFUSED(G, sb.buf, "too many --metric: m17");
    sb_free(&sb);
    ck_assert_int_eq(parse(&o, G, "fold -a x -a y --metric m f"), 0);
    ck_assert_int_eq(o.pcp.narchives, 2);
    ck_assert_str_eq(o.pcp.archives[1], "y");
    ck_assert_int_eq(o.nfiles, 1);      /* --metric: the arguments are files */
    /* one a side: once, twice for diff */
    REFUSED(G, "fold -a x -S 1 -S 2 m", "-S given twice: 2");
    REFUSED(G | OPTS_FROM_RUN | OPTS_DIFF, "diff -a x --run a --run b --run c",
            "--run given more than twice: c");
    REFUSED(G | OPTS_FROM_RUN, "fold -a x --run=", "--run needs a run name");
    /* callbacks: their own words */
    REFUSED(FLAME, "flame --sort size f", "--sort takes name or weight: size");
    REFUSED(FLAME | OPTS_DIFF, "diff -n --absolute a b", "-n/--normalize and "
            "--absolute contradict: pick one");
    REFUSED(G | OPTS_TOP, "top --limit 5x f", "bad --limit: 5x");
}
END_TEST

/* --hz, --kernel-only, ...: the run options record that they were given */
START_TEST(script_rows_record_what_was_given)
{
    cmd_opts o;
    ck_assert_int_eq(parse(&o, OPTS_SCRIPT, "run --kernel-only --hz 5 -T 2s "
                                            "profile"), 0);
    ck_assert_uint_eq(o.script.given, RUN_OPT_KERNEL_ONLY | RUN_OPT_HZ);
    ck_assert_int_eq(o.script.hz, 5);
    ck_assert(o.script.kernel_only && o.script.duration == 2);
    ck_assert_str_eq(o.script.script, "profile");
    REFUSED(OPTS_SCRIPT, "run --hz 0 profile", "bad --hz '0' (an integer "
            "1..10000)");
    cmd_opts_free(&o);
}
END_TEST

/* The filters: their rows' messages, and the compiled filter o owns
 * (ASan's leak check fails the test if a parse or cmd_opts_free leaves
 * it behind). */
START_TEST(filter_rows_and_the_compiled_filter)
{
    cmd_opts o;
    REFUSED(G, "fold --focus a --focus b f", "--focus given twice (one "
            "regex: join them with '|')");
    REFUSED(G, "fold --only-pid x f", "--only-pid takes 0 to 2147483647: x");
    REFUSED(G, "fold --only-host= f", "--only-host needs a name");
    strbuf sb = STRBUF_INIT;
    sb_adds(&sb, "fold");
    for (int i = 0; i <= 32; i++)
        sb_adds(&sb, " --only-comm=c");
    REFUSED(G, sb.buf, "more than 32 --only-comm");
    sb_free(&sb);

    ck_assert_int_eq(parse(&o, G, "fold --focus a --only-pid 7 --only-pid 8 "
                                  "f"), 0);
    ck_assert_int_eq(o.filter.npids, 2);
    ck_assert_int_eq(o.filter.pids[1], 8);
    ck_assert_ptr_nonnull(o.compiled_filter);
    ck_assert_ptr_eq(o.in.filter, o.compiled_filter);
    cmd_opts_free(&o);
    ck_assert_ptr_null(o.compiled_filter);
    ck_assert_ptr_null(o.in.filter);
    /* nothing to filter: nothing compiled */
    ck_assert_int_eq(parse(&o, G, "fold --focus= f"), 0);
    ck_assert_ptr_null(o.in.filter);
    /* a parse failing after the filters compiled frees them */
    ck_assert_int_eq(parse(&o, G, "fold --focus a -h host"), 2);
    ck_assert_ptr_null(o.compiled_filter);
    ck_assert_int_eq(parse(&o, G, "fold --focus ( f"), 2);
    ck_assert_ptr_null(o.compiled_filter);
}
END_TEST

TEST_SUITE(client_options)
{
    Suite *s = suite_create(test_suite_name);
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, pcp_options_parse);
    tcase_add_test(tc, mark_options_add_their_own_mark);
    tcase_add_test(tc, every_command_s_table_is_sound);
    tcase_add_test(tc, each_kind_takes_its_value);
    tcase_add_test(tc, script_rows_record_what_was_given);
    tcase_add_test(tc, filter_rows_and_the_compiled_filter);
    suite_add_tcase(s, tc);
    return s;
}
