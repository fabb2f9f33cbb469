/* perf_header: the sample header line of `perf script` output, the one
 * reader of it (the client's collapser and heat map, the perf backend
 * of `staprelay run`):
 *
 *   COMM PID[/TID] [[CPU]] [SEC.FRAC:] [PERIOD] [EVENT:] [...]
 *
 * COMM may hold blanks.  As stackcollapse-perf.pl reads it, the PID is
 * the first number after at least two characters of comm and before a
 * blank -- except that a number followed by what cannot follow a PID
 * (another number, a symbol) is taken for part of the comm when a later
 * one is followed by [CPU], a time or the event ("GC Thread 2
 * 1234/1235 [000] 1.0: ..." is comm "GC Thread 2").  The event is the
 * last word when the line ends in ':' after the time (or, without a
 * time, after only [CPU] and the period); the period the number before
 * it.  A single number is the TID (pid NULL), as perf prints it with
 * -F tid. */
#ifndef STAPRELAY_PERF_HEADER_H
#define STAPRELAY_PERF_HEADER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct perf_header {
    const char *comm;  size_t comm_len;
    const char *pid;   size_t pid_len;   /* NULL when perf printed one number */
    const char *tid;   size_t tid_len;
    int         cpu;                     /* -1 when not printed */
    bool        has_time;
    int64_t     time_ns;                 /* SEC.FRAC (digits past 9 dropped) */
    const char *event; size_t event_len; /* NULL when none was found */
    double      period;                  /* 0 when not printed */
} perf_header;

/* False when the line is no sample header (a frame line starts with a
 * blank; a comm has at least two characters). */
bool perf_header_parse(const char *s, size_t n, perf_header *h);

#endif
