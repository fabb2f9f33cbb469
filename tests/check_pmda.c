/* Check runner for pmda/ suites (the parts testable without pmcd). */
#include "tests/suites.h"
#include <stdlib.h>

int main(void)
{
    SRunner *sr = srunner_create(idmap_suite());
    srunner_add_suite(sr, instances_suite());
    srunner_add_suite(sr, labels_suite());
    srunner_add_suite(sr, profile_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
