/* Suite: the commands (client/cmd/cmd_*.c) as a user runs them: files in,
 * files out, exit codes and messages. */
#include <check.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "client/cmd/builtin.h"
#include "client/stack/heatmap.h"
#include "client/stack/live_window.h"
#include "common/strbuf.h"
#include "tests/testutil.h"

typedef struct run_result {
    int   rc;
    char *err;     /* captured stderr */
} run_result;

/* Run a command with stderr captured to a file. */
static run_result run(int (*fn)(int, char **), char *dir, const char *args)
{
    char *argv[32];
    int argc = 0;
    char *copy = strdup(args);
    for (char *tok = strtok(copy, " "); tok && argc < 31; tok = strtok(NULL, " ")) {
        strbuf sb = STRBUF_INIT;
        if (strncmp(tok, "@", 1) == 0)       /* @name: file in dir */
            sb_printf(&sb, "%s/%s", dir, tok + 1);
        else
            sb_adds(&sb, tok);
        argv[argc++] = sb_steal(&sb);
    }
    argv[argc] = NULL;
    strbuf errpath = STRBUF_INIT;
    sb_printf(&errpath, "%s/stderr", dir);
    fflush(stderr);
    int saved = dup(2);
    FILE *ef = fopen(errpath.buf, "w");
    dup2(fileno(ef), 2);
    run_result r;
    r.rc = fn(argc, argv);
    fflush(stderr);
    dup2(saved, 2);
    close(saved);
    fclose(ef);
    r.err = tu_slurp(errpath.buf);
    for (int i = 0; i < argc; i++)
        free(argv[i]);
    free(copy);
    sb_free(&errpath);
    return r;
}

static char *slurp_in(const char *dir, const char *name)
{
    strbuf p = STRBUF_INIT;
    sb_printf(&p, "%s/%s", dir, name);
    char *s = tu_slurp(p.buf);
    sb_free(&p);
    return s;
}

static const char perf_text[] =
    "prog 10/11 [000] 1.000: 100 cycles:\n"
    "\t401000 leaf+0x10 (/bin/prog)\n"
    "\t401100 mid (/bin/prog)\n"
    "\t401200 main (/bin/prog)\n"
    "\n"
    "prog 10/11 [000] 1.001: 50 cycles:\n"
    "\t401100 mid (/bin/prog)\n"
    "\t401200 main (/bin/prog)\n"
    "\n"
    "this line is noise\n";

START_TEST(fold_perf_file_sorted_with_ignored_note)
{
    char *dir = tu_mkdtemp();
    tu_write(dir, "p.txt", perf_text);
    run_result r = run(cmd_fold, dir, "fold @p.txt -o @out");
    ck_assert_int_eq(r.rc, 0);
    ck_assert_ptr_nonnull(strstr(r.err, "ignored 1 lines"));
    char *out = slurp_in(dir, "out");
    /* a sample weighs 1; --period weighs perf's period */
    ck_assert_str_eq(out, "prog;main;mid 1\nprog;main;mid;leaf 1\n");
    free(out);
    free(r.err);
    r = run(cmd_fold, dir, "fold --period @p.txt -o @outp");
    out = slurp_in(dir, "outp");
    ck_assert_str_eq(out, "prog;main;mid 50\nprog;main;mid;leaf 100\n");
    free(out);
    free(r.err);
    r = run(cmd_fold, dir, "fold --pid @p.txt -o @out2");
    out = slurp_in(dir, "out2");
    ck_assert_ptr_nonnull(strstr(out, "prog-10;main;mid 1\n"));
    free(out);
    free(r.err);
    tu_rmtree(dir);
    free(dir);
}
END_TEST

START_TEST(empty_input_is_an_error)
{
    char *dir = tu_mkdtemp();
    tu_write(dir, "empty", "");
    tu_write(dir, "junk", "nothing useful\nhere\n");
    run_result r = run(cmd_flame, dir, "flame @empty -o @o.svg");
    ck_assert_int_eq(r.rc, 2);
    ck_assert_ptr_nonnull(strstr(r.err, "no stack samples"));
    free(r.err);
    r = run(cmd_fold, dir, "fold @junk");     /* text, but no profile */
    ck_assert_int_eq(r.rc, 1);
    ck_assert_ptr_nonnull(strstr(r.err, "junk: not a profile"));
    free(r.err);
    r = run(cmd_flame, dir, "flame --no-such-option @junk");
    ck_assert_int_eq(r.rc, 2);
    free(r.err);
    r = run(cmd_flame, dir, "flame @missing-file");
    ck_assert_int_eq(r.rc, 1);
    free(r.err);
    tu_rmtree(dir);
    free(dir);
}
END_TEST

START_TEST(flame_writes_valid_svg_with_options)
{
    char *dir = tu_mkdtemp();
    tu_write(dir, "s.txt",
             " 0xffffffff8103ce3b : native_safe_halt+0xb/0xd [kernel]\n"
             " 0xffffffff81020e6e : default_idle+0x1e/0x100 [kernel]\n"
             "\t250\n");
    run_result r = run(cmd_flame, dir,
        "flame --title Idle --subtitle sub --countname ms --colors blue "
        "--width 800 --height 20 --sort weight @s.txt -o @g.svg");
    ck_assert_int_eq(r.rc, 0);
    free(r.err);
    char *svg = slurp_in(dir, "g.svg");
    ck_assert_ptr_nonnull(strstr(svg, ">Idle</text>"));
    ck_assert_ptr_nonnull(strstr(svg, "id=\"subtitle\""));
    ck_assert_ptr_nonnull(strstr(svg, "<title>native_safe_halt (250 ms, 100.00%)"));
    ck_assert_ptr_nonnull(strstr(svg, "width=\"800\""));
    ck_assert_ptr_nonnull(strstr(svg, "height=\"19.0\""));
    ck_assert_ptr_nonnull(strstr(svg, "#f8f8f8"));     /* flat palette bg */
    free(svg);
    strbuf cmd = STRBUF_INIT;
    sb_printf(&cmd, "xmllint --noout %s/g.svg", dir);
    ck_assert_int_eq(system(cmd.buf), 0);
    sb_free(&cmd);
    tu_rmtree(dir);
    free(dir);
}
END_TEST

START_TEST(diff_folded_normalize_and_svg)
{
    char *dir = tu_mkdtemp();
    tu_write(dir, "a", "m;f 10\nm;g 10\nm;gone 0x12 5\n");
    tu_write(dir, "b", "m;f 30\nm;g 10\nm;new 20\n");
    /* --absolute: the counts as they are */
    run_result r = run(cmd_diff, dir, "diff --absolute --folded @a @b -o @d");
    ck_assert_int_eq(r.rc, 0);
    free(r.err);
    char *out = slurp_in(dir, "d");
    ck_assert_str_eq(out, "m;f 10 30\nm;g 10 10\nm;gone 0x12 5 0\nm;new 0 20\n");
    free(out);
    /* the totals differ (25, 60): by default before is scaled by
     * 60/25, truncating (difffolded.pl -n), and -n says so explicitly;
     * -s: strip hex */
    const char *scaled[] = { "diff -s --folded @a @b -o @d2",
                             "diff -n -s --folded @a @b -o @d2" };
    for (int i = 0; i < 2; i++) {
        r = run(cmd_diff, dir, scaled[i]);
        ck_assert_int_eq(r.rc, 0);
        free(r.err);
        out = slurp_in(dir, "d2");
        ck_assert_str_eq(out, "m;f 24 30\nm;g 24 10\nm;gone 0x... 12 0\nm;new 0 20\n");
        free(out);
    }
    /* the graph: f's share rose (10/25 = 40% to 30/60 = 50%), so +10%,
     * red, and the subtitle says BEFORE was scaled */
    r = run(cmd_diff, dir, "diff @a @b -o @d.svg");
    ck_assert_int_eq(r.rc, 0);
    free(r.err);
    out = slurp_in(dir, "d.svg");
    ck_assert_ptr_nonnull(strstr(out, "<title>f (30 samples, 50.00%; +10.00%)"));
    ck_assert_ptr_nonnull(strstr(out, ">Differential Flame Graph</text>"));
    ck_assert_ptr_nonnull(strstr(out, ">normalised: BEFORE's 25 samples "
                                 "scaled to AFTER's 60 (--absolute: counts "
                                 "as they are)</text>"));
    /* g's share fell (40% to 16.67%): -23.33%, blue */
    ck_assert_ptr_nonnull(strstr(out, "<title>g (10 samples, 16.67%; -23.33%)"));
    free(out);
    r = run(cmd_diff, dir, "diff --absolute @a @b -o @abs.svg");
    ck_assert_int_eq(r.rc, 0);
    free(r.err);
    out = slurp_in(dir, "abs.svg");
    ck_assert_ptr_nonnull(strstr(out, "<title>f (30 samples, 50.00%; +33.33%)"));
    ck_assert_ptr_nonnull(strstr(out, ">absolute counts, not scaled: BEFORE "
                                 "25 samples, AFTER 60</text>"));
    free(out);
    /* equal totals: nothing scaled, and the graph says that too */
    r = run(cmd_diff, dir, "diff --subtitle S @a @a -o @same.svg");
    ck_assert_int_eq(r.rc, 0);
    free(r.err);
    out = slurp_in(dir, "same.svg");
    ck_assert_ptr_nonnull(strstr(out, ">S; BEFORE and AFTER: 25 samples "
                                 "each, not scaled</text>"));
    free(out);
    r = run(cmd_diff, dir, "diff -n --absolute @a @b -o @x.svg");
    ck_assert_int_eq(r.rc, 2);
    ck_assert_ptr_nonnull(strstr(r.err, "contradict"));
    free(r.err);
    r = run(cmd_diff, dir, "diff --elided @a @b -o @e.svg");
    ck_assert_int_eq(r.rc, 0);
    free(r.err);
    out = slurp_in(dir, "e.svg");
    ck_assert_ptr_nonnull(strstr(out, "<title>new (20 samples"));
    ck_assert_ptr_nonnull(strstr(out, "<title>gone 0x12 (12 samples"));
    ck_assert_ptr_null(strstr(out, "<title>f ("));
    free(out);
    r = run(cmd_diff, dir, "diff @a");
    ck_assert_int_eq(r.rc, 2);
    free(r.err);
    tu_rmtree(dir);
    free(dir);
}
END_TEST

/* diff --elided --folded writes what the elided graph draws: only the
 * stacks on one side only, both columns; none is an error. */
START_TEST(diff_elided_folded)
{
    char *dir = tu_mkdtemp();
    tu_write(dir, "a", "m;f 10\nm;g 10\nm;gone 5\n");
    tu_write(dir, "b", "m;f 30\nm;g 10\nm;new 20\n");
    run_result r = run(cmd_diff, dir, "diff --absolute --elided --folded @a @b -o @d");
    ck_assert_int_eq(r.rc, 0);
    free(r.err);
    char *out = slurp_in(dir, "d");
    ck_assert_str_eq(out, "m;gone 5 0\nm;new 0 20\n");
    free(out);
    /* normalising (the default) scales first (gone: 5 * 60/25 = 12) */
    r = run(cmd_diff, dir, "diff --elided --folded @a @b -o @d2");
    ck_assert_int_eq(r.rc, 0);
    free(r.err);
    out = slurp_in(dir, "d2");
    ck_assert_str_eq(out, "m;gone 12 0\nm;new 0 20\n");
    free(out);
    r = run(cmd_diff, dir, "diff --elided --folded @a @a -o @d3");
    ck_assert_int_eq(r.rc, 2);
    ck_assert_ptr_nonnull(strstr(r.err, "every stack is on both sides"));
    free(r.err);
    tu_rmtree(dir);
    free(dir);
}
END_TEST

/* Combinations that used to be accepted and do nothing are refused with
 * a usage error (exit status 2) saying why. */
START_TEST(refused_option_combinations)
{
    char *dir = tu_mkdtemp();
    tu_write(dir, "a", "m;f 10\n");
    run_result r = run(cmd_flame, dir, "flame --flamechart --sort weight @a");
    ck_assert_int_eq(r.rc, 2);
    ck_assert_ptr_nonnull(strstr(r.err, "--flamechart keeps the input"));
    free(r.err);
    r = run(cmd_flame, dir, "flame --sort weight --flamechart @a");
    ck_assert_int_eq(r.rc, 2);
    free(r.err);
    r = run(cmd_flame, dir, "flame --flamechart --sort name @a -o @ok.svg");
    ck_assert_int_eq(r.rc, 0);
    free(r.err);
    /* --addrs and --period on PCP input alone: the records' stacks are
     * folded already and they count samples (refused before any
     * connection) */
    const char *pcp[] = {
        "fold --period -a @nosuch staprelay.p.e",
        "flame --addrs -h localhost:1 staprelay.p.e",
        "top --period -a @nosuch staprelay.p.e",
        "diff --addrs -a @x -a @y staprelay.p.e",
    };
    int (*fn[])(int, char **) = { cmd_fold, cmd_flame, cmd_top, cmd_diff };
    for (int i = 0; i < 4; i++) {
        r = run(fn[i], dir, pcp[i]);
        ck_assert_int_eq(r.rc, 2);
        ck_assert_msg(strstr(r.err, "applies to perf script text") != NULL,
                      "%s: %s", pcp[i], r.err);
        free(r.err);
    }
    r = run(cmd_heatmap, dir, "heatmap --period -a @nosuch staprelay.p.e");
    ck_assert_int_eq(r.rc, 2);
    ck_assert_ptr_nonnull(strstr(r.err, "applies to perf script text"));
    free(r.err);
    r = run(cmd_live, dir, "live --dir @. --addrs -h localhost:1 staprelay.p.e");
    ck_assert_int_eq(r.rc, 2);
    ck_assert_ptr_nonnull(strstr(r.err, "applies to perf script text"));
    free(r.err);
    /* with --metric the arguments are files, which they apply to: the
     * archive is then what fails (status 1) */
    r = run(cmd_fold, dir, "fold --period -a @nosuch --metric staprelay.p.e @a");
    ck_assert_int_eq(r.rc, 1);
    ck_assert_ptr_null(strstr(r.err, "applies to perf script text"));
    free(r.err);
    tu_rmtree(dir);
    free(dir);
}
END_TEST

START_TEST(top_json_and_speedscope_exports)
{
    char *dir = tu_mkdtemp();
    tu_write(dir, "f", "m;a 3\nm;b;a 1\nm 2\n");
    run_result r = run(cmd_top, dir, "top --format json @f -o @t.json");
    ck_assert_int_eq(r.rc, 0);
    free(r.err);
    char *out = slurp_in(dir, "t.json");
    json_t *doc = json_loads(out, 0, NULL);
    ck_assert_ptr_nonnull(doc);
    json_t *first = json_array_get(json_object_get(doc, "frames"), 0);
    ck_assert_str_eq(json_string_value(json_object_get(first, "name")), "a");
    ck_assert_int_eq(json_integer_value(json_object_get(first, "self")), 4);
    json_decref(doc);
    free(out);
    r = run(cmd_top, dir, "top -n 1 --by total @f -o @t.txt");
    ck_assert_int_eq(r.rc, 0);
    free(r.err);
    out = slurp_in(dir, "t.txt");
    ck_assert_ptr_nonnull(strstr(out, "100.00%  m\n"));
    ck_assert_ptr_null(strstr(out, "  a\n"));
    free(out);
    r = run(cmd_flame, dir, "flame --format speedscope @f -o @s.json");
    ck_assert_int_eq(r.rc, 0);
    free(r.err);
    out = slurp_in(dir, "s.json");
    doc = json_loads(out, 0, NULL);
    ck_assert_ptr_nonnull(doc);
    json_t *prof = json_array_get(json_object_get(doc, "profiles"), 0);
    ck_assert_int_eq(json_integer_value(json_object_get(prof, "endValue")), 6);
    json_decref(doc);
    free(out);
    tu_rmtree(dir);
    free(dir);
}
END_TEST

TEST_SUITE(client_cmd)
{
    Suite *s = suite_create(test_suite_name);
    TCase *tc = tcase_create("commands");
    tcase_set_timeout(tc, 30);
    tcase_add_test(tc, fold_perf_file_sorted_with_ignored_note);
    tcase_add_test(tc, empty_input_is_an_error);
    tcase_add_test(tc, flame_writes_valid_svg_with_options);
    tcase_add_test(tc, diff_folded_normalize_and_svg);
    tcase_add_test(tc, diff_elided_folded);
    tcase_add_test(tc, refused_option_combinations);
    tcase_add_test(tc, top_json_and_speedscope_exports);
    suite_add_tcase(s, tc);
    return s;
}
