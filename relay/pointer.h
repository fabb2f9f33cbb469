/* pointer: RFC 6901 JSON Pointer evaluation over jansson values.
 * jansson has no pointer support; pmdajson used python's jsonpointer. */
#ifndef STAPRELAY_POINTER_H
#define STAPRELAY_POINTER_H

#include <jansson.h>

/* Returns 0 if text is a syntactically valid pointer ("" or "/..."). */
int pointer_check(const char *text);

/* Resolve ptr against doc.  Returns a borrowed reference, or NULL with a
 * reason in why (static text) when the target does not exist. */
json_t *pointer_get(json_t *doc, const char *ptr, const char **why);

#endif
