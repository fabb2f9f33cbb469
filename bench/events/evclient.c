/* evclient: a small pmapi client for staprelay event records.
 *
 * Fetches one PM_TYPE_EVENT metric in a loop (or once per stdin line in
 * step mode), unpacks the records, optionally prints them, and checks a
 * sequence-number field: every record exactly once, in order.  Used by
 * the qa/04x tests (deterministic step-by-step clients) and by
 * bench/events/run (throughput, bytes per record).
 *
 *   evclient -h HOST [-m METRIC] [-t MS] [-n RECORDS] [-T SECS] [-p] [-s]
 *            [-f SEQ_FIELD_METRIC] [-i IDLE_MS]
 *
 *   -m  event metric (default staprelay.profile.samples.records)
 *   -t  sleep between fetches in ms (default 100; 0 = back to back)
 *   -i  sleep after a fetch that returned nothing (default: -t)
 *   -n  stop once this many records arrived (0 = no limit)
 *   -T  stop after this many seconds (default 60)
 *   -p  print every record: UTC time to the microsecond, flags, fields
 *   -s  step mode: one fetch per line read on stdin; after each fetch
 *       print "fetch N: R records, M missed" and flush
 *   -f  metric name of an integer field holding the record's sequence
 *       number; the summary then counts duplicates/out-of-order and gaps
 *   -r  raw: walk the packed event array instead of pmUnpackEventRecords
 *       (no per-record allocation; counts, MISSED and the -f check only,
 *       no -p): the client's own cost stays out of the benchmark
 *   -P  after every fetch, write the number of records received so far
 *       to FILE (producer.c's back-pressure for the no-loss benchmark)
 *   -S  stop after a fetch that returned nothing once FILE exists (the
 *       producer is done and the queue is drained); also prints
 *       "span SECS" between the first and the last record received
 *
 * Summary line on exit:
 *   records R missed M fetches F first S last L dups D gaps G bytes B
 * (bytes = sum of the event arrays' vlen, i.e. the record payload on the
 * wire).  Build: cc -O2 -o evclient evclient.c -lpcp */
#include <pcp/pmapi.h>
#include "../lib/evrecords.h"
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec / 1e9;
}

typedef struct {
    pmID pmid;
    pmDesc desc;
    char *name;
} param_info;

static param_info *params;
static int nparams;

static param_info *param(pmID pmid)
{
    for (int i = 0; i < nparams; i++)
        if (params[i].pmid == pmid)
            return &params[i];
    params = realloc(params, (nparams + 1) * sizeof(*params));
    param_info *p = &params[nparams++];
    p->pmid = pmid;
    if (pmLookupDesc(pmid, &p->desc) < 0)
        p->desc.type = PM_TYPE_UNKNOWN;
    if (pmNameID(pmid, &p->name) < 0)
        p->name = strdup(pmIDStr(pmid));
    return p;
}

static void print_string(const char *s)
{
    putchar('"');
    for (; *s; s++) {
        if (*s == '"' || *s == '\\')
            printf("\\%c", *s);
        else if ((unsigned char)*s < 0x20)
            printf("\\x%02x", (unsigned char)*s);
        else
            putchar(*s);
    }
    putchar('"');
}

int main(int argc, char **argv)
{
    const char *host = "local:", *metric = "staprelay.profile.samples.records", *seqname = NULL;
    const char *stopfile = NULL, *progress = NULL;
    double tfirst = -1, tlast = -1;
    int interval = 100, idle = -1, print = 0, step = 0, raw = 0, c;
    long limit = 0;
    double timeout = 60;
    while ((c = getopt(argc, argv, "h:m:t:i:n:T:psf:S:P:r")) != -1) {
        switch (c) {
        case 'h': host = optarg; break;
        case 'm': metric = optarg; break;
        case 't': interval = atoi(optarg); break;
        case 'i': idle = atoi(optarg); break;
        case 'n': limit = atol(optarg); break;
        case 'T': timeout = atof(optarg); break;
        case 'p': print = 1; break;
        case 's': step = 1; break;
        case 'f': seqname = optarg; break;
        case 'S': stopfile = optarg; break;
        case 'P': progress = optarg; break;
        case 'r': raw = 1; break;
        default:
            fprintf(stderr, "usage: evclient -h HOST [-m METRIC] [-t MS] [-i MS] [-n N] [-T S] [-p] [-s] [-f SEQ]\n");
            return 2;
        }
    }
    if (idle < 0)
        idle = interval;
    int sts;
    pmID pmid, seqpmid = PM_ID_NULL;
    if ((sts = pmNewContext(PM_CONTEXT_HOST, host)) < 0) {
        fprintf(stderr, "evclient: %s: %s\n", host, pmErrStr(sts));
        return 1;
    }
    if ((sts = pmLookupName(1, &metric, &pmid)) < 0 ||
        (seqname != NULL && (sts = pmLookupName(1, (const char **)&seqname, &seqpmid)) < 0)) {
        fprintf(stderr, "evclient: lookup: %s\n", pmErrStr(sts));
        return 1;
    }
    uint64_t nrec = 0, missed = 0, fetches = 0, bytes = 0;
    seq_check sc = SEQ_CHECK_INIT;
    double t0 = now();
    char line[256];
    for (;;) {
        if (step) {
            if (fgets(line, sizeof(line), stdin) == NULL)
                break;
        } else {
            if (limit > 0 && (long)nrec >= limit)
                break;
            if (now() - t0 > timeout)
                break;
        }
        pmResult *r;
        if ((sts = pmFetch(1, &pmid, &r)) < 0) {
            fprintf(stderr, "evclient: fetch: %s\n", pmErrStr(sts));
            return 1;
        }
        fetches++;
        uint64_t got = 0, miss = 0;
        pmValueSet *vs = r->vset[0];
        for (int j = 0; j < vs->numval; j++) {
            if (vs->valfmt != PM_VAL_DPTR && vs->valfmt != PM_VAL_SPTR)
                continue;
            bytes += vs->vlist[j].value.pval->vlen;
            if (raw) {
                evrecords_walk(vs->vlist[j].value.pval, seqpmid, &sc, &got, &miss);
                continue;
            }
            pmResult **recs;
            int n = pmUnpackEventRecords(vs, j, &recs);
            if (n < 0) {
                fprintf(stderr, "evclient: unpack: %s\n", pmErrStr(n));
                continue;
            }
            for (int k = 0; k < n; k++) {
                pmResult *e = recs[k];
                unsigned int flags = 0;
                int64_t seq = -1;
                int was_missed = 0;
                for (int p = 0; p < e->numpmid; p++) {
                    pmValueSet *pv = e->vset[p];
                    param_info *pi = param(pv->pmid);
                    pmAtomValue a;
                    if (pv->numval < 1)
                        continue;
                    if (strcmp(pi->name, "event.flags") == 0) {
                        pmExtractValue(pv->valfmt, &pv->vlist[0], PM_TYPE_U32, &a, PM_TYPE_U32);
                        flags = a.ul;
                        continue;
                    }
                    if (strcmp(pi->name, "event.missed") == 0) {
                        pmExtractValue(pv->valfmt, &pv->vlist[0], PM_TYPE_U32, &a, PM_TYPE_U32);
                        miss += a.ul;
                        was_missed = 1;
                        if (print)
                            printf("MISSED %u records\n", a.ul);
                        continue;
                    }
                    if (pv->pmid == seqpmid &&
                        pmExtractValue(pv->valfmt, &pv->vlist[0], pi->desc.type, &a, PM_TYPE_64) >= 0)
                        seq = a.ll;
                }
                if (was_missed || (flags & PM_EVENT_FLAG_MISSED))
                    continue;
                got++;
                seq_check_saw(&sc, seq);
                if (!print)
                    continue;
                time_t sec = e->timestamp.tv_sec;
                struct tm tm;
                char ts[64];
                gmtime_r(&sec, &tm);
                strftime(ts, sizeof(ts), "%Y-%m-%d %H:%M:%S", &tm);
                printf("record %s.%06ld UTC flags 0x%x\n", ts, (long)e->timestamp.tv_usec, flags);
                for (int p = 0; p < e->numpmid; p++) {
                    pmValueSet *pv = e->vset[p];
                    param_info *pi = param(pv->pmid);
                    pmAtomValue a;
                    if (strcmp(pi->name, "event.flags") == 0 || pv->numval < 1)
                        continue;
                    printf("    %s ", pi->name);
                    if (pmExtractValue(pv->valfmt, &pv->vlist[0], pi->desc.type, &a,
                                       pi->desc.type) < 0) {
                        printf("?\n");
                        continue;
                    }
                    switch (pi->desc.type) {
                    case PM_TYPE_STRING: print_string(a.cp); free(a.cp); break;
                    case PM_TYPE_64: printf("%" PRId64, (int64_t)a.ll); break;
                    case PM_TYPE_U64: printf("%" PRIu64, (uint64_t)a.ull); break;
                    case PM_TYPE_32: printf("%d", a.l); break;
                    case PM_TYPE_U32: printf("%u", a.ul); break;
                    case PM_TYPE_DOUBLE: printf("%.17g", a.d); break;
                    case PM_TYPE_FLOAT: printf("%.9g", a.f); break;
                    default: printf("(type %d)", pi->desc.type); break;
                    }
                    putchar('\n');
                }
            }
            pmFreeEventResult(recs);
        }
        pmFreeResult(r);
        nrec += got;
        missed += miss;
        if (got > 0) {
            tlast = now();
            if (tfirst < 0)
                tfirst = tlast;
        }
        if (progress != NULL && got + miss > 0) {
            char tmp[4096], num[32];
            snprintf(tmp, sizeof(tmp), "%s.tmp", progress);
            FILE *pf = fopen(tmp, "w");
            if (pf != NULL) {
                snprintf(num, sizeof(num), "%" PRIu64 "\n", nrec + missed);
                fputs(num, pf);
                fclose(pf);
                rename(tmp, progress);
            }
        }
        if (stopfile != NULL && got + miss == 0 && access(stopfile, F_OK) == 0)
            break;
        if (step) {
            printf("fetch %" PRIu64 ": %" PRIu64 " records, %" PRIu64 " missed\n", fetches, got, miss);
            fflush(stdout);
            continue;
        }
        int ms = got + miss > 0 ? interval : idle;
        if (ms > 0)
            usleep((useconds_t)ms * 1000);
    }
    double el = now() - t0;
    printf("records %" PRIu64 " missed %" PRIu64 " fetches %" PRIu64 " first %" PRId64
           " last %" PRId64 " dups %" PRIu64 " gaps %" PRIu64 " bytes %" PRIu64 " secs %.3f\n",
           nrec, missed, fetches, sc.first, sc.last, sc.dups, sc.gaps, bytes, el);
    if (stopfile != NULL)
        printf("span %.6f\n", tfirst >= 0 ? tlast - tfirst : 0.0);
    return 0;
}
