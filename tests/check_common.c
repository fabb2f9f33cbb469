/* Check runner for common/ suites. */
#include <check.h>
#include <stdlib.h>

Suite *common_strbuf_suite(void);
Suite *common_frames_suite(void);
Suite *common_perf_header_suite(void);
Suite *common_stackname_suite(void);

int main(void)
{
    SRunner *sr = srunner_create(common_strbuf_suite());
    srunner_add_suite(sr, common_frames_suite());
    srunner_add_suite(sr, common_perf_header_suite());
    srunner_add_suite(sr, common_stackname_suite());
    srunner_run_all(sr, CK_NORMAL);
    int nf = srunner_ntests_failed(sr);
    srunner_free(sr);
    return nf == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
