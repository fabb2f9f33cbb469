/* check_main: the one Check runner program.  Linked with the suites of
 * one part (common, relay, pmda, client) and the list the Makefile
 * generates from their file names (tests/gen-suites.sh); runs them all,
 * or the one CK_RUN_SUITE names. */
#include <check.h>
#include <stdlib.h>

extern Suite *(*const test_suites[])(void);

int main(void)
{
    SRunner *sr = srunner_create(NULL);
    for (size_t i = 0; test_suites[i] != NULL; i++)
        srunner_add_suite(sr, test_suites[i]());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
