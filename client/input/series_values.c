/* series_values: /series/values scanned in place (see series_values.h). */
#include "client/input/series_values.h"

#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

typedef struct scan {
    const char *p, *end;
} scan;

static void skip_space(scan *s)
{
    while (s->p < s->end && (*s->p == ' ' || *s->p == '\t' || *s->p == '\n'
                             || *s->p == '\r'))
        s->p++;
}

static bool take(scan *s, char c)
{
    skip_space(s);
    if (s->p < s->end && *s->p == c) {
        s->p++;
        return true;
    }
    return false;
}

/* A string of printable ASCII without escapes: its text, without quotes.
 * (Other bytes are for a JSON parser: UTF-8 must be checked, as jansson
 * does, or a reply it refuses would be read here.) */
static bool string(scan *s, const char **text, size_t *len)
{
    if (!take(s, '"'))
        return false;
    const char *start = s->p;
    while (s->p < s->end && *s->p != '"') {
        unsigned char c = (unsigned char)*s->p;
        if (c == '\\' || c < 0x20 || c >= 0x7f)
            return false;
        s->p++;
    }
    if (s->p == s->end)
        return false;
    *text = start;
    *len = (size_t)(s->p - start);
    s->p++;
    return true;
}

/* digits at p[*i], how many */
static size_t digits(const char *p, size_t n, size_t *i)
{
    size_t from = *i;
    while (*i < n && p[*i] >= '0' && p[*i] <= '9')
        (*i)++;
    return *i - from;
}

/* A JSON number (RFC 8259's grammar, as jansson reads it: an integer
 * must fit in a long long, a real must be finite), as pmproxy writes a
 * timestamp. */
static bool number(scan *s, double *v)
{
    skip_space(s);
    size_t n = (size_t)(s->end - s->p), i = 0;
    const char *p = s->p;
    bool real = false;
    if (i < n && p[i] == '-')
        i++;
    if (i < n && p[i] == '0')
        i++;
    else if (digits(p, n, &i) == 0)
        return false;
    if (i < n && p[i] == '.') {
        i++;
        real = true;
        if (digits(p, n, &i) == 0)
            return false;
    }
    if (i < n && (p[i] == 'e' || p[i] == 'E')) {
        i++;
        real = true;
        if (i < n && (p[i] == '+' || p[i] == '-'))
            i++;
        if (digits(p, n, &i) == 0)
            return false;
    }
    char buf[64];
    if (i >= sizeof buf)
        return false;
    memcpy(buf, p, i);
    buf[i] = '\0';
    errno = 0;
    if (real) {
        *v = strtod(buf, NULL);
        if (!isfinite(*v) || errno == ERANGE)
            return false;
    } else {
        long long ll = strtoll(buf, NULL, 10);
        if (errno == ERANGE)
            return false;
        *v = (double)ll;
    }
    s->p += i;
    return true;
}

static bool is_key(const char *k, size_t n, const char *want)
{
    return n == strlen(want) && memcmp(k, want, n) == 0;
}

/* The field a known key fills, with its length; NULL: not known. */
static const char **known(series_value *v, const char *k, size_t kn,
                          size_t **len)
{
    if (is_key(k, kn, "series"))
        return *len = &v->series_len, &v->series;
    if (is_key(k, kn, "instance"))
        return *len = &v->instance_len, &v->instance;
    if (is_key(k, kn, "value"))
        return *len = &v->value_len, &v->value;
    return NULL;
}

/* One {...}: its known keys kept, other keys' string or number values
 * passed over.  A known key of another type, or twice, is refused: which
 * one counts is not this scanner's to say. */
static bool object(scan *s, series_value *v)
{
    *v = (series_value){ .timestamp = NAN };
    if (!take(s, '{'))
        return false;
    if (take(s, '}'))
        return true;
    do {
        const char *k, *t;
        size_t kn, tn, *flen = NULL;
        if (!string(s, &k, &kn) || !take(s, ':'))
            return false;
        const char **field = known(v, k, kn, &flen);
        bool stamp = is_key(k, kn, "timestamp");
        skip_space(s);
        if (s->p < s->end && *s->p == '"') {
            if (!string(s, &t, &tn) || stamp || (field && *field))
                return false;
            if (field)
                *field = t, *flen = tn;
        } else {
            double d;
            if (!number(s, &d) || field || (stamp && !isnan(v->timestamp)))
                return false;
            if (stamp)
                v->timestamp = d;
        }
    } while (take(s, ','));
    return take(s, '}');
}

long series_values_scan(const char *body, size_t len, series_value_fn fn,
                        void *arg)
{
    scan s = { body, body + len };
    long n = 0;
    if (!take(&s, '['))
        return -1;
    if (!take(&s, ']')) {
        do {
            series_value v;
            if (!object(&s, &v))
                return -1;
            fn(arg, &v);
            n++;
        } while (take(&s, ','));
        if (!take(&s, ']'))
            return -1;
    }
    skip_space(&s);
    return s.p == s.end ? n : -1;
}
