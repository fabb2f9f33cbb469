/* namespace: build the PMNS and tables from the relay's sources. */
#include "pmda/namespace.h"
#include "pmda/control.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define ROOT "staprelay"

static pmda_ctx *ctx_of(pmdaExt *pmda)
{
    return pmdaExtGetData(pmda);
}

/* A name put together from parts joined by '.', malloc'd: never cut
 * (metadata bounds names; a fixed buffer would cut them silently). */
static char *dotted(const char *a, const char *b, const char *c, const char *d)
{
    const char *parts[] = {a, b, c, d};
    size_t n = 1;
    for (size_t i = 0; i < 4; i++)
        n += parts[i] != NULL ? strlen(parts[i]) + 1 : 0;
    char *out = malloc(n), *p = out;
    if (out == NULL)
        return NULL;
    for (size_t i = 0; i < 4; i++) {
        if (parts[i] == NULL)
            continue;
        if (p != out)
            *p++ = '.';
        size_t k = strlen(parts[i]);
        memcpy(p, parts[i], k);
        p += k;
    }
    *p = '\0';
    return out;
}

static inst_table *table_for(pmda_ctx *ctx, int serial)
{
    if ((size_t)serial >= ctx->ntables) {
        size_t n = (size_t)serial + 16;
        inst_table **nt = realloc(ctx->tables, n * sizeof(*nt));
        if (nt == NULL)
            return NULL;
        memset(nt + ctx->ntables, 0, (n - ctx->ntables) * sizeof(*nt));
        ctx->tables = nt;
        ctx->ntables = n;
    }
    if (ctx->tables[serial] == NULL)
        ctx->tables[serial] = inst_table_new();
    return ctx->tables[serial];
}

/* Growable arrays used while building. */
typedef struct {
    pmdaMetric *metrics;
    metric_ref *refs;
    size_t n, cap;
    pmdaIndom *indoms;
    indom_ref *irefs;
    size_t ni, icap;
} tables;

static int add_metric(tables *t, const pmDesc *desc, const metric_ref *ref)
{
    if (t->n == t->cap) {
        size_t nc = t->cap ? t->cap * 2 : 64;
        pmdaMetric *nm = realloc(t->metrics, nc * sizeof(*nm));
        if (nm == NULL)
            return -1;
        t->metrics = nm;
        metric_ref *nr = realloc(t->refs, nc * sizeof(*nr));
        if (nr == NULL)
            return -1;
        t->refs = nr;
        t->cap = nc;
    }
    t->metrics[t->n].m_desc = *desc;
    t->refs[t->n] = *ref;
    t->n++;
    return 0;
}

static int add_indom(tables *t, pmInDom indom, const indom_ref *ref)
{
    if (t->ni == t->icap) {
        size_t nc = t->icap ? t->icap * 2 : 16;
        pmdaIndom *ni = realloc(t->indoms, nc * sizeof(*ni));
        if (ni == NULL)
            return -1;
        t->indoms = ni;
        indom_ref *nr = realloc(t->irefs, nc * sizeof(*nr));
        if (nr == NULL)
            return -1;
        t->irefs = nr;
        t->icap = nc;
    }
    memset(&t->indoms[t->ni], 0, sizeof(pmdaIndom));
    t->indoms[t->ni].it_indom = indom;
    t->irefs[t->ni] = *ref;
    return (int)t->ni++;
}

static void add_control(pmda_ctx *ctx, tables *t)
{
    indom_ref sref = {.kind = INDOM_SOURCES, .table = table_for(ctx, 0)};
    int sources_slot = add_indom(t, pmInDom_build(ctx->domain, 0), &sref);
    int eserial = ctx->events_serial;
    if (ctx->events_table == NULL)
        ctx->events_table = inst_table_new();
    indom_ref eref = {.kind = INDOM_EVENTS, .table = ctx->events_table};
    int events_slot = eref.table != NULL
                          ? add_indom(t, pmInDom_build(ctx->domain, eserial), &eref) : -1;
    if (ctx->runs_table == NULL)
        ctx->runs_table = inst_table_new();
    indom_ref rref = {.kind = INDOM_RUNS, .table = ctx->runs_table};
    int runs_slot = rref.table != NULL
                        ? add_indom(t, pmInDom_build(ctx->domain, IDMAP_RUNS_SERIAL), &rref) : -1;
    for (size_t i = 0; i < control_nmetrics; i++) {
        const control_metric *cm = &control_metrics[i];
        int slot = !cm->per_instance ? -1
                   : cm->indom == INDOM_EVENTS ? events_slot
                   : cm->indom == INDOM_RUNS ? runs_slot : sources_slot;
        if (cm->per_instance && slot < 0)
            continue;
        pmDesc d = {
            .pmid = pmID_build(ctx->domain, 0, cm->item),
            .type = cm->type,
            .indom = slot >= 0 ? t->indoms[slot].it_indom : PM_INDOM_NULL,
            .sem = cm->sem,
            .units = cm->units,
        };
        metric_ref ref = {.ctx = ctx, .kind = REF_CONTROL, .index = i, .indom_slot = slot,
                          .event_array = -1};
        char name[256];
        snprintf(name, sizeof(name), ROOT ".control.%s", cm->name);
        if (add_metric(t, &d, &ref) == 0)
            pmdaTreeInsert(ctx->pmns, d.pmid, name);
    }
}

/* Units as PCP understands them; problems are reported on the source once
 * per metadata load (host_checked), not on every rebuild. */
static pmUnits parse_units(source *s, const char *name, const char *units, bool report)
{
    pmUnits u;
    memset(&u, 0, sizeof(u));
    if (units == NULL)
        return u;
    double mult = 1;
    char *errmsg = NULL;
    if (pmParseUnitsStr(units, &u, &mult, &errmsg) < 0) {
        if (report)
            source_report(s, "metric %s: invalid units \"%s\" (%s); using none", name,
                          units, errmsg ? errmsg : "unparseable");
        free(errmsg);
        memset(&u, 0, sizeof(u));
        return u;
    }
    if (mult != 1 && report)
        source_report(s, "metric %s: units \"%s\" carry a scale factor %g, which PCP "
                      "descriptors cannot express; ignored", name, units, mult);
    return u;
}

static const int value_types[] = {
    [VT_INT64] = PM_TYPE_64, [VT_DOUBLE] = PM_TYPE_DOUBLE, [VT_STRING] = PM_TYPE_STRING,
    [VT_UINT64] = PM_TYPE_U64,
};
static const int field_types[] = {
    [FT_INT64] = PM_TYPE_64, [FT_DOUBLE] = PM_TYPE_DOUBLE, [FT_STRING] = PM_TYPE_STRING,
    [FT_STACK] = PM_TYPE_STRING, [FT_UINT64] = PM_TYPE_U64,
};
static const int semantics[] = {
    [SEM_INSTANT] = PM_SEM_INSTANT, [SEM_COUNTER] = PM_SEM_COUNTER,
    [SEM_DISCRETE] = PM_SEM_DISCRETE,
};

static int add_stream(pmda_ctx *ctx, source *s, size_t e)
{
    stream_ref *ns = realloc(ctx->streams, (ctx->nstreams + 1) * sizeof(*ns));
    if (ns == NULL)
        return -1;
    ctx->streams = ns;
    ctx->streams[ctx->nstreams] =
        (stream_ref){s, e, dotted(s->meta->prefix, s->meta->events[e].name, NULL, NULL)};
    ctx->nstreams++;
    return 0;
}

static int name_item(pmda_ctx *ctx, int cluster, const char *event, const char *leaf)
{
    char *rel = dotted(event, leaf, NULL, NULL);
    int item = rel != NULL ? idmap_item(ctx->ids, cluster, rel) : -1;
    free(rel);
    return item;
}

static void insert_name(pmda_ctx *ctx, pmID pmid, const char *prefix, const char *event,
                        const char *leaf)
{
    char *name = dotted(ROOT, prefix, event, leaf);
    if (name != NULL)
        pmdaTreeInsert(ctx->pmns, pmid, name);
    free(name);
}

/* <event>.subsecond (a histogram counter: samples by their offset within
 * the second, SUBSECOND_BUCKETS buckets of 20 ms) and <event>.subsecond_end
 * (the second before which it counts every sample).  32-bit values: logged
 * every second, each costs a third of a 64-bit one in an archive. */
static void add_subsecond(pmda_ctx *ctx, tables *t, source *s, int cluster, size_t e)
{
    const meta_event *me = &s->meta->events[e];
    const char *prefix = s->meta->prefix;
    char arr[600];
    snprintf(arr, sizeof(arr), "%s.subsecond", me->name);
    int serial = idmap_indom(ctx->ids, prefix, arr);
    int item = name_item(ctx, cluster, me->name, "subsecond");
    int end_item = name_item(ctx, cluster, me->name, "subsecond_end");
    if (serial <= 0 || item < 0 || end_item < 0)
        return;
    indom_ref iref = {.kind = INDOM_SUBSECOND, .src = s, .index = e,
                      .table = table_for(ctx, serial)};
    if (iref.table == NULL)
        return;
    int slot = add_indom(t, pmInDom_build(ctx->domain, serial), &iref);
    pmDesc hd = {
        .pmid = pmID_build(ctx->domain, cluster, item),
        .type = PM_TYPE_U32,
        .indom = pmInDom_build(ctx->domain, serial),
        .sem = PM_SEM_COUNTER,
        .units = PMDA_PMUNITS(0, 0, 1, 0, 0, PM_COUNT_ONE),
    };
    metric_ref href = {.ctx = ctx, .kind = REF_SUBSECOND, .src = s, .index = e,
                       .indom_slot = slot, .event_array = -1};
    if (add_metric(t, &hd, &href) == 0)
        insert_name(ctx, hd.pmid, prefix, me->name, "subsecond");
    pmDesc ed = {
        .pmid = pmID_build(ctx->domain, cluster, end_item),
        .type = PM_TYPE_U32,
        .indom = PM_INDOM_NULL,
        .sem = PM_SEM_INSTANT,
        .units = PMDA_PMUNITS(0, 1, 0, 0, PM_TIME_SEC, 0),
    };
    metric_ref eref = {.ctx = ctx, .kind = REF_SUBSECOND_END, .src = s, .index = e,
                       .indom_slot = -1, .event_array = -1};
    if (add_metric(t, &ed, &eref) == 0)
        insert_name(ctx, ed.pmid, prefix, me->name, "subsecond_end");
}

/* An event metric: <event>.records (PM_TYPE_EVENT), one metric per field
 * so pmevent can name and describe the parameters, and <event>.stacks. */
static void add_event(pmda_ctx *ctx, tables *t, source *s, int cluster, size_t e, bool report)
{
    const meta_event *me = &s->meta->events[e];
    const char *prefix = s->meta->prefix;
    pmID *fpmids = calloc(me->nfields ? me->nfields : 1, sizeof(pmID));
    int item = name_item(ctx, cluster, me->name, "records");
    if (fpmids == NULL || item < 0) {
        free(fpmids);
        if (report)
            source_report(s, "event %s: no PMID left; not exported", me->name);
        return;
    }
    for (size_t f = 0; f < me->nfields; f++) {
        const meta_field *mf = &me->fields[f];
        int fi = name_item(ctx, cluster, me->name, mf->name);
        if (fi < 0)
            continue;
        char *full = dotted(me->name, mf->name, NULL, NULL);
        pmDesc d = {
            .pmid = pmID_build(ctx->domain, cluster, fi),
            .type = field_types[mf->type],
            .indom = PM_INDOM_NULL,
            .sem = PM_SEM_INSTANT,
            .units = parse_units(s, full != NULL ? full : mf->name, mf->units, report),
        };
        free(full);
        fpmids[f] = d.pmid;
        metric_ref ref = {.ctx = ctx, .kind = REF_FIELD, .src = s, .index = e, .field = f,
                          .indom_slot = -1, .event_array = -1};
        if (add_metric(t, &d, &ref) == 0)
            insert_name(ctx, d.pmid, prefix, me->name, mf->name);
    }
    pmDesc d = {
        .pmid = pmID_build(ctx->domain, cluster, item),
        .type = PM_TYPE_EVENT,
        .indom = PM_INDOM_NULL,
        .sem = PM_SEM_INSTANT,
    };
    metric_ref ref = {.ctx = ctx, .kind = REF_EVENT, .src = s, .index = e, .indom_slot = -1,
                      .event_array = pmdaEventNewArray(), .field_pmids = fpmids};
    if (add_metric(t, &d, &ref) == 0)
        insert_name(ctx, d.pmid, prefix, me->name, "records");
    else {
        pmdaEventReleaseArray(ref.event_array);
        free(fpmids);
    }
    add_stream(ctx, s, e);
    if (me->stack_field < 0 || !me->stacks_metric)
        return;
    char *arr = dotted(me->name, "stacks", NULL, NULL);
    int serial = arr != NULL ? idmap_indom(ctx->ids, prefix, arr) : -1;
    free(arr);
    int sitem = name_item(ctx, cluster, me->name, "stacks");
    if (serial <= 0 || sitem < 0)
        return;
    indom_ref iref = {.kind = INDOM_STACKS, .src = s, .index = e, .table = table_for(ctx, serial)};
    if (iref.table == NULL)
        return;
    int slot = add_indom(t, pmInDom_build(ctx->domain, serial), &iref);
    pmDesc sd = {
        .pmid = pmID_build(ctx->domain, cluster, sitem),
        .type = PM_TYPE_U64,
        .indom = pmInDom_build(ctx->domain, serial),
        .sem = PM_SEM_COUNTER,
        .units = PMDA_PMUNITS(0, 0, 1, 0, 0, PM_COUNT_ONE),
    };
    /* a stream with a duration counts the stacks' time (ns) */
    if (me->duration_field >= 0)
        sd.units = (pmUnits)PMDA_PMUNITS(0, 1, 0, 0, PM_TIME_NSEC, 0);
    metric_ref sref = {.ctx = ctx, .kind = REF_STACKS, .src = s, .index = e, .indom_slot = slot,
                       .event_array = -1};
    if (add_metric(t, &sd, &sref) == 0)
        insert_name(ctx, sd.pmid, prefix, me->name, "stacks");
    if (me->subsecond_metric)
        add_subsecond(ctx, t, s, cluster, e);
}

/* Who owns a prefix, for the PMID cluster bounds: NULL for a trusted
 * source or root's SystemTap module, else the untrusted root. */
static const char *cluster_owner(const source *s)
{
    if (!source_untrusted(s))
        return NULL;
    return s->root != NULL ? s->root : s->dir;
}

static int source_cluster(pmda_ctx *ctx, source *s, bool report)
{
    const char *prefix = s->meta->prefix;
    idmap_reclaim rec;
    char why[300];
    int cluster = idmap_cluster(ctx->ids, prefix, cluster_owner(s), &rec, why, sizeof(why));
    if (cluster < 0) {
        if (report)
            source_report(s, "no PMID cluster for prefix %s: %s", prefix, why);
        return -1;
    }
    if (rec.happened) {
        char when[64] = "never";
        struct tm tm;
        if (rec.unpublished_since > 0 && localtime_r(&rec.unpublished_since, &tm) != NULL)
            strftime(when, sizeof(when), "%Y-%m-%d %H:%M", &tm);
        pmNotifyErr(LOG_INFO, "PMID cluster %d taken back from prefix %s (last published %s) "
                    "for prefix %s of %s", rec.cluster, rec.prefix, when, prefix, s->dir);
    }
    return cluster;
}

static void add_source(pmda_ctx *ctx, tables *t, source *s)
{
    const source_meta *m = s->meta;
    bool report = s->host_checked != s->stats.metadata_loads;
    s->host_checked = s->stats.metadata_loads;
    int cluster = source_cluster(ctx, s, report);
    if (cluster < 0)
        return;
    int *slots = calloc(m->narrays ? m->narrays : 1, sizeof(int));
    if (slots == NULL)
        return;
    for (size_t a = 0; a < m->narrays; a++) {
        int serial = idmap_indom(ctx->ids, m->prefix, m->arrays[a].name);
        indom_ref iref = {.kind = INDOM_ARRAY, .src = s, .index = a,
                          .table = serial > 0 ? table_for(ctx, serial) : NULL};
        slots[a] = serial > 0 && iref.table != NULL
                       ? add_indom(t, pmInDom_build(ctx->domain, serial), &iref) : -1;
    }
    for (size_t i = 0; i < m->nmetrics; i++) {
        const meta_metric *mm = &m->metrics[i];
        int item = idmap_item(ctx->ids, cluster, mm->name);
        if (item < 0 || (mm->array >= 0 && slots[mm->array] < 0)) {
            if (report)
                source_report(s, "metric %s: no PMID or indom left; not exported", mm->name);
            continue;
        }
        pmDesc d = {
            .pmid = pmID_build(ctx->domain, cluster, item),
            .type = value_types[mm->type],
            .indom = mm->array >= 0 ? t->indoms[slots[mm->array]].it_indom : PM_INDOM_NULL,
            .sem = semantics[mm->semantics],
            .units = parse_units(s, mm->name, mm->units, report),
        };
        metric_ref ref = {.ctx = ctx, .kind = REF_SOURCE, .src = s, .index = i,
                          .indom_slot = mm->array >= 0 ? slots[mm->array] : -1,
                          .event_array = -1};
        char *name = dotted(ROOT, m->prefix, mm->name, NULL);
        if (name != NULL && add_metric(t, &d, &ref) == 0)
            pmdaTreeInsert(ctx->pmns, d.pmid, name);
        free(name);
    }
    free(slots);
    for (size_t e = 0; e < m->nevents; e++)
        add_event(ctx, t, s, cluster, e, report);
}

static void free_tables(pmda_ctx *ctx)
{
    for (size_t i = 0; i < ctx->nmetrics; i++) {
        if (ctx->refs[i].event_array >= 0)
            pmdaEventReleaseArray(ctx->refs[i].event_array);
        free(ctx->refs[i].field_pmids);
    }
    for (size_t i = 0; i < ctx->nstreams; i++)
        free(ctx->streams[i].name);
    free(ctx->streams);
    ctx->streams = NULL;
    ctx->nstreams = 0;
    for (size_t i = 0; i < ctx->nindoms; i++)
        inst_table_clear(&ctx->indoms[i]);
    free(ctx->indoms);
    free(ctx->indom_refs);
    free(ctx->metrics);
    free(ctx->refs);
    ctx->indoms = NULL;
    ctx->indom_refs = NULL;
    ctx->metrics = NULL;
    ctx->refs = NULL;
    ctx->nindoms = ctx->nmetrics = 0;
}

/* ---- PMID index: open addressing, metric index + 1 (0 = empty) ---- */

static size_t pmid_hash(pmID p, size_t mask)
{
    return ((uint32_t)p * 2654435761u) & mask;
}

static void index_rebuild(pmda_ctx *ctx)
{
    size_t n = 16;
    while (n < ctx->nmetrics * 2)
        n *= 2;
    int *slots = calloc(n, sizeof(int));
    if (slots == NULL)
        return;
    for (size_t i = 0; i < ctx->nmetrics; i++) {
        size_t k = pmid_hash(ctx->metrics[i].m_desc.pmid, n - 1);
        while (slots[k] != 0)
            k = (k + 1) & (n - 1);
        slots[k] = (int)i + 1;
    }
    free(ctx->pmid_slots);
    ctx->pmid_slots = slots;
    ctx->pmid_nslots = n;
}

pmdaMetric *namespace_lookup(pmda_ctx *ctx, pmID pmid)
{
    if (ctx->pmid_slots == NULL)
        return NULL;
    size_t mask = ctx->pmid_nslots - 1;
    for (size_t k = pmid_hash(pmid, mask);; k = (k + 1) & mask) {
        int s = ctx->pmid_slots[k];
        if (s == 0)
            return NULL;
        if (ctx->metrics[s - 1].m_desc.pmid == pmid)
            return &ctx->metrics[s - 1];
    }
}

void namespace_rebuild(pmda_ctx *ctx)
{
    tables t = {0};
    if (ctx->pmns != NULL)
        pmdaTreeRelease(ctx->pmns);
    ctx->pmns = NULL;
    if (pmdaTreeCreate(&ctx->pmns) < 0) {
        pmNotifyErr(LOG_ERR, "cannot create the PMNS tree: out of memory");
        return;
    }
    /* streams are rebuilt below: release the old tables first */
    free_tables(ctx);
    ctx->events_serial = IDMAP_EVENTS_SERIAL;
    add_control(ctx, &t);
    relay *r = ctx->relay;
    /* every prefix published in this round keeps its cluster, whatever
     * the order the new ones are numbered in */
    idmap_begin(ctx->ids, time(NULL));
    for (size_t i = 0; i < r->nsources; i++) {
        source *s = r->sources[i];
        if (s->meta != NULL && s->state != SRC_DUPLICATE && s->state != SRC_REJECTED)
            idmap_hold(ctx->ids, s->meta->prefix);
    }
    for (size_t i = 0; i < r->nsources; i++) {
        source *s = r->sources[i];
        if (s->meta != NULL && s->state != SRC_DUPLICATE && s->state != SRC_REJECTED)
            add_source(ctx, &t, s);
    }
    int rc = idmap_save(ctx->ids);
    if (rc < 0)
        pmNotifyErr(LOG_ERR, "cannot save the PMID map: %s (PMIDs stay in memory; "
                    "will retry)", pmErrStr(rc));
    ctx->metrics = t.metrics;
    ctx->refs = t.refs;
    ctx->nmetrics = t.n;
    ctx->indoms = t.indoms;
    ctx->indom_refs = t.irefs;
    ctx->nindoms = t.ni;
    for (size_t i = 0; i < t.n; i++)
        ctx->metrics[i].m_user = &ctx->refs[i];
    pmdaTreeRebuildHash(ctx->pmns, (int)t.n);
    pmdaExt *pmda = ctx->dispatch.version.seven.ext;
    pmda->e_indoms = ctx->indoms;
    pmda->e_nindoms = (int)ctx->nindoms;
    pmdaRehash(pmda, ctx->metrics, (int)ctx->nmetrics);
    index_rebuild(ctx);
    ctx->names_changed = true;
    ctx->rebuilds++;
}

void namespace_free(pmda_ctx *ctx)
{
    free_tables(ctx);
    free(ctx->pmid_slots);
    ctx->pmid_slots = NULL;
    ctx->pmid_nslots = 0;
    free(ctx->scratch);
    ctx->scratch = NULL;
    if (ctx->pmns != NULL)
        pmdaTreeRelease(ctx->pmns);
    ctx->pmns = NULL;
    for (size_t i = 0; i < ctx->ntables; i++)
        inst_table_free(ctx->tables[i]);
    free(ctx->tables);
    ctx->tables = NULL;
    inst_table_free(ctx->events_table);
    ctx->events_table = NULL;
    inst_table_free(ctx->runs_table);
    ctx->runs_table = NULL;
    ctx->ntables = 0;
}

int namespace_pmid(const char *name, pmID *pmid, pmdaExt *pmda)
{
    pmda_ctx *ctx = ctx_of(pmda);
    return ctx->pmns ? pmdaTreePMID(ctx->pmns, name, pmid) : PM_ERR_NAME;
}

int namespace_name(pmID pmid, char ***nameset, pmdaExt *pmda)
{
    pmda_ctx *ctx = ctx_of(pmda);
    return ctx->pmns ? pmdaTreeName(ctx->pmns, pmid, nameset) : PM_ERR_PMID;
}

int namespace_children(const char *name, int traverse, char ***kids, int **sts, pmdaExt *pmda)
{
    pmda_ctx *ctx = ctx_of(pmda);
    return ctx->pmns ? pmdaTreeChildren(ctx->pmns, name, traverse, kids, sts) : PM_ERR_NAME;
}

/* One-line help is the description's first line; full help is all of it. */
static int describe(const char *text, int type, char **buffer, char *oneline, size_t len)
{
    if (text == NULL || *text == '\0')
        return PM_ERR_TEXT;
    if (type & PM_TEXT_ONELINE) {
        size_t n = strcspn(text, "\n");
        if (n >= len)
            n = len - 1;
        memcpy(oneline, text, n);
        oneline[n] = '\0';
        *buffer = oneline;
    } else {
        *buffer = (char *)text;
    }
    return 0;
}

int namespace_text(int ident, int type, char **buffer, pmdaExt *pmda)
{
    pmda_ctx *ctx = ctx_of(pmda);
    char *oneline = ctx->textbuf;   /* libpcp_pmda sends it before the next call */
    if (type & PM_TEXT_INDOM) {
        for (size_t i = 0; i < ctx->nindoms; i++) {
            if (ctx->indoms[i].it_indom != (pmInDom)ident)
                continue;
            const indom_ref *ir = &ctx->indom_refs[i];
            const char *d = NULL;
            switch (ir->kind) {
            case INDOM_SOURCES:
                d = "Sources: one instance per source directory";
                break;
            case INDOM_EVENTS:
                d = "Event streams: one instance per <prefix>.<event>";
                break;
            case INDOM_ARRAY:
                d = ir->src->meta->arrays[ir->index].description;
                break;
            case INDOM_STACKS:
                d = "The heaviest distinct stacks, frames root first joined by ',', and [other]";
                break;
            case INDOM_SUBSECOND:
                d = "Offsets within the second in 20 ms buckets, named LO-HI in milliseconds";
                break;
            case INDOM_RUNS:
                d = "Runs requested through staprelay.control.run, by name";
                break;
            }
            return describe(d, type, buffer, oneline, sizeof(ctx->textbuf));
        }
        return PM_ERR_INDOM;
    }
    const pmdaMetric *md = namespace_lookup(ctx, (pmID)ident);
    if (md == NULL)
        return PM_ERR_PMID;
    const metric_ref *ref = md->m_user;
    if (ref->kind == REF_CONTROL) {
        const control_metric *cm = &control_metrics[ref->index];
        if (type & PM_TEXT_ONELINE) {
            *buffer = (char *)cm->oneline;
            return 0;
        }
        return describe(cm->help && *cm->help ? cm->help : cm->oneline, type, buffer,
                        oneline, sizeof(ctx->textbuf));
    }
    const source_meta *m = ref->src->meta;
    const char *d = NULL;
    switch (ref->kind) {
    case REF_SOURCE:
        d = m->metrics[ref->index].description;
        break;
    case REF_EVENT:
        d = m->events[ref->index].description;
        break;
    case REF_STACKS:
        d = "Samples per stack, the heaviest max_stacks stacks and [other]\n"
            "grafana-pcp's flame graph shape.  One instance per stack: frames root\n"
            "first, joined by ','; inside a frame a ',' is written ';', a space a tab\n"
            "(%20 at either end), and '%', control bytes and bytes over 0x7e %XX.\n"
            "The instance [other] counts the samples of every stack not kept.  The\n"
            "instances change only every stacks_refresh seconds (sooner just after\n"
            "start), and only for a material gain: then the heaviest stacks by\n"
            "recent samples are kept, a stack that drops out stays without counting\n"
            "until the next change, and a new instance starts with the samples it\n"
            "had since the previous refresh.";
        break;
    case REF_SUBSECOND:
        d = "Samples by their offset within the second (FlameScope's heat map)\n"
            "Instances are 20 ms buckets LO-HI (milliseconds).  A second's samples are\n"
            "counted once it is closed (subsecond_delay after it ends), so that the\n"
            "increments between two values are the samples of the seconds from one\n"
            "value of subsecond_end to the next: log both every second and each\n"
            "column of `staprelay heatmap` is one second.";
        break;
    case REF_SUBSECOND_END:
        d = "Seconds since the epoch before which .subsecond counts every sample\n"
            "The closed second: samples of earlier seconds that arrive later still\n"
            "count (in a later column; see staprelay.control.events.subsecond_late).";
        break;
    case REF_FIELD: {
        const meta_field *mf = &m->events[ref->index].fields[ref->field];
        d = mf->description != NULL ? mf->description
                                    : "A parameter of the event records (alone it has no value)";
        break;
    }
    case REF_CONTROL:
        break;
    }
    return describe(d, type, buffer, oneline, sizeof(ctx->textbuf));
}
