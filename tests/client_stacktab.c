/* Suite: client/stack/stacktab: merging, totals, orders, sequences. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "client/stack/stacktab.h"
#include "tests/testutil.h"

static void add(stacktab *t, const char *s, int col, double w)
{
    stacktab_add(t, s, strlen(s), col, w);
}

START_TEST(merges_identical_stacks)
{
    stacktab *t = stacktab_new();
    add(t, "a;b", 0, 2);
    add(t, "a;c", 0, 3);
    add(t, "a;b", 0, 5);
    ck_assert_uint_eq(stacktab_size(t), 2);
    const stack_entry *e = stacktab_find(t, "a;b", 3);
    ck_assert_ptr_nonnull(e);
    ck_assert_double_eq(e->count[0], 7);
    ck_assert_double_eq(stacktab_total(t, 0), 10);
    ck_assert(!stacktab_has_col1(t));
    ck_assert_ptr_null(stacktab_find(t, "a", 1));
    stacktab_free(t);
}
END_TEST

START_TEST(two_columns_are_independent)
{
    stacktab *t = stacktab_new();
    add(t, "x", 0, 4);
    add(t, "x", 1, 9);
    add(t, "y", 1, 1);
    ck_assert(stacktab_has_col1(t));
    ck_assert_double_eq(stacktab_total(t, 0), 4);
    ck_assert_double_eq(stacktab_total(t, 1), 10);
    ck_assert_double_eq(stacktab_find(t, "y", 1)->count[0], 0);
    stacktab_free(t);
}
END_TEST

START_TEST(grows_past_rehash_and_keeps_keys)
{
    stacktab *t = stacktab_new();
    char buf[64];
    for (int i = 0; i < 50000; i++) {
        int n = snprintf(buf, sizeof buf, "root;f%d;leaf%d", i % 7, i);
        stacktab_add(t, buf, (size_t)n, 0, 1);
    }
    for (int i = 0; i < 50000; i += 997) {
        int n = snprintf(buf, sizeof buf, "root;f%d;leaf%d", i % 7, i);
        const stack_entry *e = stacktab_find(t, buf, (size_t)n);
        ck_assert_ptr_nonnull(e);
        ck_assert_str_eq(e->stack, buf);
    }
    ck_assert_uint_eq(stacktab_size(t), 50000);
    ck_assert_double_eq(stacktab_total(t, 0), 50000);
    stacktab_free(t);
}
END_TEST

START_TEST(byte_order_is_perl_sort)
{
    stacktab *t = stacktab_new();
    const char *in[] = { "b;x", "a;b2", "a;b;c", "a;b", "B" };
    for (size_t i = 0; i < 5; i++)
        add(t, in[i], 0, 1);
    size_t *o = stacktab_sorted(t, STACK_ORDER_BYTES);
    for (size_t i = 1; i < 5; i++)
        ck_assert_int_lt(strcmp(stacktab_entry(t, o[i - 1])->stack,
                                stacktab_entry(t, o[i])->stack), 0);
    free(o);
    stacktab_free(t);
}
END_TEST

START_TEST(frame_order_puts_frames_before_longer_names)
{
    /* bytewise "a;b2" < "a;b;c" (0x32 < 0x3b) but frame-wise b < b2 */
    ck_assert_int_lt(stack_frames_cmp("a;b;c", 5, "a;b2", 4), 0);
    ck_assert_int_lt(stack_frames_cmp("a;b", 3, "a;b;c", 5), 0);
    ck_assert_int_gt(stack_frames_cmp("a;c", 3, "a;b;c", 5), 0);
    ck_assert_int_eq(stack_frames_cmp("a;b", 3, "a;b", 3), 0);
    stacktab *t = stacktab_new();
    add(t, "a;b2", 0, 1);
    add(t, "a;b;c", 0, 1);
    add(t, "a;b", 0, 1);
    size_t *o = stacktab_sorted(t, STACK_ORDER_FRAMES);
    ck_assert_str_eq(stacktab_entry(t, o[0])->stack, "a;b");
    ck_assert_str_eq(stacktab_entry(t, o[1])->stack, "a;b;c");
    ck_assert_str_eq(stacktab_entry(t, o[2])->stack, "a;b2");
    free(o);
    stacktab_free(t);
}
END_TEST

START_TEST(sequence_merges_adjacent_runs_only)
{
    stacktab *t = stacktab_new();
    stacktab_keep_sequence(t, true);
    add(t, "a", 0, 1);
    add(t, "a", 0, 2);
    add(t, "b", 0, 1);
    add(t, "a", 0, 4);
    ck_assert_uint_eq(stacktab_sequence_len(t), 3);
    const stack_event *ev = stacktab_sequence(t);
    ck_assert_double_eq(ev[0].weight, 3);
    ck_assert_str_eq(stacktab_entry(t, ev[1].entry)->stack, "b");
    ck_assert_double_eq(ev[2].weight, 4);
    ck_assert_uint_eq(ev[0].entry, ev[2].entry);
    stacktab_free(t);
}
END_TEST

START_TEST(scale_truncates_like_difffolded)
{
    stacktab *t = stacktab_new();
    add(t, "a", 0, 3);
    add(t, "b", 0, 5);
    stacktab_scale(t, 0, 1.5, true);
    ck_assert_double_eq(stacktab_find(t, "a", 1)->count[0], 4);
    ck_assert_double_eq(stacktab_find(t, "b", 1)->count[0], 7);
    ck_assert_double_eq(stacktab_total(t, 0), 11);
    stacktab_free(t);
}
END_TEST

START_TEST(keys_may_hold_any_bytes)
{
    stacktab *t = stacktab_new();
    const char k[] = { 'a', '\0', 'b', (char)0xff };
    stacktab_add(t, k, 4, 0, 1);
    stacktab_add(t, k, 2, 0, 1);
    ck_assert_uint_eq(stacktab_size(t), 2);
    const stack_entry *e = stacktab_find(t, k, 4);
    ck_assert_ptr_nonnull(e);
    ck_assert_uint_eq(e->len, 4);
    ck_assert_int_eq(memcmp(e->stack, k, 4), 0);
    stacktab_free(t);
}
END_TEST

TEST_SUITE(client_stacktab)
{
    Suite *s = suite_create(test_suite_name);
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, merges_identical_stacks);
    tcase_add_test(tc, two_columns_are_independent);
    tcase_add_test(tc, grows_past_rehash_and_keeps_keys);
    tcase_add_test(tc, byte_order_is_perl_sort);
    tcase_add_test(tc, frame_order_puts_frames_before_longer_names);
    tcase_add_test(tc, sequence_merges_adjacent_runs_only);
    tcase_add_test(tc, scale_truncates_like_difffolded);
    tcase_add_test(tc, keys_may_hold_any_bytes);
    suite_add_tcase(s, tc);
    return s;
}
