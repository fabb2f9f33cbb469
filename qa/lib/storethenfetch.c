/* storethenfetch HOST METRIC VALUE BARRIER: store VALUE into the string
 * METRIC, then wait until the file BARRIER exists (every other client of
 * the test has stored by then), then fetch METRIC in the same context and
 * print "store: STATUS" and "answer: VALUE".  qa 085: a client must read
 * its own store's answer however many clients stored after it. */
#include <pcp/pmapi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    if (argc != 5) {
        fprintf(stderr, "usage: storethenfetch HOST METRIC VALUE BARRIER\n");
        return 2;
    }
    int ctx = pmNewContext(PM_CONTEXT_HOST, argv[1]);
    pmID id;
    const char *name = argv[2];
    if (ctx < 0 || pmLookupName(1, &name, &id) < 0) {
        fprintf(stderr, "cannot reach %s / %s\n", argv[1], name);
        return 1;
    }
    pmValueBlock *vb = calloc(1, PM_VAL_HDR_SIZE + strlen(argv[3]) + 1);
    vb->vtype = PM_TYPE_STRING;
    vb->vlen = PM_VAL_HDR_SIZE + strlen(argv[3]) + 1;
    memcpy(vb->vbuf, argv[3], strlen(argv[3]) + 1);
    pmValueSet vs = {.pmid = id, .numval = 1, .valfmt = PM_VAL_DPTR};
    vs.vlist[0].inst = PM_IN_NULL;
    vs.vlist[0].value.pval = vb;
    pmValueSet *vsp = &vs;
    pmResult res = {.numpmid = 1};
    res.vset[0] = vsp;
    int sts = pmStore(&res);
    printf("store: %s\n", sts < 0 ? pmErrStr(sts) : "ok");
    fflush(stdout);   /* the test counts the stores before it lifts the barrier */
    for (int i = 0; i < 1200 && access(argv[4], F_OK) != 0; i++)
        usleep(100000);
    pmResult *r = NULL;
    if (pmFetch(1, &id, &r) < 0 || r->vset[0]->numval != 1) {
        printf("answer: (none)\n");
        return 1;
    }
    printf("answer: %s\n", r->vset[0]->vlist[0].value.pval->vbuf);
    pmFreeResult(r);
    return 0;
}
