/* perf_header: `perf script` sample headers (see perf_header.h). */
#include "common/perf_header.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

static bool all_digits(const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (!isdigit((unsigned char)s[i]))
            return false;
    return n > 0;
}

/* The period: a digit run of at most 31 characters. */
static double period_of(const char *s, size_t n)
{
    char buf[32];
    size_t len = n < 31 ? n : 31;
    memcpy(buf, s, len);
    buf[len] = '\0';
    return strtod(buf, NULL);
}

/* The word at i (after blanks): [*b, *e). */
static void word_at(const char *s, size_t n, size_t i, size_t *b, size_t *e)
{
    while (i < n && isspace((unsigned char)s[i]))
        i++;
    *b = i;
    while (i < n && !isspace((unsigned char)s[i]))
        i++;
    *e = i;
}

static bool cpu_word(const char *s, size_t b, size_t e)
{
    return e - b >= 3 && s[b] == '[' && s[e - 1] == ']' && all_digits(s + b + 1, e - b - 2);
}

/* "SEC.FRAC:" */
static bool time_word(const char *s, size_t b, size_t e)
{
    if (e - b < 4 || s[e - 1] != ':')
        return false;
    const char *dot = memchr(s + b, '.', e - 1 - b);
    return dot != NULL && all_digits(s + b, (size_t)(dot - (s + b)))
           && all_digits(dot + 1, (size_t)(s + e - 1 - (dot + 1)));
}

/* The fields perf prints between the PID and the event when there is no
 * timestamp: an optional "[CPU]" and an optional period, nothing else
 * ("java 12688/12764 10309278 cpu-clock:", "swapper 0 [000] cpu-clock:").
 * Sets *period (0 when absent); false if [from, to) holds anything
 * else. */
static bool untimed_fields(const char *s, size_t from, size_t to, double *period)
{
    bool cpu = false;
    *period = 0;
    size_t i = from;
    while (i < to) {
        size_t t, e;
        word_at(s, to, i, &t, &e);
        i = e;
        if (e == t)
            break;
        if (!cpu && *period == 0 && cpu_word(s, t, e))
            cpu = true;
        else if (*period == 0 && all_digits(s + t, e - t))
            *period = period_of(s + t, e - t);
        else
            return false;
    }
    return true;
}

/* Where a PID candidate's numbers are: [d1, d1e) and, after '/',
 * [d2, d2e); end is the blank after them. */
typedef struct pid_span {
    size_t d1, d1e, d2, d2e, end;
} pid_span;

/* A PID candidate: blanks at p, digits, optional "/digits", a blank. */
static bool pid_at(const char *s, size_t n, size_t p, pid_span *c)
{
    if (!isspace((unsigned char)s[p]))
        return false;
    size_t q = p;
    while (q < n && isspace((unsigned char)s[q]))
        q++;
    c->d1 = q;
    while (q < n && isdigit((unsigned char)s[q]))
        q++;
    if (q == c->d1)
        return false;
    c->d1e = q;
    while (q < n && s[q] == '/')
        q++;
    c->d2 = q;
    while (q < n && isdigit((unsigned char)s[q]))
        q++;
    c->d2e = c->end = q;
    return q < n && isspace((unsigned char)s[q]);
}

/* What follows a real PID: [CPU], a time, the end, or only the period
 * and the event. */
static bool pid_tail_ok(const char *s, size_t n, size_t end)
{
    size_t b, e;
    word_at(s, n, end, &b, &e);
    if (b == e || cpu_word(s, b, e) || time_word(s, b, e))
        return true;
    double period;
    size_t last = n;
    while (last > end && isspace((unsigned char)s[last - 1]))
        last--;
    if (last == end || s[last - 1] != ':')
        return false;
    size_t lb = last;
    while (lb > end && !isspace((unsigned char)s[lb - 1]))
        lb--;
    return untimed_fields(s, end, lb, &period);
}

/* The event and period at the end of the line (after pid_end). */
static void event_of(const char *s, size_t n, size_t pid_end, perf_header *h)
{
    size_t e = n;
    while (e > 0 && isspace((unsigned char)s[e - 1]))
        e--;
    if (e == 0 || s[e - 1] != ':')
        return;
    size_t ev_end = e - 1, b = ev_end;
    while (b > 0 && !isspace((unsigned char)s[b - 1]))
        b--;
    if (b == ev_end || b == 0 || b < pid_end)
        return;
    /* before the event: blanks, optional digits, blanks, ':' */
    size_t q = b;
    while (q > 0 && isspace((unsigned char)s[q - 1]))
        q--;
    size_t dend = q;
    while (q > 0 && isdigit((unsigned char)s[q - 1]))
        q--;
    size_t dstart = q;
    while (q > 0 && isspace((unsigned char)s[q - 1]))
        q--;
    if (q > 0 && s[q - 1] == ':') {
        h->event = s + b;
        h->event_len = ev_end - b;
        if (dend > dstart)
            h->period = period_of(s + dstart, dend - dstart);
        return;
    }
    /* no timestamp; a final "NNN.NNN:" is a timestamp, not an event */
    if (time_word(s, b, e))
        return;
    double period;
    if (!untimed_fields(s, pid_end, b, &period))
        return;
    h->event = s + b;
    h->event_len = ev_end - b;
    h->period = period;
}

/* [CPU] and SEC.FRAC: right after the PID. */
static void cpu_and_time(const char *s, size_t n, size_t pid_end, perf_header *h)
{
    size_t b, e;
    word_at(s, n, pid_end, &b, &e);
    if (cpu_word(s, b, e)) {
        h->cpu = atoi(s + b + 1);
        word_at(s, n, e, &b, &e);
    }
    if (!time_word(s, b, e))
        return;
    const char *dot = memchr(s + b, '.', e - b), *fend = s + e - 1;
    int64_t sec = 0, frac = 0;
    for (const char *p = s + b; p < dot; p++) {
        if (sec > INT64_MAX / 10000000000LL)
            return;                   /* not a time perf prints */
        sec = sec * 10 + (*p - '0');
    }
    const char *f = dot + 1;
    for (int i = 0; i < 9; i++)
        frac = frac * 10 + (f < fend ? *f++ - '0' : 0);
    h->has_time = true;
    h->time_ns = sec * 1000000000LL + frac;
}

bool perf_header_parse(const char *s, size_t n, perf_header *h)
{
    memset(h, 0, sizeof *h);
    h->cpu = -1;
    if (n < 2 || isspace((unsigned char)s[0]))
        return false;
    /* the first candidate whose tail fits a PID's, else the first */
    pid_span c, first = {0, 0, 0, 0, 0}, pid;
    size_t comm_end = 0, first_at = 0;
    for (size_t p = 2; p < n && comm_end == 0; p++) {
        if (!pid_at(s, n, p, &c))
            continue;
        if (first_at == 0) {
            first_at = p;
            first = c;
        }
        if (pid_tail_ok(s, n, c.end)) {
            comm_end = p;
            pid = c;
        }
    }
    if (comm_end == 0) {
        if (first_at == 0)
            return false;
        comm_end = first_at;
        pid = first;
    }
    h->comm = s;
    h->comm_len = comm_end;
    if (pid.d2e > pid.d2) {
        h->pid = s + pid.d1;
        h->pid_len = pid.d1e - pid.d1;
        h->tid = s + pid.d2;
        h->tid_len = pid.d2e - pid.d2;
    } else {
        h->tid = s + pid.d1;
        h->tid_len = pid.d1e - pid.d1;
    }
    cpu_and_time(s, n, pid.end, h);
    event_of(s, n, pid.end, h);
    return true;
}
