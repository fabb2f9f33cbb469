/* xalloc: allocation that cannot fail (out of memory aborts with a
 * message), shared by the client's data structures. */
#ifndef STAPRELAY_XALLOC_H
#define STAPRELAY_XALLOC_H

#include <stddef.h>

void *xmalloc(size_t n);
void *xrealloc(void *p, size_t n);
char *xstrdup(const char *s);

#endif
