/* consumer: a pmevent-like client of one event metric, for the soak.
 *
 *   consumer -h HOST -m METRIC -f SEQ_METRIC -t MS [-F BYTES] [-r]
 *            -o STATSFILE -S STOPFILE
 *
 * One PMAPI context for the whole run.  Fetches METRIC every MS ms (on a
 * fixed schedule, as pmevent -t does); when a fetch brought at least 90 %
 * of BYTES (the PMDA's event_fetch_size: the fetch was probably cut short)
 * it fetches again at once, up to 20 times.  Records are unpacked with
 * pmUnpackEventRecords, as pmevent does, or with -r walked in the packed
 * array (no per-record allocation).  The integer field SEQ_METRIC (the
 * producer's sequence number) is checked on every record: duplicates or
 * records out of order, and gaps (sequence numbers never received).
 * MISSED records (the PMDA's queue dropped records before this client
 * read them) are summed.
 *
 * Once STOPFILE exists, stops after the first fetch that returns nothing
 * (the queue is drained).  A failed fetch is counted and retried after
 * MS (the context reconnects).  STATSFILE is replaced every second and at
 * exit with one line:
 *
 *   records R missed M fetches F errors E first S last L dups D gaps G
 *   bytes B maxfetch X done 0|1
 *
 * Build: cc -O2 -o consumer consumer.c -lpcp */
#include <pcp/pmapi.h>
#include "../lib/evrecords.h"
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static double mono(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec / 1e9;
}

static uint64_t nrec, missed, fetches, errors, bytes, maxfetch;
static seq_check sc = SEQ_CHECK_INIT;
static const char *statsfile;

static void write_stats(int done)
{
    char tmp[4096];
    snprintf(tmp, sizeof(tmp), "%s.tmp", statsfile);
    FILE *f = fopen(tmp, "w");
    if (f == NULL)
        return;
    fprintf(f, "records %" PRIu64 " missed %" PRIu64 " fetches %" PRIu64 " errors %" PRIu64
               " first %" PRId64 " last %" PRId64 " dups %" PRIu64 " gaps %" PRIu64
               " bytes %" PRIu64 " maxfetch %" PRIu64 " done %d\n",
            nrec, missed, fetches, errors, sc.first, sc.last, sc.dups, sc.gaps, bytes, maxfetch,
            done);
    fclose(f);
    rename(tmp, statsfile);
}


/* the event parameters met so far: type, and which is event.missed */
typedef struct {
    pmID pmid;
    int type, is_missed, is_flags;
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
    pmDesc d;
    char *name = NULL;
    p->pmid = pmid;
    p->type = pmLookupDesc(pmid, &d) < 0 ? PM_TYPE_UNKNOWN : d.type;
    p->is_missed = p->is_flags = 0;
    if (pmNameID(pmid, &name) >= 0) {
        p->is_missed = strcmp(name, "event.missed") == 0;
        p->is_flags = strcmp(name, "event.flags") == 0;
        free(name);
    }
    return p;
}

int main(int argc, char **argv)
{
    const char *host = "local:", *metric = NULL, *seqname = NULL, *stopfile = NULL;
    int interval = 1000, raw = 0, c;
    uint64_t fetch_size = 0;
    while ((c = getopt(argc, argv, "h:m:f:t:F:ro:S:")) != -1) {
        switch (c) {
        case 'h': host = optarg; break;
        case 'm': metric = optarg; break;
        case 'f': seqname = optarg; break;
        case 't': interval = atoi(optarg); break;
        case 'F': fetch_size = strtoull(optarg, NULL, 10); break;
        case 'r': raw = 1; break;
        case 'o': statsfile = optarg; break;
        case 'S': stopfile = optarg; break;
        default:
            fprintf(stderr, "usage: consumer -h HOST -m METRIC -f SEQ -t MS [-F BYTES] [-r] "
                            "-o STATS -S STOP\n");
            return 2;
        }
    }
    if (metric == NULL || seqname == NULL || statsfile == NULL || stopfile == NULL) {
        fprintf(stderr, "consumer: -m, -f, -o and -S are required\n");
        return 2;
    }
    int sts;
    pmID pmid, seqpmid;
    if ((sts = pmNewContext(PM_CONTEXT_HOST, host)) < 0) {
        fprintf(stderr, "consumer: %s: %s\n", host, pmErrStr(sts));
        return 1;
    }
    if ((sts = pmLookupName(1, &metric, &pmid)) < 0 ||
        (sts = pmLookupName(1, &seqname, &seqpmid)) < 0) {
        fprintf(stderr, "consumer: lookup: %s\n", pmErrStr(sts));
        return 1;
    }
    double next = mono(), last_stats = 0;
    int again = 0;
    for (;;) {
        if (!again) {
            double now = mono();
            if (next > now)
                usleep((useconds_t)((next - now) * 1e6));
            next += interval / 1000.0;
            if (next < mono())
                next = mono();   /* a slow fetch: do not try to catch up ticks */
        }
        int stopping = access(stopfile, F_OK) == 0;
        pmResult *r;
        if ((sts = pmFetch(1, &pmid, &r)) < 0) {
            errors++;
            fprintf(stderr, "consumer: fetch: %s\n", pmErrStr(sts));
            if (sts == PM_ERR_IPC || sts == -ECONNRESET || sts == PM_ERR_TIMEOUT)
                pmReconnectContext(pmWhichContext());
            again = 0;
            if (stopping && errors > 50)
                break;
            continue;
        }
        fetches++;
        uint64_t got = 0, miss = 0, fbytes = 0;
        pmValueSet *vs = r->vset[0];
        for (int j = 0; j < vs->numval; j++) {
            if (vs->valfmt != PM_VAL_DPTR && vs->valfmt != PM_VAL_SPTR)
                continue;
            fbytes += vs->vlist[j].value.pval->vlen;
            if (raw) {
                evrecords_walk(vs->vlist[j].value.pval, seqpmid, &sc, &got, &miss);
                continue;
            }
            pmResult **recs;
            int n = pmUnpackEventRecords(vs, j, &recs);
            if (n < 0) {
                errors++;
                fprintf(stderr, "consumer: unpack: %s\n", pmErrStr(n));
                continue;
            }
            for (int k = 0; k < n; k++) {
                pmResult *e = recs[k];
                int64_t seq = -1;
                int was_missed = 0;
                for (int p = 0; p < e->numpmid; p++) {
                    pmValueSet *pv = e->vset[p];
                    pmAtomValue a;
                    if (pv->numval < 1)
                        continue;
                    param_info *pi = param(pv->pmid);
                    if (pi->is_flags)
                        continue;
                    if (pi->is_missed) {
                        pmExtractValue(pv->valfmt, &pv->vlist[0], PM_TYPE_U32, &a, PM_TYPE_U32);
                        miss += a.ul;
                        was_missed = 1;
                    } else if (pv->pmid == seqpmid &&
                               pmExtractValue(pv->valfmt, &pv->vlist[0], pi->type, &a,
                                              PM_TYPE_64) >= 0) {
                        seq = a.ll;
                    }
                }
                if (!was_missed) {
                    got++;
                    seq_check_saw(&sc, seq);
                }
            }
            pmFreeEventResult(recs);
        }
        pmFreeResult(r);
        nrec += got;
        missed += miss;
        bytes += fbytes;
        if (fbytes > maxfetch)
            maxfetch = fbytes;
        again = fetch_size > 0 && fbytes >= fetch_size * 9 / 10 && again < 20 ? again + 1 : 0;
        if (stopping && got + miss == 0)
            break;
        if (mono() - last_stats >= 1) {
            write_stats(0);
            last_stats = mono();
        }
    }
    write_stats(1);
    return 0;
}
