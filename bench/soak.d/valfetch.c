/* valfetch: a pmval-like client of every value metric under a subtree,
 * for the soak.
 *
 *   valfetch -h HOST -n SUBTREE -t MS -o STATSFILE -S STOPFILE
 *
 * One PMAPI context for the whole run.  Every 30 s it walks SUBTREE of the
 * PMNS (pmTraversePMNS) and looks up every leaf's descriptor; event metrics
 * (PM_TYPE_EVENT, PM_TYPE_HIGHRES_EVENT) are left to the event consumers.
 * Every MS ms it fetches all the others in one pmFetch, and for every
 * metric named *.tick (the soak writer's counter, +1 per write) notes how
 * long its value stayed the same: "maxstale" is the longest, in seconds --
 * a source whose data stopped flowing shows here.  Stops once STOPFILE
 * exists.  A failed fetch is counted and retried at the next tick.
 * STATSFILE is replaced every second and at exit with one line:
 *
 *   fetches F errors E metrics M values V novalue N maxstale S done 0|1
 *
 * (metrics and values: of the last fetch; novalue: metrics that had no
 * value, summed over all fetches; STATSFILE.novalue lists, at exit, the
 * metrics without a value in the last fetch, with numval.)  Build: cc -O2 -o valfetch valfetch.c -lpcp */
#include <pcp/pmapi.h>
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

static char **names;
static int nnames, capnames;

static void add_name(const char *name)
{
    if (nnames == capnames) {
        capnames = capnames ? capnames * 2 : 256;
        names = realloc(names, capnames * sizeof(*names));
    }
    names[nnames++] = strdup(name);
}

typedef struct {
    pmID pmid;
    int tick;             /* a *.tick metric */
    int type;
    int lastnum;          /* values in the last fetch */
    char *name;
    double tickval, since;
} metric;

static metric *ms;
static pmID *pmids;
static int nms;

static int walk(const char *subtree)
{
    for (int i = 0; i < nnames; i++)
        free(names[i]);
    nnames = 0;
    int sts = pmTraversePMNS(subtree, add_name);
    if (sts < 0)
        return sts;
    pmID *ids = calloc(nnames ? nnames : 1, sizeof(pmID));
    if ((sts = pmLookupName(nnames, (const char **)names, ids)) < 0 && nnames > 0) {
        /* names may vanish between traverse and lookup: keep the rest */
    }
    metric *nm = calloc(nnames ? nnames : 1, sizeof(*nm));
    pmID *np = calloc(nnames ? nnames : 1, sizeof(pmID));
    int n = 0;
    double now = mono();
    for (int i = 0; i < nnames; i++) {
        pmDesc d;
        if (ids[i] == PM_ID_NULL || pmLookupDesc(ids[i], &d) < 0)
            continue;
        if (d.type == PM_TYPE_EVENT || d.type == PM_TYPE_HIGHRES_EVENT)
            continue;
        nm[n].pmid = ids[i];
        size_t l = strlen(names[i]);
        nm[n].tick = l > 5 && strcmp(names[i] + l - 5, ".tick") == 0;
        nm[n].type = d.type;
        nm[n].lastnum = -1;
        nm[n].tickval = -1;
        nm[n].since = now;
        /* keep what we knew about a metric already watched */
        for (int j = 0; j < nms; j++)
            if (ms[j].pmid == ids[i]) {
                nm[n] = ms[j];
                ms[j].name = NULL;
                break;
            }
        free(nm[n].name);
        nm[n].name = strdup(names[i]);
        np[n++] = ids[i];
    }
    free(ids);
    for (int j = 0; j < nms; j++)
        free(ms[j].name);
    free(ms);
    free(pmids);
    ms = nm;
    pmids = np;
    nms = n;
    return n;
}

int main(int argc, char **argv)
{
    const char *host = "local:", *subtree = "staprelay", *statsfile = NULL, *stopfile = NULL;
    int interval = 1000, c;
    while ((c = getopt(argc, argv, "h:n:t:o:S:")) != -1) {
        switch (c) {
        case 'h': host = optarg; break;
        case 'n': subtree = optarg; break;
        case 't': interval = atoi(optarg); break;
        case 'o': statsfile = optarg; break;
        case 'S': stopfile = optarg; break;
        default:
            fprintf(stderr, "usage: valfetch -h HOST -n SUBTREE -t MS -o STATS -S STOP\n");
            return 2;
        }
    }
    if (statsfile == NULL || stopfile == NULL) {
        fprintf(stderr, "valfetch: -o and -S are required\n");
        return 2;
    }
    char tmp[4096];
    snprintf(tmp, sizeof(tmp), "%s.tmp", statsfile);
    int sts;
    if ((sts = pmNewContext(PM_CONTEXT_HOST, host)) < 0) {
        fprintf(stderr, "valfetch: %s: %s\n", host, pmErrStr(sts));
        return 1;
    }
    unsigned long fetches = 0, errors = 0, novalue = 0, values = 0;
    double next = mono(), last_walk = -1e9, last_stats = 0, maxstale = 0;
    for (;;) {
        double now = mono();
        if (next > now)
            usleep((useconds_t)((next - now) * 1e6));
        next += interval / 1000.0;
        if (next < mono())
            next = mono();
        int stopping = access(stopfile, F_OK) == 0;
        if (mono() - last_walk >= 30) {
            if ((sts = walk(subtree)) < 0) {
                errors++;
                fprintf(stderr, "valfetch: traverse: %s\n", pmErrStr(sts));
            }
            last_walk = mono();
        }
        if (nms > 0) {
            pmResult *r;
            if ((sts = pmFetch(nms, pmids, &r)) < 0) {
                errors++;
                fprintf(stderr, "valfetch: fetch: %s\n", pmErrStr(sts));
                if (sts == PM_ERR_IPC || sts == PM_ERR_TIMEOUT || sts == -ECONNRESET)
                    pmReconnectContext(pmWhichContext());
            } else {
                fetches++;
                values = 0;
                now = mono();
                for (int i = 0; i < r->numpmid && i < nms; i++) {
                    pmValueSet *vs = r->vset[i];
                    ms[i].lastnum = vs->numval;
                    if (vs->numval <= 0) {
                        novalue++;
                        continue;
                    }
                    values += vs->numval;
                    if (!ms[i].tick)
                        continue;
                    pmAtomValue a;
                    if (pmExtractValue(vs->valfmt, &vs->vlist[0], ms[i].type, &a, PM_TYPE_DOUBLE) < 0)
                        continue;
                    if (a.d != ms[i].tickval) {
                        ms[i].tickval = a.d;
                        ms[i].since = now;
                    } else if (now - ms[i].since > maxstale) {
                        maxstale = now - ms[i].since;
                    }
                }
                pmFreeResult(r);
            }
        }
        if (stopping || mono() - last_stats >= 1) {
            FILE *f = fopen(tmp, "w");
            if (f != NULL) {
                fprintf(f, "fetches %lu errors %lu metrics %d values %lu novalue %lu maxstale %.1f "
                           "done %d\n",
                        fetches, errors, nms, values, novalue, maxstale, stopping);
                fclose(f);
                rename(tmp, statsfile);
            }
            last_stats = mono();
        }
        if (stopping)
            break;
    }
    /* which metrics had no value in the last fetch */
    char nv[4096];
    snprintf(nv, sizeof(nv), "%s.novalue", statsfile);
    FILE *f = fopen(nv, "w");
    if (f != NULL) {
        for (int i = 0; i < nms; i++)
            if (ms[i].lastnum <= 0)
                fprintf(f, "%s %d\n", ms[i].name, ms[i].lastnum);
        fclose(f);
    }
    return 0;
}
