/* pcp_result: a fetched pmResult into samples (see pcp_result.h). */
#include "client/input/pcp_result.h"

#include <stdio.h>
#include <stdlib.h>

#include "client/stack/stackfilter.h"
#include "common/xalloc.h"

/* A sample a counter stands for: delivered like a record's stack. */
void pcp_result_counted(void *arg, const char *folded, size_t len,
                        double weight, int64_t when_ns)
{
    reader *rd = arg;
    const source *s = rd->cur;
    pcp_sample smp = { .when_ns = when_ns, .stack = folded, .stack_len = len,
                       .weight = weight };
    if (!reader_counter_stack(rd, rd->po->by_host ? s->host : NULL, &smp))
        return;
    stack_context ctx = { .pid = -1, .tid = -1,
                          .host = s->host[0] ? s->host : NULL,
                          .time_ns = when_ns, .samples = weight };
    if (s->ctimed) {     /* the blocks' time, as their records weigh */
        ctx.weight_type = STACK_TIME_WEIGHT_TYPE;
        ctx.weight_unit = STACK_TIME_WEIGHT_UNIT;
        ctx.samples = -1;
    }
    reader_deliver(rd, weight, s->col, when_ns, &ctx);
}

/* The role of parameter pmid of s's records (pcp_field_fn), cached. */
static pcp_field field_role(void *arg, pmID pmid)
{
    source *s = arg;
    for (size_t i = 0; i < s->nfields; i++)
        if (s->fields[i].pmid == pmid)
            return s->fields[i].role;
    char *name = NULL;
    pcp_field role = PCP_FIELD_OTHER;
    if (pmNameID(pmid, &name) >= 0)
        role = pcp_field_from_name(name);
    free(name);
    /* a duration is a time in ns (or without units), as the PMDA's
     * stacks counter takes it; in other units it is just a field */
    pmDesc d;
    if (role == PCP_FIELD_DURATION && pmLookupDesc(pmid, &d) >= 0
        && !(d.units.dimSpace == 0 && d.units.dimCount == 0
             && (d.units.dimTime == 0
                 || (d.units.dimTime == 1 && d.units.scaleTime == PM_TIME_NSEC))))
        role = PCP_FIELD_OTHER;
    if (s->nfields == s->capfields) {
        size_t cap = s->capfields ? s->capfields * 2 : 16;
        s->fields = xrealloc(s->fields, cap * sizeof *s->fields);
        s->capfields = cap;
    }
    s->fields[s->nfields++] = (field_entry){ pmid, role };
    return role;
}

static void on_sample(void *arg, const pcp_sample *smp)
{
    reader *rd = arg;
    source *s = rd->cur;
    if (rd->scan) {
        if (smp->when_ns < rd->scan_lo)
            rd->scan_lo = smp->when_ns;
        if (smp->when_ns > rd->scan_hi)
            rd->scan_hi = smp->when_ns;
        return;
    }
    rd->st->records++;
    if (s->window && !pcp_window_holds(s->lo_ns, s->hi_ns, smp->when_ns)) {
        rd->st->outside++;
        if (smp->when_ns > s->hi_ns) {
            rd->past_end = true;
            if (s->live)
                rd->st->outside_late++;
        }
        return;
    }
    /* a block's class costs a pass over its stack: only when asked */
    block_state state = rd->po->by_state || rd->po->keep_state
                                || stackfilter_wants_state(rd->in->filter)
                            ? pcp_sample_state(smp) : BLOCK_STATE_NONE;
    if (smp->bad_weight
        || !pcp_sample_stack(smp, rd->po->by_host ? s->host : NULL,
                             rd->po->by_state ? state : BLOCK_STATE_NONE,
                             &rd->in->perf, &rd->stack)) {
        rd->st->ignored++;
        return;
    }
    stack_context ctx = {
        .comm = smp->comm, .comm_len = smp->comm_len,
        .pid = smp->has_pid ? smp->pid : -1,
        .tid = smp->has_tid ? smp->tid : -1,
        .host = s->host[0] ? s->host : NULL,
        .state = state,
        .time_ns = smp->when_ns,
        .samples = smp->weight,      /* a record's count is samples */
    };
    /* a block weighs its time unless --weight events (heatmap's default) */
    bool timed = smp->has_duration && rd->po->weigh != PCP_WEIGH_EVENTS;
    if (timed) {
        ctx.weight_type = STACK_TIME_WEIGHT_TYPE;
        ctx.weight_unit = STACK_TIME_WEIGHT_UNIT;
    }
    double weight = pcp_sample_weight(smp, timed);
    if (!reader_deliver(rd, weight, s->col, smp->when_ns, &ctx))
        return;
    rd->st->stacks++;
    rd->st->timed += timed;
    rd->weight += smp->weight;
}

static void on_missed(void *arg, int64_t when_ns, uint64_t n)
{
    reader *rd = arg;
    source *s = rd->cur;
    if (rd->scan)
        return;
    if (s->window && !pcp_window_holds(s->lo_ns, s->hi_ns, when_ns))
        return;
    rd->st->missed += n;
}

/* The name of instance inst of a counter's domain (cached: the agent's
 * ids are hashes of the names, so an id keeps its name). */
static const char *counter_inst_name(source *s, pmInDom indom, int inst)
{
    char key[48];
    snprintf(key, sizeof key, "%u/%d", (unsigned)indom, inst);
    if (s->inst_names == NULL)
        s->inst_names = strmap_new();
    int64_t k;
    if (s->inst_names != NULL && strmap_get(s->inst_names, key, &k))
        return s->names_seen[k];
    char *name = NULL;
    int sts = s->live ? pmNameInDom(indom, inst, &name)
                      : pmNameInDomArchive(indom, inst, &name);
    if (sts < 0 || s->inst_names == NULL) {
        free(name);
        return NULL;
    }
    s->names_seen = xrealloc(s->names_seen,
                             (s->nnames_seen + 1) * sizeof *s->names_seen);
    s->names_seen[s->nnames_seen] = name;
    strmap_put(s->inst_names, key, (int64_t)s->nnames_seen);
    return s->names_seen[s->nnames_seen++];
}

static bool integer_value(const pmValueSet *vs, int j, int type, uint64_t *v)
{
    pmAtomValue a;
    if (pmExtractValue(vs->valfmt, &vs->vlist[j], type, &a, PM_TYPE_U64) < 0)
        return false;
    *v = a.ull;
    return true;
}

/* One value set of counter metric m. */
static void process_counter(reader *rd, source *s, int m, const pmResult *r,
                            const pmValueSet *vs)
{
    pcp_counter *c = s->counter[m];
    if (rd->scan || vs->numval <= 0)
        return;
    pcp_counter_begin(c, (int64_t)r->timestamp.tv_sec * 1000000000
                         + (int64_t)r->timestamp.tv_usec * 1000);
    for (int j = 0; j < vs->numval; j++) {
        const char *name = counter_inst_name(s, s->cindom[m], vs->vlist[j].inst);
        uint64_t v;
        if (name != NULL && integer_value(vs, j, s->ctype[m], &v))
            pcp_counter_value(c, name, v);
    }
    for (int i = 0; s->end_pmid[m] != PM_ID_NULL && i < r->numpmid; i++) {
        const pmValueSet *es = r->vset[i];
        uint64_t end;
        if (es->pmid == s->end_pmid[m] && es->numval > 0
            && integer_value(es, 0, PM_TYPE_U32, &end))
            pcp_counter_end_second(c, (int64_t)end);
    }
    rd->cur = s;
    pcp_counter_end(c);
}

void pcp_result_process(reader *rd, source *s, const pmResult *r)
{
    pcp_event_cb cb = { on_sample, on_missed, rd };
    rd->cur = s;
    for (int i = 0; i < r->numpmid; i++) {
        const pmValueSet *vs = r->vset[i];
        int m;
        for (m = 0; m < s->npmids; m++)
            if (vs->pmid == s->pmids[m])
                break;
        if (m < s->npmids && s->counter[m] != NULL) {
            process_counter(rd, s, m, r, vs);
            continue;
        }
        if (m == s->npmids || vs->numval <= 0
            || vs->valfmt == PM_VAL_INSITU)
            continue;
        for (int j = 0; j < vs->numval; j++) {
            int sts = pcp_decode_events(vs->vlist[j].value.pval, field_role,
                                        s, &cb);
            if (sts < 0)
                reader_notice(rd, "%s: %s: undecodable event "
                              "records: %s", s->spec, s->names[m],
                              PCP_ERR_STR(sts));
        }
    }
}
