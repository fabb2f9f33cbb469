/* Suite: stack instance names (common/stackname): what grafana-pcp, pmproxy
 * and PCP's first-word rule need -- no space, newline or byte over 0x7e,
 * frames split on ',' only -- and back to the folded stack exactly. */
#include "common/stackname.h"
#include <check.h>
#include "tests/testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char *decoded(const char *name)
{
    char *out = malloc(strlen(name) + 1);
    ck_assert_ptr_nonnull(out);
    size_t n = stackname_decode(name, strlen(name), out);
    ck_assert_uint_eq(n, strlen(out));
    return out;
}

START_TEST(names_as_documented)
{
    static const char *const cases[][2] = {
        {"main;do some work;f(a,b)", "main,do\tsome\twork,f(a;b)"},
        {"java;operator new(unsigned long);x", "java,operator\tnew(unsigned\tlong),x"},
        {"std::vector<int, std::allocator<int> >::push_back",
         "std::vector<int;\tstd::allocator<int>\t>::push_back"},
        {"a%20b;100%", "a%2520b,100%25"},
        {" lead;trail ;x", "%20lead,trail%20,x"},
        {"caf\xc3\xa9;\x7f", "caf%C3%A9,%7F"},
        {"[other]", "%5Bother]"},
        {"[other];x", "[other],x"},
        {"leaf_[k]", "leaf_[k]"},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        char *name = stackname_encode(cases[i][0]);
        ck_assert_str_eq(name, cases[i][1]);
        char *back = decoded(name);
        ck_assert_str_eq(back, cases[i][0]);
        free(back);
        free(name);
    }
}
END_TEST

START_TEST(old_escapes_still_decode)
{
    /* the names versions before this one published */
    char *back = decoded("main,do%20some%20work,f(a%2Cb)");
    ck_assert_str_eq(back, "main;do some work;f(a,b)");
    free(back);
    back = decoded("50%,%2,%zz");          /* a '%' without two hex digits stays */
    ck_assert_str_eq(back, "50%;%2;%zz");
    free(back);
}
END_TEST

static int by_string(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Every string over a small alphabet of the troublesome bytes: the names
 * are distinct, one word, ASCII, never start or end a frame with blank
 * (grafana trims), and decode back. */
START_TEST(round_trip_and_injective)
{
    static const char alpha[] = "a ,;%\xc3\t";
    const size_t na = sizeof(alpha) - 1;
    enum { LEN = 4 };
    size_t total = 1;
    for (int i = 0; i < LEN; i++)
        total *= na;
    char **names = calloc(total, sizeof(char *));
    ck_assert_ptr_nonnull(names);
    size_t nnames = 0;
    for (size_t code = 0; code < total; code++) {
        char s[LEN + 1];
        size_t c = code;
        for (int i = 0; i < LEN; i++, c /= na)
            s[i] = alpha[c % na];
        s[LEN] = '\0';
        /* folded stacks hold no control byte and no empty frame */
        if (strchr(s, '\t') || s[0] == ';' || s[LEN - 1] == ';' || strstr(s, ";;"))
            continue;
        char *name = stackname_encode(s);
        for (const unsigned char *p = (const unsigned char *)name; *p; p++) {
            ck_assert_msg(*p != ' ' && *p != '\n' && *p < 0x7f, "byte %02x in %s", *p, name);
            ck_assert(*p >= 0x20 || *p == '\t');
        }
        /* grafana's frames: split on ',', no blank at either end */
        for (char *f = name, *e; f != NULL; f = e ? e + 1 : NULL) {
            e = strchr(f, ',');
            size_t fl = e ? (size_t)(e - f) : strlen(f);
            ck_assert(fl > 0);
            ck_assert(f[0] != '\t' && f[fl - 1] != '\t');
        }
        char *back = decoded(name);
        ck_assert_str_eq(back, s);
        free(back);
        names[nnames++] = name;
    }
    qsort(names, nnames, sizeof(char *), by_string);
    for (size_t i = 1; i < nnames; i++)
        ck_assert_str_ne(names[i - 1], names[i]);
    for (size_t i = 0; i < nnames; i++)
        free(names[i]);
    free(names);
}
END_TEST

TEST_SUITE(common_stackname)
{
    Suite *s = suite_create(test_suite_name);
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, names_as_documented);
    tcase_add_test(tc, old_escapes_still_decode);
    tcase_add_test(tc, round_trip_and_injective);
    suite_add_tcase(s, tc);
    return s;
}
