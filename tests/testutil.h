/* testutil: what the Check suites share -- the suite macro and small
 * helpers (temporary directories and files).  Every path returned is
 * owned by the caller. */
#ifndef STAPRELAY_TESTUTIL_H
#define STAPRELAY_TESTUTIL_H

#include <check.h>
#include <stddef.h>

/* Each tests/<part>_<module>.c tests one module and defines its one
 * suite, named after the file: TEST_SUITE(<part>_<module>) { ... return
 * s; }, with suite_create(test_suite_name).  The Makefile registers the
 * suite of every tests/<part>_*.c in check_<part>'s list (tests/
 * gen-suites.sh); nothing is kept by hand. */
#define TEST_SUITE(name)                               \
    static const char test_suite_name[] = #name;       \
    Suite *name##_suite(void);                         \
    Suite *name##_suite(void)

/* Create a fresh directory under $TMPDIR; returns a malloc'd path. */
char *tu_mkdtemp(void);
/* Write text to dir/name (creating intermediate directories); returns 0. */
int tu_write(const char *dir, const char *name, const char *text);
/* a/b, malloc'd (the test fails when out of memory). */
char *tu_join(const char *a, const char *b);
/* Does anybody hold the FIFO open for reading?  (Opening its write end
 * without blocking fails with ENXIO when nobody does.) */
int tu_fifo_has_reader(const char *path);
/* Remove a tree (best effort). */
void tu_rmtree(const char *path);
/* Read a whole file; malloc'd, NUL-terminated, or NULL. */
char *tu_slurp(const char *path);
/* Entries in a directory, "." and ".." not counted; -1 if unreadable. */
int tu_count_entries(const char *dir);

#endif
