/* Suite: client/stack/stacksink, the seam every input delivers to:
 * sample times kept, observers told, weights summed. */
#include <check.h>

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

TEST_SUITE(client_stacksink)
{
    Suite *s = suite_create(test_suite_name);
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, sink_keeps_sample_times);
    suite_add_tcase(s, tc);
    return s;
}
