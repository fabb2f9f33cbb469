/* Suite: client/input/linereader: lines across chunk edges, lines longer
 * than a chunk, NUL bytes, CR, a last line without a newline, and the
 * read-ahead queue handing its lines back before the stream's. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "client/input/linereader.h"
#include "tests/testutil.h"

/* The text's lines by the rule (split at '\n', one trailing '\r' off). */
static size_t expected_lines(const char *text, size_t n, size_t *off, size_t *len)
{
    size_t k = 0, from = 0;
    for (size_t i = 0; i <= n; i++) {
        if (i < n && text[i] != '\n')
            continue;
        if (i == n && from == n)
            break;
        size_t l = i - from;
        if (l > 0 && text[from + l - 1] == '\r')
            l--;
        off[k] = from;
        len[k++] = l;
        from = i + 1;
    }
    return k;
}

static void check_text(const char *text, size_t n, size_t queue_first)
{
    FILE *fp = fmemopen((void *)text, n, "r");
    ck_assert_ptr_nonnull(fp);
    size_t *off = malloc((n + 1) * sizeof *off), *len = malloc((n + 1) * sizeof *len);
    size_t want = expected_lines(text, n, off, len);
    linereader lr;
    lr_init(&lr, fp);
    if (queue_first)
        lr_fill(&lr, queue_first, SIZE_MAX);
    const char *line;
    ssize_t got;
    size_t k = 0;
    while ((got = lr_next(&lr, &line)) >= 0) {
        ck_assert_uint_lt(k, want);
        ck_assert_uint_eq((size_t)got, len[k]);
        ck_assert_mem_eq(line, text + off[k], len[k]);
        ck_assert_int_eq(line[got], '\0');
        k++;
    }
    ck_assert_uint_eq(k, want);
    lr_free(&lr);
    fclose(fp);
    free(off);
    free(len);
}

START_TEST(lines_at_every_chunk_edge)
{
    /* lines whose newline falls just before, on and after a chunk edge,
     * and with a CR split from its newline by the edge */
    size_t n = 3 * LR_CHUNK + 100;
    char *text = malloc(n);
    for (size_t shift = 0; shift < 4; shift++) {
        memset(text, 'x', n);
        for (size_t e = 1; e <= 3; e++) {
            size_t edge = e * LR_CHUNK - 2 + shift - 1;
            text[edge - 1] = '\r';
            text[edge] = '\n';
            text[edge + 3] = '\n';
        }
        text[17] = '\0';            /* a NUL inside a line is kept */
        check_text(text, n, 0);
        check_text(text, n, 2);
    }
    free(text);
}
END_TEST

START_TEST(long_lines_and_the_last_line)
{
    /* a line of three chunks, then short lines, the last without '\n' */
    size_t n = 3 * LR_CHUNK + 20;
    char *text = malloc(n);
    memset(text, 'y', n);
    text[3 * LR_CHUNK] = '\n';
    text[3 * LR_CHUNK + 5] = '\n';
    text[n - 2] = '\r';
    check_text(text, n, 0);
    check_text(text, n, 1);
    check_text("", 0, 0);
    check_text("\n\n", 2, 0);
    check_text("a\r\n\rb", 5, 0);
    free(text);
}
END_TEST

START_TEST(queue_then_stream)
{
    const char text[] = "one\ntwo\r\nthree\nfour\nfive";
    for (size_t q = 0; q < 7; q++)
        check_text(text, sizeof text - 1, q);
}
END_TEST

TEST_SUITE(client_linereader)
{
    Suite *s = suite_create(test_suite_name);
    TCase *tc = tcase_create("lines");
    tcase_add_test(tc, lines_at_every_chunk_edge);
    tcase_add_test(tc, long_lines_and_the_last_line);
    tcase_add_test(tc, queue_then_stream);
    suite_add_tcase(s, tc);
    return s;
}
