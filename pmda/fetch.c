/* fetch: arena-built fetch results. */
#include "pmda/fetch.h"
#include "pmda/namespace.h"
#include "pmda/values.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

/* libpcp's own profile check (what pmdaFetch uses); exported by libpcp
 * but declared only in its private header. */
extern int __pmInProfile(pmInDom, const pmProfile *, int);

#define CHUNK_SIZE (256u * 1024)

typedef struct chunk {
    struct chunk *next;
    size_t size, used;
    _Alignas(16) unsigned char data[];
} chunk;

struct fetch_arena {
    chunk *first, *cur;
};

static void *arena_alloc(fetch_arena *a, size_t n)
{
    n = (n + 15) & ~(size_t)15;
    for (;;) {
        if (a->cur != NULL && a->cur->size - a->cur->used >= n) {
            void *p = a->cur->data + a->cur->used;
            a->cur->used += n;
            return p;
        }
        if (a->cur != NULL && a->cur->next != NULL && a->cur->next->size >= n) {
            a->cur = a->cur->next;
            a->cur->used = 0;
            continue;
        }
        size_t size = n > CHUNK_SIZE ? n : CHUNK_SIZE;
        chunk *c = malloc(sizeof(chunk) + size);
        if (c == NULL)
            return NULL;
        c->size = size;
        c->used = 0;
        if (a->cur == NULL) {
            c->next = a->first;   /* only when the arena is empty */
            a->first = c;
        } else {
            c->next = a->cur->next;
            a->cur->next = c;
        }
        a->cur = c;
    }
}

static void arena_reset(fetch_arena *a)
{
    a->cur = a->first;
    if (a->cur != NULL)
        a->cur->used = 0;
}

void fetch_free(pmda_ctx *ctx)
{
    if (ctx->arena != NULL) {
        for (chunk *c = ctx->arena->first, *n; c != NULL; c = n) {
            n = c->next;
            free(c);
        }
        free(ctx->arena);
        ctx->arena = NULL;
    }
}

/* ---- values ------------------------------------------------------------------ */

static pmValueBlock *block(fetch_arena *a, int type, const void *data, size_t len)
{
    if (len + PM_VAL_HDR_SIZE > PM_VAL_VLEN_MAX)
        return NULL;
    /* the PDU carries the block rounded up to 4 bytes: zero the padding so
     * no stale memory leaves the process */
    size_t padded = (PM_VAL_HDR_SIZE + len + 3) & ~(size_t)3;
    pmValueBlock *vb = arena_alloc(a, padded);
    if (vb == NULL)
        return NULL;
    memset((char *)vb + padded - 4, 0, 4);
    vb->vtype = type;
    vb->vlen = PM_VAL_HDR_SIZE + len;
    memcpy(vb->vbuf, data, len);
    return vb;
}

/* Store one atom; returns 0, or a PCP error. */
static int stuff(fetch_arena *a, pmValue *v, int type, const pmAtomValue *atom)
{
    switch (type) {
    case PM_TYPE_32:
        v->value.lval = atom->l;
        return 0;
    case PM_TYPE_U32:
        v->value.lval = (int)atom->ul;
        return 0;
    case PM_TYPE_64:
    case PM_TYPE_U64:
    case PM_TYPE_DOUBLE:
        v->value.pval = block(a, type, atom, 8);
        break;
    case PM_TYPE_STRING:
        v->value.pval = block(a, type, atom->cp, strlen(atom->cp) + 1);
        break;
    case PM_TYPE_EVENT:
        v->value.pval = atom->vbp;   /* the event array's own buffer */
        break;
    default:
        return PM_ERR_TYPE;
    }
    return v->value.pval != NULL ? 0 : -ENOMEM;
}

static int insitu(int type)
{
    return type == PM_TYPE_32 || type == PM_TYPE_U32;
}

bool fetch_profile_takes_all(pmInDom indom, const pmProfile *prof)
{
    if (prof == NULL)
        return true;
    for (int i = 0; i < prof->profile_len; i++)
        if (prof->profile[i].indom == indom)
            return prof->profile[i].state == PM_PROFILE_INCLUDE &&
                   prof->profile[i].instances_len == 0;
    return prof->state == PM_PROFILE_INCLUDE;
}

/* The common case made cheap: a value metric of 8-byte values whose
 * every instance the profile takes.  Walk the snapshot's column directly
 * and give the values their blocks from one allocation.  Rows beyond the
 * instance table (it is synced before each fetch) and values that are
 * missing or of the wrong type are left out, as values_fetch_at does. */
#define FIXED_BLOCK 16   /* PM_VAL_HDR_SIZE + 8, rounded up for alignment */

static int fill_fixed_column(fetch_arena *a, pmValueSet *vs, const pmdaIndom *idp, int type,
                             const value *col, size_t ncol)
{
    size_t n = idp != NULL ? (size_t)(idp->it_numinst > 0 ? idp->it_numinst : 0) : 1;
    if (ncol < n)
        n = ncol;
    unsigned char *blocks = n > 0 ? arena_alloc(a, n * FIXED_BLOCK) : NULL;
    if (n > 0 && blocks == NULL)
        return -ENOMEM;
    /* the block's header word is built once and copied whole: setting its
     * two bit-fields in place is a byte store then a load of the same
     * word, a store-forwarding stall per value (most of this loop's time,
     * perf annotate); the count stays in a register for the same reason */
    pmValueBlock hdr;
    memset(&hdr, 0, sizeof(hdr));
    hdr.vtype = type;
    hdr.vlen = PM_VAL_HDR_SIZE + 8;
    int numval = 0;
    for (size_t j = 0; j < n; j++) {
        if (col[j].state != VAL_OK)
            continue;
        unsigned char *vb = blocks + (size_t)numval * FIXED_BLOCK;
        memcpy(vb, &hdr, PM_VAL_HDR_SIZE);
        memcpy(vb + PM_VAL_HDR_SIZE, &col[j].u, 8);   /* u.i, u.u or u.d: the union's first 8 bytes */
        pmValue *pv = &vs->vlist[numval++];
        pv->inst = idp != NULL ? idp->it_set[j].i_inst : (int)PM_IN_NULL;
        pv->value.pval = (pmValueBlock *)vb;
    }
    vs->numval = numval;
    return 0;
}

static pmValueSet *fetch_metric(pmda_ctx *ctx, pmdaExt *pmda, pmID pmid)
{
    fetch_arena *a = ctx->arena;
    pmdaMetric *m = namespace_lookup(ctx, pmid);
    if (m == NULL) {
        pmValueSet *vs = arena_alloc(a, sizeof(pmValueSet));
        if (vs != NULL) {
            vs->pmid = pmid;
            vs->numval = PM_ERR_PMID;
            vs->valfmt = 0;
        }
        return vs;
    }
    const metric_ref *ref = m->m_user;
    const pmdaIndom *idp = ref->indom_slot >= 0 ? &ctx->indoms[ref->indom_slot] : NULL;
    int n = idp != NULL ? idp->it_numinst : 1;
    pmValueSet *vs = arena_alloc(a, sizeof(pmValueSet) + (size_t)(n > 0 ? n : 1) * sizeof(pmValue));
    if (vs == NULL)
        return NULL;
    vs->pmid = pmid;
    vs->numval = 0;
    int type = m->m_desc.type;
    vs->valfmt = insitu(type) ? PM_VAL_INSITU : PM_VAL_SPTR;
    bool check_profile = idp != NULL && !fetch_profile_takes_all(m->m_desc.indom, pmda->e_prof);
    if (!check_profile && (type == PM_TYPE_64 || type == PM_TYPE_U64 || type == PM_TYPE_DOUBLE)) {
        size_t ncol;
        const value *col = values_source_column(m, &ncol);
        if (col != NULL)
            return fill_fixed_column(a, vs, idp, type, col, ncol) == 0 ? vs : NULL;
    }
    for (int j = 0; j < n; j++) {
        unsigned int inst = PM_IN_NULL;
        if (idp != NULL) {
            inst = (unsigned int)idp->it_set[j].i_inst;
            if (check_profile && !__pmInProfile(m->m_desc.indom, pmda->e_prof, (int)inst))
                continue;
        }
        pmAtomValue atom;
        int sts = values_fetch_at(m, idp != NULL ? j : -1, &atom);
        if (sts == PMDA_FETCH_NOVALUES || sts == PM_ERR_INST)
            continue;
        if (sts < 0 || (sts = stuff(a, &vs->vlist[vs->numval], type, &atom)) < 0) {
            if (vs->numval == 0)
                vs->numval = sts;   /* the whole metric fails, like pmdaFetch */
            break;
        }
        vs->vlist[vs->numval++].inst = (int)inst;
    }
    return vs;
}

/* A PMDA's result carries no time: libpcp_pmda's protocol uses the
 * timestamp's first byte for the state changes pmcd passes on to every
 * client (PMCD_NAMES_CHANGE, PMCD_LABEL_CHANGE) and zeroes the rest, as
 * pmdaFetch does.  A real time there reads as random flags. */
static void encode_status(pmResult *r, unsigned int ext_flags)
{
    unsigned char flags = 0;
    if (ext_flags & PMDA_EXT_LABEL_CHANGE)
        flags |= PMCD_LABEL_CHANGE;
    if (ext_flags & PMDA_EXT_NAMES_CHANGE)
        flags |= PMCD_NAMES_CHANGE;
    memset(&r->timestamp, 0, sizeof(r->timestamp));
    *(unsigned char *)&r->timestamp = flags;
}

int fetch_result(int numpmid, pmID *pmids, pmdaResult **resp, pmdaExt *pmda)
{
    pmda_ctx *ctx = pmdaExtGetData(pmda);
    /* pmdaGetContext() is only set by libpcp_pmda's own pmdaFetch, which we
     * replace: take the requesting client's context from the PDU. */
    ctx->client = pmda->e_context;
    values_prepare_fetch(ctx, pmda);
    if (ctx->arena == NULL && (ctx->arena = calloc(1, sizeof(fetch_arena))) == NULL)
        return -ENOMEM;
    arena_reset(ctx->arena);
    size_t size = sizeof(pmResult) + (size_t)(numpmid > 0 ? numpmid - 1 : 0) * sizeof(pmValueSet *);
    pmResult *r = arena_alloc(ctx->arena, size);
    if (r == NULL)
        return -ENOMEM;
    encode_status(r, pmda->e_flags);
    r->numpmid = numpmid;
    for (int i = 0; i < numpmid; i++) {
        r->vset[i] = fetch_metric(ctx, pmda, pmids[i]);
        if (r->vset[i] == NULL)
            return -ENOMEM;
    }
    /* the result goes out: pmcd has been told (pmdaFetch does the same) */
    pmda->e_flags &= ~(PMDA_EXT_LABEL_CHANGE | PMDA_EXT_NAMES_CHANGE);
    *resp = r;
    return 0;
}

void fetch_result_done(pmdaResult *result)
{
    (void)result;   /* everything lives in the arena until the next fetch */
}
