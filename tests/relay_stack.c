/* Suite: the relay's stack_fold over the table of real frame shapes
 * (tests/frame_shapes.h, the grammar common/frames owns), then what is
 * the relay's own: one-line stacks, lines cut at MAXSTRINGLEN, folded
 * input, refusal of lines that are not frames with the reason, and
 * instance names that never merge two stacks. */
#include "relay/stack.h"
#include "tests/frame_shapes.h"
#include "tests/testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    const char *what;
    const char *in;
    const char *out;      /* NULL: refused */
    const char *err;      /* refused: the reason, exactly */
} row;

static const row rows[] = {
    /* ---- one line: a frame line is a one-frame backtrace ---- */
    {"one FULL frame without its newline (sprint_* drop the last byte)",
     " 0xffffffff8103ce3b : native_safe_halt+0xb/0xd [kernel]",
     "native_safe_halt_[k]", NULL},
    {"one bare address", "0x7f00deadbeef", "0x7f00deadbeef", NULL},
    {"one SIMPLE frame", "native_safe_halt+0xb [kernel]", "native_safe_halt_[k]", NULL},
    {"one perf frame without its newline",
     "ffffffff8103ce3b native_safe_halt+0xb ([kernel.kallsyms])", "native_safe_halt_[k]", NULL},
    /* ---- cut at MAXSTRINGLEN: the cut last line goes ---- */
    {"FULL cut inside the module",
     " 0x40053b : fun+0xe/0x10 [/tmp/a.out]\n 0x400556 : main+0x19/0x23 [/tmp/a.o",
     "fun", NULL},
    {"FULL cut inside the symbol", " 0x40053b : fun+0xe/0x10 [/tmp/a.out]\n 0x400556 : ma", "fun",
     NULL},
    {"cut inside the offset: the name is whole", "fun+0xe [a.out]\nmain+0x1", "main;fun", NULL},
    {"SIMPLE cut", "fun+0xe [a.out]\nmain+0x19 [a.o", "fun", NULL},
    {"SIMPLE cut, re-terminated by a tapset", "fun+0xe [a.out]\nmain+0x19 [a.o\n", "fun", NULL},
    {"SIMPLE cut inside the symbol", "fun+0xe [a.out]\n__libc_sta", "fun", NULL},
    /* ---- folded ---- */
    {"folded passthrough", "bash;main;read_[k]", "bash;main;read_[k]", NULL},
    {"folded blanks and empty frames", " a ; b;;c ", "a;b;c", NULL},
    {"folded frames with spaces and commas", "main;do some work;f(a,b)", "main;do some work;f(a,b)",
     NULL},
    {"folded single frame", "main", "main", NULL},
    /* ---- refused ---- */
    {"a line that is not a frame (audit)",
     " 0xffffffff8103ce3b : native_safe_halt+0xb/0xd [kernel]\n@@@ this is not a frame !!!\n",
     NULL, "line 2 is not a frame: \"@@@ this is not a frame !!!\""},
    {"a last line that is no cut frame",
     " 0xffffffff8103ce3b : native_safe_halt+0xb/0xd [kernel]\n@@@ not a frame", NULL,
     "line 2 is not a frame: \"@@@ not a frame\""},
    {"a bad line in the middle, long line shortened",
     "vfs_read+0x9 [kernel]\n\nthis line is much longer than what a reason shows\nmain+0x1 [cat]\n",
     NULL, "line 3 is not a frame: \"this line is much longer than...\""},
    {"a perf sample header is not a frame",
     "sh  8037 19621.794808:     250000 cpu-clock:ppp: \n"
     "\t           1462a handle_amd+0xa (/usr/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2)\n",
     NULL, "line 1 is not a frame: \"sh  8037 19621.794808:     25...\""},
    {"a symbol without offset or address", "main [/usr/bin/cat]\n__libc_start_main [/lib/libc.so.6]\n",
     NULL, "line 1 is not a frame: \"main [/usr/bin/cat]\""},
    {"folded stacks on several lines", "a;b\nc;d", NULL, "line 1 is not a frame: \"a;b\""},
    {"one address line that is no frame", "0xffffffff8103ce3b : ", NULL,
     "line 1 is not a frame: \"0xffffffff8103ce3b :\""},
    {"control bytes shown as ?", "f+0x1 [k]\n\x01\x02 x\n", NULL, "line 2 is not a frame: \"?? x\""},
    {"empty", "", NULL, "stack has no frames"},
    {"blank lines", "\n\n  \n", NULL, "stack has no frames"},
    {"no backtrace", "<no user backtrace at process(\"/bin/ls\").function(\"main\")>\n", NULL,
     "stack has no frames"},
};

static size_t count_frames(const char *folded)
{
    size_t n = 1;
    for (const char *c = folded; *c; c++)
        n += *c == ';';
    return n;
}

START_TEST(stack_shapes)
{
    const row *r = &rows[_i];
    char err[128] = "";
    size_t n = 0;
    char *f = stack_fold(r->in, &n, err, sizeof(err));
    if (r->out != NULL) {
        ck_assert_msg(f != NULL, "%s: refused: %s", r->what, err);
        ck_assert_msg(strcmp(f, r->out) == 0, "%s:\n got  %s\n want %s", r->what, f, r->out);
        ck_assert_uint_eq(n, count_frames(r->out));
    } else {
        ck_assert_msg(f == NULL, "%s: accepted as %s", r->what, f);
        ck_assert_msg(strcmp(err, r->err) == 0, "%s:\n got  %s\n want %s", r->what, err, r->err);
    }
    free(f);
}
END_TEST

/* Every real shape folds in the relay as the grammar says. */
START_TEST(stack_frame_shapes)
{
    const frame_shape *r = &frame_shapes[_i];
    char err[128] = "";
    size_t n = 0;
    char *f = stack_fold(r->text, &n, err, sizeof(err));
    ck_assert_msg(f != NULL, "%s: refused: %s", r->what, err);
    ck_assert_msg(strcmp(f, r->folded) == 0, "%s:\n got  %s\n want %s", r->what, f, r->folded);
    ck_assert_uint_eq(n, count_frames(r->folded));
    free(f);
}
END_TEST

/* events.c gives stack_fold 64 bytes for the reason: it still fits. */
START_TEST(stack_reason_fits_events_buffer)
{
    char err[64];
    size_t n;
    char *f = stack_fold("f+0x1 [k]\nx 2345678901234567890123456789012345678901234567890\n", &n,
                         err, sizeof(err));
    ck_assert_ptr_null(f);
    ck_assert_str_eq(err, "line 2 is not a frame: \"x 234567890123456789012345678...\"");
}
END_TEST

/* ---- instance names ------------------------------------------------- */

/* The inverse of stack_instance_name: ',' separates frames, %XX is a
 * byte.  Returns NULL when the name is not in the escaped form. */
static char *decode(const char *name)
{
    char *out = malloc(strlen(name) + 1);
    size_t k = 0;
    for (const char *c = name; *c; c++) {
        if (*c == ',') {
            out[k++] = ';';
        } else if (*c == '%') {
            unsigned v;
            if (sscanf(c + 1, "%2X", &v) != 1 || strlen(c) < 3) {
                free(out);
                return NULL;
            }
            out[k++] = (char)v;
            c += 2;
        } else {
            out[k++] = *c;
        }
    }
    out[k] = '\0';
    return out;
}

START_TEST(stack_instance_name_escapes)
{
    static const char *const cases[][2] = {
        {"java;a b;x,y;leaf_[k]", "java,a%20b,x%2Cy,leaf_[k]"},
        {"main;do some work;f(a,b)", "main,do%20some%20work,f(a%2Cb)"},
        {"100%;a_b", "100%25,a_b"},
        {"std::vector<int, std::allocator<int> >::push_back",
         "std::vector<int%2C%20std::allocator<int>%20>::push_back"},
        {"a\tb", "a%09b"},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        char *name = stack_instance_name(cases[i][0]);
        ck_assert_str_eq(name, cases[i][1]);
        free(name);
    }
}
END_TEST

/* Stacks the old mapping (blank to '_', ',' to ':') merged, and the
 * frames grafana-pcp sees (split on ',' and newline): one word, the
 * stack's own frames, none empty. */
START_TEST(stack_instance_names_distinct)
{
    static const char *const folded[] = {"a b", "a_b", "a,b", "a:b", "a;b", "a%20b", "a%2Cb",
                                         "a\tb", "a%b", "a%25b", "main;x y", "main;x_y"};
    size_t n = sizeof(folded) / sizeof(folded[0]);
    char *names[sizeof(folded) / sizeof(folded[0])];
    for (size_t i = 0; i < n; i++) {
        names[i] = stack_instance_name(folded[i]);
        ck_assert_ptr_null(strpbrk(names[i], " \t\n"));
        for (size_t j = 0; j < i; j++)
            ck_assert_msg(strcmp(names[i], names[j]) != 0, "\"%s\" and \"%s\" share \"%s\"",
                          folded[i], folded[j], names[i]);
        size_t frames = 1;
        for (const char *c = names[i]; *c; c++)
            frames += *c == ',';
        ck_assert_uint_eq(frames, count_frames(folded[i]));
    }
    for (size_t i = 0; i < n; i++)
        free(names[i]);
}
END_TEST

/* Every string of up to 4 bytes over the troublesome alphabet decodes
 * back to itself: the mapping is injective, so no two stacks merge. */
START_TEST(stack_instance_name_round_trip)
{
    static const char alpha[] = "a _,;:%2C\t";
    size_t A = sizeof(alpha) - 1, total = 0;
    char s[5];
    for (size_t len = 1; len <= 4; len++) {
        size_t count = 1;
        for (size_t i = 0; i < len; i++)
            count *= A;
        for (size_t v = 0; v < count; v++) {
            size_t x = v;
            for (size_t i = 0; i < len; i++, x /= A)
                s[i] = alpha[x % A];
            s[len] = '\0';
            char *name = stack_instance_name(s);
            ck_assert_ptr_null(strpbrk(name, " \t\n;"));
            char *back = decode(name);
            ck_assert_msg(back != NULL && strcmp(back, s) == 0, "\"%s\" -> \"%s\" -> \"%s\"", s,
                          name, back ? back : "(bad)");
            free(back);
            free(name);
            total++;
        }
    }
    ck_assert_uint_gt(total, 10000);
}
END_TEST

TEST_SUITE(relay_stack)
{
    Suite *s = suite_create(test_suite_name);
    TCase *tc = tcase_create("shapes");
    tcase_add_loop_test(tc, stack_frame_shapes, 0, (int)NFRAME_SHAPES);
    tcase_add_loop_test(tc, stack_shapes, 0, (int)(sizeof(rows) / sizeof(rows[0])));
    tcase_add_test(tc, stack_reason_fits_events_buffer);
    suite_add_tcase(s, tc);
    TCase *names = tcase_create("instance names");
    tcase_add_test(names, stack_instance_name_escapes);
    tcase_add_test(names, stack_instance_names_distinct);
    tcase_add_test(names, stack_instance_name_round_trip);
    suite_add_tcase(s, names);
    return s;
}
