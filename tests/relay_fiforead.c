/* Suite: relay/fiforead, one document from a pipe: whole, cut short, or a
 * tail an earlier reader left behind. */
#include "relay/fiforead.h"
#include "tests/testutil.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

typedef struct {
    int calls;
    doc_status st;
    char doc[256];
    char err[1300];
} outcome;

static void record(void *arg, doc_status st, const char *buf, size_t len, const char *err)
{
    outcome *o = arg;
    o->calls++;
    o->st = st;
    snprintf(o->doc, sizeof(o->doc), "%.*s", buf != NULL ? (int)len : 0, buf != NULL ? buf : "");
    snprintf(o->err, sizeof(o->err), "%s", err != NULL ? err : "");
}

/* Start a read of a pipe's read end (non-blocking, as the relay opens a
 * FIFO) after `before` was written; returns the write end. */
static int start_read(struct ev_loop *loop, const char *before, double timeout, outcome *o,
                      fiforead **fr)
{
    int p[2];
    ck_assert_int_eq(pipe2(p, O_NONBLOCK | O_CLOEXEC), 0);
    if (before != NULL)
        ck_assert_int_eq(write(p[1], before, strlen(before)), (ssize_t)strlen(before));
    char err[200];
    *fr = fiforead_start_fd(loop, p[0], "test-pipe", 1 << 16, timeout, record, o, err,
                            sizeof(err));
    ck_assert_ptr_nonnull(*fr);
    return p[1];
}

static void run_until_called(struct ev_loop *loop, const outcome *o)
{
    double end = ev_time() + 60;
    while (o->calls == 0 && ev_time() < end)
        ev_run(loop, EVRUN_ONCE);
    ck_assert_int_eq(o->calls, 1);
}

/* The first whole document is the result, though the writer went on to
 * serve it again (stapbpf serves each open). */
START_TEST(fiforead_first_document_only)
{
    struct ev_loop *loop = ev_loop_new(EVFLAG_AUTO);
    outcome o = {0};
    fiforead *fr;
    int w = start_read(loop, " \n{\"a\": \"}]\\\"\", \"b\": [1, {}]}{\"a\": 2}", 5, &o, &fr);
    run_until_called(loop, &o);
    ck_assert_int_eq(o.st, DOC_OK);
    ck_assert_str_eq(o.doc, " \n{\"a\": \"}]\\\"\", \"b\": [1, {}]}");
    close(w);
    ev_loop_destroy(loop);
}
END_TEST

/* What an earlier reader left in the pipe (the end of a document) is not a
 * document: the read is an error that says why. */
START_TEST(fiforead_leftover_tail_is_an_error)
{
    struct ev_loop *loop = ev_loop_new(EVFLAG_AUTO);
    outcome o = {0};
    fiforead *fr;
    int w = start_read(loop, "\"pointer\": \"/calls\", \"type\": \"integer\"}]}", 5, &o, &fr);
    run_until_called(loop, &o);
    ck_assert_int_eq(o.st, DOC_ERROR);
    ck_assert_ptr_nonnull(strstr(o.err, "does not begin with a JSON object"));
    close(w);
    ev_loop_destroy(loop);
}
END_TEST

/* A document begun but not finished within the time-out is an error; no
 * writer at all is only "busy". */
START_TEST(fiforead_cut_short_and_silent)
{
    struct ev_loop *loop = ev_loop_new(EVFLAG_AUTO);
    outcome cut = {0}, silent = {0};
    fiforead *a, *b;
    int wa = start_read(loop, "{\"v\": [1, 2", 0.1, &cut, &a);
    int wb = start_read(loop, NULL, 0.1, &silent, &b);
    run_until_called(loop, &cut);
    run_until_called(loop, &silent);
    ck_assert_int_eq(cut.st, DOC_ERROR);
    ck_assert_ptr_nonnull(strstr(cut.err, "no complete document"));
    ck_assert_int_eq(silent.st, DOC_BUSY);
    close(wa);
    close(wb);
    ev_loop_destroy(loop);
}
END_TEST

/* A cancelled read closes the pipe at once (a writer must never wait on
 * us) and never calls back. */
START_TEST(fiforead_cancel_is_silent)
{
    struct ev_loop *loop = ev_loop_new(EVFLAG_AUTO);
    outcome o = {0};
    fiforead *fr;
    int w = start_read(loop, NULL, 0.05, &o, &fr);
    fiforead_cancel(fr);
    signal(SIGPIPE, SIG_IGN);
    errno = 0;
    ck_assert_int_eq(write(w, "{}", 2), -1);
    ck_assert_int_eq(errno, EPIPE);
    double end = ev_time() + 0.3;
    while (ev_time() < end) {
        ev_run(loop, EVRUN_NOWAIT);
        usleep(10000);
    }
    ck_assert_int_eq(o.calls, 0);
    close(w);
    ev_loop_destroy(loop);
}
END_TEST

TEST_SUITE(relay_fiforead)
{
    Suite *s = suite_create(test_suite_name);
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, fiforead_first_document_only);
    tcase_add_test(tc, fiforead_leftover_tail_is_an_error);
    tcase_add_test(tc, fiforead_cut_short_and_silent);
    tcase_add_test(tc, fiforead_cancel_is_silent);
    suite_add_tcase(s, tc);
    return s;
}
