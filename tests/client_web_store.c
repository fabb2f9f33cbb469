/* Suite: client/web/store: the samples staprelay web holds -- contexts
 * kept (comm, host, pid, tid, ns times), names interned with the stacks
 * and freed with their last sample, the live window's pruning (files'
 * untimed samples stay), the cap's drops counted, the memory count
 * following the samples. */
#include <check.h>
#include <stdio.h>
#include <string.h>

#include "client/web/store.h"
#include "tests/testutil.h"

#define SEC 1000000000LL

static void add(web_store *s, const char *stack, int64_t t, const char *comm,
                const char *host, int64_t pid)
{
    stack_context ctx = { .comm = comm, .comm_len = comm ? strlen(comm) : 0,
                          .pid = pid, .tid = pid + 1, .host = host,
                          .state = pid == 42 ? BLOCK_STATE_LOCK : BLOCK_STATE_NONE,
                          .time_ns = STACK_TIME_UNKNOWN };
    store_add(s, stack, strlen(stack), 2, t, &ctx);
}

START_TEST(contexts_kept)
{
    web_store *s = store_new(0, 0);
    add(s, "main;a", 100 * SEC + 123456789, "srv", "h1", 42);
    store_add(s, "main;b", 6, 1, STACK_TIME_UNKNOWN, NULL);
    add(s, "main;a", -1, NULL, NULL, -1);           /* ns before 0: odd */
    store_lock(s);
    ck_assert_uint_eq(store_count(s), 3);
    store_sample x;
    ck_assert(store_get(s, 0, &x));
    ck_assert_int_eq(x.t_ns, 100 * SEC + 123456789);   /* to the ns */
    ck_assert_str_eq(x.stack, "main;a");
    ck_assert_uint_eq(x.len, 6);
    ck_assert_str_eq(x.comm, "srv");
    ck_assert_str_eq(x.host, "h1");
    ck_assert_int_eq(x.pid, 42);
    ck_assert_int_eq(x.tid, 43);
    ck_assert_int_eq(x.state, BLOCK_STATE_LOCK);     /* web's state= */
    ck_assert(x.weight == 2);
    ck_assert(store_get(s, 1, &x));
    ck_assert_int_eq(x.t_ns, STACK_TIME_UNKNOWN);
    ck_assert_ptr_null(x.comm);
    ck_assert_ptr_null(x.host);
    ck_assert_int_eq(x.pid, -1);
    ck_assert_int_eq(x.state, BLOCK_STATE_NONE);
    ck_assert(store_get(s, 2, &x));
    ck_assert_int_eq(x.state, BLOCK_STATE_NONE);
    ck_assert_int_eq(x.t_ns, -1);
    ck_assert(!store_get(s, 3, &x));
    store_unlock(s);
    store_info si;
    store_get_info(s, &si);
    ck_assert_int_eq(si.first_ns, -1);
    ck_assert_int_eq(si.last_ns, 100 * SEC + 123456789);
    ck_assert_int_eq(si.nhosts, 1);
    ck_assert_str_eq(si.hosts[0], "h1");
    ck_assert_uint_eq(si.strings, 4);   /* main;a main;b srv h1 */
    store_free(s);
}
END_TEST

START_TEST(window_pruned)
{
    web_store *s = store_new(0, 60 * SEC);
    store_add(s, "file;x", 6, 1, STACK_TIME_UNKNOWN, NULL);
    for (int i = 0; i < 100; i++) {
        char st[32];
        snprintf(st, sizeof st, "main;f%d", i);
        add(s, st, (1000 + i) * SEC, "c", "h", i);
    }
    store_info a, b;
    store_get_info(s, &a);
    ck_assert_uint_eq(a.samples, 101);
    store_prune(s, 1100 * SEC);          /* keeps t >= 1040 s */
    store_get_info(s, &b);
    ck_assert_uint_eq(b.samples, 61);    /* 60 timed, the file's one */
    ck_assert_uint_eq(b.pruned, 40);
    ck_assert_int_eq(b.first_ns, 1040 * SEC);
    ck_assert_uint_eq(b.strings, 60 + 1 + 2);
    ck_assert_uint_lt(b.bytes, a.bytes);
    store_prune(s, 9999 * SEC);
    store_get_info(s, &b);
    ck_assert_uint_eq(b.samples, 1);     /* the file's sample stays */
    ck_assert_uint_eq(b.strings, 1);     /* names went with their samples */
    ck_assert_int_eq(b.first_ns, STACK_TIME_UNKNOWN);
    store_free(s);
}
END_TEST

START_TEST(cap_counted)
{
    web_store *s = store_new(1000, 0);
    for (int i = 0; i < 5000; i++)
        add(s, "main;a", (int64_t)i * SEC, "c", NULL, 1);
    store_info si;
    store_get_info(s, &si);
    ck_assert_uint_le(si.samples, 1000);
    ck_assert_uint_eq(si.added, 5000);
    ck_assert_uint_eq(si.dropped + si.samples, 5000);
    ck_assert_int_eq(si.last_ns, 4999 * SEC);     /* the newest are kept */
    store_prune(s, 1LL << 62);                    /* no window: nothing */
    store_get_info(s, &si);
    ck_assert_uint_eq(si.pruned, 0);
    store_free(s);
}
END_TEST

TEST_SUITE(client_web_store)
{
    Suite *s = suite_create(test_suite_name);
    TCase *tc = tcase_create("store");
    tcase_add_test(tc, contexts_kept);
    tcase_add_test(tc, window_pruned);
    tcase_add_test(tc, cap_counted);
    suite_add_tcase(s, tc);
    return s;
}
