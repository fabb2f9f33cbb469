/* values: fetch and instance callbacks. */
#include "pmda/values.h"
#include "pmda/namespace.h"
#include "pmda/control.h"

#include "common/strmap.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>

/* libpcp_pmda's end-context and instance-label callbacks carry no user
 * data: this is the one pointer to the loop's context they can reach. */
pmda_ctx *values_ctx;

typedef const char *(*name_at_fn)(const void *list, size_t i);

/* Bring an indom in line with a list of n names, once per generation of
 * that list (the sources, the event streams, the runs). */
static void sync_named_indom(pmdaIndom *idp, indom_ref *ir, uint64_t generation, size_t n,
                             name_at_fn name_at, const void *list)
{
    if (ir->synced && ir->generation == generation)
        return;
    const char **names = calloc(n ? n : 1, sizeof(char *));
    if (names == NULL)
        return;
    for (size_t i = 0; i < n; i++)
        names[i] = name_at(list, i);
    inst_table_fill(ir->table, idp, names, NULL, NULL, n);
    free(names);
    ir->generation = generation;
    ir->synced = true;
}

static const char *source_dir_at(const void *list, size_t i)
{
    return ((const relay *)list)->sources[i]->dir;
}

static const char *stream_name_at(const void *list, size_t i)
{
    return ((const pmda_ctx *)list)->streams[i].name;
}

static const char *run_name_at(const void *list, size_t i)
{
    return runs_name(list, i);
}

/* The sources and the event streams only change in a poll, which always
 * rebuilds the namespace: the rebuild count is their generation. */
static void sync_sources_indom(pmda_ctx *ctx, pmdaIndom *idp, indom_ref *ir)
{
    sync_named_indom(idp, ir, ctx->rebuilds, ctx->relay->nsources, source_dir_at, ctx->relay);
}

static void sync_events_indom(pmda_ctx *ctx, pmdaIndom *idp, indom_ref *ir)
{
    sync_named_indom(idp, ir, ctx->rebuilds, ctx->nstreams, stream_name_at, ctx);
}

static void sync_runs_indom(pmda_ctx *ctx, pmdaIndom *idp, indom_ref *ir)
{
    if (ctx->runs != NULL)
        sync_named_indom(idp, ir, ctx->runs->generation, runs_count(ctx->runs), run_name_at,
                         ctx->runs);
}

static void sync_stacks_indom(pmdaIndom *idp, indom_ref *ir)
{
    const source *s = ir->src;
    const event_stream *es = s->streams != NULL ? s->streams[ir->index] : NULL;
    if (es == NULL || es->stacks == NULL) {
        if (idp->it_numinst > 0)
            inst_table_clear(idp);
        return;
    }
    uint64_t gen = stackcount_generation(es->stacks);
    if (ir->synced && ir->generation == gen)
        return;
    size_t n = stackcount_size(es->stacks);
    const char **names = calloc(n ? n : 1, sizeof(char *));
    if (names == NULL)
        return;
    for (size_t k = 0; k < n; k++)
        names[k] = stackcount_entry(es->stacks, k)->name;
    inst_table_fill(ir->table, idp, names, NULL, NULL, n);
    free(names);
    ir->generation = gen;
    ir->synced = true;
}

/* The subsecond buckets never change: 0-19, 20-39, ... 980-999 (ms), ids
 * 0 .. SUBSECOND_BUCKETS-1 in bucket order. */
static void sync_subsecond_indom(pmdaIndom *idp, indom_ref *ir)
{
    if (ir->synced)
        return;
    char text[SUBSECOND_BUCKETS][16];
    const char *names[SUBSECOND_BUCKETS];
    bool isnum[SUBSECOND_BUCKETS];
    int64_t nums[SUBSECOND_BUCKETS];
    const int width = 1000 / SUBSECOND_BUCKETS;
    for (int k = 0; k < SUBSECOND_BUCKETS; k++) {
        snprintf(text[k], sizeof(text[k]), "%d-%d", k * width, (k + 1) * width - 1);
        names[k] = text[k];
        isnum[k] = true;
        nums[k] = k;
    }
    if (inst_table_fill(ir->table, idp, names, isnum, nums, SUBSECOND_BUCKETS) == 0)
        ir->synced = true;
}

static void sync_array_indom(pmdaIndom *idp, indom_ref *ir)
{
    const source *s = ir->src;
    if (ir->synced && ir->generation == s->generation)
        return;
    const array_snapshot *as = s->snap != NULL ? &s->snap->arrays[ir->index] : NULL;
    bool histogram = s->meta->arrays[ir->index].histogram;
    size_t n = as != NULL ? as->ninsts : 0;
    const char **names = calloc(n ? n : 1, sizeof(char *));
    bool *isnum = calloc(n ? n : 1, sizeof(bool));
    int64_t *nums = calloc(n ? n : 1, sizeof(int64_t));
    if (names != NULL && isnum != NULL && nums != NULL) {
        for (size_t k = 0; k < n; k++) {
            names[k] = as->insts[k].name;
            /* buckets get ids in bucket order (pmval lists by id) */
            isnum[k] = histogram || as->insts[k].is_number;
            nums[k] = histogram ? inst_bucket_id(as->insts[k].lo, as->insts[k].lo_open)
                                : as->insts[k].number;
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
        switch (ir->kind) {
        case INDOM_SOURCES:
            sync_sources_indom(ctx, &ctx->indoms[i], ir);
            break;
        case INDOM_EVENTS:
            sync_events_indom(ctx, &ctx->indoms[i], ir);
            break;
        case INDOM_ARRAY:
            sync_array_indom(&ctx->indoms[i], ir);
            break;
        case INDOM_STACKS:
            sync_stacks_indom(&ctx->indoms[i], ir);
            break;
        case INDOM_RUNS:
            sync_runs_indom(ctx, &ctx->indoms[i], ir);
            break;
        case INDOM_SUBSECOND:
            sync_subsecond_indom(&ctx->indoms[i], ir);
            break;
        }
    }
}

/* Close the seconds that are over in every subsecond histogram, once per
 * fetch, so that a fetch's .subsecond and .subsecond_end agree. */
static void close_subseconds(pmda_ctx *ctx)
{
    double now = ev_time();
    for (size_t i = 0; i < ctx->nstreams; i++) {
        const stream_ref *sr = &ctx->streams[i];
        event_stream *es = sr->src->streams != NULL ? sr->src->streams[sr->event] : NULL;
        if (es != NULL && es->subsec != NULL)
            subsecond_close(es->subsec, now);
    }
}

void values_prepare_fetch(pmda_ctx *ctx, pmdaExt *pmda)
{
    /* normally a no-op: the loop syncs when data changes (relay hook) */
    values_sync_indoms(ctx);
    close_subseconds(ctx);
    if (ctx->names_changed) {
        pmdaExtSetFlags(pmda, PMDA_EXT_NAMES_CHANGE);
        ctx->names_changed = false;
    }
}

static const indom_ref *indom_for(pmda_ctx *ctx, pmInDom indom, int *slot);

/* An instance asked for by id that has just left its domain: answer from
 * the table's memory of departures, through pmdaInstance on a one-member
 * stand-in so the result is built (and later freed) the usual way. */
static int departed_instance(pmda_ctx *ctx, pmInDom indom, int inst, pmInResult **result,
                             pmdaExt *pmda)
{
    int slot;
    const indom_ref *ir = indom_for(ctx, indom, &slot);
    const char *gone = ir != NULL && ir->table != NULL
                           ? inst_table_departed(ir->table, (unsigned int)inst) : NULL;
    if (gone == NULL)
        return PM_ERR_INST;
    pmdaIndom *idp = &ctx->indoms[slot];
    pmdaInstid one = {.i_inst = inst, .i_name = (char *)gone};
    pmdaInstid *saved_set = idp->it_set;
    int saved_n = idp->it_numinst;
    idp->it_set = &one;
    idp->it_numinst = 1;
    int rc = pmdaInstance(indom, inst, NULL, result, pmda);
    idp->it_set = saved_set;
    idp->it_numinst = saved_n;
    return rc;
}

int values_instance(pmInDom indom, int inst, char *name, pmInResult **result, pmdaExt *pmda)
{
    pmda_ctx *ctx = pmdaExtGetData(pmda);
    values_sync_indoms(ctx);
    int rc = pmdaInstance(indom, inst, name, result, pmda);
    if (rc == PM_ERR_INST && (unsigned int)inst != PM_IN_NULL && name == NULL)
        rc = departed_instance(ctx, indom, inst, result, pmda);
    return rc;
}

int values_desc(pmID pmid, pmDesc *desc, pmdaExt *pmda)
{
    return pmdaDesc(pmid, desc, pmda);
}

/* A value metric's values in the current snapshot, one per row of its
 * instance table (one for a scalar); NULL when it has none. */
static const value *source_column(const metric_ref *ref, size_t *n)
{
    const snapshot *snap = ref->src->snap;
    *n = 0;
    if (snap == NULL || ref->index >= snap->nmetrics || snap->values[ref->index] == NULL)
        return NULL;
    const meta_metric *mm = &ref->src->meta->metrics[ref->index];
    *n = mm->array >= 0 ? snap->arrays[mm->array].ninsts : 1;
    return snap->values[ref->index];
}

static int source_value(const metric_ref *ref, long pos, pmAtomValue *atom)
{
    size_t n;
    const value *col = source_column(ref, &n);
    if (col == NULL)
        return PMDA_FETCH_NOVALUES;
    const meta_metric *mm = &ref->src->meta->metrics[ref->index];
    size_t k = 0;
    if (mm->array >= 0) {
        if (pos < 0 || (size_t)pos >= n)
            return PM_ERR_INST;
        k = (size_t)pos;
    }
    const value *v = &col[k];
    if (v->state != VAL_OK)
        return PMDA_FETCH_NOVALUES;
    switch (mm->type) {
    case VT_INT64:
        atom->ll = v->u.i;
        break;
    case VT_UINT64:
        atom->ull = v->u.u;
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


/* relay/events.h measures records in PCP's encoding without PCP's headers:
 * its numbers must be PCP's. */
_Static_assert(sizeof(pmEventArray) - sizeof(pmEventRecord) == EVENT_WIRE_ARRAY_HDR,
               "pmEventArray header");
_Static_assert(sizeof(pmEventRecord) - sizeof(pmEventParameter) == EVENT_WIRE_RECORD_HDR,
               "pmEventRecord header");
_Static_assert(sizeof(pmEventParameter) == EVENT_WIRE_PARAM_HDR, "pmEventParameter header");

typedef struct record_builder {
    pmda_ctx *ctx;
    const meta_event *me;
    const metric_ref *ref;
    field_value *vals;
    const uint64_t *missed;   /* set by the read before the first record */
    bool missed_added;
} record_builder;

static const char *scratch_string(pmda_ctx *ctx, const char *s, size_t n)
{
    if (n + 1 > ctx->scratch_len) {
        char *ns = realloc(ctx->scratch, n + 1);
        if (ns == NULL)
            return NULL;
        ctx->scratch = ns;
        ctx->scratch_len = n + 1;
    }
    memcpy(ctx->scratch, s, n);
    ctx->scratch[n] = '\0';
    return ctx->scratch;
}

/* The MISSED record stands for records lost before the ones delivered
 * with it, so it goes first, stamped with the time of the first record
 * delivered (or now when none is): the array stays in time order. */
static void add_missed(record_builder *b, struct timeval *tv)
{
    uint64_t missed = *b->missed;
    if (missed == 0 || b->missed_added)
        return;
    pmdaEventAddMissedRecord(b->ref->event_array, tv,
                             (int)(missed > INT32_MAX ? INT32_MAX : missed));
    b->missed_added = true;
}

static int add_record(void *arg, const void *data, size_t len, int64_t when_ns)
{
    record_builder *b = arg;
    struct timeval tv = {.tv_sec = when_ns / 1000000000, .tv_usec = (when_ns % 1000000000) / 1000};
    add_missed(b, &tv);
    if (event_blob_decode(data, len, b->vals, b->me->nfields) != 0)
        return 0;   /* cannot happen for our own blobs; skip rather than stall */
    int ea = b->ref->event_array;
    if (pmdaEventAddRecord(ea, &tv, PM_EVENT_FLAG_POINT) < 0)
        return -1;
    for (size_t f = 0; f < b->me->nfields; f++) {
        const field_value *v = &b->vals[f];
        pmAtomValue atom;
        int type;
        if (!v->present || b->ref->field_pmids[f] == 0)
            continue;
        switch (v->type) {
        case FT_INT64:
            atom.ll = v->i;
            type = PM_TYPE_64;
            break;
        case FT_UINT64:
            atom.ull = (uint64_t)v->i;   /* decoded into the same 8 bytes */
            type = PM_TYPE_U64;
            break;
        case FT_DOUBLE:
            atom.d = v->d;
            type = PM_TYPE_DOUBLE;
            break;
        default:
            atom.cp = (char *)scratch_string(b->ctx, v->s, v->slen);
            if (atom.cp == NULL)
                continue;
            type = PM_TYPE_STRING;
            break;
        }
        pmdaEventAddParam(ea, b->ref->field_pmids[f], type, &atom);
    }
    return 0;
}

/* Records for the client context of the current request. */
static int event_value(const metric_ref *ref, pmAtomValue *atom)
{
    const source *s = ref->src;
    event_stream *es = s->streams != NULL ? s->streams[ref->index] : NULL;
    if (es == NULL || ref->event_array < 0)
        return PMDA_FETCH_NOVALUES;
    const meta_event *me = &s->meta->events[ref->index];
    field_value *vals = calloc(me->nfields ? me->nfields : 1, sizeof(field_value));
    if (vals == NULL)
        return PM_ERR_GENERIC;
    uint64_t missed = 0;
    record_builder b = {ref->ctx, me, ref, vals, &missed, false};
    pmdaEventResetArray(ref->event_array);
    /* event_fetch_size bounds one client's records per fetch, measured as
     * PCP encodes them: the event array and its PDU copy stay small, a
     * lagging client catches up over a few fetches, and the array never
     * outgrows PCP's 24-bit length whatever the configuration */
    size_t n = event_stream_read(es, ref->ctx->client, ref->ctx->relay->cfg->event_fetch_size,
                                 &missed, add_record, &b);
    free(vals);
    if (missed > 0 && !b.missed_added) {
        struct timeval now;
        gettimeofday(&now, NULL);
        add_missed(&b, &now);
    }
    if (n == 0 && missed == 0)
        return PMDA_FETCH_NOVALUES;
    atom->vbp = (pmValueBlock *)pmdaEventGetAddr(ref->event_array);
    return PMDA_FETCH_STATIC;
}

static int stacks_value(const metric_ref *ref, long pos, pmAtomValue *atom)
{
    const source *s = ref->src;
    const event_stream *es = s->streams != NULL ? s->streams[ref->index] : NULL;
    const stackcount_row *e = es != NULL && es->stacks != NULL && pos >= 0
                               ? stackcount_entry(es->stacks, (size_t)pos) : NULL;
    if (e == NULL)
        return PM_ERR_INST;
    atom->ull = e->count;
    return PMDA_FETCH_STATIC;
}

static int subsecond_value(const metric_ref *ref, long pos, pmAtomValue *atom)
{
    const source *s = ref->src;
    const event_stream *es = s->streams != NULL ? s->streams[ref->index] : NULL;
    const subsecond *h = es != NULL ? es->subsec : NULL;
    if (h == NULL)
        return PMDA_FETCH_NOVALUES;
    if (ref->kind == REF_SUBSECOND_END) {
        if (h->closed == SUBSECOND_NONE)
            return PMDA_FETCH_NOVALUES;
        atom->ul = (uint32_t)h->closed;
        return PMDA_FETCH_STATIC;
    }
    if (pos < 0 || pos >= SUBSECOND_BUCKETS)
        return PM_ERR_INST;
    atom->ul = (uint32_t)h->counts[pos];   /* a 32-bit counter wraps */
    return PMDA_FETCH_STATIC;
}

const value *values_source_column(const pmdaMetric *mdesc, size_t *n)
{
    const metric_ref *ref = mdesc->m_user;
    *n = 0;
    return ref->kind == REF_SOURCE ? source_column(ref, n) : NULL;
}

int values_fetch_at(const pmdaMetric *mdesc, long pos, pmAtomValue *atom)
{
    const metric_ref *ref = mdesc->m_user;
    switch (ref->kind) {
    case REF_CONTROL:
        return control_fetch(ref->ctx, &control_metrics[ref->index], pos, atom);
    case REF_SOURCE:
        return source_value(ref, pos, atom);
    case REF_EVENT:
        return event_value(ref, atom);
    case REF_STACKS:
        return stacks_value(ref, pos, atom);
    case REF_SUBSECOND:
    case REF_SUBSECOND_END:
        return subsecond_value(ref, pos, atom);
    case REF_FIELD:
        break;
    }
    return PMDA_FETCH_NOVALUES;   /* a field has values only inside records */
}

void values_end_context(int context)
{
    pmda_ctx *ctx = values_ctx;
    if (ctx == NULL)
        return;
    control_end_context(ctx, context);
    relay *r = ctx->relay;
    for (size_t i = 0; i < r->nsources; i++) {
        source *s = r->sources[i];
        if (s->streams == NULL || s->meta == NULL)
            continue;
        for (size_t e = 0; e < s->meta->nevents; e++)
            if (s->streams[e] != NULL)
                evqueue_end_client(s->streams[e]->queue, context);
    }
}

static const indom_ref *indom_for(pmda_ctx *ctx, pmInDom indom, int *slot)
{
    for (size_t i = 0; i < ctx->nindoms; i++)
        if (ctx->indoms[i].it_indom == indom) {
            *slot = (int)i;
            return &ctx->indom_refs[i];
        }
    return NULL;
}

static bool is_histogram(const indom_ref *ir)
{
    return ir != NULL && ir->kind == INDOM_ARRAY && ir->src->meta->arrays[ir->index].histogram;
}

/* Labels from metadata go to PCP only when they fit PCP's label limits
 * with room to spare.  A label set holds at most 255 labels, a name at
 * most 254 bytes, and the set a client merges from the host's, the
 * agent's, the indom's, the metric's and the instance's labels at most
 * 65535 bytes of JSON.  Past those, pmdaAddLabels fails and PCP logs the
 * whole text on every request (64 KB log lines, one per pminfo -l), or the
 * metric's set passes here and then every client's merge fails ("labels
 * merge failed") or drops it without a word.  So a metric's labels are
 * published only when they are at most LABELS_MAX_COUNT labels,
 * LABELS_MAX_JSON bytes of JSON and names of at most LABELS_MAX_NAME bytes;
 * otherwise none of them are, and the source says so once. */
#define LABELS_MAX_COUNT 64
#define LABELS_MAX_JSON 4096
#define LABELS_MAX_NAME 128

bool values_labels_fit(const char *json, char *why, size_t whylen)
{
    size_t len = strlen(json);
    if (len > LABELS_MAX_JSON) {
        snprintf(why, whylen, "%zu bytes of JSON, more than %d", len, LABELS_MAX_JSON);
        return false;
    }
    json_t *o = json_loads(json, 0, NULL);
    bool ok = json_is_object(o);
    if (!ok)
        snprintf(why, whylen, "not a JSON object");
    else if (json_object_size(o) > LABELS_MAX_COUNT) {
        snprintf(why, whylen, "%zu labels, more than %d", json_object_size(o), LABELS_MAX_COUNT);
        ok = false;
    } else {
        const char *key;
        json_t *v;
        json_object_foreach(o, key, v) {
            if (strlen(key) > LABELS_MAX_NAME) {
                snprintf(why, whylen, "a label name of %zu bytes, more than %d", strlen(key),
                         LABELS_MAX_NAME);
                ok = false;
                break;
            }
        }
    }
    json_decref(o);
    return ok;
}

/* Once per source, metric and label text (not on every request). */
static void report_labels(source *s, const char *metric, const char *text, const char *why)
{
    static strmap *reported;
    char key[4400];
    snprintf(key, sizeof(key), "%.4000s\n%.300s\n%llx", s->dir, metric,
             (unsigned long long)strmap_hash(text));
    if (reported != NULL && strmap_count(reported) >= 10000) {
        strmap_free(reported);
        reported = NULL;
    }
    if (reported == NULL && (reported = strmap_new()) == NULL)
        return;
    if (strmap_get(reported, key, NULL))
        return;
    strmap_put(reported, key, 1);
    source_report(s, "metric %s: labels not published: %s (at most %d labels, %d bytes of "
                  "JSON, names of %d bytes)", metric, why, LABELS_MAX_COUNT, LABELS_MAX_JSON,
                  LABELS_MAX_NAME);
}

int values_label(int ident, int type, pmLabelSet **lp, pmdaExt *pmda)
{
    pmda_ctx *ctx = pmdaExtGetData(pmda);
    values_sync_indoms(ctx);
    int slot;
    if (type == PM_LABEL_INDOM) {
        const indom_ref *ir = indom_for(ctx, (pmInDom)ident, &slot);
        /* indom labels survive where item labels do not: pmseries and
         * pmproxy (PCP 6.0.3) drop the item labels of metrics with an
         * instance domain (performancecopilot/pcp#2418) */
        if (ir != NULL && ir->kind == INDOM_STACKS)
            pmdaAddLabels(lp, "{\"metrictype\":\"stacks\"}");
        if (ir != NULL && ir->kind == INDOM_SUBSECOND)
            pmdaAddLabels(lp, "{\"statistic\":\"histogram\",\"bound_units\":\"millisec\"}");
        if (is_histogram(ir)) {
            pmdaAddLabels(lp, "{\"statistic\":\"histogram\"}");
            /* escaped by jansson: units are free text from metadata */
            const char *bu = ir->src->meta->arrays[ir->index].bound_units;
            json_t *o = bu != NULL ? json_pack("{s:s}", "bound_units", bu) : NULL;
            char *text = o != NULL ? json_dumps(o, JSON_COMPACT) : NULL;
            char why[200];
            if (text != NULL && values_labels_fit(text, why, sizeof(why)))
                pmdaAddLabels(lp, "%s", text);
            free(text);
            json_decref(o);
        }
    } else if (type == PM_LABEL_ITEM) {
        const pmdaMetric *m = namespace_lookup(ctx, (pmID)ident);
        const metric_ref *ref = m != NULL ? m->m_user : NULL;
        if (ref != NULL && ref->kind == REF_STACKS)
            pmdaAddLabels(lp, "{\"metrictype\":\"stacks\"}");
        else if (ref != NULL && ref->kind == REF_SUBSECOND)
            pmdaAddLabels(lp, "{\"metrictype\":\"histogram\"}");
        else if (ref != NULL && ref->indom_slot >= 0 &&
                 is_histogram(&ctx->indom_refs[ref->indom_slot]))
            pmdaAddLabels(lp, "{\"metrictype\":\"histogram\"}");
        if (ref != NULL && ref->kind == REF_SOURCE &&
            ref->src->meta->metrics[ref->index].labels != NULL) {
            const meta_metric *mm = &ref->src->meta->metrics[ref->index];
            char why[200];
            if (values_labels_fit(mm->labels, why, sizeof(why)))
                pmdaAddLabels(lp, "%s", mm->labels);
            else
                report_labels(ref->src, mm->name, mm->labels, why);
        }
    }
    return pmdaLabel(ident, type, lp, pmda);
}

int values_instance_labels(pmInDom indom, unsigned int inst, pmLabelSet **lp)
{
    pmda_ctx *ctx = values_ctx;
    int slot;
    const indom_ref *ir = ctx != NULL ? indom_for(ctx, indom, &slot) : NULL;
    if (ir != NULL && ir->kind == INDOM_SUBSECOND && inst < SUBSECOND_BUCKETS) {
        unsigned int w = 1000 / SUBSECOND_BUCKETS, n = 0;
        n += pmdaAddLabels(lp, "{\"lower_bound\":%u}", inst * w) >= 0;
        n += pmdaAddLabels(lp, "{\"upper_bound\":%u}", (inst + 1) * w - 1) >= 0;
        return (int)n;
    }
    if (!is_histogram(ir) || ir->src->snap == NULL)
        return 0;
    long pos = inst_table_position(ir->table, &ctx->indoms[slot], inst);
    const array_snapshot *as = &ir->src->snap->arrays[ir->index];
    if (pos < 0 || (size_t)pos >= as->ninsts)
        return 0;
    const instance *in = &as->insts[pos];
    int n = 0;
    if (!in->lo_open && pmdaAddLabels(lp, "{\"lower_bound\":%lld}", (long long)in->lo) >= 0)
        n++;
    if (!in->hi_open && pmdaAddLabels(lp, "{\"upper_bound\":%lld}", (long long)in->hi) >= 0)
        n++;
    return n;
}
