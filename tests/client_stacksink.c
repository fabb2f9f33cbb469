/* Suite: client/stack/stacksink, the seam every input delivers to:
 * sample times kept, observers told, weights summed. */
#include <check.h>
#include <stdio.h>

#include "client/stack/stackfilter.h"
#include "client/stack/stacksink.h"
#include "tests/testutil.h"

typedef struct seen {
    int     n;
    int64_t when[4];
    double  weight[4];
} seen;

static void observe(void *arg, size_t entry, int col, double w, int64_t t)
{
    (void)entry;
    (void)col;
    seen *s = arg;
    if (s->n < 4) {
        s->when[s->n] = t;
        s->weight[s->n] = w;
    }
    s->n++;
}

START_TEST(sink_keeps_sample_times)
{
    stacktab *t = stacktab_new();
    stack_sink sink;
    seen sn = { 0 };
    stack_sink_init(&sink, t, 0, false);
    stack_sink_observe(&sink, observe, &sn);
    stack_sink_add(&sink, "a;b", 3, 1, -1);
    ck_assert(sink.first_ns == STACK_TIME_UNKNOWN);
    stack_sink_add_at(&sink, "a;b", 3, 2, -1, 2000);
    stack_sink_add_at(&sink, "a;c", 3, 1, -1, 1000);
    ck_assert_int_eq(sn.n, 3);
    ck_assert(sn.when[0] == STACK_TIME_UNKNOWN);
    ck_assert(sn.when[1] == 2000 && sn.weight[1] == 2);
    ck_assert(sink.first_ns == 1000 && sink.last_ns == 2000);
    ck_assert(stacktab_find(t, "a;b", 3)->count[0] == 3);
    stack_sink_free(&sink);
    stacktab_free(t);
}
END_TEST

typedef struct detail {
    int  n;
    char last[64];
    bool had_frames;
} detail;

static void on_detail(void *arg, const char *stack, size_t len, double w,
                      int col, int64_t when, const stack_context *ctx)
{
    (void)w; (void)col; (void)when;
    detail *d = arg;
    d->n++;
    snprintf(d->last, sizeof d->last, "%.*s", (int)len, stack);
    d->had_frames = ctx && ctx->frames;
}

/* The filter is the sink's first step: dropped samples reach neither the
 * table nor an observer and are counted; what hide/show reshape is
 * stored reshaped, and the frames as read (which no longer line up) are
 * not passed on; --strip-hex comes first (the filter sees the frames as
 * drawn). */
START_TEST(sink_applies_the_filter)
{
    stacktab *t = stacktab_new();
    stack_sink sink;
    detail d = { 0 };
    stack_sink_init(&sink, t, 0, true);
    stack_sink_observe_detail(&sink, on_detail, &d);
    stackfilter_spec sp = { .ignore = "^idle$", .hide = "^0x\\.\\.\\.$" };
    strbuf err = STRBUF_INIT;
    stackfilter *f = stackfilter_new(&sp, &err);
    ck_assert_msg(f != NULL, "%s", err.buf);
    stack_sink_filter(&sink, f);
    stackfold frames;
    frame_opts fo = { 0 };
    stackfold_init(&frames, &fo, false);
    stack_context ctx = { .pid = -1, .tid = -1, .frames = &frames };
    stack_sink_add_ctx(&sink, "a;idle", 6, 1, -1, STACK_TIME_UNKNOWN, &ctx);
    ck_assert_int_eq(d.n, 0);
    ck_assert_int_eq((int)sink.filtered, 1);
    stack_sink_add_ctx(&sink, "a;0xff12;b", 10, 2, -1, STACK_TIME_UNKNOWN,
                       &ctx);
    ck_assert_int_eq(d.n, 1);
    ck_assert_str_eq(d.last, "a;b");
    ck_assert(!d.had_frames);
    ck_assert(stacktab_find(t, "a;b", 3)->count[0] == 2);
    stack_sink_add_ctx(&sink, "a;c", 3, 1, -1, STACK_TIME_UNKNOWN, &ctx);
    ck_assert(d.had_frames);        /* unchanged: the frames still fit */
    ck_assert_int_eq((int)sink.stacks, 2);
    stackfold_free(&frames);
    stackfilter_free(f);
    sb_free(&err);
    stack_sink_free(&sink);
    stacktab_free(t);
}
END_TEST

TEST_SUITE(client_stacksink)
{
    Suite *s = suite_create(test_suite_name);
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, sink_keeps_sample_times);
    tcase_add_test(tc, sink_applies_the_filter);
    suite_add_tcase(s, tc);
    return s;
}
