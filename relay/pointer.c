/* pointer: RFC 6901 JSON Pointer evaluation. */
#include "relay/pointer.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int pointer_check(const char *text)
{
    if (text == NULL)
        return -1;
    if (*text != '\0' && *text != '/')
        return -1;
    for (const char *p = text; *p; p++)
        if (*p == '~' && p[1] != '0' && p[1] != '1')
            return -1;
    return 0;
}

/* Decode one reference token (~1 -> '/', ~0 -> '~') into buf. */
static size_t decode_token(const char *tok, size_t len, char *buf)
{
    size_t n = 0;
    for (size_t i = 0; i < len; i++) {
        if (tok[i] == '~' && i + 1 < len) {
            buf[n++] = tok[i + 1] == '1' ? '/' : '~';
            i++;
        } else {
            buf[n++] = tok[i];
        }
    }
    buf[n] = '\0';
    return n;
}

/* An array index is "0" or digits without a leading zero (RFC 6901 §4). */
static int array_index(const char *tok, size_t *idx)
{
    if (*tok == '\0' || (tok[0] == '0' && tok[1] != '\0'))
        return -1;
    size_t v = 0;
    for (const char *p = tok; *p; p++) {
        if (*p < '0' || *p > '9')
            return -1;
        if (v > (SIZE_MAX - 9) / 10)
            return -1;
        v = v * 10 + (size_t)(*p - '0');
    }
    *idx = v;
    return 0;
}

json_t *pointer_get(json_t *doc, const char *ptr, const char **why)
{
    const char *dummy;
    if (why == NULL)
        why = &dummy;
    if (pointer_check(ptr) != 0) {
        *why = "invalid JSON pointer";
        return NULL;
    }
    json_t *cur = doc;
    const char *p = ptr;
    char small[256];
    while (*p == '/') {
        const char *tok = p + 1;
        const char *end = strchr(tok, '/');
        size_t len = end ? (size_t)(end - tok) : strlen(tok);
        char *buf = len < sizeof(small) ? small : malloc(len + 1);
        if (buf == NULL) {
            *why = "out of memory";
            return NULL;
        }
        size_t klen = decode_token(tok, len, buf);
        json_t *next = NULL;
        if (json_is_object(cur)) {
            next = json_object_getn(cur, buf, klen);
            if (next == NULL)
                *why = "pointer not found in data";
        } else if (json_is_array(cur)) {
            size_t idx;
            if (array_index(buf, &idx) != 0)
                *why = "pointer token is not an array index";
            else if ((next = json_array_get(cur, idx)) == NULL)
                *why = "array index out of range";
        } else {
            *why = "pointer goes through a non-container value";
        }
        if (buf != small)
            free(buf);
        if (next == NULL)
            return NULL;
        cur = next;
        p = tok + len;
    }
    return cur;
}
