/* Check runner for relay/ suites. */
#include "tests/suites.h"
#include <stdlib.h>

int main(void)
{
    SRunner *sr = srunner_create(strmap_suite());
    srunner_add_suite(sr, pointer_suite());
    srunner_add_suite(sr, config_suite());
    srunner_add_suite(sr, metadata_suite());
    srunner_add_suite(sr, snapshot_suite());
    srunner_add_suite(sr, exec_suite());
    srunner_add_suite(sr, source_suite());
    srunner_add_suite(sr, stack_suite());
    srunner_add_suite(sr, evqueue_suite());
    srunner_add_suite(sr, events_suite());
    srunner_add_suite(sr, corpus_suite());
    srunner_add_suite(sr, trust_suite());
    srunner_add_suite(sr, runs_suite());
    srunner_add_suite(sr, histogram_suite());
    srunner_add_suite(sr, stackcount_suite());
    srunner_add_suite(sr, subsecond_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
