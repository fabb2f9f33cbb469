/* jsondoc: bounded parsing and wide numbers (see jsondoc.h). */
#include "relay/jsondoc.h"

#include <errno.h>
#include <inttypes.h>
#include <locale.h>
#include <math.h>
#include <stddef.h>
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

/* ---- the fast path ------------------------------------------------------
 *
 * jansson's lexer reads a document a character at a time through a stream
 * and copies every token twice; for a data document that is most of the
 * parse.  fast_parse builds the same tree through jansson's own
 * constructors (json_object_setn_new_nocheck is what jansson's parser
 * calls: the same order, a repeated key's last value) from a direct scan
 * of the text, for the JSON jansson accepts without options.  Anything it
 * does not take on -- an error, an escape \u, wide numbers, deep nesting,
 * a locale whose decimal point is not '.' -- gives up, and jansson parses
 * the document itself (its own answer, its own error message).  So the
 * fast path only has to be exact on what it accepts: tests/relay_jsondoc.c
 * compares it with jansson's tree document by document. */

#define FAST_MAX_DEPTH 512     /* jansson's limit is 2048: deeper goes to jansson */

typedef struct fast {
    const unsigned char *p, *end;
    char *buf;                 /* a string with escapes, decoded */
    size_t cap;
    int depth;
} fast;

static void fast_ws(fast *f)
{
    while (f->p < f->end && (*f->p == ' ' || *f->p == '\n' || *f->p == '\r' || *f->p == '\t'))
        f->p++;
}

/* Length of a valid UTF-8 sequence of more than one byte at p (as
 * jansson's utf8_check_full: no overlong forms, no surrogates, nothing
 * past U+10FFFF), else 0. */
static size_t utf8_len(const unsigned char *p, const unsigned char *end)
{
    unsigned c = p[0];
    size_t n;
    unsigned cp;
    if (c >= 0xC2 && c <= 0xDF) {
        n = 2;
        cp = c & 0x1F;
    } else if (c >= 0xE0 && c <= 0xEF) {
        n = 3;
        cp = c & 0x0F;
    } else if (c >= 0xF0 && c <= 0xF4) {
        n = 4;
        cp = c & 0x07;
    } else {
        return 0;
    }
    if ((size_t)(end - p) < n)
        return 0;
    for (size_t i = 1; i < n; i++) {
        if ((p[i] & 0xC0) != 0x80)
            return 0;
        cp = (cp << 6) | (p[i] & 0x3F);
    }
    if ((n == 3 && cp < 0x800) || (n == 4 && cp < 0x10000) || cp > 0x10FFFF ||
        (cp >= 0xD800 && cp <= 0xDFFF))
        return 0;
    return n;
}

static bool fast_put(fast *f, size_t at, const void *s, size_t n)
{
    if (n == 0)     /* f->buf may still be NULL: memcpy must not see it */
        return true;
    if (at + n > f->cap) {
        size_t nc = f->cap ? f->cap * 2 : 256;
        while (nc < at + n)
            nc *= 2;
        char *nb = realloc(f->buf, nc);
        if (nb == NULL)
            return false;
        f->buf = nb;
        f->cap = nc;
    }
    memcpy(f->buf + at, s, n);
    return true;
}

/* A string at f->p (a quote): its text in *s (the document's own bytes,
 * or f->buf when it had escapes).  False: jansson decides. */
static bool fast_string(fast *f, const char **s, size_t *len)
{
    const unsigned char *p = ++f->p, *start = p;
    size_t out = 0;
    bool escaped = false;
    for (;;) {
        while (p < f->end && *p >= 0x20 && *p < 0x80 && *p != '"' && *p != '\\')
            p++;
        if (p >= f->end || *p < 0x20)
            return false;   /* unterminated, or a control character */
        if (*p == '"')
            break;
        if (*p >= 0x80) {
            size_t n = utf8_len(p, f->end);
            if (n == 0)
                return false;
            p += n;
            continue;
        }
        /* an escape: what came before it, then the character it stands for */
        if (p + 1 >= f->end)
            return false;
        static const char from[] = "\"\\/bfnrt", to[] = "\"\\/\b\f\n\r\t";
        const char *e = memchr(from, p[1], sizeof(from) - 1);
        if (e == NULL || p[1] == '\0')
            return false;   /* \u and anything else: jansson */
        if (!fast_put(f, out, start, (size_t)(p - start)) ||
            !fast_put(f, out + (size_t)(p - start), &to[e - from], 1))
            return false;
        out += (size_t)(p - start) + 1;
        escaped = true;
        p += 2;
        start = p;
    }
    if (escaped) {
        if (!fast_put(f, out, start, (size_t)(p - start)))
            return false;
        out += (size_t)(p - start);
        *s = f->buf;
        *len = out;
    } else {
        *s = (const char *)start;
        *len = (size_t)(p - start);
    }
    f->p = p + 1;
    return true;
}

static bool is_digit(unsigned char c)
{
    return c >= '0' && c <= '9';
}

/* A number as jansson's lexer takes it: -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)?,
 * an integer when it has neither part (strtoll's value), else strtod's. */
static json_t *fast_number(fast *f)
{
    const unsigned char *p = f->p, *start = p;
    bool neg = p < f->end && *p == '-';
    p += neg;
    if (p >= f->end || !is_digit(*p))
        return NULL;
    if (*p == '0' && p + 1 < f->end && is_digit(p[1]))
        return NULL;
    uint64_t u = 0;
    bool wide = false;
    for (; p < f->end && is_digit(*p); p++) {
        wide |= u > (UINT64_MAX - 9) / 10;
        u = u * 10 + (uint64_t)(*p - '0');
    }
    bool real = false;
    if (p < f->end && *p == '.') {
        real = true;
        if (++p >= f->end || !is_digit(*p))
            return NULL;
        while (p < f->end && is_digit(*p))
            p++;
    }
    if (p < f->end && (*p == 'e' || *p == 'E')) {
        real = true;
        p++;
        if (p < f->end && (*p == '+' || *p == '-'))
            p++;
        if (p >= f->end || !is_digit(*p))
            return NULL;
        while (p < f->end && is_digit(*p))
            p++;
    }
    f->p = p;
    if (!real) {
        if (wide || u > (uint64_t)INT64_MAX + neg)
            return NULL;   /* jansson: "too big integer" */
        return json_integer(neg ? (json_int_t)(0 - u) : (json_int_t)u);
    }
    char tmp[64];
    size_t n = (size_t)(p - start);
    if (n >= sizeof(tmp))
        return NULL;
    memcpy(tmp, start, n);
    tmp[n] = '\0';
    errno = 0;
    char *stop;
    double d = strtod(tmp, &stop);
    if ((size_t)(stop - tmp) != n || (errno == ERANGE && (d == HUGE_VAL || d == -HUGE_VAL)))
        return NULL;   /* jansson: "real number overflow" */
    return json_real(d);
}

static json_t *fast_value(fast *f);

/* Past a container's opening: true when it closes at once (taken). */
static bool fast_empty(fast *f, unsigned char close)
{
    f->p++;
    fast_ws(f);
    if (f->p < f->end && *f->p == close) {
        f->p++;
        return true;
    }
    return false;
}

/* After a member or an element: 1 at a ',' (taken, and the space after
 * it), 0 at the container's close (taken), -1 at anything else. */
static int fast_after(fast *f, unsigned char close)
{
    fast_ws(f);
    if (f->p < f->end && *f->p == ',') {
        f->p++;
        fast_ws(f);
        return 1;
    }
    if (f->p < f->end && *f->p == close) {
        f->p++;
        return 0;
    }
    return -1;
}

static json_t *fast_object(fast *f)
{
    json_t *o = json_object();
    if (o == NULL || fast_empty(f, '}'))
        return o;
    for (;;) {
        const char *k;
        size_t klen;
        if (f->p >= f->end || *f->p != '"' || !fast_string(f, &k, &klen))
            break;
        /* the key is copied before the value can reuse f->buf */
        char small[128], *key = klen < sizeof(small) ? small : malloc(klen);
        if (key == NULL)
            break;
        memcpy(key, k, klen);
        fast_ws(f);
        json_t *v = NULL;
        if (f->p < f->end && *f->p == ':') {
            f->p++;
            fast_ws(f);
            v = fast_value(f);
        }
        int rc = v != NULL ? json_object_setn_new_nocheck(o, key, klen, v) : -1;
        if (key != small)
            free(key);
        int next = rc == 0 ? fast_after(f, '}') : -1;
        if (next == 0)
            return o;
        if (next < 0)
            break;
    }
    json_decref(o);
    return NULL;
}

static json_t *fast_array(fast *f)
{
    json_t *a = json_array();
    if (a == NULL || fast_empty(f, ']'))
        return a;
    for (;;) {
        json_t *v = fast_value(f);
        int next = v != NULL && json_array_append_new(a, v) == 0 ? fast_after(f, ']') : -1;
        if (next == 0)
            return a;
        if (next < 0)
            break;
    }
    json_decref(a);
    return NULL;
}

static bool fast_word(fast *f, const char *w, size_t n)
{
    if ((size_t)(f->end - f->p) < n || memcmp(f->p, w, n) != 0)
        return false;
    f->p += n;
    /* jansson's lexer reads a word of letters: "truex" is no literal */
    return f->p >= f->end || !((*f->p >= 'a' && *f->p <= 'z') || (*f->p >= 'A' && *f->p <= 'Z'));
}

static json_t *fast_value(fast *f)
{
    if (f->p >= f->end)
        return NULL;
    json_t *v = NULL;
    switch (*f->p) {
    case '{':
    case '[':
        if (++f->depth > FAST_MAX_DEPTH)
            return NULL;
        v = *f->p == '{' ? fast_object(f) : fast_array(f);
        f->depth--;
        return v;
    case '"': {
        const char *s;
        size_t n;
        return fast_string(f, &s, &n) ? json_stringn_nocheck(s, n) : NULL;
    }
    case 't':
        return fast_word(f, "true", 4) ? json_true() : NULL;
    case 'f':
        return fast_word(f, "false", 5) ? json_false() : NULL;
    case 'n':
        return fast_word(f, "null", 4) ? json_null() : NULL;
    default:
        return fast_number(f);
    }
}

/* The document's tree, or NULL: jansson is to parse it. */
static json_t *fast_parse(const char *text, size_t len)
{
    if (localeconv()->decimal_point[0] != '.' || localeconv()->decimal_point[1] != '\0')
        return NULL;   /* strtod would not read the document's reals as jansson does */
    fast f = {(const unsigned char *)text, (const unsigned char *)text + len, NULL, 0, 0};
    fast_ws(&f);
    json_t *doc = NULL;
    if (f.p < f.end && (*f.p == '{' || *f.p == '['))
        doc = fast_value(&f);
    free(f.buf);
    if (doc == NULL)
        return NULL;
    fast_ws(&f);
    if (f.p != f.end) {
        json_decref(doc);   /* something after the document: jansson's error */
        return NULL;
    }
    return doc;
}

/* ---- arenas ---------------------------------------------------------- */

typedef struct arena_chunk {
    struct arena_chunk *next;
    size_t used, cap;
    max_align_t data[];
} arena_chunk;

/* Chunks of 1 MiB: a document's values fill them in order, and what the
 * last one leaves unused is at most a chunk (a chunk sized from the
 * estimate, an upper bound, was touched no further, but malloc reuses
 * freed memory it had touched: the overload phase of bench/events peaked
 * 3.6 MB higher). */
#define ARENA_CHUNK ((size_t)1 << 20)

/* The arena jansson allocates from during jsondoc_parse_arena: the relay
 * parses on one thread, and jansson's allocator is process-wide. */
static jsondoc_arena *parsing;

static bool arena_grow(jsondoc_arena *a, size_t n)
{
    size_t cap = n > ARENA_CHUNK ? n : ARENA_CHUNK;
    arena_chunk *c = malloc(sizeof(*c) + cap);
    if (c == NULL)
        return false;
    c->next = a->chunks;
    c->used = 0;
    c->cap = cap;
    a->chunks = c;
    a->bytes += sizeof(*c) + cap;
    return true;
}

static void *arena_malloc(size_t n)
{
    jsondoc_arena *a = parsing;
    if (n == 0)
        n = 1;
    n = (n + sizeof(max_align_t) - 1) & ~(sizeof(max_align_t) - 1);
    if ((a->chunks == NULL || a->chunks->cap - a->chunks->used < n) && !arena_grow(a, n))
        return NULL;   /* jansson fails the parse: "out of memory" */
    arena_chunk *c = a->chunks;
    void *p = (char *)c->data + c->used;
    c->used += n;
    return p;
}

static void arena_free(void *p)
{
    (void)p;   /* a value jansson let go of mid-parse: freed with the arena */
}

void jsondoc_arena_release(jsondoc_arena *a)
{
    for (arena_chunk *c = a->chunks, *n; c != NULL; c = n) {
        n = c->next;
        free(c);
    }
    a->chunks = NULL;
    a->bytes = 0;
}

static json_t *parse_estimated(const char *text, size_t len, size_t max_memory,
                               jsondoc_arena *arena, json_error_t *jerr, char *err, size_t errlen);

json_t *jsondoc_parse(const char *text, size_t len, size_t max_memory, json_error_t *jerr,
                      char *err, size_t errlen)
{
    return parse_estimated(text, len, max_memory, NULL, jerr, err, errlen);
}

json_t *jsondoc_parse_arena(const char *text, size_t len, size_t max_memory,
                            jsondoc_arena *arena, json_error_t *jerr, char *err, size_t errlen)
{
    json_t *doc = parse_estimated(text, len, max_memory, arena, jerr, err, errlen);
    if (doc == NULL)
        jsondoc_arena_release(arena);
    return doc;
}

/* json_loadb, into the arena when there is one. */
static json_t *load(const char *text, size_t len, size_t flags, jsondoc_arena *arena,
                    json_error_t *jerr)
{
    if (arena == NULL)
        return json_loadb(text, len, flags, jerr);
    /* kept numbers (flags) are strings with "\u0000": jansson's */
    json_malloc_t old_malloc;
    json_free_t old_free;
    json_get_alloc_funcs(&old_malloc, &old_free);
    parsing = arena;
    json_set_alloc_funcs(arena_malloc, arena_free);
    json_t *doc = flags == 0 ? fast_parse(text, len) : NULL;
    if (doc == NULL) {
        jsondoc_arena_release(arena);   /* what the fast path left */
        doc = json_loadb(text, len, flags, jerr);
    } else {
        /* as json_loadb leaves it after a success */
        memset(jerr, 0, sizeof(*jerr));
        jerr->line = jerr->column = -1;
        snprintf(jerr->source, sizeof(jerr->source), "<buffer>");
    }
    json_set_alloc_funcs(old_malloc, old_free);
    parsing = NULL;
    return doc;
}

static json_t *parse_estimated(const char *text, size_t len, size_t max_memory,
                               jsondoc_arena *arena, json_error_t *jerr, char *err, size_t errlen)
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
        doc = load(text, len, 0, arena, jerr);
    } else {
        size_t n;
        char *copy = keep_wide(text, len, &w, &n);
        if (copy == NULL) {
            memset(jerr, 0, sizeof(*jerr));
            snprintf(jerr->text, sizeof(jerr->text), "out of memory");
        } else {
            /* NULs come only from the kept numbers: the document's own
             * "\u0000" was ruled out above */
            doc = load(copy, n, JSON_ALLOW_NUL, arena, jerr);
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
