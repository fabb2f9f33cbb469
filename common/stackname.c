/* stackname: stack instance names (see stackname.h). */
#include "common/stackname.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

static bool percent_escaped(unsigned char c)
{
    return c == '%' || c < 0x20 || c >= 0x7f;
}

/* Bytes of the encoding of frame bytes [s, e) (not NUL-terminated). */
static size_t frame_encode(const unsigned char *s, const unsigned char *e, char *out)
{
    static const char hex[] = "0123456789ABCDEF";
    size_t k = 0;
    for (const unsigned char *c = s; c < e; c++) {
        bool edge = c == s || c + 1 == e;
        if (*c == ',') {
            out[k++] = ';';
        } else if (*c == ' ' && !edge) {
            out[k++] = '\t';
        } else if (*c == ' ' || percent_escaped(*c)) {
            out[k++] = '%';
            out[k++] = hex[*c >> 4];
            out[k++] = hex[*c & 15];
        } else {
            out[k++] = (char)*c;
        }
    }
    return k;
}

char *stackname_encode(const char *folded)
{
    size_t n = strlen(folded);
    char *out = malloc(3 * n + 1);     /* each byte at most three */
    if (out == NULL)
        return NULL;
    const unsigned char *p = (const unsigned char *)folded, *end = p + n;
    size_t k = 0;
    while (p <= end) {
        const unsigned char *e = memchr(p, ';', (size_t)(end - p));
        if (e == NULL)
            e = end;
        if (p != (const unsigned char *)folded)
            out[k++] = ',';
        k += frame_encode(p, e, out + k);
        p = e + 1;
    }
    out[k] = '\0';
    if (strcmp(out, STACKNAME_OTHER) == 0) {
        /* a stack of one frame called "[other]" is not the other stacks */
        memmove(out + 3, out + 1, k);
        memcpy(out, "%5B", 3);
    }
    return out;
}

static int hexval(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    return -1;
}

size_t stackname_decode(const char *name, size_t len, char *out)
{
    size_t k = 0;
    for (size_t i = 0; i < len; i++) {
        char c = name[i];
        int hi, lo;
        if (c == ',')
            out[k++] = ';';
        else if (c == ';')
            out[k++] = ',';
        else if (c == '\t')
            out[k++] = ' ';
        else if (c == '%' && i + 2 < len && (hi = hexval(name[i + 1])) >= 0 &&
                 (lo = hexval(name[i + 2])) >= 0) {
            out[k++] = (char)(hi << 4 | lo);
            i += 2;
        } else
            out[k++] = c;
    }
    out[k] = '\0';
    return k;
}
