/* Suite: client/stack/flametree: merging, layout, deep stacks, modes. */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "client/stack/flametree.h"
#include "common/strbuf.h"
#include "tests/testutil.h"

static stacktab *table(const char *const *stacks, const double *w, size_t n)
{
    stacktab *t = stacktab_new();
    stacktab_keep_sequence(t, true);
    for (size_t i = 0; i < n; i++)
        stacktab_add(t, stacks[i], strlen(stacks[i]), 0, w[i]);
    return t;
}

static const ft_node *child(const flametree *t, uint32_t parent,
                            const char *name)
{
    for (uint32_t c = t->nodes[parent].first_child; c != FT_NONE;
         c = t->nodes[c].next_sibling)
        if (t->nodes[c].name_len == strlen(name)
            && memcmp(t->nodes[c].name, name, strlen(name)) == 0)
            return &t->nodes[c];
    return NULL;
}

static uint32_t idx(const flametree *t, const ft_node *n)
{
    return (uint32_t)(n - t->nodes);
}

/* Every node: value = own self + sum of children, children inside the
 * parent's span, siblings do not overlap. */
static void check_invariants(const flametree *t)
{
    for (size_t p = 0; p < t->n; p++) {
        double sum = 0, x = t->nodes[p].x;
        for (uint32_t c = t->nodes[p].first_child; c != FT_NONE;
             c = t->nodes[c].next_sibling) {
            ck_assert(t->nodes[c].parent == p);
            ck_assert_uint_eq(t->nodes[c].depth, t->nodes[p].depth + 1);
            ck_assert(t->nodes[c].x >= x);
            x = t->nodes[c].x + t->nodes[c].value;
            sum += t->nodes[c].value;
        }
        ck_assert(sum <= t->nodes[p].value + 1e-9);
        ck_assert(x <= t->nodes[p].x + t->nodes[p].value + 1e-9);
    }
}

START_TEST(merges_shared_prefixes)
{
    const char *s[] = { "main;b;x", "main;a", "main;b", "main;b;y", "other" };
    double w[] = { 2, 3, 4, 5, 1 };
    stacktab *tab = table(s, w, 5);
    ft_options o = { 0 };
    flametree *t = flametree_build(tab, &o);
    ck_assert_double_eq(flametree_total(t), 15);
    const ft_node *m = child(t, 0, "main");
    ck_assert_ptr_nonnull(m);
    ck_assert_double_eq(m->value, 14);
    const ft_node *b = child(t, idx(t, m), "b");
    ck_assert_double_eq(b->value, 11);
    ck_assert_double_eq(child(t, idx(t, b), "x")->value, 2);
    ck_assert_double_eq(child(t, idx(t, b), "y")->value, 5);
    /* siblings alphabetical: a before b */
    ck_assert_double_eq(child(t, idx(t, m), "a")->x, 0);
    ck_assert_double_eq(b->x, 3);
    ck_assert_uint_eq(t->maxdepth, 3);
    ck_assert_uint_eq(t->n, 1 + 1 + 2 + 2 + 1);
    check_invariants(t);
    flametree_free(t);
    stacktab_free(tab);
}
END_TEST

START_TEST(sort_by_weight_puts_widest_first)
{
    const char *s[] = { "r;a", "r;b", "r;c" };
    double w[] = { 1, 7, 3 };
    stacktab *tab = table(s, w, 3);
    ft_options o = { .sort_weight = true };
    flametree *t = flametree_build(tab, &o);
    const ft_node *r = child(t, 0, "r");
    const ft_node *first = &t->nodes[r->first_child];
    ck_assert_int_eq(strncmp(first->name, "b", first->name_len), 0);
    ck_assert_double_eq(first->x, 0);
    ck_assert_double_eq(child(t, idx(t, r), "c")->x, 7);
    ck_assert_double_eq(child(t, idx(t, r), "a")->x, 10);
    check_invariants(t);
    flametree_free(t);
    stacktab_free(tab);
}
END_TEST

START_TEST(flamechart_merges_adjacent_samples_only)
{
    const char *s[] = { "m;a", "m;a", "m;b", "m;a" };
    double w[] = { 1, 1, 1, 1 };
    stacktab *tab = table(s, w, 4);
    ft_options o = { .flamechart = true };
    flametree *t = flametree_build(tab, &o);
    const ft_node *m = child(t, 0, "m");
    ck_assert_double_eq(m->value, 4);
    int n = 0;
    double xs[3];
    for (uint32_t c = m->first_child; c != FT_NONE; c = t->nodes[c].next_sibling)
        xs[n++] = t->nodes[c].x;
    ck_assert_int_eq(n, 3);      /* a, b, a: time order kept */
    ck_assert_double_eq(xs[0], 0);
    ck_assert_double_eq(xs[1], 2);
    ck_assert_double_eq(xs[2], 3);
    flametree_free(t);
    stacktab_free(tab);
}
END_TEST

START_TEST(reverse_merges_on_reversed_stacks)
{
    const char *s[] = { "a;x;leaf", "b;y;leaf", "c;leaf2" };
    double w[] = { 2, 3, 4 };
    stacktab *tab = table(s, w, 3);
    ft_options o = { .reverse = true };
    flametree *t = flametree_build(tab, &o);
    const ft_node *leaf = child(t, 0, "leaf");
    ck_assert_ptr_nonnull(leaf);
    ck_assert_double_eq(leaf->value, 5);
    ck_assert_ptr_nonnull(child(t, idx(t, leaf), "x"));
    ck_assert_double_eq(child(t, 0, "leaf2")->value, 4);
    check_invariants(t);
    flametree_free(t);
    stacktab_free(tab);
}
END_TEST

START_TEST(differential_delta_on_last_frame)
{
    stacktab *tab = stacktab_new();
    stacktab_add(tab, "m;a", 3, 0, 10);
    stacktab_add(tab, "m;a", 3, 1, 4);
    stacktab_add(tab, "m;b", 3, 1, 8);
    stacktab_add(tab, "m", 1, 0, 2);
    ft_options o = { .mode = FT_DIFF };
    flametree *t = flametree_build(tab, &o);
    ck_assert(t->has_delta);
    ck_assert_double_eq(flametree_total(t), 12);   /* widths from after */
    const ft_node *m = child(t, 0, "m");
    ck_assert_double_eq(m->delta, -2);
    ck_assert_double_eq(child(t, idx(t, m), "a")->delta, -6);
    ck_assert_double_eq(child(t, idx(t, m), "b")->delta, 8);
    ck_assert_double_eq(t->maxdelta, 8);
    flametree_free(t);

    ft_options e = { .mode = FT_ELIDED };
    t = flametree_build(tab, &e);
    ck_assert_double_eq(flametree_total(t), 10);   /* "m;b" 8 + "m" 2 */
    ck_assert_ptr_null(child(t, idx(t, child(t, 0, "m")), "a"));
    flametree_free(t);
    stacktab_free(tab);
}
END_TEST

START_TEST(deep_stacks_need_no_recursion)
{
    strbuf sb = STRBUF_INIT;
    for (int i = 0; i < 20000; i++)
        sb_printf(&sb, i ? ";f%d" : "f%d", i);
    stacktab *tab = stacktab_new();
    stacktab_add(tab, sb.buf, sb.len, 0, 3);
    stacktab_add(tab, "f0", 2, 0, 1);
    ft_options o = { .sort_weight = true };
    flametree *t = flametree_build(tab, &o);
    ck_assert_uint_eq(t->maxdepth, 20000);
    ck_assert_uint_eq(t->n, 20001);
    ck_assert_double_eq(t->nodes[t->n - 1].value, 3);
    check_invariants(t);
    flametree_free(t);
    stacktab_free(tab);
    sb_free(&sb);
}
END_TEST

TEST_SUITE(client_flametree)
{
    Suite *s = suite_create(test_suite_name);
    TCase *tc = tcase_create("tree");
    tcase_add_test(tc, merges_shared_prefixes);
    tcase_add_test(tc, sort_by_weight_puts_widest_first);
    tcase_add_test(tc, flamechart_merges_adjacent_samples_only);
    tcase_add_test(tc, reverse_merges_on_reversed_stacks);
    tcase_add_test(tc, differential_delta_on_last_frame);
    tcase_add_test(tc, deep_stacks_need_no_recursion);
    suite_add_tcase(s, tc);
    return s;
}
