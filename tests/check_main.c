/* check_main: the one Check runner program.  Linked with the suites of
 * one part (common, relay, pmda, client) and the list the Makefile
 * generates from their file names (tests/gen-suites.sh); runs them all,
 * or the one CK_RUN_SUITE names. */
#include <check.h>
#include <stdlib.h>

extern Suite *(*const test_suites[])(void);

int main(void)
{
    /* A test's time limit catches a hang; it measures nothing.  Check's
     * default of 4 s fails CPU-bound tests on a loaded machine (two cores
     * shared by several builds), so the default is a minute unless the
     * caller set one.  Read by tcase_create(), so before the suites. */
    setenv("CK_DEFAULT_TIMEOUT", "60", 0);
    SRunner *sr = srunner_create(NULL);
    for (size_t i = 0; test_suites[i] != NULL; i++)
        srunner_add_suite(sr, test_suites[i]());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
