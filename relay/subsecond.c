/* subsecond: per-second offset histograms (see subsecond.h). */
#include "relay/subsecond.h"

#include <string.h>

#define US_PER_S 1000000

static int64_t floor_div(int64_t a, int64_t b)
{
    int64_t q = a / b;
    if (a % b != 0 && (a < 0) != (b < 0))
        q--;
    return q;
}

void subsecond_init(subsecond *h, double delay)
{
    memset(h, 0, sizeof(*h));
    h->closed = SUBSECOND_NONE;
    h->delay = delay;
    for (int i = 0; i < SUBSECOND_OPEN; i++)
        h->open[i].sec = SUBSECOND_NONE;
}

int subsecond_bucket(int64_t when_ns, int64_t *sec)
{
    int64_t us = floor_div(when_ns, 1000);
    *sec = floor_div(us, US_PER_S);
    int64_t off = us - *sec * US_PER_S;
    return (int)(off * SUBSECOND_BUCKETS / US_PER_S);
}

static void flush(subsecond *h, int slot)
{
    for (int k = 0; k < SUBSECOND_BUCKETS; k++)
        h->counts[k] += h->open[slot].n[k];
    memset(h->open[slot].n, 0, sizeof(h->open[slot].n));
    h->open[slot].sec = SUBSECOND_NONE;
}

void subsecond_add(subsecond *h, int64_t when_ns, uint64_t weight)
{
    int64_t sec;
    int k = subsecond_bucket(when_ns, &sec);
    if (h->closed != SUBSECOND_NONE && sec < h->closed) {
        h->counts[k] += weight;
        h->late += weight;
        return;
    }
    if (h->closed != SUBSECOND_NONE && sec >= h->closed + SUBSECOND_OPEN) {
        h->counts[k] += weight;
        h->early += weight;
        return;
    }
    int slot = (int)(((sec % SUBSECOND_OPEN) + SUBSECOND_OPEN) % SUBSECOND_OPEN);
    if (h->open[slot].sec != sec) {
        /* before the first close an old second may still hold the slot:
         * it is over by now, so it goes in first */
        if (h->open[slot].sec != SUBSECOND_NONE)
            flush(h, slot);
        h->open[slot].sec = sec;
    }
    h->open[slot].n[k] += weight;
}

void subsecond_close(subsecond *h, double now)
{
    double x = now - h->delay;
    int64_t upto = (int64_t)x;
    if ((double)upto > x)
        upto--;            /* floor, without libm */
    if (h->closed != SUBSECOND_NONE && upto <= h->closed)
        return;
    for (int i = 0; i < SUBSECOND_OPEN; i++)
        if (h->open[i].sec != SUBSECOND_NONE && h->open[i].sec < upto)
            flush(h, i);
    h->closed = upto;
}
