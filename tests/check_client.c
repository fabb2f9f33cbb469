/* Check runner for client/ suites: one suite per module, each defined
 * in tests/client_<module>.c. */
#include <check.h>
#include <stdlib.h>

Suite *client_stacktab_suite(void);
Suite *client_folded_suite(void);
Suite *client_perf_suite(void);
Suite *client_stap_suite(void);
Suite *client_input_suite(void);
Suite *client_flametree_suite(void);
Suite *client_palette_suite(void);
Suite *client_utf8_suite(void);
Suite *client_flamesvg_suite(void);
Suite *client_top_suite(void);
Suite *client_speedscope_suite(void);
Suite *client_commands_suite(void);
Suite *client_pcp_suite(void);
Suite *client_heatmap_suite(void);
Suite *client_live_suite(void);
Suite *client_run_suite(void);
Suite *client_runs_suite(void);
Suite *client_counters_suite(void);

int main(void)
{
    SRunner *sr = srunner_create(client_stacktab_suite());
    srunner_add_suite(sr, client_folded_suite());
    srunner_add_suite(sr, client_perf_suite());
    srunner_add_suite(sr, client_stap_suite());
    srunner_add_suite(sr, client_input_suite());
    srunner_add_suite(sr, client_flametree_suite());
    srunner_add_suite(sr, client_palette_suite());
    srunner_add_suite(sr, client_utf8_suite());
    srunner_add_suite(sr, client_flamesvg_suite());
    srunner_add_suite(sr, client_top_suite());
    srunner_add_suite(sr, client_speedscope_suite());
    srunner_add_suite(sr, client_commands_suite());
    srunner_add_suite(sr, client_pcp_suite());
    srunner_add_suite(sr, client_heatmap_suite());
    srunner_add_suite(sr, client_live_suite());
    srunner_add_suite(sr, client_counters_suite());
    srunner_add_suite(sr, client_run_suite());
    srunner_add_suite(sr, client_runs_suite());
    srunner_run_all(sr, CK_NORMAL);
    int nf = srunner_ntests_failed(sr);
    srunner_free(sr);
    return nf == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
