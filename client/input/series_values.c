/* series_values: /series/values scanned in place (see series_values.h). */
#include "client/input/series_values.h"

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

/* A string without escapes or control bytes: its text, without quotes. */
static bool string(scan *s, const char **text, size_t *len)
{
    if (!take(s, '"'))
        return false;
    const char *start = s->p;
    while (s->p < s->end && *s->p != '"') {
        if (*s->p == '\\' || (unsigned char)*s->p < 0x20)
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

/* A JSON number, as pmproxy writes a timestamp. */
static bool number(scan *s, double *v)
{
    skip_space(s);
    char buf[64];
    size_t n = 0;
    while (s->p + n < s->end && n < sizeof buf - 1
           && strchr("0123456789+-.eE", s->p[n]) != NULL && s->p[n] != '\0')
        n++;
    if (n == 0 || n == sizeof buf - 1)
        return false;
    memcpy(buf, s->p, n);
    buf[n] = '\0';
    char *e;
    *v = strtod(buf, &e);
    if (*e != '\0')
        return false;
    s->p += n;
    return true;
}

static bool is_key(const char *k, size_t n, const char *want)
{
    return n == strlen(want) && memcmp(k, want, n) == 0;
}

/* One {...}: its known keys kept, other string or number values passed. */
static bool object(scan *s, series_value *v)
{
    *v = (series_value){ .timestamp = NAN };
    if (!take(s, '{'))
        return false;
    if (take(s, '}'))
        return true;
    do {
        const char *k;
        size_t kn;
        if (!string(s, &k, &kn) || !take(s, ':'))
            return false;
        skip_space(s);
        if (s->p < s->end && *s->p == '"') {
            const char *t;
            size_t tn;
            if (!string(s, &t, &tn))
                return false;
            if (is_key(k, kn, "series"))
                v->series = t, v->series_len = tn;
            else if (is_key(k, kn, "instance"))
                v->instance = t, v->instance_len = tn;
            else if (is_key(k, kn, "value"))
                v->value = t, v->value_len = tn;
        } else {
            double d;
            if (!number(s, &d))
                return false;
            if (is_key(k, kn, "timestamp"))
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
