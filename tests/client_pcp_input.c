/* Suite: client/input/pcp_input without a pmcd to reach: a host that
 * does not answer and an archive that is not there fail cleanly, with
 * the source named. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "client/cmd/builtin.h"
#include "tests/testutil.h"

START_TEST(unreachable_sources_fail_cleanly)
{
    char *dir = tu_mkdtemp();
    char path[1024];
    snprintf(path, sizeof path, "%s/err", dir);
    fflush(stderr);
    int saved = dup(2);
    FILE *ef = fopen(path, "w");
    dup2(fileno(ef), 2);
    char *a1[] = { "fold", "-h", "localhost:1", "staprelay.p.e", NULL };
    int rc1 = cmd_fold(4, a1);
    snprintf(path, sizeof path, "%s/no-such-archive", dir);
    char *a2[] = { "flame", "-a", path, "staprelay.p.e", NULL };
    int rc2 = cmd_flame(4, a2);
    fflush(stderr);
    dup2(saved, 2);
    close(saved);
    fclose(ef);
    snprintf(path, sizeof path, "%s/err", dir);
    char *err = tu_slurp(path);
    ck_assert_int_eq(rc1, 1);
    ck_assert_int_eq(rc2, 1);
    ck_assert_ptr_nonnull(strstr(err, "localhost:1: cannot open a connection"));
    ck_assert_ptr_nonnull(strstr(err, "no-such-archive: cannot open the archive"));
    free(err);
    tu_rmtree(dir);
    free(dir);
}
END_TEST

TEST_SUITE(client_pcp_input)
{
    Suite *s = suite_create(test_suite_name);
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, unreachable_sources_fail_cleanly);
    suite_add_tcase(s, tc);
    return s;
}
