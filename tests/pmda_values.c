/* Suite: pmda/values, which metadata labels the PMDA hands to PCP (values_labels_fit):
 * everything it accepts, PCP's own pmdaAddLabels accepts too. */
#include "pmda/values.h"
#include "tests/testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* {"l0000":1,...} with n labels */
static char *many(int n)
{
    char *buf = malloc((size_t)n * 16 + 4), *p = buf;
    p += sprintf(p, "{");
    for (int i = 0; i < n; i++)
        p += sprintf(p, "%s\"l%04d\":1", i ? "," : "", i);
    sprintf(p, "}");
    return buf;
}

/* {"NAME":"VALUE"} with a name of namelen and a total length of total */
static char *sized(size_t namelen, size_t total)
{
    size_t vlen = total - namelen - 7;
    char *buf = malloc(total + 1), *p = buf;
    *p++ = '{';
    *p++ = '"';
    memset(p, 'n', namelen);
    p += namelen;
    memcpy(p, "\":\"", 3);
    p += 3;
    memset(p, 'v', vlen);
    p += vlen;
    memcpy(p, "\"}", 3);
    ck_assert_uint_eq(strlen(buf), total);
    return buf;
}

static void check(char *json, bool fit)
{
    char why[200] = "";
    ck_assert_msg(values_labels_fit(json, why, sizeof(why)) == fit, "%.60s...: %s", json, why);
    if (fit) {
        pmLabelSet *ls = NULL;
        int rc = pmdaAddLabels(&ls, "%s", json);
        ck_assert_msg(rc > 0, "PCP refuses what the PMDA accepts: %.60s...: %d", json, rc);
        pmFreeLabelSets(ls, 1);
    } else {
        ck_assert_str_ne(why, "");
    }
    free(json);
}

START_TEST(labels_fit_pcp_limits)
{
    check(many(1), true);
    check(many(64), true);
    check(many(65), false);
    check(many(300), false);
    check(sized(128, 200), true);
    check(sized(129, 200), false);
    check(sized(300, 400), false);
    check(sized(10, 4096), true);
    check(sized(10, 4097), false);
    check(sized(10, 65400), false);
    check(strdup("{\"ctl\":\"x\\u0001\\ny\\t\",\"q\":\"say \\\"hi\\\"\",\"u\":\"caf\xc3\xa9\"}"), true);
    check(strdup("[1]"), false);
    check(strdup("{\"a\": "), false);
}
END_TEST

TEST_SUITE(pmda_values)
{
    Suite *s = suite_create(test_suite_name);
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, labels_fit_pcp_limits);
    suite_add_tcase(s, tc);
    return s;
}
