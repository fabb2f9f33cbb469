/*
 * fetchloop: time pmFetch round trips through a pmcd.
 *
 *   fetchloop [-h host] [-d seconds] [-n max] [-w warmup] [-i ninst] metric...
 *   fetchloop [-h host] [-d seconds] -R newfile -T datafile -W value metric
 *
 * Looks the metrics up once, does `warmup` untimed fetches (connection and
 * PMDA caches settle), then fetches all metrics in one pmFetch, again and
 * again, for `seconds` or `max` fetches, whichever comes first.  Prints one
 * line of key/value pairs for bench/fetch/run to parse:
 *
 *   fetches N secs S rate R p50_us P p99_us Q max_us M errs E
 *
 * An error is a failed pmFetch, a metric with a negative numval, or (with
 * -i) a metric whose number of values differs from ninst: a PMDA that
 * answers fast with nothing must not look good.
 *
 * Freshness mode (-R/-T/-W): rename newfile over datafile (an atomic data
 * update, as a producer does it), then fetch the integer metric as fast as
 * possible until it equals value, and print "fresh_us N fetches N" (or
 * "fresh_us -1" if it did not within `seconds`).
 */
#include <pcp/pmapi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static double
now(void)
{
    struct timespec t;

    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec / 1e9;
}

static int
cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;

    return x < y ? -1 : x > y;
}

/* Count the problems in one result. */
static int
check(pmResult *r, int ninst)
{
    int errs = 0, j;

    for (j = 0; j < r->numpmid; j++) {
        int nv = r->vset[j]->numval;

        if (nv < 0 || (ninst >= 0 && nv != ninst))
            errs++;
    }
    return errs;
}

/* Time from rename(newfile, datafile) until pmFetch shows `want`. */
static int
freshness(pmID id, const char *newfile, const char *datafile, long long want,
          double seconds)
{
    pmDesc desc;
    double t0, t;
    long fetches = 0;
    int sts;

    if ((sts = pmLookupDesc(id, &desc)) < 0) {
        fprintf(stderr, "pmLookupDesc: %s\n", pmErrStr(sts));
        return 1;
    }
    t0 = now();
    if (rename(newfile, datafile) != 0) {
        perror("rename");
        return 1;
    }
    for (t = t0; t - t0 < seconds; t = now()) {
        pmResult *r;
        pmAtomValue v;

        if (pmFetch(1, &id, &r) < 0)
            continue;
        fetches++;
        if (r->vset[0]->numval == 1 &&
            pmExtractValue(r->vset[0]->valfmt, &r->vset[0]->vlist[0], desc.type,
                           &v, PM_TYPE_64) >= 0 && v.ll == want) {
            pmFreeResult(r);
            printf("fresh_us %.0f fetches %ld\n", (now() - t0) * 1e6, fetches);
            return 0;
        }
        pmFreeResult(r);
    }
    printf("fresh_us -1 fetches %ld\n", fetches);
    return 0;
}

int
main(int argc, char **argv)
{
    const char *host = "local:", *newfile = NULL, *datafile = NULL;
    long long want = 0;
    double seconds = 2.0, start, end, *lat;
    long max = 1000000, warmup = 20, n = 0, i;
    int ninst = -1, nmetrics, sts, c, ctx, errs = 0;
    pmID *ids;

    while ((c = getopt(argc, argv, "h:d:n:w:i:R:T:W:")) != -1) {
        switch (c) {
        case 'R': newfile = optarg; break;
        case 'T': datafile = optarg; break;
        case 'W': want = strtoll(optarg, NULL, 10); break;
        case 'h': host = optarg; break;
        case 'd': seconds = atof(optarg); break;
        case 'n': max = atol(optarg); break;
        case 'w': warmup = atol(optarg); break;
        case 'i': ninst = atoi(optarg); break;
        default:
            fprintf(stderr, "usage: %s [-h host] [-d secs] [-n max] [-w warmup] "
                    "[-i ninst] metric...\n", argv[0]);
            return 2;
        }
    }
    nmetrics = argc - optind;
    if (nmetrics < 1 || max < 1) {
        fprintf(stderr, "%s: no metrics\n", argv[0]);
        return 2;
    }
    if ((ids = calloc(nmetrics, sizeof(pmID))) == NULL ||
        (lat = calloc(max, sizeof(double))) == NULL) {
        perror("calloc");
        return 1;
    }
    if ((ctx = pmNewContext(PM_CONTEXT_HOST, host)) < 0) {
        fprintf(stderr, "pmNewContext(%s): %s\n", host, pmErrStr(ctx));
        return 1;
    }
    if ((sts = pmLookupName(nmetrics, (const char **)&argv[optind], ids)) < 0) {
        fprintf(stderr, "pmLookupName: %s\n", pmErrStr(sts));
        return 1;
    }
    for (i = 0; i < nmetrics; i++) {
        if (ids[i] == PM_ID_NULL) {
            fprintf(stderr, "pmLookupName: %s: unknown metric\n", argv[optind + i]);
            return 1;
        }
    }

    if (newfile != NULL && datafile != NULL) {
        sts = freshness(ids[0], newfile, datafile, want, seconds);
        pmDestroyContext(ctx);
        return sts;
    }

    for (i = 0; i < warmup; i++) {
        pmResult *r;

        if (pmFetch(nmetrics, ids, &r) >= 0)
            pmFreeResult(r);
    }

    start = now();
    end = start + seconds;
    while (n < max) {
        pmResult *r;
        double t0 = now(), t1;

        if ((sts = pmFetch(nmetrics, ids, &r)) < 0) {
            if (errs == 0)
                fprintf(stderr, "pmFetch: %s\n", pmErrStr(sts));
            errs++;
        } else {
            errs += check(r, ninst);
            pmFreeResult(r);
        }
        t1 = now();
        lat[n++] = t1 - t0;
        if (t1 >= end)
            break;
    }
    seconds = now() - start;

    qsort(lat, n, sizeof(double), cmp);
    printf("fetches %ld secs %.3f rate %.1f p50_us %.1f p99_us %.1f max_us %.1f errs %d\n",
           n, seconds, n / seconds, lat[n / 2] * 1e6,
           lat[(long)((n - 1) * 0.99)] * 1e6, lat[n - 1] * 1e6, errs);
    pmDestroyContext(ctx);
    return 0;
}
