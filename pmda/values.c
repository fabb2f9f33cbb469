/* values: fetch and instance callbacks. */
#include "pmda/values.h"
#include "pmda/control.h"

#include <stdlib.h>

static void sync_sources_indom(pmda_ctx *ctx, pmdaIndom *idp, indom_ref *ir)
{
    relay *r = ctx->relay;
    /* the list only changes in a poll, which always rebuilds the namespace */
    if (ir->synced && ir->generation == ctx->rebuilds)
        return;
    const char **names = calloc(r->nsources ? r->nsources : 1, sizeof(char *));
    if (names == NULL)
        return;
    for (size_t i = 0; i < r->nsources; i++)
        names[i] = r->sources[i]->dir;
    inst_table_fill(ir->table, idp, names, NULL, NULL, r->nsources);
    free(names);
    ir->generation = ctx->rebuilds;
    ir->synced = true;
}

static void sync_array_indom(pmdaIndom *idp, indom_ref *ir)
{
    const source *s = ir->src;
    if (ir->synced && ir->generation == s->generation)
        return;
    const array_snapshot *as = s->snap != NULL ? &s->snap->arrays[ir->array] : NULL;
    size_t n = as != NULL ? as->ninsts : 0;
    const char **names = calloc(n ? n : 1, sizeof(char *));
    bool *isnum = calloc(n ? n : 1, sizeof(bool));
    int64_t *nums = calloc(n ? n : 1, sizeof(int64_t));
    if (names != NULL && isnum != NULL && nums != NULL) {
        for (size_t k = 0; k < n; k++) {
            names[k] = as->insts[k].name;
            isnum[k] = as->insts[k].is_number;
            nums[k] = as->insts[k].number;
        }
        inst_table_fill(ir->table, idp, names, isnum, nums, n);
        ir->generation = s->generation;
        ir->synced = true;
    }
    free(names);
    free(isnum);
    free(nums);
}

void values_sync_indoms(pmda_ctx *ctx)
{
    for (size_t i = 0; i < ctx->nindoms; i++) {
        indom_ref *ir = &ctx->indom_refs[i];
        if (ir->table == NULL)
            continue;
        if (ir->src == NULL)
            sync_sources_indom(ctx, &ctx->indoms[i], ir);
        else
            sync_array_indom(&ctx->indoms[i], ir);
    }
}

int values_fetch(int numpmid, pmID *pmids, pmdaResult **resp, pmdaExt *pmda)
{
    pmda_ctx *ctx = pmdaExtGetData(pmda);
    values_sync_indoms(ctx);
    if (ctx->names_changed) {
        pmdaExtSetFlags(pmda, PMDA_EXT_NAMES_CHANGE);
        ctx->names_changed = false;
    }
    return pmdaFetch(numpmid, pmids, resp, pmda);
}

int values_instance(pmInDom indom, int inst, char *name, pmInResult **result, pmdaExt *pmda)
{
    values_sync_indoms(pmdaExtGetData(pmda));
    return pmdaInstance(indom, inst, name, result, pmda);
}

int values_desc(pmID pmid, pmDesc *desc, pmdaExt *pmda)
{
    return pmdaDesc(pmid, desc, pmda);
}

static int source_value(const metric_ref *ref, long pos, pmAtomValue *atom)
{
    const source *s = ref->src;
    const snapshot *snap = s->snap;
    if (snap == NULL || ref->index >= snap->nmetrics || snap->values[ref->index] == NULL)
        return PMDA_FETCH_NOVALUES;
    const meta_metric *mm = &s->meta->metrics[ref->index];
    size_t k = 0;
    if (mm->array >= 0) {
        if (pos < 0 || (size_t)pos >= snap->arrays[mm->array].ninsts)
            return PM_ERR_INST;
        k = (size_t)pos;
    }
    const value *v = &snap->values[ref->index][k];
    if (v->state != VAL_OK)
        return PMDA_FETCH_NOVALUES;
    switch (mm->type) {
    case VT_INT64:
        atom->ll = v->u.i;
        break;
    case VT_DOUBLE:
        atom->d = v->u.d;
        break;
    case VT_STRING:
        atom->cp = (char *)v->u.s;
        break;
    }
    return PMDA_FETCH_STATIC;
}

int values_fetch_callback(pmdaMetric *mdesc, unsigned int inst, pmAtomValue *atom)
{
    const metric_ref *ref = mdesc->m_user;
    pmda_ctx *ctx = ref->ctx;
    long pos = -1;
    if (ref->indom_slot >= 0) {
        const indom_ref *ir = &ctx->indom_refs[ref->indom_slot];
        pos = inst_table_position(ir->table, &ctx->indoms[ref->indom_slot], inst);
        if (pos < 0)
            return PM_ERR_INST;
    }
    if (ref->kind == REF_CONTROL)
        return control_fetch(ctx, &control_metrics[ref->index], pos, atom);
    return source_value(ref, pos, atom);
}
