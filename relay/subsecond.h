/* subsecond: the <event>.subsecond histogram of one event stream --
 * FlameScope's subsecond-offset heat map at fleet cost.  Each sample (a
 * record with a stack, weighing its count) lands in one of
 * SUBSECOND_BUCKETS buckets of 20 ms by the offset of its own timestamp
 * within its second, exactly as `staprelay heatmap` places records
 * (integer microseconds, bucket = offset * 50 / 1e6).
 *
 * A logged column must be one wall-clock second of samples, whenever its
 * samples reached the agent.  So the cumulative counts (the counter's
 * values) take a second's samples only once the second is *closed*:
 * closed = floor(now - delay), delay covering the way from the sampler to
 * the agent (by default one poll interval plus a second).  Until then they
 * wait in an open second.  `closed` is published too
 * (<event>.subsecond_end): between two values logged with closed A and B,
 * the increments are exactly the samples of seconds A .. B-1, so with one
 * value logged per second every column is one second, the same column the
 * records give.  A sample of a second already closed counts at once
 * (`late`; it lands in a later column), as does one more than
 * SUBSECOND_OPEN seconds ahead (`early`). */
#ifndef STAPRELAY_SUBSECOND_H
#define STAPRELAY_SUBSECOND_H

#include <stdbool.h>
#include <stdint.h>

#define SUBSECOND_BUCKETS 50
#define SUBSECOND_OPEN 64
/* No second closed yet. */
#define SUBSECOND_NONE INT64_MIN

typedef struct subsecond {
    uint64_t counts[SUBSECOND_BUCKETS];  /* samples of closed seconds */
    int64_t closed;       /* every second before this is in counts */
    double delay;
    uint64_t late, early;
    struct {
        int64_t sec;      /* SUBSECOND_NONE: empty slot */
        uint64_t n[SUBSECOND_BUCKETS];
    } open[SUBSECOND_OPEN];
} subsecond;

void subsecond_init(subsecond *h, double delay);
/* The bucket (0 = the first 20 ms of the second) and the second of a
 * time in nanoseconds since the epoch. */
int subsecond_bucket(int64_t when_ns, int64_t *sec);
void subsecond_add(subsecond *h, int64_t when_ns, uint64_t weight);
/* Close every second before floor(now - delay) (now in seconds). */
void subsecond_close(subsecond *h, double now);

#endif
