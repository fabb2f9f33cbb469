/* Suite: the batched stacks counter (relay/stackcount): rows change only
 * at refreshes, the heaviest stacks are kept, a dropped stack freezes for
 * one period, and -- the property clients rely on -- the increments of
 * the rows between two refreshes (a new row counting from zero) add up to
 * exactly the samples added in between, whatever the input. */
#include "relay/stackcount.h"
#include "tests/testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static stackcount *make(size_t max, double refresh)
{
    stackcount_limits lim = {max, 4 * max, refresh, 600};
    stackcount *t = stackcount_new(&lim);
    ck_assert_ptr_nonnull(t);
    return t;
}

static uint64_t value(const stackcount *t, const char *name)
{
    for (size_t i = 0; i < stackcount_size(t); i++)
        if (strcmp(stackcount_entry(t, i)->name, name) == 0)
            return stackcount_entry(t, i)->count;
    return UINT64_MAX;   /* not a row */
}

START_TEST(first_refresh_shows_every_stack)
{
    stackcount *t = make(10, 600);
    ck_assert_uint_eq(stackcount_size(t), 1);               /* [other] alone */
    ck_assert_str_eq(stackcount_entry(t, 0)->name, "[other]");
    stackcount_add(t, "main;a b", 3, 100);
    stackcount_add(t, "main;c,d", 1, 100);
    stackcount_tick(t, 100);                                 /* due at once */
    ck_assert_uint_eq(stackcount_size(t), 3);
    ck_assert_uint_eq(value(t, "main,a\tb"), 3);             /* the pending weight */
    ck_assert_uint_eq(value(t, "main,c;d"), 1);
    ck_assert_uint_eq(value(t, "[other]"), 0);
    ck_assert_str_eq(stackcount_entry(t, stackcount_size(t) - 1)->name, "[other]");
    /* a kept stack counts at once, with no refresh */
    stackcount_add(t, "main;a b", 2, 100.5);
    ck_assert_uint_eq(value(t, "main,a\tb"), 5);
    stackcount_free(t);
}
END_TEST

START_TEST(refreshes_double_up_to_the_limit)
{
    stackcount *t = make(10, 8);
    stackcount_add(t, "a", 1, 0);
    double expect[] = {0, 1, 3, 7, 15, 23, 31};   /* intervals 1, 2, 4, 8, 8, 8 */
    for (size_t k = 0; k < sizeof(expect) / sizeof(expect[0]); k++) {
        ck_assert_double_eq(stackcount_next_refresh(t), expect[k]);
        stackcount_tick(t, expect[k] - 0.01);        /* not yet */
        ck_assert_double_eq(stackcount_next_refresh(t), expect[k]);
        stackcount_add(t, "a", 1, expect[k]);
        stackcount_tick(t, expect[k]);
    }
    stackcount_free(t);
}
END_TEST

START_TEST(heaviest_kept_rest_in_other)
{
    stackcount *t = make(3, 600);
    const char *s[] = {"m;a", "m;b", "m;c", "m;d", "m;e"};
    uint64_t w[] = {10, 9, 8, 2, 1};
    for (int i = 0; i < 5; i++)
        stackcount_add(t, s[i], w[i], 0);
    stackcount_tick(t, 0);
    ck_assert_uint_eq(stackcount_size(t), 4);
    ck_assert_uint_eq(value(t, "m,a"), 10);
    ck_assert_uint_eq(value(t, "m,b"), 9);
    ck_assert_uint_eq(value(t, "m,c"), 8);
    ck_assert_uint_eq(value(t, "m,d"), UINT64_MAX);
    ck_assert_uint_eq(value(t, "[other]"), 3);
    /* samples of a stack not kept wait for the next refresh */
    stackcount_add(t, "m;d", 3, 0.5);
    ck_assert_uint_eq(value(t, "[other]"), 3);
    uint64_t g = stackcount_generation(t);
    stackcount_tick(t, 1);     /* d scores 2/2 + 3 = 4 < c's 8/2 * 1.25: no change */
    ck_assert_uint_eq(stackcount_generation(t), g);
    ck_assert_uint_eq(value(t, "[other]"), 6);
    stackcount_free(t);
}
END_TEST

START_TEST(newcomer_needs_a_quarter_more)
{
    stackcount *t = make(1, 600);
    stackcount_add(t, "kept", 10, 0);
    stackcount_tick(t, 0);                              /* kept: score 10 */
    stackcount_add(t, "kept", 10, 0.5);
    stackcount_add(t, "new", 14, 0.5);
    stackcount_tick(t, 1);   /* kept 5 + 10 = 15 * 1.25 = 18.75 > 14 */
    ck_assert_uint_eq(value(t, "kept"), 20);
    ck_assert_uint_eq(value(t, "new"), UINT64_MAX);
    ck_assert_uint_eq(value(t, "[other]"), 14);
    stackcount_add(t, "new", 30, 2);
    stackcount_tick(t, 3);   /* kept 7.5 * 1.25 = 9.4 < new 7 + 30 = 37 */
    ck_assert_uint_eq(value(t, "new"), 30);
    /* the dropped stack stays one period, frozen: its samples go to
     * [other] at the next refresh */
    ck_assert_uint_eq(value(t, "kept"), 20);
    stackcount_add(t, "kept", 1, 4);
    ck_assert_uint_eq(value(t, "kept"), 20);
    ck_assert_uint_eq(stackcount_evicted(t), 0);
    /* it leaves at the next change of the instances, not before: nothing
     * changes at 7 (no newcomer), its late sample goes to [other] */
    uint64_t g = stackcount_generation(t);
    stackcount_add(t, "new", 30, 6);
    stackcount_tick(t, 7);
    ck_assert_uint_eq(value(t, "kept"), 20);
    ck_assert_uint_eq(value(t, "[other]"), 15);
    ck_assert_uint_eq(stackcount_generation(t), g);
    stackcount_add(t, "third", 1000, 8);
    stackcount_tick(t, 15);     /* third in, new frozen, kept gone */
    ck_assert_uint_eq(value(t, "kept"), UINT64_MAX);
    ck_assert_uint_eq(value(t, "third"), 1000);
    ck_assert_uint_eq(value(t, "new"), 60);
    ck_assert_uint_eq(stackcount_evicted(t), 1);
    ck_assert_uint_gt(stackcount_generation(t), g);
    stackcount_free(t);
}
END_TEST

/* Near ties do not change the instances: a newcomer a little heavier
 * than the lightest kept stack (past the quarter, short of MATERIAL of all
 * the samples) waits in [other]. */
START_TEST(near_ties_change_nothing)
{
    stackcount *t = make(10, 600);
    char name[16];
    for (int i = 0; i < 10; i++) {
        snprintf(name, sizeof(name), "s%d", i);
        stackcount_add(t, name, 1000, 0);
    }
    stackcount_tick(t, 0);
    uint64_t g = stackcount_generation(t);
    for (int i = 0; i < 9; i++) {
        snprintf(name, sizeof(name), "s%d", i);
        stackcount_add(t, name, 1000, 0.5);
    }
    stackcount_add(t, "s9", 100, 0.5);
    stackcount_add(t, "tail", 800, 0.5);
    /* s9 scores 600 (750 with the bonus), tail 800: tail would win, by 200
     * of 14,900 (< 2 %): no change, tail's samples go to [other] */
    stackcount_tick(t, 1);
    ck_assert_uint_eq(stackcount_generation(t), g);
    ck_assert_uint_eq(value(t, "tail"), UINT64_MAX);
    ck_assert_uint_eq(value(t, "[other]"), 800);
    /* a material lead: s9 300, tail 400 + 2000 */
    stackcount_add(t, "tail", 2000, 1.5);
    stackcount_tick(t, 3);
    ck_assert_uint_gt(stackcount_generation(t), g);
    ck_assert_uint_eq(value(t, "tail"), 2000);
    stackcount_free(t);
}
END_TEST

START_TEST(frozen_stack_kept_again_resumes)
{
    stackcount *t = make(1, 600);
    stackcount_add(t, "a", 10, 0);
    stackcount_tick(t, 0);
    stackcount_add(t, "b", 100, 0.5);
    stackcount_tick(t, 1);                        /* b in, a frozen at 10 */
    ck_assert_uint_eq(value(t, "a"), 10);
    stackcount_add(t, "a", 1000, 2);
    uint64_t g = stackcount_generation(t);
    stackcount_tick(t, 3);                        /* a back: same row, +1000 */
    ck_assert_uint_eq(value(t, "a"), 1010);
    ck_assert_uint_eq(value(t, "b"), 100);        /* b frozen now */
    ck_assert_uint_eq(stackcount_generation(t), g);   /* no row came or went */
    stackcount_free(t);
}
END_TEST

START_TEST(unseen_stack_expires)
{
    stackcount_limits lim = {5, 20, 10, 30};
    stackcount *t = stackcount_new(&lim);
    stackcount_add(t, "old", 5, 0);
    stackcount_tick(t, 0);
    for (double now = 1; now < 100; now += 1) {
        stackcount_add(t, "live", 1, now);
        stackcount_tick(t, now);
    }
    /* expired, but nothing changed since: still an instance, not counting */
    ck_assert_uint_eq(value(t, "old"), 5);
    ck_assert_uint_ne(value(t, "live"), UINT64_MAX);
    /* the next change takes it at once, without a frozen period */
    stackcount_add(t, "fresh", 50, 100);
    stackcount_tick(t, 105);
    ck_assert_uint_eq(value(t, "old"), UINT64_MAX);
    ck_assert_uint_eq(value(t, "fresh"), 50);
    ck_assert_uint_eq(stackcount_candidates(t), 2);
    stackcount_free(t);
}
END_TEST

START_TEST(bytes_bounded_and_counts_saturate)
{
    stackcount *t = make(100, 600);
    stackcount_set_max_bytes(t, 4000);
    char big[3000];
    memset(big, 'x', sizeof(big) - 1);
    big[sizeof(big) - 1] = '\0';
    /* larger than the bound alone: never tracked, its weight is [other]'s */
    ck_assert_int_eq(stackcount_add(t, big, 7, 0), -1);
    ck_assert_uint_eq(stackcount_candidates(t), 0);
    char name[64];
    for (int i = 0; i < 200; i++) {
        snprintf(name, sizeof(name), "main;frame_number_%d;leaf", i);
        stackcount_add(t, name, 1, 0);
        ck_assert_uint_le(stackcount_bytes(t), 4000);
    }
    /* the big one, and every stack forgotten for room, is counted as let go */
    ck_assert_uint_eq(stackcount_evicted(t), 1 + 200 - stackcount_candidates(t));
    ck_assert_uint_gt(stackcount_evicted(t), 1);
    stackcount_tick(t, 0);
    ck_assert_uint_le(stackcount_bytes(t), 4000);
    /* the rows fit in half the bound; every sample is somewhere */
    uint64_t sum = 0;
    for (size_t i = 0; i < stackcount_size(t); i++)
        sum += stackcount_entry(t, i)->count;
    ck_assert_uint_eq(sum, 207);
    stackcount_free(t);
    /* a count that would wrap stops at the top, in a row and in [other] */
    t = make(1, 600);
    stackcount_add(t, "a", 5, 0);
    stackcount_add(t, "b", 1, 0);
    stackcount_tick(t, 0);
    ck_assert_uint_eq(value(t, "a"), 5);
    stackcount_add(t, "a", UINT64_MAX - 3, 0.5);
    stackcount_add(t, "b", UINT64_MAX, 0.5);
    ck_assert_uint_eq(value(t, "a"), UINT64_MAX);
    stackcount_tick(t, 1);
    ck_assert_uint_eq(value(t, "[other]"), UINT64_MAX);
    stackcount_free(t);
}
END_TEST

/* The clients' rule: between two snapshots taken at refreshes, a row seen
 * in both grew by its difference, a new row by its whole value. */
typedef struct snap {
    size_t n;
    char **names;
    uint64_t *counts;
} snap;

static snap take(const stackcount *t)
{
    snap s = {stackcount_size(t), NULL, NULL};
    s.names = calloc(s.n, sizeof(char *));
    s.counts = calloc(s.n, sizeof(uint64_t));
    for (size_t i = 0; i < s.n; i++) {
        s.names[i] = strdup(stackcount_entry(t, i)->name);
        s.counts[i] = stackcount_entry(t, i)->count;
    }
    return s;
}

static void drop(snap *s)
{
    for (size_t i = 0; i < s->n; i++)
        free(s->names[i]);
    free(s->names);
    free(s->counts);
}

static uint64_t increments(const snap *a, const snap *b)
{
    uint64_t sum = 0;
    for (size_t j = 0; j < b->n; j++) {
        uint64_t before = 0;
        for (size_t i = 0; i < a->n; i++)
            if (strcmp(a->names[i], b->names[j]) == 0)
                before = a->counts[i];
        ck_assert_uint_ge(b->counts[j], before);   /* never goes back */
        sum += b->counts[j] - before;
    }
    return sum;
}

static void run_conservation(size_t max, size_t nstacks, unsigned seed)
{
    stackcount_limits lim = {max, 4 * max, 4, 20};
    stackcount *t = stackcount_new(&lim);
    srand(seed);
    char name[64];
    uint64_t added = 0;
    snap prev = take(t);
    for (int step = 0; step < 400; step++) {
        double now = step * 0.5;
        int nadd = rand() % 40;
        for (int k = 0; k < nadd; k++) {
            /* skewed: low numbers are hot; late in the run new stacks appear */
            int r = rand() % (int)nstacks, r2 = rand() % (int)nstacks;
            int id = (r < r2 ? r : r2) + (step > 200 ? (int)nstacks / 2 : 0);
            snprintf(name, sizeof(name), "main;f%d;g%d", id % 7, id);
            uint64_t w = 1 + (uint64_t)(rand() % 3);
            stackcount_add(t, name, w, now);
            added += w;
        }
        uint64_t g = stackcount_generation(t);
        double due = stackcount_next_refresh(t);
        stackcount_tick(t, now);
        if (due >= 0 && now >= due) {
            snap cur = take(t);
            ck_assert_uint_eq(increments(&prev, &cur), added);
            ck_assert_uint_le(cur.n, 2 * max + 1);
            drop(&prev);
            prev = cur;
            added = 0;
        } else {
            ck_assert_uint_eq(stackcount_generation(t), g);   /* rows change only at refreshes */
        }
    }
    drop(&prev);
    stackcount_free(t);
}

START_TEST(increments_add_up_to_the_samples)
{
    run_conservation(5, 20, 1);
    run_conservation(5, 400, 2);      /* the candidate table fills and forgets */
    run_conservation(50, 60, 3);
    run_conservation(1, 3, 4);
}
END_TEST

TEST_SUITE(relay_stackcount)
{
    Suite *s = suite_create(test_suite_name);
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, first_refresh_shows_every_stack);
    tcase_add_test(tc, refreshes_double_up_to_the_limit);
    tcase_add_test(tc, heaviest_kept_rest_in_other);
    tcase_add_test(tc, newcomer_needs_a_quarter_more);
    tcase_add_test(tc, near_ties_change_nothing);
    tcase_add_test(tc, frozen_stack_kept_again_resumes);
    tcase_add_test(tc, unseen_stack_expires);
    tcase_add_test(tc, increments_add_up_to_the_samples);
    tcase_add_test(tc, bytes_bounded_and_counts_saturate);
    suite_add_tcase(s, tc);
    return s;
}
