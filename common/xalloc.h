/* xalloc: the client's one allocation rule.  Allocation cannot fail:
 * out of memory prints "staprelay: out of memory" and aborts (calloc also
 * when n * size overflows), so no caller checks for NULL and no caller
 * calls malloc/calloc/realloc/strdup directly. */
#ifndef STAPRELAY_XALLOC_H
#define STAPRELAY_XALLOC_H

#include <stddef.h>

void *xmalloc(size_t n);
/* n zeroed elements of size bytes. */
void *xcalloc(size_t n, size_t size);
void *xrealloc(void *p, size_t n);
char *xstrdup(const char *s);

#endif
