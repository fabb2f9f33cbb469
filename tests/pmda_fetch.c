/* Suite: pmda/fetch, the shortcut for instance profiles (fetch_profile_takes_all)
 * agrees with libpcp's own per-instance check over every profile shape. */
#include "pmda/fetch.h"
#include "tests/testutil.h"

extern int __pmInProfile(pmInDom, const pmProfile *, int);

#define NINST 5

/* Whether libpcp's check passes every one of instances 0..NINST-1. */
static bool libpcp_takes_all(pmInDom indom, const pmProfile *prof)
{
    for (int i = 0; i < NINST; i++)
        if (!__pmInProfile(indom, prof, i))
            return false;
    return true;
}

START_TEST(profile_shortcut_matches_libpcp)
{
    pmInDom mine = pmInDom_build(490, 3), other = pmInDom_build(490, 4);
    int some[] = {1, 3};
    /* every global state x (no entry | entry for another domain | entry
     * for ours) x entry state x (no instances | some instances) */
    int cases = 0;
    for (int global = PM_PROFILE_INCLUDE; global <= PM_PROFILE_EXCLUDE; global++)
        for (int where = 0; where < 3; where++)
            for (int state = PM_PROFILE_INCLUDE; state <= PM_PROFILE_EXCLUDE; state++)
                for (int n = 0; n <= 2; n += 2) {
                    pmInDomProfile entry = {where == 2 ? mine : other, state, n, n ? some : NULL};
                    pmProfile prof = {global, where == 0 ? 0 : 1, where == 0 ? NULL : &entry};
                    ck_assert_msg(fetch_profile_takes_all(mine, &prof) == libpcp_takes_all(mine, &prof),
                                  "global %d, entry %d, state %d, %d instances", global, where,
                                  state, n);
                    cases++;
                }
    ck_assert_int_eq(cases, 24);
    ck_assert(fetch_profile_takes_all(mine, NULL));   /* no profile: all */
    /* the common case really takes the shortcut */
    pmProfile all = {PM_PROFILE_INCLUDE, 0, NULL};
    ck_assert(fetch_profile_takes_all(mine, &all));
    pmInDomProfile just_one = {mine, PM_PROFILE_EXCLUDE, 1, some};
    pmProfile pmval_i = {PM_PROFILE_INCLUDE, 1, &just_one};
    ck_assert(!fetch_profile_takes_all(mine, &pmval_i));
}
END_TEST

TEST_SUITE(pmda_fetch)
{
    Suite *s = suite_create(test_suite_name);
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, profile_shortcut_matches_libpcp);
    suite_add_tcase(s, tc);
    return s;
}
