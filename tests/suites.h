/* Suite constructors for the relay and pmda Check runners. */
#ifndef STAPRELAY_SUITES_H
#define STAPRELAY_SUITES_H
#include <check.h>
Suite *strmap_suite(void);
Suite *pointer_suite(void);
Suite *config_suite(void);
Suite *metadata_suite(void);
Suite *snapshot_suite(void);
Suite *exec_suite(void);
Suite *source_suite(void);
Suite *idmap_suite(void);
Suite *stack_suite(void);
Suite *evqueue_suite(void);
Suite *events_suite(void);
Suite *corpus_suite(void);
Suite *instances_suite(void);
Suite *trust_suite(void);
Suite *labels_suite(void);
Suite *profile_suite(void);
Suite *runs_suite(void);
Suite *histogram_suite(void);
Suite *stackcount_suite(void);
Suite *subsecond_suite(void);
#endif
