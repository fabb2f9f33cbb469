/* pcp_input: live and archive event-record inputs (see pcp_input.h). */
#include "client/input/pcp_input.h"

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <time.h>
#include <pcp/pmapi.h>

#include "client/input/farm.h"
#include "client/input/pcp_events.h"
#include "client/input/pmseries.h"
#include "client/stack/stacksink.h"
#include "client/util/stopsig.h"
#include "common/xalloc.h"
#include "common/strmap.h"

typedef struct field_entry {
    pmID      pmid;
    pcp_field role;
} field_entry;

typedef struct source {
    const char  *spec;                 /* -h / -a argument */
    bool         live;
    int          ctx;
    int          col;                  /* stacktab column, -1: the sink's */
    char         host[PM_MAX_HOSTNAMELEN];
    int          npmids;
    pmID         pmids[PCP_MAX_METRICS];
    char        *names[PCP_MAX_METRICS];
    field_entry *fields;               /* parameter PMID -> role cache */
    size_t       nfields, capfields;
    /* counters (pcp_counters.h): NULL for an event metric */
    pcp_counter *counter[PCP_MAX_METRICS];
    pmID         end_pmid[PCP_MAX_METRICS];   /* .subsecond_end */
    int          ctype[PCP_MAX_METRICS];      /* PM_TYPE_U64, _U32 ... */
    pmInDom      cindom[PCP_MAX_METRICS];
    bool         ctimed;               /* a stacks counter counting ns */
    strmap      *inst_names;       /* "INDOM/INST" -> index in names_seen */
    char       **names_seen;
    size_t       nnames_seen;
    bool         window;               /* archives: -S/-T on record times */
    int64_t      lo_ns, hi_ns;
    int64_t      first_ns, last_ns;    /* archives: span of archive and records */
    uint64_t     fetch_errors;
    bool         reconnect;            /* live: the connection failed */
    double       failed_at;            /* mono_now() of the first failure */
    /* live: metric m had values at the last fetch (vanish notices) */
    int          presence;             /* 0 unknown, 1 there, -1 gone */
    bool         no_control;           /* no staprelay.control.source.* */
    pmID         ctl_pmid[2];          /* .state, .prefix */
} source;

typedef struct reader {
    const pcp_options   *po;
    const input_options *in;
    const char          *cmd;
    pcp_stats           *st;
    stack_sink           sink;
    strbuf               stack;
    source              *cur;
    bool                 scan;      /* only find the records' time span */
    int64_t              scan_lo, scan_hi;
    bool                 past_end;  /* live: a record stamped after the
                                     * window's end arrived */
    double               weight;    /* samples delivered (progress) */
} reader;

/* What collection has to say (a metric waited for, a source gone or
 * back, a run's state): on stderr as "staprelay CMD: TEXT", or to the
 * caller's po->on_notice instead when it has one (staprelay web keeps
 * them for its page). */
static void notice(const reader *rd, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static void notice(const reader *rd, const char *fmt, ...)
{
    char text[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    if (rd->po->on_notice)
        rd->po->on_notice(rd->po->hook_arg, text);
    else
        fprintf(stderr, "staprelay %s: %s\n", rd->cmd, text);
}

bool pcp_options_active(const pcp_options *po)
{
    return po != NULL && (po->nhosts > 0 || po->narchives > 0
                          || po->series != NULL);
}

static bool parse_interval(const char *s, struct timeval *tv, strbuf *err)
{
    char *msg = NULL;
    if (pmParseInterval(s, tv, &msg) < 0) {
        sb_printf(err, "bad -t interval '%s'%s%s", s, msg ? ": " : "",
                  msg ? msg : "");
        free(msg);
        return false;
    }
    free(msg);
    if (tv->tv_sec == 0 && tv->tv_usec == 0) {
        sb_printf(err, "bad -t interval '%s': must be more than 0", s);
        return false;
    }
    return true;
}

int pcp_options_check(const pcp_options *po, strbuf *err)
{
    if (po->nhosts > 0 && po->narchives > 0) {
        sb_adds(err, "-h (live) and -a (archive) cannot be mixed");
        return -1;
    }
    if (po->series != NULL && (po->nhosts > 0 || po->narchives > 0)) {
        sb_adds(err, "--series reads pmseries through pmproxy: not with -h "
                     "or -a");
        return -1;
    }
    if (po->series != NULL && po->run != NULL) {
        sb_adds(err, "--run follows a run on a host (-h) or in an archive "
                     "(-a), not in pmseries");
        return -1;
    }
    if (po->pmproxy != NULL && po->series == NULL) {
        sb_adds(err, "--pmproxy names where --series QUERY is asked");
        return -1;
    }
    struct timeval tv;
    if (po->series != NULL)     /* the query names the metric */
        return po->interval && !parse_interval(po->interval, &tv, err) ? -1 : 0;
    if (po->narchives == 0 && po->series == NULL && po->start != NULL) {
        sb_adds(err, po->nhosts ? "-S needs an archive (-a); live collection "
                                  "starts now"
                                : "-S needs an archive (-a)");
        return -1;
    }
    if (po->nhosts == 0 && po->finish != NULL && po->narchives == 0) {
        sb_adds(err, "-T needs a host (-h) or an archive (-a)");
        return -1;
    }
    if (po->interval != NULL) {
        if (po->nhosts == 0) {
            sb_adds(err, "-t applies to live collection (-h) and --series "
                         "only; archives are replayed record by record");
            return -1;
        }
        if (!parse_interval(po->interval, &tv, err))
            return -1;
    }
    if (po->run != NULL) {
        int n = po->nhosts + po->narchives;
        if (n == 0) {
            sb_adds(err, "--run needs the host the run is on (-h HOST) or an "
                         "archive recorded during it (-a ARCHIVE)");
            return -1;
        }
        if (n > 1) {
            sb_adds(err, "--run follows one run: give one -h HOST or one "
                         "-a ARCHIVE");
            return -1;
        }
        if (po->nmetrics > 1) {
            sb_adds(err, "with --run, name at most one event metric (by "
                         "default the run's first)");
            return -1;
        }
    }
    if (po->by_host && !pcp_options_active(po)) {
        sb_adds(err, "--by-host needs -h, -a or --series");
        return -1;
    }
    if (pcp_options_active(po) && po->nmetrics == 0 && po->run == NULL) {
        sb_adds(err, "name the event metric (e.g. staprelay.profile.samples)");
        return -1;
    }
    return 0;
}

void pcp_metric_candidates(const char *name, strbuf *first, strbuf *second)
{
    sb_reset(first);
    sb_reset(second);
    sb_adds(first, name);
    size_t n = strlen(name);
    if (n >= 8 && strcmp(name + n - 8, ".records") == 0)
        return;     /* already the records metric: no second guess */
    sb_printf(second, "%s.records", name);
}

/* ---- per-source setup ------------------------------------------------ */

/* A metric's PMID and descriptor by name, in the current context. */
static int lookup_metric(const char *name, pmID *id, pmDesc *d)
{
    int sts = pmLookupName(1, &name, id);
    if (sts < 0)
        return sts;
    if (*id == PM_ID_NULL)
        return PM_ERR_NAME;
    return pmLookupDesc(*id, d);
}

static int lookup_event_metric(const char *name, pmID *pmid)
{
    pmID id;
    pmDesc d;
    int sts = lookup_metric(name, &id, &d);
    if (sts < 0)
        return sts;
    if (d.type != PM_TYPE_EVENT && d.type != PM_TYPE_HIGHRES_EVENT)
        return PM_ERR_TYPE;
    *pmid = id;
    return 0;
}

/* rd->stack, a sample's folded stack, to the live hook or the sink:
 * the filters (--focus ...) apply either way, in the sink's one place.
 * False when the filter dropped it. */
static bool deliver(reader *rd, double weight, int col, int64_t when_ns,
                    const stack_context *ctx)
{
    if (rd->po->on_stack) {
        const char *stack = rd->stack.buf;
        size_t len = rd->stack.len;
        if (!stack_sink_pass(&rd->sink, &stack, &len, ctx))
            return false;
        if (rd->in->on_detail && ctx)   /* web: the sample with its context */
            rd->in->on_detail(rd->in->on_detail_arg, stack, len, weight, col,
                              when_ns, ctx);
        else
            rd->po->on_stack(rd->po->hook_arg, stack, len, weight, when_ns);
        return true;
    }
    uint64_t before = rd->sink.filtered;
    stack_sink_add_ctx(&rd->sink, rd->stack.buf, rd->stack.len, weight, col,
                       when_ns, ctx);
    return rd->sink.filtered == before;
}

/* A counter's stack as a record's would be drawn: a counter names no
 * process, so no process frame (--pid and --tid have nothing to show);
 * --no-marks applies. */
static bool counter_stack(reader *rd, const char *host, const pcp_sample *smp)
{
    perf_options po = rd->in->perf;
    po.include_pid = po.include_tid = false;
    po.no_comm = true;
    return pcp_sample_stack(smp, host, &po, &rd->stack);
}

/* A sample a counter stands for: delivered like a record's stack. */
static void on_counted(void *arg, const char *folded, size_t len,
                       double weight, int64_t when_ns)
{
    reader *rd = arg;
    const source *s = rd->cur;
    pcp_sample smp = { .when_ns = when_ns, .stack = folded, .stack_len = len,
                       .weight = weight };
    if (!counter_stack(rd, rd->po->by_host ? s->host : NULL, &smp))
        return;
    stack_context ctx = { .pid = -1, .tid = -1,
                          .host = s->host[0] ? s->host : NULL,
                          .time_ns = when_ns, .samples = weight };
    if (s->ctimed) {     /* the blocks' time, as their records weigh */
        ctx.weight_type = "wall";
        ctx.weight_unit = "nanoseconds";
        ctx.samples = -1;
    }
    deliver(rd, weight, s->col, when_ns, &ctx);
}

/* A counter of pmdastaprelay's (pcp_counters.h): an integer counter
 * with an instance domain. */
static int lookup_counter(const char *name, pmID *pmid, int *type,
                          pmInDom *indom, bool *timed)
{
    pmID id;
    pmDesc d;
    int sts = lookup_metric(name, &id, &d);
    if (sts < 0)
        return sts;
    if ((d.type != PM_TYPE_U64 && d.type != PM_TYPE_U32
         && d.type != PM_TYPE_64 && d.type != PM_TYPE_32)
        || d.sem != PM_SEM_COUNTER || d.indom == PM_INDOM_NULL)
        return PM_ERR_TYPE;
    *pmid = id;
    *type = d.type;
    *indom = d.indom;
    /* a stream with a duration: its stacks counter counts nanoseconds */
    *timed = d.units.dimTime == 1 && d.units.scaleTime == PM_TIME_NSEC
             && d.units.dimSpace == 0 && d.units.dimCount == 0;
    return 0;
}

static bool ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), m = strlen(suffix);
    return n >= m && strcmp(s + n - m, suffix) == 0;
}

/* Metric m of s is the counter name stands for (no event metric does). */
static int resolve_counter(reader *rd, source *s, int m, const char *name,
                           int event_sts, strbuf *err)
{
    pcp_counter_kind kind = ends_with(name, ".subsecond") ? PCP_COUNTER_SUBSECOND
                            : ends_with(name, ".stacks") ? PCP_COUNTER_STACKS
                            : rd->po->counter;
    char cname[1024], ename[1040];
    pcp_counter_name(name, kind, cname, sizeof cname);
    pmID id, end = PM_ID_NULL;
    int type;
    pmInDom indom;
    bool timed = false;
    int sts = lookup_counter(cname, &id, &type, &indom, &timed);
    if (sts == 0 && timed && rd->po->weigh == PCP_WEIGH_EVENTS) {
        size_t base = strlen(name) - (ends_with(name, ".stacks") ? 7 : 0);
        sb_printf(err, "%s: %s counts the blocks' time (ns), not how many: "
                  "--weight events needs the event records (log %.*s.records)",
                  s->spec, cname, (int)base, name);
        return 1;
    }
    if (sts == 0 && kind == PCP_COUNTER_SUBSECOND) {
        const char *en = ename;
        snprintf(ename, sizeof ename, "%s_end", cname);
        if (pmLookupName(1, &en, &end) < 0 || end == PM_ID_NULL) {
            sb_printf(err, "%s: %s has no %s to tell its seconds apart (log "
                      "both)", s->spec, cname, ename);
            return 1;
        }
    }
    if (sts < 0) {
        bool has_records = ends_with(name, ".records");
        if (event_sts == PM_ERR_TYPE && sts == PM_ERR_TYPE)
            sb_printf(err, "%s: %s is not an event metric nor a counter of "
                      "pmdastaprelay's", s->spec, name);
        else if (event_sts == PM_ERR_TYPE)
            sb_printf(err, "%s: %s is not an event metric%s%s%s, and there "
                      "is no %s", s->spec, name, has_records ? "" : " (nor is ",
                      has_records ? "" : name, has_records ? "" : ".records)",
                      cname);
        else if (event_sts == PM_ERR_NAME && sts == PM_ERR_NAME)
            sb_printf(err, "%s: %s: %s (nor %s%s%s)", s->spec, name,
                      PCP_ERR_STR(sts), has_records ? "" : name,
                      has_records ? "" : ".records, nor ", cname);
        else
            sb_printf(err, "%s: %s: no event records (%s) and no %s (%s)",
                      s->spec, name, PCP_ERR_STR(event_sts), cname,
                      PCP_ERR_STR(sts));
        return 1;
    }
    s->pmids[m] = id;
    s->names[m] = xstrdup(cname);
    s->end_pmid[m] = end;
    s->ctype[m] = type;
    s->cindom[m] = indom;
    if (timed) {
        s->ctimed = true;
        rd->st->timed++;
    }
    s->counter[m] = pcp_counter_new(kind, type == PM_TYPE_U32 || type == PM_TYPE_32,
                                    INT64_MIN, INT64_MAX, on_counted, rd);
    return 0;
}

static int resolve_metrics(reader *rd, source *s, strbuf *err)
{
    strbuf a = STRBUF_INIT, b = STRBUF_INIT;
    int rc = 0;
    for (int m = 0; m < rd->po->nmetrics && rc == 0; m++) {
        const char *name = rd->po->metrics[m];
        pcp_metric_candidates(name, &a, &b);
        pmID id;
        int sts = lookup_event_metric(a.buf, &id);
        const char *used = a.buf;
        if (sts < 0 && b.len > 0) {
            int sts2 = lookup_event_metric(b.buf, &id);
            if (sts2 == 0) {
                sts = 0;
                used = b.buf;
            } else if (sts == PM_ERR_NAME || sts == PM_ERR_NONLEAF) {
                sts = sts2;
            }
        }
        if (sts < 0 && (sts == PM_ERR_NAME || sts == PM_ERR_NONLEAF
                        || sts == PM_ERR_TYPE) && rd->po->run == NULL) {
            rc = resolve_counter(rd, s, s->npmids, name, sts, err);
            if (rc == 0)
                s->npmids++;
            continue;
        }
        if (sts < 0) {
            if (sts == PM_ERR_TYPE)
                sb_printf(err, "%s: %s is not an event metric%s%s%s", s->spec,
                          name, b.len ? " (nor is " : "", b.len ? b.buf : "",
                          b.len ? ")" : "");
            else
                sb_printf(err, "%s: %s: %s", s->spec, name, PCP_ERR_STR(sts));
            rc = 1;
            break;
        }
        s->pmids[s->npmids] = id;
        s->names[s->npmids] = xstrdup(used);
        s->npmids++;
    }
    sb_free(&a);
    sb_free(&b);
    return rc;
}

static double wait_for_metrics(reader *rd, source *s);
static bool string_value(const pmValueSet *vs, int inst, const char **p,
                         size_t *len);

static int open_source(reader *rd, source *s, strbuf *err)
{
    int type = s->live ? PM_CONTEXT_HOST : PM_CONTEXT_ARCHIVE;
    s->ctx = pmNewContext(type, s->spec);
    if (s->ctx < 0) {
        sb_printf(err, "%s: cannot open %s: %s", s->spec,
                  s->live ? "a connection to pmcd" : "the archive",
                  PCP_ERR_STR(s->ctx));
        return 1;
    }
    if (pmGetContextHostName_r(s->ctx, s->host, sizeof s->host) == NULL
        || s->host[0] == '\0')
        snprintf(s->host, sizeof s->host, "%s", s->spec);
    if (rd->po->run)
        return 0;       /* the metric comes from the run (run_start) */
    double waited = s->live ? wait_for_metrics(rd, s) : 0;
    int rc = resolve_metrics(rd, s, err);
    if (rc != 0 && waited > 0)
        sb_printf(err, "; it did not appear within %.0f s (--wait SECONDS "
                  "waits longer; is its source running? pminfo -h %s "
                  "staprelay lists what the PMDA publishes)", waited, s->spec);
    return rc;
}

static void close_source(source *s)
{
    if (s->ctx >= 0)
        pmDestroyContext(s->ctx);
    for (int i = 0; i < s->npmids; i++) {
        free(s->names[i]);
        pcp_counter_free(s->counter[i]);
    }
    free(s->fields);
    for (size_t i = 0; i < s->nnames_seen; i++)
        free(s->names_seen[i]);
    free(s->names_seen);
    strmap_free(s->inst_names);
}

/* ---- decoding -------------------------------------------------------- */

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
    if (smp->bad_weight
        || !pcp_sample_stack(smp, rd->po->by_host ? s->host : NULL,
                             &rd->in->perf, &rd->stack)) {
        rd->st->ignored++;
        return;
    }
    stack_context ctx = {
        .comm = smp->comm, .comm_len = smp->comm_len,
        .pid = smp->has_pid ? smp->pid : -1,
        .tid = smp->has_tid ? smp->tid : -1,
        .host = s->host[0] ? s->host : NULL,
        .time_ns = smp->when_ns,
        .samples = smp->weight,      /* a record's count is samples */
    };
    /* a block weighs its time unless --weight events (heatmap's default) */
    bool timed = smp->has_duration && rd->po->weigh != PCP_WEIGH_EVENTS;
    if (timed) {
        ctx.weight_type = "wall";
        ctx.weight_unit = "nanoseconds";
    }
    double weight = pcp_sample_weight(smp, timed);
    if (!deliver(rd, weight, s->col, smp->when_ns, &ctx))
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

static void process_result(reader *rd, source *s, const pmResult *r)
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
                notice(rd, "%s: %s: undecodable event "
                        "records: %s", s->spec, s->names[m],
                        PCP_ERR_STR(sts));
        }
    }
}

/* ---- live ------------------------------------------------------------ */

/* libpcp's reconnect back-off (PMCD_RECONNECT_TIMEOUT, by default 5, 10,
 * 20, 40 then 80 s between attempts) would leave a client blind for up
 * to 80 s after pmcd is back.  A live input retries every second unless
 * the user chose a schedule; libpcp reads it once, at the first failure. */
static void live_reconnect_schedule(void)
{
    setenv("PMCD_RECONNECT_TIMEOUT", "1", 0);
}

static double mono_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static void sleep_until(double when)
{
    double d = when - mono_now();
    if (d <= 0 || stopsig_count())
        return;
    struct timespec ts = { (time_t)d, (long)((d - (time_t)d) * 1e9) };
    nanosleep(&ts, NULL);   /* EINTR: the caller re-checks stopsig_count() */
}

/* ---- live: waiting for a metric to appear ---------------------------- */

/* 0 when a name NAME stands for (itself, NAME.records, the counter) is
 * in pmcd's namespace now, PM_ERR_NAME when none is, or another error
 * (pmcd gone, ...). */
static int metric_named(const reader *rd, const char *name)
{
    strbuf a = STRBUF_INIT, b = STRBUF_INIT;
    pcp_metric_candidates(name, &a, &b);
    pcp_counter_kind kind = ends_with(name, ".subsecond") ? PCP_COUNTER_SUBSECOND
                            : ends_with(name, ".stacks") ? PCP_COUNTER_STACKS
                            : rd->po->counter;
    char cname[1024];
    pcp_counter_name(name, kind, cname, sizeof cname);
    const char *names[3] = { a.buf, b.len ? b.buf : cname, cname };
    int rc = PM_ERR_NAME;
    for (int i = 0; i < 3 && rc == PM_ERR_NAME; i++) {
        pmID id;
        int sts = pmLookupName(1, &names[i], &id);
        if (sts >= 0 && id != PM_ID_NULL)
            rc = 0;
        else if (sts < 0 && sts != PM_ERR_NAME && sts != PM_ERR_NONLEAF)
            rc = sts;
    }
    sb_free(&a);
    sb_free(&b);
    return rc;
}

/* A live source's metrics that are not in the namespace yet (the PMDA
 * discovers a source `staprelay run` just started within its poll
 * interval) are waited for, up to --wait seconds, saying so on stderr.
 * Returns how long it waited (0: it did not, everything was there or
 * --wait 0). */
static double wait_for_metrics(reader *rd, source *s)
{
    double limit = rd->po->wait_set ? rd->po->wait_s : PCP_WAIT_DEFAULT;
    double t0 = mono_now(), said = -1;
    for (;;) {
        const char *missing = NULL;
        for (int m = 0; m < rd->po->nmetrics && missing == NULL; m++) {
            int sts = metric_named(rd, rd->po->metrics[m]);
            if (sts == PM_ERR_NAME)
                missing = rd->po->metrics[m];
            else if (sts < 0)   /* resolve_metrics says why */
                return said >= 0 ? mono_now() - t0 : 0;
        }
        double now = mono_now();
        if (missing == NULL) {
            if (said >= 0)
                notice(rd, "%s: %s appeared after %.1f s", s->spec,
                       rd->po->metrics[0], now - t0);
            return 0;       /* there: a lookup error is not for waiting */
        }
        if (now - t0 >= limit)
            return said >= 0 ? now - t0 : 0;
        if (said < 0) {
            notice(rd, "%s: %s is not there yet; waiting "
                   "up to %g s for it to appear (--wait)", s->spec, missing,
                   limit);
            said = now;
        } else if (now - said >= 10) {
            notice(rd, "%s: still waiting for %s (%.0f s)", s->spec,
                   missing, now - t0);
            said = now;
        }
        double next = now + 0.25;
        sleep_until(next < t0 + limit ? next : t0 + limit);
    }
}

/* ---- runs (--run NAME) ------------------------------------------------ */

#define RUN_GONE  1     /* run_fetch_live: NAME is not listed */
#define RUN_BAD   2     /* its value is not a run (message in err) */
#define RUN_SETTLE 0.5  /* s after the end before an empty fetch ends it */

typedef struct run_follow {
    const char *name;
    pmID        pmid;           /* staprelay.control.runs */
    pmInDom     indom;
    pcp_run     cur;            /* the value last seen */
    char       *metric;         /* the event metric followed (owned) */
    double      terminal_at;    /* mono_now() when seen ended, or -1 */
    uint64_t    last_in;        /* in-window records after the last round */
    int         rounds;
    const pcp_options *po;      /* its on_run hook */
} run_follow;

static void run_follow_free(run_follow *rf)
{
    pcp_run_free(&rf->cur);
    free(rf->metric);
}

/* staprelay.control.runs in the current context */
static int runs_metric(source *s, run_follow *rf, strbuf *err)
{
    const char *name = PCP_RUNS_METRIC;
    pmID id;
    int sts = pmLookupName(1, &name, &id);
    if (sts >= 0 && id == PM_ID_NULL)
        sts = PM_ERR_NAME;
    if (sts < 0) {
        if (s->live)
            sb_printf(err, "%s: %s: %s (is pmdastaprelay there new enough "
                      "for on-demand runs, and enabled?)", s->spec, name,
                      PCP_ERR_STR(sts));
        else
            sb_printf(err, "%s: %s is not in the archive: to draw a run from "
                      "an archive, log %s with the run's event metric (e.g. "
                      "log mandatory on 1 sec { %s "
                      "staprelay.staprelay_profile.samples.records })",
                      s->spec, name, name, name);
        return 1;
    }
    pmDesc d;
    if ((sts = pmLookupDesc(id, &d)) < 0) {
        sb_printf(err, "%s: %s: %s", s->spec, name, PCP_ERR_STR(sts));
        return 1;
    }
    if (d.type != PM_TYPE_STRING || d.indom == PM_INDOM_NULL) {
        sb_printf(err, "%s: %s is not a string metric with one instance per "
                  "run", s->spec, name);
        return 1;
    }
    rf->pmid = id;
    rf->indom = d.indom;
    return 0;
}

/* The instance id of the run (names compared whole, not up to a space). */
static int run_inst(const source *s, const run_follow *rf, int *inst)
{
    int *ids = NULL;
    char **names = NULL;
    int n = s->live ? pmGetInDom(rf->indom, &ids, &names)
                    : pmGetInDomArchive(rf->indom, &ids, &names);
    if (n == PM_ERR_INDOM || n == PM_ERR_INST || n == 0)
        return PM_ERR_INST;
    if (n < 0)
        return n;
    int rc = PM_ERR_INST;
    for (int i = 0; i < n; i++)
        if (strcmp(names[i], rf->name) == 0) {
            *inst = ids[i];
            rc = 0;
            break;
        }
    free(ids);
    free(names);
    return rc;
}

/* The string value of inst in vs, if there is one. */
static bool string_value(const pmValueSet *vs, int inst, const char **p,
                         size_t *len)
{
    if (vs->numval <= 0 || vs->valfmt == PM_VAL_INSITU)
        return false;
    for (int j = 0; j < vs->numval; j++) {
        if (vs->vlist[j].inst != inst)
            continue;
        const pmValueBlock *vb = vs->vlist[j].value.pval;
        if (vb == NULL || vb->vtype != PM_TYPE_STRING
            || vb->vlen < PM_VAL_HDR_SIZE)
            return false;
        *p = vb->vbuf;
        *len = strnlen(vb->vbuf, vb->vlen - PM_VAL_HDR_SIZE);
        return true;
    }
    return false;
}

/* Parse a value of the run into rf->cur (replacing the previous one). */
static int run_take(const source *s, run_follow *rf, const char *p,
                    size_t len, strbuf *err)
{
    pcp_run nr;
    strbuf why = STRBUF_INIT;
    int rc = pcp_run_parse(p, len, &nr, &why);
    if (rc == 0 && nr.name[0] != '\0' && strcmp(nr.name, rf->name) != 0) {
        sb_adds(&why, "it names another run, \"");
        pcp_run_text(&why, nr.name, 80);
        sb_adds(&why, "\"");
        pcp_run_free(&nr);
        rc = -1;
    }
    if (rc < 0) {
        sb_printf(err, "%s: the value of %s[%s] is not a run: %s", s->spec,
                  PCP_RUNS_METRIC, rf->name, why.buf);
        sb_free(&why);
        return RUN_BAD;
    }
    sb_free(&why);
    pcp_run_free(&rf->cur);
    rf->cur = nr;
    if (rf->po && rf->po->on_run)
        rf->po->on_run(rf->po->hook_arg, &rf->cur);
    return 0;
}

/* Fetch the run's value now: 0, RUN_GONE, RUN_BAD or a PCP error. */
static int run_fetch_live(source *s, run_follow *rf, strbuf *err)
{
    int inst, sts;
    if ((sts = pmUseContext(s->ctx)) < 0 || (sts = run_inst(s, rf, &inst)) < 0)
        return sts == PM_ERR_INST ? RUN_GONE : sts;
    pmResult *r = NULL;
    if ((sts = pmFetch(1, &rf->pmid, &r)) < 0)
        return sts;
    const char *p;
    size_t len;
    if (r->numpmid < 1 || !string_value(r->vset[0], inst, &p, &len))
        sts = RUN_GONE;
    else
        sts = run_take(s, rf, p, len, err);
    pmFreeResult(r);
    return sts;
}

/* The last value of the run that the archive holds. */
static int run_find_archive(source *s, run_follow *rf, strbuf *err)
{
    int inst, sts;
    pmLogLabel label;
    if ((sts = pmUseContext(s->ctx)) < 0
        || (sts = pmGetArchiveLabel(&label)) < 0) {
        sb_printf(err, "%s: %s", s->spec, PCP_ERR_STR(sts));
        return 1;
    }
    if (runs_metric(s, rf, err) != 0)
        return 1;
    char *last = NULL;
    size_t lastlen = 0;
    sts = run_inst(s, rf, &inst);
    if (sts == 0)
        sts = pmSetMode(PM_MODE_FORW, &label.ll_start, 0);
    while (sts >= 0) {
        pmResult *r = NULL;
        if ((sts = pmFetchArchive(&r)) < 0)
            break;
        for (int i = 0; i < r->numpmid; i++) {
            const char *p;
            size_t len;
            if (r->vset[i]->pmid == rf->pmid
                && string_value(r->vset[i], inst, &p, &len)) {
                free(last);
                last = xmalloc(len + 1);
                memcpy(last, p, len);
                last[len] = '\0';
                lastlen = len;
            }
        }
        pmFreeResult(r);
    }
    if (sts != PM_ERR_EOL && sts != PM_ERR_INST) {
        sb_printf(err, "%s: reading the archive: %s", s->spec, PCP_ERR_STR(sts));
        free(last);
        return 1;
    }
    if (last == NULL) {
        sb_printf(err, "%s: no value of run %s in the archive: log %s with "
                  "the run's event metric while the run goes on (see "
                  "pminfo -a %s -f %s for the runs it holds)", s->spec,
                  rf->name, PCP_RUNS_METRIC, s->spec, PCP_RUNS_METRIC);
        return 1;
    }
    sts = run_take(s, rf, last, lastlen, err);
    free(last);
    return sts == 0 ? 0 : 1;
}

/* A run that can have no records: the error for it. */
static void run_no_events(const source *s, const run_follow *rf, strbuf *err)
{
    const pcp_run *r = &rf->cur;
    sb_printf(err, "run %s ", rf->name);
    switch (r->state) {
    case PCP_RUN_FAILED:
        sb_adds(err, "failed: ");
        pcp_run_text(err, r->reason[0] ? r->reason : "(no reason given)",
                     400);
        break;
    case PCP_RUN_STOPPED:
        sb_adds(err, "was stopped before it published an event metric");
        break;
    case PCP_RUN_DONE:
        sb_adds(err, "is done but published no event metric (does script ");
        pcp_run_text(err, r->script, 64);
        sb_adds(err, " record stacks?)");
        break;
    default:
        sb_printf(err, "is %s and has no event metric yet%s",
                  pcp_run_state_name(r->state),
                  s->live ? "" : " when the archive ends");
        break;
    }
}

/* Live: wait until the run has an event metric (polling its state every
 * interval, until end >= 0 or a signal). */
static int run_wait_live(reader *rd, source *s, run_follow *rf,
                         double interval, double end, strbuf *err)
{
    int shown = -1;
    if (runs_metric(s, rf, err) != 0)
        return 1;
    for (;;) {
        int sts = run_fetch_live(s, rf, err);
        if (sts == RUN_GONE) {
            sb_printf(err, "no run %s on %s; see pminfo -f %s", rf->name,
                      s->spec, PCP_RUNS_METRIC);
            return 1;
        }
        if (sts == RUN_BAD)
            return 1;
        if (sts < 0) {
            sb_printf(err, "%s: %s: %s", s->spec, PCP_RUNS_METRIC,
                      PCP_ERR_STR(sts));
            return 1;
        }
        if (rf->cur.nevents > 0)
            return 0;
        if (pcp_run_terminal(&rf->cur)) {
            run_no_events(s, rf, err);
            return 1;
        }
        if ((int)rf->cur.state != shown) {
            notice(rd, "run %s is %s; waiting for %s", rf->name,
                   pcp_run_state_name(rf->cur.state),
                   rf->cur.state == PCP_RUN_QUEUED ? "it to start"
                                                    : "its event metric");
            shown = (int)rf->cur.state;
        }
        double next = mono_now() + interval;
        if (end >= 0 && mono_now() >= end) {
            sb_printf(err, "run %s was still %s at the end (-T)", rf->name,
                      pcp_run_state_name(rf->cur.state));
            return 1;
        }
        if (end >= 0 && next > end)
            next = end;
        sleep_until(next);
        if (stopsig_count()) {
            sb_printf(err, "interrupted while waiting for run %s", rf->name);
            return 1;
        }
    }
}

/* The run has its event metric: follow it (the -h/-a source's metric and
 * window).  Returns 0, or 1 with a message in err. */
static int run_start(reader *rd, pcp_options *po, source *s, run_follow *rf,
                     strbuf *err)
{
    const pcp_run *r = &rf->cur;
    if (r->nevents == 0) {
        run_no_events(s, rf, err);
        return 1;
    }
    if (r->nevents > 1 && po->nmetrics == 0)
        notice(rd, "run %s has %d event metrics; drawing "
               "the first (name another as the METRIC argument)", rf->name,
               r->nevents);
    rf->metric = xstrdup(po->nmetrics ? po->metrics[0] : r->events[0]);
    po->metrics[0] = rf->metric;
    po->nmetrics = 1;
    strbuf why = STRBUF_INIT;
    int rc = resolve_metrics(rd, s, &why);
    if (rc != 0) {
        sb_adds(err, why.buf);
        sb_printf(err, " (the event metric of run %s%s)", rf->name,
                  s->live && pcp_run_terminal(r)
                  ? ", which has ended: its records are gone from pmcd; "
                    "draw it from an archive"
                  : s->live ? ""
                  : ": log it with pmlogger alongside " PCP_RUNS_METRIC);
        sb_free(&why);
        return rc;
    }
    sb_free(&why);
    if (!pcp_run_choose_window(r, s->live, po->start || po->finish,
                               &s->lo_ns, &s->hi_ns))
        return 0;       /* replay_archive applies the user's -S/-T */
    s->window = true;
    rd->st->run_window = true;
    if (s->live)
        notice(rd, "run %s is %s; reading %s until it "
                "ends", rf->name, pcp_run_state_name(r->state),
                rf->metric);
    return 0;
}

/* After each live round: true when collection of the run is complete
 * (it ended, and a fetch at least RUN_SETTLE after that brought nothing
 * of it) or must stop (the run vanished or pmcd stopped answering). */
static bool run_progress(reader *rd, source *s, run_follow *rf)
{
    uint64_t in = rd->st->records - rd->st->outside;
    bool empty = in == rf->last_in;
    rf->last_in = in;
    rf->rounds++;
    if (rf->terminal_at >= 0)
        return rf->rounds > 1 && empty
               && mono_now() - rf->terminal_at >= RUN_SETTLE;
    strbuf err = STRBUF_INIT;
    int sts = run_fetch_live(s, rf, &err);
    if (sts != 0) {
        if (sts == RUN_GONE)
            notice(rd, "run %s is no longer listed on %s "
                   "(pmdastaprelay restarted?); drawing what arrived",
                   rf->name, s->spec);
        else if (sts == RUN_BAD)
            notice(rd, "%s; drawing what arrived", err.buf);
        else
            notice(rd, "%s: %s: %s; drawing what arrived", s->spec,
                   PCP_RUNS_METRIC, PCP_ERR_STR(sts));
        sb_free(&err);
        return true;
    }
    sb_free(&err);
    if (pcp_run_terminal(&rf->cur)) {
        rf->terminal_at = mono_now();
        pcp_run_window(&rf->cur, &s->lo_ns, &s->hi_ns);
    }
    return false;
}

/* After the records are read: a failed run without records is an
 * error (its reason); other endings are noted. */
static int run_finish(reader *rd, const source *s, const run_follow *rf,
                      strbuf *err)
{
    const pcp_run *r = &rf->cur;
    strbuf why = STRBUF_INIT;
    int rc = 0;
    if (r->state == PCP_RUN_FAILED && rd->st->stacks == 0) {
        run_no_events(s, rf, err);
        rc = 1;
    } else if (r->state == PCP_RUN_FAILED) {
        pcp_run_text(&why, r->reason[0] ? r->reason : "no reason given",
                     400);
        notice(rd, "run %s failed (%s); drawing the "
                "records it published", rf->name, why.buf);
    } else if (r->state == PCP_RUN_STOPPED) {
        notice(rd, "run %s was stopped before its "
                "duration ended", rf->name);
    } else if (!s->live && !pcp_run_terminal(r)) {
        notice(rd, "run %s was still %s when the archive "
                "ends; drawing what was recorded", rf->name,
                pcp_run_state_name(r->state));
    }
    sb_free(&why);
    return rc;
}

/* One round: a fetch from every source.  Returns 0, or the first
 * error; calls po->on_round when set (its nonzero return: stop). */
/* The state pmdastaprelay reports for the source publishing metric
 * NAME (staprelay.control.source.state of the source whose prefix NAME
 * is under): 1 when it is "ok", -1 when it is gone (vanished, an error,
 * or no longer listed), 0 when it cannot be told. */
static int source_state(source *s, const char *name)
{
    if (s->no_control)
        return 0;
    if (s->ctl_pmid[0] == 0 && s->ctl_pmid[1] == 0) {
        const char *names[2] = { "staprelay.control.source.state",
                                 "staprelay.control.source.prefix" };
        if (pmLookupName(2, names, s->ctl_pmid) != 2
            || s->ctl_pmid[0] == PM_ID_NULL || s->ctl_pmid[1] == PM_ID_NULL) {
            s->no_control = true;
            return 0;
        }
    }
    pmResult *r = NULL;
    if (pmFetch(2, s->ctl_pmid, &r) < 0)
        return 0;
    int rc = -1;
    size_t best = 0;
    const pmValueSet *st = r->numpmid == 2 ? r->vset[0] : NULL;
    const pmValueSet *px = r->numpmid == 2 ? r->vset[1] : NULL;
    for (int j = 0; px != NULL && j < px->numval; j++) {
        const char *p, *v;
        size_t plen, vlen;
        int inst = px->vlist[j].inst;
        if (!string_value(px, inst, &p, &plen) || plen == 0
            || strncmp(name, "staprelay.", 10) != 0
            || strncmp(name + 10, p, plen) != 0 || name[10 + plen] != '.'
            || plen < best)
            continue;
        best = plen;
        rc = string_value(st, inst, &v, &vlen) && vlen == 2
             && memcmp(v, "ok", 2) == 0 ? 1 : -1;
    }
    pmFreeResult(r);
    return rc;
}

/* After a live fetch: say when the source of the metric goes away and
 * when it comes back (an event metric has no value either way between
 * records, so the PMDA's own word on its sources decides). */
static void live_presence(reader *rd, source *s)
{
    /* a run's source goes when the run ends: that is how --run reading
     * ends (the run's state says so), not news */
    if (s->npmids == 0 || rd->po->run != NULL)
        return;
    int now = source_state(s, s->names[0]);
    if (now == 0 || now == s->presence)
        return;
    if (now < 0)
        notice(rd, "%s: the source of %s is gone (see "
                "pminfo -h %s -f staprelay.control.source.state); waiting "
                "for it to come back", s->spec, s->names[0],
                s->spec);
    else if (s->presence < 0)
        notice(rd, "%s: the source of %s is back", s->spec, s->names[0]);
    s->presence = now;
}

/* A failed source: reconnect (libpcp allows one attempt a second, see
 * live_reconnect_schedule).  True when it is connected again. */
static bool reconnect_source(source *s)
{
    if (!s->reconnect)
        return true;
    if (pmReconnectContext(s->ctx) < 0)
        return false;
    s->reconnect = false;
    return true;
}

static int fetch_live(reader *rd, source *srcs, int n)
{
    int first = 0;
    for (int i = 0; i < n; i++) {
        source *s = &srcs[i];
        pmResult *r = NULL;
        int sts = pmUseContext(s->ctx);
        if (sts >= 0 && !reconnect_source(s))
            sts = PM_ERR_IPC;
        if (sts >= 0)
            sts = pmFetch(s->npmids, s->pmids, &r);
        if (sts < 0) {
            /* pmcd is gone, or the connection broke: what was fetched
             * stays; reconnect until it answers again */
            if (s->fetch_errors++ == 0) {
                s->failed_at = mono_now();
                if (rd->po->on_round == NULL)
                    notice(rd, "%s: fetch failed: %s; "
                           "reconnecting (what arrived is kept)", s->spec,
                           PCP_ERR_STR(sts));
            }
            s->reconnect = true;
            if (first == 0)
                first = sts;
            continue;
        }
        if (s->fetch_errors > 0 && rd->po->on_round == NULL)
            notice(rd, "%s: reconnected after %.1f s", s->spec,
                   mono_now() - s->failed_at);
        s->fetch_errors = 0;
        rd->st->fetches++;
        live_presence(rd, s);
        process_result(rd, s, r);
        pmFreeResult(r);
    }
    if (rd->po->on_round)
        return rd->po->on_round(rd->po->hook_arg, first) ? 1 : 0;
    return 0;
}

static int64_t wall_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* Progress on a terminal: one line on stderr, rewritten each round. */
static void progress(reader *rd, double end, bool last)
{
    if (!rd->po->progress)
        return;
    if (last) {
        fputs("\r\033[K", stderr);
        return;
    }
    char w[48];
    snprintf(w, sizeof w, "%.0f", rd->weight);
    fprintf(stderr, "\r\033[Kstaprelay %s: %s samples", rd->cmd, w);
    if (rd->sink.tab)
        fprintf(stderr, ", %zu stacks", stacktab_size(rd->sink.tab));
    if (end >= 0) {
        double left = end - mono_now();
        fprintf(stderr, ", %.0f s left", left > 0 ? left : 0);
    } else {
        fputs(" (Ctrl-C ends)", stderr);
    }
    fflush(stderr);
}

/* After -T: records stamped inside the window may still be on their way
 * (the producer's flush, the PMDA's poll): fetch every quarter second
 * until one stamped after the end arrives, at most LIVE_DRAIN s. */
#define LIVE_DRAIN 2.0

static void drain_live(reader *rd, source *srcs, int n)
{
    double until = mono_now() + LIVE_DRAIN;
    while (!rd->past_end && !stopsig_count() && mono_now() < until) {
        double next = mono_now() + 0.25;
        sleep_until(next < until ? next : until);
        if (stopsig_count() || fetch_live(rd, srcs, n) != 0)
            break;
    }
}

/* Between rounds while a source is failing: try to reconnect every
 * RECONNECT_EVERY s, so pmcd's return is seen within a second or two
 * however long -t is.  True when one came back (fetch it now). */
#define RECONNECT_EVERY 1.0

static bool any_failing(const source *srcs, int n)
{
    for (int i = 0; i < n; i++)
        if (srcs[i].reconnect)
            return true;
    return false;
}

static bool reconnect_failing(source *srcs, int n)
{
    bool back = false;
    for (int i = 0; i < n; i++)
        if (srcs[i].reconnect && pmUseContext(srcs[i].ctx) >= 0
            && reconnect_source(&srcs[i]))
            back = true;
    return back;
}

static int collect_live(reader *rd, pcp_options *runpo, source *srcs, int n,
                        run_follow *rf, strbuf *err)
{
    const pcp_options *po = rd->po;
    struct timeval itv = { 1, 0 };
    if (po->interval && !parse_interval(po->interval, &itv, err))
        return 2;
    double interval = itv.tv_sec + itv.tv_usec / 1e6;
    double end = -1;
    int64_t end_ns = INT64_MAX;
    if (po->finish) {
        struct timeval now, far = { INT_MAX, 0 }, rs, re, ro;
        gettimeofday(&now, NULL);
        char *msg = NULL;
        if (pmParseTimeWindow(NULL, po->finish, NULL, NULL, &now, &far, &rs,
                              &re, &ro, &msg) < 0) {
            sb_printf(err, "bad -T '%s'%s%s", po->finish, msg ? ": " : "",
                      msg ? msg : "");
            free(msg);
            return 2;
        }
        free(msg);
        end = mono_now() + pmtimevalSub(&re, &now);
        end_ns = (int64_t)re.tv_sec * 1000000000 + (int64_t)re.tv_usec * 1000;
    }

    stopsig_saved saved;
    stopsig_catch(&saved, STOPSIG_SECOND_KILLS);   /* a second Ctrl-C kills */

    int rc = 0;
    if (rf) {       /* one source: the run's host */
        rc = run_wait_live(rd, &srcs[0], rf, interval, end, err);
        if (rc == 0)
            rc = run_start(rd, runpo, &srcs[0], rf, err);
        if (rc != 0)
            goto out;
    } else {
        /* The window is the records' own times from now to -T: what
         * the PMDA still holds from before (an event metric that
         * replays, or records on their way) is left out, counted. */
        for (int i = 0; i < n; i++) {
            srcs[i].window = true;
            srcs[i].lo_ns = wall_ns();
            srcs[i].hi_ns = end_ns;
        }
        rd->st->live_window = true;
    }
    double t0 = mono_now();
    bool done = fetch_live(rd, srcs, n) != 0;  /* registers each context */
    if (rf && !done)
        done = run_progress(rd, &srcs[0], rf);
    while (!stopsig_count() && !done) {
        progress(rd, end, false);
        double now = mono_now();
        if (end >= 0 && now >= end)
            break;
        double k = (double)(long long)((now - t0) / interval) + 1;
        double next = t0 + k * interval;
        if (end >= 0 && next > end)
            next = end;
        /* while a source is failing, wake every RECONNECT_EVERY s to
         * try it; one that is back is fetched at once */
        bool early = false;
        while (any_failing(srcs, n) && !stopsig_count()
               && mono_now() + RECONNECT_EVERY < next) {
            sleep_until(mono_now() + RECONNECT_EVERY);
            if (!stopsig_count() && reconnect_failing(srcs, n)) {
                early = true;
                break;
            }
        }
        if (!early)
            sleep_until(next);
        if (stopsig_count())
            break;
        done = fetch_live(rd, srcs, n) != 0;
        if (rf && !done)
            done = run_progress(rd, &srcs[0], rf);
    }
    if (stopsig_count()) {
        rd->st->interrupted = true;
        int64_t now_ns = wall_ns();
        for (int i = 0; !rf && i < n; i++)
            if (srcs[i].hi_ns > now_ns)
                srcs[i].hi_ns = now_ns;
        fetch_live(rd, srcs, n);    /* what arrived since the last tick */
    } else if (!rf && !done && end >= 0) {
        drain_live(rd, srcs, n);
    }
    progress(rd, end, true);
    if (rf && rf->terminal_at < 0)
        notice(rd, "run %s was still %s when collection "
                "ended; drawing what arrived", rf->name,
                pcp_run_state_name(rf->cur.state));
out:
    stopsig_restore(&saved);
    return rc;
}

/* ---- archives -------------------------------------------------------- */

static int64_t tv_ns(const struct timeval *tv)
{
    return (int64_t)tv->tv_sec * 1000000000 + (int64_t)tv->tv_usec * 1000;
}

static void ns_tv(int64_t ns, struct timeval *tv)
{
    int64_t sec = ns / 1000000000, rem = ns % 1000000000;
    if (rem < 0) {
        sec--;
        rem += 1000000000;
    }
    tv->tv_sec = (time_t)sec;
    tv->tv_usec = (suseconds_t)(rem / 1000);
}

/* One pass over every record of the archive. */
static int archive_pass(reader *rd, source *s, const struct timeval *from,
                        strbuf *err)
{
    int sts = pmSetMode(PM_MODE_FORW, from, 0);
    if (sts < 0) {
        sb_printf(err, "%s: %s", s->spec, PCP_ERR_STR(sts));
        return 1;
    }
    for (;;) {
        pmResult *r = NULL;
        sts = pmFetchArchive(&r);
        if (sts == PM_ERR_EOL)
            return 0;
        /* a stop request (staprelay web's Ctrl-C: the commands reading
         * an archive catch no signal, so none is counted for them) */
        if (stopsig_count()) {
            if (sts >= 0)
                pmFreeResult(r);
            return 0;
        }
        if (sts < 0) {
            sb_printf(err, "%s: reading the archive: %s", s->spec,
                      PCP_ERR_STR(sts));
            return 1;
        }
        if (!rd->scan)
            rd->st->fetches++;
        process_result(rd, s, r);
        pmFreeResult(r);
    }
}

/* The span -S and -T are relative to: the archive's, widened to the
 * records' own timestamps, which may precede the archive's start (records
 * wait in the PMDA until pmlogger's next fetch) or be stamped by a
 * producer's clock. */
static int archive_span(reader *rd, source *s, strbuf *err)
{
    pmLogLabel label;
    struct timeval end;
    int sts;
    if ((sts = pmUseContext(s->ctx)) < 0
        || (sts = pmGetArchiveLabel(&label)) < 0
        || (sts = pmGetArchiveEnd(&end)) < 0) {
        sb_printf(err, "%s: %s", s->spec, PCP_ERR_STR(sts));
        return 1;
    }
    s->first_ns = tv_ns(&label.ll_start);
    s->last_ns = tv_ns(&end);
    rd->scan = true;
    rd->scan_lo = INT64_MAX;
    rd->scan_hi = INT64_MIN;
    int rc = archive_pass(rd, s, &label.ll_start, err);
    rd->scan = false;
    if (rd->scan_lo < s->first_ns)
        s->first_ns = rd->scan_lo;
    if (rd->scan_hi != INT64_MIN && rd->scan_hi > s->last_ns)
        s->last_ns = rd->scan_hi;
    return rc;
}

bool pcp_window_holds(int64_t lo_ns, int64_t hi_ns, int64_t t_ns)
{
    return t_ns >= lo_ns && t_ns <= hi_ns;
}

int pcp_window_parse(const char *start, const char *finish, int64_t first_ns,
                     int64_t last_ns, int64_t *lo_ns, int64_t *hi_ns,
                     strbuf *err)
{
    struct timeval lo, hi, rs, re, ro;
    ns_tv(first_ns, &lo);
    ns_tv(last_ns, &hi);
    char *msg = NULL;
    if (pmParseTimeWindow(start, finish, NULL, NULL, &lo, &hi, &rs, &re, &ro,
                          &msg) < 0) {
        sb_adds(err, msg ? msg : "bad time");  /* as pmParseTimeWindow
                                                * says it: lines */
        free(msg);
        return -1;
    }
    free(msg);
    *lo_ns = start ? tv_ns(&rs) : INT64_MIN;
    *hi_ns = finish ? tv_ns(&re) : INT64_MAX;
    return 0;
}

/* -S/-T against [first_ns, last_ns]: the window of every source given. */
static int set_window(const pcp_options *po, source *srcs, int n,
                      int64_t first_ns, int64_t last_ns, strbuf *err)
{
    int64_t lo_ns, hi_ns;
    strbuf why = STRBUF_INIT;
    if (pcp_window_parse(po->start, po->finish, first_ns, last_ns, &lo_ns,
                         &hi_ns, &why) < 0) {
        sb_printf(err, "%s: bad -S/-T window: %s", n == 1 ? srcs[0].spec
                  : "the archives", why.buf);
        sb_free(&why);
        return 2;
    }
    sb_free(&why);
    for (int i = 0; i < n; i++) {
        srcs[i].window = true;
        srcs[i].lo_ns = lo_ns;
        srcs[i].hi_ns = hi_ns;
        for (int m = 0; m < srcs[i].npmids; m++)
            if (srcs[i].counter[m] != NULL)
                pcp_counter_window(srcs[i].counter[m], srcs[i].lo_ns,
                                   srcs[i].hi_ns);
    }
    return 0;
}

/* Every archive, each record in order.  With -S/-T the window is read
 * against all the archives' span (each its own for diff's two sides), so
 * a farm's hosts share one window. */
static int replay_archives(reader *rd, source *srcs, int n, strbuf *err)
{
    const pcp_options *po = rd->po;
    int rc = 0;
    if (po->start || po->finish) {
        int64_t first = INT64_MAX, last = INT64_MIN;
        for (int i = 0; i < n && rc == 0; i++) {
            rc = archive_span(rd, &srcs[i], err);
            if (srcs[i].first_ns < first)
                first = srcs[i].first_ns;
            if (srcs[i].last_ns > last)
                last = srcs[i].last_ns;
        }
        for (int i = 0; rc == 0 && po->col_per_source && i < n; i++)
            rc = set_window(po, &srcs[i], 1, srcs[i].first_ns,
                            srcs[i].last_ns, err);
        if (rc == 0 && !po->col_per_source)
            rc = set_window(po, srcs, n, first, last, err);
    }
    for (int i = 0; i < n && rc == 0; i++) {
        pmLogLabel label;
        int sts;
        if ((sts = pmUseContext(srcs[i].ctx)) < 0
            || (sts = pmGetArchiveLabel(&label)) < 0) {
            sb_printf(err, "%s: %s", srcs[i].spec, PCP_ERR_STR(sts));
            return 1;
        }
        rc = archive_pass(rd, &srcs[i], &label.ll_start, err);
    }
    return rc;
}

/* ---- entry point ----------------------------------------------------- */

/* Counter figures, summed over the sources. */
static void counter_stats(const source *srcs, int n, pcp_stats *st)
{
    for (int i = 0; i < n; i++)
        for (int m = 0; m < srcs[i].npmids; m++) {
            if (srcs[i].counter[m] == NULL)
                continue;
            const pcp_counter_stats *cs = pcp_counter_stats_of(srcs[i].counter[m]);
            st->counted += cs->samples;
            st->counter_sets += cs->sets;
            st->outside += cs->outside;
            st->merged += cs->merged;
            st->no_end += cs->no_end;
        }
}

static void counted_from_series(void *arg, const char *host, const char *folded,
                                size_t len, double weight, int64_t when_ns)
{
    reader *rd = arg;
    pcp_sample smp = { .when_ns = when_ns, .stack = folded, .stack_len = len,
                       .weight = weight };
    if (!counter_stack(rd, rd->po->by_host ? host : NULL, &smp))
        return;
    stack_context ctx = { .pid = -1, .tid = -1, .host = host,
                          .time_ns = when_ns, .samples = weight };
    deliver(rd, weight, -1, when_ns, &ctx);
}

/* -S/-T for pmseries, against (the epoch, now): what pmseries holds may
 * be of any time.  A time of day alone (@10:00) takes the date of the
 * earlier bound, so it is read again against (today's midnight, now):
 * today's 10:00, as the user means (against midnight alone, an earlier
 * time would be cut to midnight). */
static bool series_window(const pcp_options *po, struct timeval *rs,
                          struct timeval *re, strbuf *err)
{
    struct timeval epoch = { 1, 0 }, now, ro, ts, te;
    gettimeofday(&now, NULL);
    time_t t = now.tv_sec;
    struct tm tm;
    localtime_r(&t, &tm);
    tm.tm_hour = tm.tm_min = tm.tm_sec = 0;
    struct timeval midnight = { mktime(&tm), 0 };
    char *msg = NULL;
    if (pmParseTimeWindow(po->start, po->finish, NULL, NULL, &epoch, &now,
                          rs, re, &ro, &msg) < 0
        || pmParseTimeWindow(po->start, po->finish, NULL, NULL, &midnight,
                             &now, &ts, &te, &ro, &msg) < 0) {
        sb_printf(err, "bad -S/-T window%s%s", msg ? ": " : "", msg ? msg : "");
        free(msg);
        return false;
    }
    free(msg);
    if (rs->tv_sec < 2 * 86400)     /* a time of day, on the epoch's date */
        *rs = ts;
    if (re->tv_sec < 2 * 86400)
        *re = te;
    return true;
}

/* --series: the window (series_window), then pmseries. */
static int read_series(reader *rd, strbuf *err)
{
    const pcp_options *po = rd->po;
    pmseries_query q = { .url = po->pmproxy, .query = po->series,
                         .kind = po->counter, .lo_ns = INT64_MIN,
                         .hi_ns = INT64_MAX,
                         .step_ms = PMSERIES_DEFAULT_STEP_MS };
    struct timeval step;
    if (po->interval != NULL && parse_interval(po->interval, &step, err))
        q.step_ms = (int64_t)step.tv_sec * 1000 + step.tv_usec / 1000;
    if (q.url == NULL)
        q.url = getenv("PCP_PMPROXY_URL");
    if (q.url == NULL)
        q.url = PMSERIES_DEFAULT_URL;
    if (po->start || po->finish) {
        struct timeval rs, re;
        if (!series_window(po, &rs, &re, err))
            return 2;
        q.lo_ns = po->start ? tv_ns(&rs) : INT64_MIN;
        q.hi_ns = po->finish ? tv_ns(&re) : INT64_MAX;
    }
    pmseries_stats ps;
    memset(&ps, 0, sizeof ps);
    int rc = pmseries_read(&q, counted_from_series, rd, &ps, err);
    rd->st->counted += ps.samples;
    rd->st->counter_sets += ps.sets;
    rd->st->outside += ps.outside;
    rd->st->merged += ps.merged;
    rd->st->no_end += ps.no_end;
    return rc;
}

int pcp_input_read(const pcp_options *po, const input_options *in,
                   const char *cmd, stacktab *tab, pcp_stats *st,
                   strbuf *err)
{
    if (pcp_options_check(po, err) < 0)
        return 2;
    bool live = po->nhosts > 0;
    if (live)
        live_reconnect_schedule();
    pcp_options runpo = *po;    /* with --run, the metric is the run's */
    run_follow rf = { .name = po->run, .terminal_at = -1, .po = po };
    reader rd = { .po = &runpo, .in = in, .cmd = cmd, .st = st,
                  .stack = STRBUF_INIT };
    stack_sink_init(&rd.sink, tab, in->col, in->strip_hex);
    stack_sink_observe(&rd.sink, in->on_sample, in->on_sample_arg);
    stack_sink_observe_detail(&rd.sink, in->on_detail, in->on_detail_arg);
    stack_sink_filter(&rd.sink, in->filter);
    if (po->series) {
        int rc = read_series(&rd, err);
        stack_sink_free(&rd.sink);
        sb_free(&rd.stack);
        return rc;
    }
    /* archives: a farm directory stands for one archive per host */
    farm_list farm = { 0 };
    if (!live && farm_expand(po->archives, po->narchives, &farm, err) != 0) {
        stack_sink_free(&rd.sink);
        return 1;
    }
    int n = live ? po->nhosts : (int)farm.n;
    if (po->run && n > 1) {
        sb_printf(err, "--run follows one run: %s holds %d hosts' archives",
                  po->archives[0], n);
        n = 0;
    }
    source *srcs = xcalloc(n > 0 ? (size_t)n : 1, sizeof *srcs);
    int rc = n > 0 ? 0 : 2;
    for (int i = 0; i < n; i++) {
        srcs[i].ctx = -1;
        srcs[i].live = live;
        srcs[i].spec = live ? po->hosts[i] : farm.specs[i];
        int side = live ? i : farm.origin[i];
        srcs[i].col = po->col_per_source ? side : -1;
        if (po->col_per_source && side > 1) {
            sb_adds(err, "at most two sources, one per side");
            rc = 2;
        }
    }
    for (int i = 0; i < n && rc == 0; i++)
        rc = open_source(&rd, &srcs[i], err);
    if (rc == 0 && po->run && !live) {
        rc = run_find_archive(&srcs[0], &rf, err);
        if (rc == 0)
            rc = run_start(&rd, &runpo, &srcs[0], &rf, err);
    }
    if (rc == 0) {
        if (live)
            rc = collect_live(&rd, &runpo, srcs, n, po->run ? &rf : NULL,
                              err);
        else
            rc = replay_archives(&rd, srcs, n, err);
    }
    if (rc == 0 && po->run)
        rc = run_finish(&rd, &srcs[0], &rf, err);
    if (po->run_info) {
        *po->run_info = rf.cur;      /* handed over */
        memset(&rf.cur, 0, sizeof rf.cur);
    }
    counter_stats(srcs, n, st);
    run_follow_free(&rf);
    for (int i = 0; i < n; i++)
        close_source(&srcs[i]);
    free(srcs);
    farm_free(&farm);
    stack_sink_free(&rd.sink);
    sb_free(&rd.stack);
    return rc;
}
