/* jsondoc: bounded parsing and wide numbers (see jsondoc.h). */
#include "relay/jsondoc.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* What jansson 2.14 allocates per value on 64-bit glibc, rounded up from
 * measurements (tests/relay_jsondoc.c checks the estimate stays above
 * what jansson really takes, shape by shape).  Every value also costs
 * its parent's slot: an array's pointer, grown by doubling. */
#define COST_SLOT 16
#define COST_OBJECT (256 + COST_SLOT)   /* struct, hashtable with 8 buckets */
#define COST_ARRAY (144 + COST_SLOT)
#define COST_MEMBER 128                 /* hashtable pair and bucket share, + key */
#define COST_STRING (96 + COST_SLOT)    /* + its bytes */
#define COST_NUMBER (48 + COST_SLOT)
#define COST_LITERAL COST_SLOT          /* true, false, null are shared */

/* A kept number: "\u0000" then 'I' (integer) or 'R' (real) then its text. */
#define KEPT_INT 'I'
#define KEPT_REAL 'R'
#define KEPT_EXTRA 10                   /* the quotes, "\u0000" and the letter */

typedef struct wide {
    size_t at, len;
    char kind;
} wide;

typedef struct wides {
    wide *v;
    size_t n, cap;
    bool failed;
} wides;

static bool is_ws(char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

static bool number_char(char c)
{
    return (c >= '0' && c <= '9') || c == '-' || c == '+' || c == '.' || c == 'e' || c == 'E';
}

/* An integer literal outside int64, as strtoll (jansson) sees it. */
static bool int_too_wide(const char *t, size_t n)
{
    bool neg = n > 0 && t[0] == '-';
    const char *d = t + neg;
    size_t nd = n - neg;
    while (nd > 1 && d[0] == '0') {   /* leading zeros (invalid JSON anyway) */
        d++;
        nd--;
    }
    const char *lim = neg ? "9223372036854775808" : "9223372036854775807";
    if (nd != 19)
        return nd > 19;
    return memcmp(d, lim, 19) > 0;
}

/* A real literal whose value overflows a double, as jansson decides it. */
static bool real_too_wide(const char *t, size_t n)
{
    char small[64], *buf = n < sizeof(small) ? small : malloc(n + 1);
    if (buf == NULL)
        return false;   /* jansson will say what it says */
    memcpy(buf, t, n);
    buf[n] = '\0';
    errno = 0;
    double v = strtod(buf, NULL);
    bool wide = errno == ERANGE && (v == HUGE_VAL || v == -HUGE_VAL);
    if (buf != small)
        free(buf);
    return wide;
}

static void note_wide(wides *w, size_t at, size_t len, char kind)
{
    if (w == NULL || w->failed)
        return;
    if (w->n == w->cap) {
        size_t nc = w->cap ? w->cap * 2 : 16;
        wide *nv = realloc(w->v, nc * sizeof(*nv));
        if (nv == NULL) {
            w->failed = true;
            return;
        }
        w->v = nv;
        w->cap = nc;
    }
    w->v[w->n++] = (wide){at, len, kind};
}

/* Returns the index after the string that starts at t[i] (a quote). */
static size_t scan_string(const char *t, size_t len, size_t i, jsondoc_scan *sc)
{
    size_t start = ++i;
    while (i < len && t[i] != '"') {
        if (t[i] == '\\') {
            if (i + 5 < len && t[i + 1] == 'u' && memcmp(t + i + 2, "0000", 4) == 0)
                sc->nul_escape = true;
            i += 2;
        } else {
            i++;
        }
    }
    size_t n = (i < len ? i : len) - start;   /* raw bytes: at least the decoded ones */
    if (i < len)
        i++;
    size_t j = i;
    while (j < len && is_ws(t[j]))
        j++;
    if (j < len && t[j] == ':') {
        sc->members++;
        sc->key_bytes += n;
    } else {
        sc->strings++;
        sc->string_bytes += n;
    }
    return i;
}

static size_t scan_number(const char *t, size_t len, size_t i, jsondoc_scan *sc, wides *w)
{
    size_t start = i;
    bool real = false;
    while (i < len && number_char(t[i])) {
        real |= t[i] == '.' || t[i] == 'e' || t[i] == 'E';
        i++;
    }
    size_t n = i - start;
    bool too_wide = real ? real_too_wide(t + start, n) : int_too_wide(t + start, n);
    if (too_wide) {
        sc->wide_numbers++;
        sc->strings++;
        sc->string_bytes += n + 2;
        note_wide(w, start, n, real ? KEPT_REAL : KEPT_INT);
    } else {
        sc->numbers++;
    }
    return i;
}

static void scan(const char *t, size_t len, jsondoc_scan *sc, wides *w)
{
    memset(sc, 0, sizeof(*sc));
    size_t i = 0;
    while (i < len) {
        char c = t[i];
        if (c == '{') {
            sc->objects++;
            i++;
        } else if (c == '[') {
            sc->arrays++;
            i++;
        } else if (c == '"') {
            i = scan_string(t, len, i, sc);
        } else if (c == '-' || (c >= '0' && c <= '9')) {
            i = scan_number(t, len, i, sc, w);
        } else if (c >= 'a' && c <= 'z') {
            sc->literals++;
            while (i < len && t[i] >= 'a' && t[i] <= 'z')
                i++;
        } else {
            i++;
        }
    }
    /* saturating: the counts are bounded by len, the products are not */
    size_t est = 0, parts[] = {
        sc->objects * COST_OBJECT, sc->arrays * COST_ARRAY, sc->members * COST_MEMBER,
        sc->key_bytes, sc->strings * COST_STRING, sc->string_bytes,
        sc->numbers * COST_NUMBER, sc->literals * COST_LITERAL,
        sc->wide_numbers ? len + sc->wide_numbers * KEPT_EXTRA : 0,
    };
    for (size_t k = 0; k < sizeof(parts) / sizeof(parts[0]); k++)
        if (__builtin_add_overflow(est, parts[k], &est))
            est = SIZE_MAX;
    sc->estimate = est;
}

void jsondoc_prescan(const char *text, size_t len, jsondoc_scan *sc)
{
    scan(text, len, sc, NULL);
}

/* The text with each wide number written as a kept-number string. */
static char *keep_wide(const char *t, size_t len, const wides *w, size_t *outlen)
{
    size_t n = len + w->n * KEPT_EXTRA;
    char *out = malloc(n + 1), *p = out;
    if (out == NULL)
        return NULL;
    size_t from = 0;
    for (size_t k = 0; k < w->n; k++) {
        memcpy(p, t + from, w->v[k].at - from);
        p += w->v[k].at - from;
        p += sprintf(p, "\"\\u0000%c", w->v[k].kind);
        memcpy(p, t + w->v[k].at, w->v[k].len);
        p += w->v[k].len;
        *p++ = '"';
        from = w->v[k].at + w->v[k].len;
    }
    memcpy(p, t + from, len - from);
    p += len - from;
    *p = '\0';
    *outlen = (size_t)(p - out);
    return out;
}

json_t *jsondoc_parse(const char *text, size_t len, size_t max_memory, json_error_t *jerr,
                      char *err, size_t errlen)
{
    jsondoc_scan sc;
    wides w = {0};
    scan(text, len, &sc, &w);
    if (sc.estimate > max_memory) {
        free(w.v);
        memset(jerr, 0, sizeof(*jerr));
        snprintf(err, errlen, "parsing it would take about %zu MiB, more than "
                 "max_document_memory (%zu MiB): %zu objects, %zu arrays, %zu members, "
                 "%zu strings, %zu numbers in %zu bytes", sc.estimate >> 20, max_memory >> 20,
                 sc.objects, sc.arrays, sc.members, sc.strings, sc.numbers, len);
        return NULL;
    }
    json_t *doc = NULL;
    if (sc.wide_numbers == 0 || sc.nul_escape || w.failed) {
        /* nothing to keep, or invalid anyway: jansson says why */
        doc = json_loadb(text, len, 0, jerr);
    } else {
        size_t n;
        char *copy = keep_wide(text, len, &w, &n);
        if (copy == NULL) {
            memset(jerr, 0, sizeof(*jerr));
            snprintf(jerr->text, sizeof(jerr->text), "out of memory");
        } else {
            /* NULs come only from the kept numbers: the document's own
             * "\u0000" was ruled out above */
            doc = json_loadb(copy, n, JSON_ALLOW_NUL, jerr);
            free(copy);
        }
    }
    free(w.v);
    if (doc == NULL)
        snprintf(err, errlen, "invalid JSON at line %d column %d: %s", jerr->line, jerr->column,
                 jerr->text);
    return doc;
}

/* A kept number's kind letter followed by its text, else NULL. */
static const char *kept(const json_t *v)
{
    if (!json_is_string(v))
        return NULL;
    const char *s = json_string_value(v);
    size_t n = json_string_length(v);
    if (n >= 3 && s[0] == '\0' && (s[1] == KEPT_INT || s[1] == KEPT_REAL))
        return s + 1;
    return NULL;
}

const char *jsondoc_number_text(const json_t *v)
{
    const char *k = kept(v);
    return k != NULL ? k + 1 : NULL;
}

bool jsondoc_is_integer(const json_t *v)
{
    const char *k = kept(v);
    return json_is_integer(v) || (k != NULL && k[0] == KEPT_INT);
}

bool jsondoc_is_number(const json_t *v)
{
    return json_is_number(v) || kept(v) != NULL;
}

const char *jsondoc_string(const json_t *v, size_t *len)
{
    if (!json_is_string(v) || kept(v) != NULL)
        return NULL;
    if (len != NULL)
        *len = json_string_length(v);
    return json_string_value(v);
}

num_status jsondoc_int64(const json_t *v, int64_t *out)
{
    if (json_is_integer(v)) {
        *out = json_integer_value(v);
        return NUM_OK;
    }
    return jsondoc_is_integer(v) ? NUM_RANGE : NUM_NOT_NUMBER;
}

num_status jsondoc_uint64(const json_t *v, uint64_t *out)
{
    if (json_is_integer(v)) {
        json_int_t i = json_integer_value(v);
        if (i < 0)
            return NUM_RANGE;
        *out = (uint64_t)i;
        return NUM_OK;
    }
    const char *k = kept(v);
    if (k == NULL || k[0] != KEPT_INT)
        return NUM_NOT_NUMBER;
    const char *d = k + 1;
    if (d[0] == '-')
        return NUM_RANGE;
    while (d[0] == '0' && d[1] != '\0')
        d++;
    size_t nd = strlen(d);
    if (nd > 20 || (nd == 20 && strcmp(d, "18446744073709551615") > 0))
        return NUM_RANGE;
    uint64_t u = 0;
    for (; *d; d++)
        u = u * 10 + (uint64_t)(*d - '0');
    *out = u;
    return NUM_OK;
}

num_status jsondoc_double(const json_t *v, double *out)
{
    if (json_is_number(v)) {
        *out = json_number_value(v);
        return NUM_OK;
    }
    const char *k = kept(v);
    if (k == NULL)
        return NUM_NOT_NUMBER;
    if (k[0] == KEPT_REAL)
        return NUM_RANGE;   /* kept because it overflows a double */
    *out = strtod(k + 1, NULL);
    return isfinite(*out) ? NUM_OK : NUM_RANGE;
}
