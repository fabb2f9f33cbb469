/* testutil: small helpers shared by the Check suites (temporary
 * directories and files).  Every path returned is owned by the caller. */
#ifndef STAPRELAY_TESTUTIL_H
#define STAPRELAY_TESTUTIL_H

#include <stddef.h>

/* Create a fresh directory under $TMPDIR; returns a malloc'd path. */
char *tu_mkdtemp(void);
/* Write text to dir/name (creating intermediate directories); returns 0. */
int tu_write(const char *dir, const char *name, const char *text);
/* Remove a tree (best effort). */
void tu_rmtree(const char *path);
/* Read a whole file; malloc'd, NUL-terminated, or NULL. */
char *tu_slurp(const char *path);
/* Entries in a directory, "." and ".." not counted; -1 if unreadable. */
int tu_count_entries(const char *dir);

#endif
