/* pcp_sibling: a number beside an event metric (see pcp_sibling.h). */
#include "client/input/pcp_sibling.h"

#include <stdio.h>
#include <string.h>
#include <pcp/pmapi.h>

/* How many archive records are read for a first value at most: a
 * discrete metric is logged with the first records or not at all. */
#define SIBLING_ARCHIVE_READS 64

bool pcp_sibling_name(const char *name, const char *sibling, char *out,
                      size_t size)
{
    size_t n = strlen(name);
    static const char rec[] = ".records";
    if (n > sizeof rec - 1 && strcmp(name + n - (sizeof rec - 1), rec) == 0)
        n -= sizeof rec - 1;
    while (n > 0 && name[n - 1] != '.')     /* drop the event's name */
        n--;
    if (n < 2)
        return false;
    int len = snprintf(out, size, "%.*s%s", (int)n, name, sibling);
    return len > 0 && (size_t)len < size;
}

/* The first value of pmid in one fetch's result, as a double. */
static bool value_in(const pmResult *r, pmID pmid, int type, double *value)
{
    for (int i = 0; i < r->numpmid; i++) {
        const pmValueSet *vs = r->vset[i];
        if (vs->pmid != pmid || vs->numval <= 0)
            continue;
        pmAtomValue av;
        if (pmExtractValue(vs->valfmt, &vs->vlist[0], type, &av,
                           PM_TYPE_DOUBLE) < 0)
            return false;
        *value = av.d;
        return true;
    }
    return false;
}

/* One fetch (live), or the archive's records until one has a value. */
static bool fetch_value(bool live, pmID pmid, int type, double *value)
{
    for (int k = 0; k < (live ? 1 : SIBLING_ARCHIVE_READS); k++) {
        pmResult *r;
        if (pmFetch(1, &pmid, &r) < 0)
            return false;
        bool got = value_in(r, pmid, type, value);
        pmFreeResult(r);
        if (got)
            return true;
    }
    return false;
}

bool pcp_sibling_value(const pcp_options *po, const char *sibling,
                       double *value)
{
    bool live = po->nhosts > 0;
    const char *spec = live ? po->hosts[0]
                            : po->narchives > 0 ? po->archives[0] : NULL;
    if (spec == NULL)
        return false;
    int ctx = pmNewContext(live ? PM_CONTEXT_HOST : PM_CONTEXT_ARCHIVE, spec);
    if (ctx < 0)
        return false;
    bool found = false;
    for (int m = 0; m < po->nmetrics && !found; m++) {
        char name[512];
        pmID pmid;
        pmDesc d;
        char *names[1] = { name };
        if (!pcp_sibling_name(po->metrics[m], sibling, name, sizeof name)
            || pmLookupName(1, (const char **)names, &pmid) < 0
            || pmLookupDesc(pmid, &d) < 0)
            continue;
        pmLogLabel label;
        if (!live      /* from the start of the archive each time */
            && (pmGetArchiveLabel(&label) < 0
                || pmSetMode(PM_MODE_FORW, &label.ll_start, 0) < 0))
            continue;
        found = fetch_value(live, pmid, d.type, value);
    }
    pmDestroyContext(ctx);
    return found;
}
