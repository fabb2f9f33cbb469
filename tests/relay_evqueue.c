/* Suite: relay/evqueue, the bound, drops, per-client views and missed counts. */
#include "relay/evqueue.h"
#include "tests/testutil.h"

#include <stdio.h>
#include <string.h>

typedef struct {
    int seen[1000];
    int n;
} sink;

static int collect(void *arg, const void *data, size_t len, int64_t when)
{
    sink *s = arg;
    int v;
    ck_assert_uint_eq(len, sizeof(int));
    memcpy(&v, data, sizeof(v));
    ck_assert_int_eq(when, v * 10);
    s->seen[s->n++] = v;
    return 0;
}

static void put(evqueue *q, int v)
{
    ck_assert_int_eq(evqueue_append(q, &v, sizeof(v), v * 10), 0);
}

START_TEST(evqueue_clients_see_only_new_records_in_order)
{
    evqueue *q = evqueue_new(1 << 20);
    sink a = {0}, b = {0};
    uint64_t missed;
    put(q, 0);                                  /* before anyone listens */
    ck_assert_uint_eq(evqueue_read(q, 1, 1 << 20, &missed, collect, &a), 0);
    for (int i = 1; i <= 5; i++)
        put(q, i);
    ck_assert_uint_eq(evqueue_read(q, 1, 1 << 20, &missed, collect, &a), 5);
    ck_assert_int_eq(a.seen[0], 1);
    ck_assert_int_eq(a.seen[4], 5);
    /* client 2 joins late, client 1 keeps reading at its own pace */
    ck_assert_uint_eq(evqueue_read(q, 2, 1 << 20, &missed, collect, &b), 0);
    put(q, 6);
    put(q, 7);
    ck_assert_uint_eq(evqueue_read(q, 2, 1 << 20, &missed, collect, &b), 2);
    put(q, 8);
    ck_assert_uint_eq(evqueue_read(q, 1, 1 << 20, &missed, collect, &a), 3);
    ck_assert_uint_eq(evqueue_read(q, 2, 1 << 20, &missed, collect, &b), 1);
    ck_assert_int_eq(b.seen[2], 8);
    evqueue_stats st;
    evqueue_get_stats(q, &st);
    ck_assert_uint_eq(st.appended, 9);
    ck_assert_uint_eq(st.delivered, 11);
    ck_assert_uint_eq(st.queued, 0);            /* everyone read everything */
    ck_assert_uint_eq(st.dropped, 0);
    evqueue_free(q);
}
END_TEST

START_TEST(evqueue_replay_gives_late_clients_the_whole_stream)
{
    evqueue *q = evqueue_new(1 << 20);
    evqueue_set_replay(q, true);
    sink a = {0}, b = {0};
    uint64_t missed;
    for (int i = 0; i < 3; i++)
        put(q, i);
    /* the first client starts at the oldest record, not at the tail */
    ck_assert_uint_eq(evqueue_read(q, 1, 1 << 20, &missed, collect, &a), 3);
    ck_assert_int_eq(a.seen[0], 0);
    put(q, 3);
    ck_assert_uint_eq(evqueue_read(q, 1, 1 << 20, &missed, collect, &a), 1);
    /* records every client read stay for the next one */
    ck_assert_uint_eq(evqueue_read(q, 2, 1 << 20, &missed, collect, &b), 4);
    ck_assert_int_eq(b.seen[0], 0);
    ck_assert_int_eq(b.seen[3], 3);
    ck_assert_uint_eq(missed, 0);
    evqueue_stats st;
    evqueue_get_stats(q, &st);
    ck_assert_uint_eq(st.queued, 4);
    evqueue_free(q);

    /* a late client is told what the bound evicted before it came */
    q = evqueue_new(1024);
    evqueue_set_replay(q, true);
    sink c = {0};
    for (int i = 0; i < 200; i++)
        put(q, i);
    evqueue_get_stats(q, &st);
    ck_assert_uint_lt(st.queued, 200);
    ck_assert_uint_eq(evqueue_read(q, 3, 1 << 20, &missed, collect, &c), st.queued);
    ck_assert_uint_eq(missed, 200 - st.queued);
    ck_assert_int_eq(c.seen[0], (int)missed);
    ck_assert_int_eq(c.seen[c.n - 1], 199);
    evqueue_free(q);
}
END_TEST

START_TEST(evqueue_bound_drops_oldest_and_reports_missed)
{
    /* room for about 10 records */
    evqueue *q = evqueue_new(10 * (sizeof(int) + 40));
    sink fast = {0}, slow = {0};
    uint64_t missed;
    evqueue_read(q, 1, 1 << 20, &missed, collect, &fast);
    evqueue_read(q, 2, 1 << 20, &missed, collect, &slow);
    for (int i = 0; i < 100; i++) {
        put(q, i);
        evqueue_read(q, 1, 1 << 20, &missed, collect, &fast);
        ck_assert_uint_eq(missed, 0);
    }
    ck_assert_int_eq(fast.n, 100);
    size_t got = evqueue_read(q, 2, 1 << 20, &missed, collect, &slow);
    ck_assert_uint_eq(got + missed, 100);       /* nothing vanishes uncounted */
    ck_assert_uint_gt(missed, 80);
    ck_assert_int_eq(slow.seen[slow.n - 1], 99);
    evqueue_stats st;
    evqueue_get_stats(q, &st);
    ck_assert_uint_eq(st.dropped, missed);
    ck_assert_uint_eq(st.missed, missed);
    ck_assert_uint_le(st.bytes, 10 * (sizeof(int) + 40));
    /* a record larger than the bound is refused */
    char big[1000] = {0};
    ck_assert_int_eq(evqueue_append(q, big, sizeof(big), 0), -1);
    evqueue_free(q);
}
END_TEST

START_TEST(evqueue_read_is_bounded_per_call_and_end_client_frees)
{
    evqueue *q = evqueue_new(1 << 20);
    sink s = {0};
    uint64_t missed;
    evqueue_read(q, 7, 1 << 20, &missed, collect, &s);
    for (int i = 0; i < 50; i++)
        put(q, i);
    ck_assert_uint_eq(evqueue_read(q, 7, 10 * sizeof(int), &missed, collect, &s), 10);
    ck_assert_uint_eq(evqueue_read(q, 7, 1 << 20, &missed, collect, &s), 40);
    ck_assert_int_eq(s.seen[10], 10);
    put(q, 50);
    evqueue_end_client(q, 7);
    evqueue_stats st;
    evqueue_get_stats(q, &st);
    ck_assert_uint_eq(st.clients, 0);
    evqueue_free(q);
}
END_TEST

TEST_SUITE(relay_evqueue)
{
    Suite *s = suite_create(test_suite_name);
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, evqueue_clients_see_only_new_records_in_order);
    tcase_add_test(tc, evqueue_replay_gives_late_clients_the_whole_stream);
    tcase_add_test(tc, evqueue_bound_drops_oldest_and_reports_missed);
    tcase_add_test(tc, evqueue_read_is_bounded_per_call_and_end_client_frees);
    suite_add_tcase(s, tc);
    return s;
}
