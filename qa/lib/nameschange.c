/* nameschange: fetch one metric in a loop and report the pmcd state-change
 * flags that pmFetch's return value carries (PMCD_NAMES_CHANGE above all),
 * so a qa test can check that a PMDA's namespace change reaches clients,
 * once per change.
 *
 *   nameschange -h HOST -m METRIC -r READYFILE -s STOPFILE [-i MSEC]
 *
 * Fetches METRIC every MSEC (default 100); after 10 fetches creates
 * READYFILE; stops at the first fetch after STOPFILE exists (or after
 * 3000 fetches).  Each fetch that carries a flag prints one line:
 *   "PMCD_NAMES_CHANGE with METRIC = V"
 * and the end prints "fetches with PMCD_NAMES_CHANGE: N" (the fetch count
 * itself varies, so it goes to stderr).  Built by the test (cc ... -lpcp).
 */
#include <pcp/pmapi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static const struct {
    int flag;
    const char *name;
} flags[] = {
    {PMCD_ADD_AGENT, "PMCD_ADD_AGENT"},
    {PMCD_RESTART_AGENT, "PMCD_RESTART_AGENT"},
    {PMCD_DROP_AGENT, "PMCD_DROP_AGENT"},
    {PMCD_LABEL_CHANGE, "PMCD_LABEL_CHANGE"},
    {PMCD_NAMES_CHANGE, "PMCD_NAMES_CHANGE"},
};

static void usage(void)
{
    fprintf(stderr, "usage: nameschange -h HOST -m METRIC -r READYFILE -s STOPFILE [-i MSEC]\n");
    exit(2);
}

static void touch(const char *path)
{
    FILE *f = fopen(path, "w");
    if (f == NULL) {
        perror(path);
        exit(1);
    }
    fclose(f);
}

/* The value of the (single, singular or first-instance) metric as text. */
static void value_text(const pmResult *r, int type, char *buf, size_t len)
{
    pmAtomValue av;
    if (r->numpmid < 1 || r->vset[0]->numval < 1) {
        snprintf(buf, len, "(no value)");
        return;
    }
    if (pmExtractValue(r->vset[0]->valfmt, &r->vset[0]->vlist[0], type, &av,
                       PM_TYPE_64) < 0) {
        snprintf(buf, len, "(not a number)");
        return;
    }
    snprintf(buf, len, "%lld", (long long)av.ll);
}

int main(int argc, char **argv)
{
    const char *host = NULL, *metric = NULL, *ready = NULL, *stop = NULL;
    long msec = 100;
    int c;
    while ((c = getopt(argc, argv, "h:m:r:s:i:")) != -1) {
        switch (c) {
        case 'h': host = optarg; break;
        case 'm': metric = optarg; break;
        case 'r': ready = optarg; break;
        case 's': stop = optarg; break;
        case 'i': msec = atol(optarg); break;
        default: usage();
        }
    }
    if (host == NULL || metric == NULL || ready == NULL || stop == NULL || msec <= 0)
        usage();

    int sts = pmNewContext(PM_CONTEXT_HOST, host);
    if (sts < 0) {
        fprintf(stderr, "pmNewContext %s: %s\n", host, pmErrStr(sts));
        return 1;
    }
    pmID pmid;
    const char *names[] = {metric};
    if ((sts = pmLookupName(1, names, &pmid)) < 0) {
        fprintf(stderr, "pmLookupName %s: %s\n", metric, pmErrStr(sts));
        return 1;
    }
    pmDesc desc;
    if ((sts = pmLookupDesc(pmid, &desc)) < 0) {
        fprintf(stderr, "pmLookupDesc %s: %s\n", metric, pmErrStr(sts));
        return 1;
    }

    struct timespec nap = {msec / 1000, (msec % 1000) * 1000000L};
    int fetches = 0, names_changes = 0;
    for (;;) {
        /* checked before the fetch: the fetch after STOPFILE is the last */
        int last = access(stop, F_OK) == 0 || fetches >= 3000;
        pmResult *r;
        sts = pmFetch(1, &pmid, &r);
        fetches++;
        if (sts < 0) {
            printf("fetch failed: %s\n", pmErrStr(sts));
            return 1;
        }
        char v[64];
        value_text(r, desc.type, v, sizeof(v));
        for (size_t i = 0; i < sizeof(flags) / sizeof(flags[0]); i++) {
            if (sts & flags[i].flag)
                printf("%s with %s = %s\n", flags[i].name, metric, v);
        }
        if (sts & PMCD_NAMES_CHANGE)
            names_changes++;
        fflush(stdout);
        pmFreeResult(r);
        if (fetches == 10)
            touch(ready);
        if (last)
            break;
        nanosleep(&nap, NULL);
    }
    printf("fetches with PMCD_NAMES_CHANGE: %d\n", names_changes);
    fprintf(stderr, "nameschange: %d fetches\n", fetches);
    return 0;
}
