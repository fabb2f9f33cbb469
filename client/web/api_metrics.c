/* api_metrics: any PCP metric on the samples' clock, and on-demand runs
 * (see api_metrics.h). */
#include "client/web/api_metrics.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <pcp/pmapi.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "client/input/farm.h"
#include "client/input/pcp_input.h"
#include "client/run/run.h"
#include "client/util/utf8.h"
#include "common/duration.h"
#include "common/script_opts.h"
#include "common/xalloc.h"

#define RUN_METRIC "staprelay.control.run"

/* libpcp's text of an error, a type, units, in a buffer of the calling
 * block (the plain pmErrStr & co. share one static buffer between the
 * handler threads and the fetch thread) */
#define ERR_STR(e)    PCP_ERR_STR(e)
#define TYPE_STR(t)   pmTypeStr_r((t), (char[32]){ 0 }, 32)
#define UNITS_STR(u)  pmUnitsStr_r((u), (char[96]){ 0 }, 96)
#define MAX_NAME 255               /* bytes of a metric name or prefix */

/* ---- sources ------------------------------------------------------------------- */

typedef struct msource {
    char           *spec;      /* -h HOST[:PORT] as given, or an archive */
    char           *host;      /* the host it is of (archives: their label) */
    bool            archive;
    pthread_mutex_t lock;      /* qctx and everything done with it */
    int             qctx;      /* queries, archive reads, stores; -1: none */
    bool            broken;    /* live: the last call on qctx failed with
                                * no PCP answer: reconnect before the next */
    int             fctx;      /* the fetch thread's own; -1: none */
} msource;

/* One watched metric (live): a ring of fetches, a value per instance. */
typedef struct watched {
    int       src;
    char     *name;
    pmID      pmid;
    pmDesc    desc;
    int64_t   asked_s;         /* CLOCK_MONOTONIC seconds of the last ask */
    int       ninst;
    int       inst[WEB_VALUES_MAX_INST];     /* PM_IN_NULL when singular */
    char     *iname[WEB_VALUES_MAX_INST];
    uint64_t  inst_dropped;    /* values of instances beyond the table */
    char      error[128];      /* the last fetch's error for it, or "" */
    size_t    cap, head, n;    /* ring: oldest at (head - n) mod cap */
    int64_t  *t_ns;
    double   *v;               /* cap x WEB_VALUES_MAX_INST, NAN: none */
} watched;

struct web_metrics {
    msource        *src;
    int             nsrc;
    bool            live;
    bool            allow_runs;
    void          (*on_accepted)(void *arg, const char *spec,
                                 const char *name);
    void           *on_accepted_arg;
    double          interval_s;
    long            window_min;
    pthread_mutex_t lock;      /* watch[], never held across PCP calls
                                * other than the fetch thread's own
                                * bookkeeping */
    watched        *watch[WEB_VALUES_MAX];
    int             nwatch;
    pthread_mutex_t fetch_lock;   /* one fetch round at a time */
    pthread_cond_t  wake;
    bool            stop;
    bool            thread_started;
    pthread_t       thread;
};

static int64_t mono_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (int64_t)t.tv_sec;
}

static int64_t now_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_REALTIME, &t);
    return (int64_t)t.tv_sec * 1000000000 + t.tv_nsec;
}

static void json_str(strbuf *sb, const char *s)
{
    sb_addc(sb, '"');
    json_escape(sb, s, strlen(s));
    sb_addc(sb, '"');
}

/* A value as JSON: null when it is not a finite number. */
static void json_num(strbuf *sb, double v)
{
    if (isfinite(v))
        sb_printf(sb, "%.10g", v);
    else
        sb_adds(sb, "null");
}

/* A metric name or prefix: PCP's characters, at most MAX_NAME bytes. */
static bool name_ok(const char *s, bool empty_ok)
{
    size_t n = strlen(s);
    if (n == 0)
        return empty_ok;
    if (n > MAX_NAME || s[0] == '.' || s[n - 1] == '.')
        return false;
    for (size_t i = 0; i < n; i++)
        if (!isalnum((unsigned char)s[i]) && s[i] != '_' && s[i] != '.')
            return false;
    return strstr(s, "..") == NULL;
}

/* The query context of s, opened on first use (under s->lock).  Returns
 * it and makes it current, or -1 with the reason in why. */
static int use_qctx(msource *s, strbuf *why)
{
    if (s->qctx >= 0) {
        if (pmUseContext(s->qctx) >= 0) {
            if (s->broken && pmReconnectContext(s->qctx) >= 0)
                s->broken = false;
            return s->qctx;
        }
        pmDestroyContext(s->qctx);
        s->qctx = -1;
    }
    int c = pmNewContext(s->archive ? PM_CONTEXT_ARCHIVE : PM_CONTEXT_HOST,
                         s->spec);
    if (c < 0) {
        sb_printf(why, "cannot connect to %s%s: %s", s->archive
                  ? "archive " : "pmcd on ", s->spec, ERR_STR(c));
        return -1;
    }
    s->qctx = c;
    return c;
}

/* The source host= names (the spec as given or its host name); the
 * first when absent.  NULL after a 404. */
static msource *find_source(web_metrics *m, const web_request *rq,
                            web_reply *rp)
{
    const char *h = web_param_get(rq, "host");
    if (m->nsrc == 0) {
        web_reply_error(rp, 404, "no PCP source: PCP metrics need -h HOST "
                        "or -a ARCHIVE");
        return NULL;
    }
    if (h == NULL || *h == '\0')
        return &m->src[0];
    for (int i = 0; i < m->nsrc; i++)
        if (strcmp(m->src[i].spec, h) == 0
            || (m->src[i].host && strcmp(m->src[i].host, h) == 0))
            return &m->src[i];
    web_reply_error(rp, 404, "unknown host '%.100s' (not one of the -h or "
                    "-a sources)", h);
    return NULL;
}

static bool numeric(int type)
{
    switch (type) {
    case PM_TYPE_32: case PM_TYPE_U32: case PM_TYPE_64: case PM_TYPE_U64:
    case PM_TYPE_FLOAT: case PM_TYPE_DOUBLE:
        return true;
    default:
        return false;
    }
}

static const char *semantics_name(int sem)
{
    return sem == PM_SEM_COUNTER ? "counter" : sem == PM_SEM_DISCRETE
           ? "discrete" : "instant";
}

/* "count / sec" and the like: what a counter's rate is in. */
static void rate_units(strbuf *sb, const pmUnits *u)
{
    const char *base = UNITS_STR(u);
    sb_printf(sb, "%s%s/ sec", base, *base ? " " : "");
}

/* A PMAPI status that says the connection, not the request, failed. */
static bool lost(int sts)
{
    return sts == PM_ERR_IPC || sts == PM_ERR_TIMEOUT || sts == -ECONNRESET
           || sts == -EPIPE || sts == -ECONNREFUSED || sts == PM_ERR_NOCONTEXT;
}

/* M's pmID and descriptor in the current context: 0, or an HTTP status
 * after the reply (404 unknown, 400 not numeric, 502 otherwise). */
static int lookup(const char *name, const char *where, pmID *pmid,
                  pmDesc *desc, web_reply *rp)
{
    char *names[1] = { (char *)name };
    int sts = pmLookupName(1, (const char **)names, pmid);
    if (sts < 0 || *pmid == PM_ID_NULL) {
        bool unknown = sts == PM_ERR_NAME || sts == PM_ERR_NONLEAF
                       || *pmid == PM_ID_NULL;
        web_reply_error(rp, unknown ? 404 : 502, "%s: %s %s", name,
                        sts == PM_ERR_NONLEAF ? "is not a leaf metric of"
                        : unknown ? "no such metric on" : "lookup failed on",
                        where);
        if (!unknown)
            sb_printf(&rp->body, "(%s)\n", ERR_STR(sts));
        if (lost(sts))
            rp->status = 502;
        return rp->status;
    }
    if ((sts = pmLookupDesc(*pmid, desc)) < 0) {
        web_reply_error(rp, 502, "%s: no descriptor on %s: %s", name, where,
                        ERR_STR(sts));
        return 502;
    }
    if (!numeric(desc->type)) {
        web_reply_error(rp, 400, "%s is not numeric (type %s): only numeric "
                        "metrics are charted", name, TYPE_STR(desc->type));
        return 400;
    }
    return 0;
}

/* ---- /api/pmns ------------------------------------------------------------------- */

typedef struct walk {
    char  **names;
    size_t  n, cap;
    bool    truncated;
} walk;

static void walk_name(const char *name, void *arg)
{
    walk *w = arg;
    if (w->n == WEB_PMNS_MAX_NAMES) {
        w->truncated = true;
        return;
    }
    if (w->n == w->cap) {
        w->cap = w->cap ? 2 * w->cap : 256;
        w->names = xrealloc(w->names, w->cap * sizeof *w->names);
    }
    w->names[w->n++] = xstrdup(name);
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The instance names of indom, at most WEB_PMNS_MAX_INST, as a JSON
 * array (null when singular). */
static void instances_json(strbuf *sb, const msource *s, pmInDom indom,
                           bool *truncated)
{
    *truncated = false;
    if (indom == PM_INDOM_NULL) {
        sb_adds(sb, "null");
        return;
    }
    int *ids = NULL;
    char **names = NULL;
    int n = s->archive ? pmGetInDomArchive(indom, &ids, &names)
                       : pmGetInDom(indom, &ids, &names);
    sb_addc(sb, '[');
    for (int i = 0; i < n && i < WEB_PMNS_MAX_INST; i++) {
        if (i)
            sb_addc(sb, ',');
        json_str(sb, names[i]);
    }
    sb_addc(sb, ']');
    *truncated = n > WEB_PMNS_MAX_INST;
    free(ids);
    free(names);
}

void api_pmns(void *arg, const web_request *rq, web_reply *rp)
{
    web_metrics *m = arg;
    const char *prefix = web_param_get(rq, "prefix");
    if (prefix == NULL)
        prefix = "";
    if (!name_ok(prefix, true)) {
        web_reply_error(rp, 400, "bad prefix '%.100s': a PCP name (letters, "
                        "digits, '_', '.' between), at most %d bytes", prefix,
                        MAX_NAME);
        return;
    }
    msource *s = find_source(m, rq, rp);
    if (s == NULL)
        return;
    pthread_mutex_lock(&s->lock);
    strbuf why = STRBUF_INIT;
    walk w = { 0 };
    if (use_qctx(s, &why) < 0) {
        web_reply_error(rp, 502, "%s", why.buf);
        goto out;
    }
    int sts = pmTraversePMNS_r(prefix, walk_name, &w);
    if (lost(sts)) {
        s->broken = !s->archive;
        web_reply_error(rp, 502, "%s: %s", s->spec, ERR_STR(sts));
        goto out;
    }
    if (sts < 0 || w.n == 0) {
        web_reply_error(rp, 404, "no metric named or below '%s' on %s%s%s",
                        prefix, s->spec, sts < 0 ? ": " : "",
                        sts < 0 ? ERR_STR(sts) : "");
        goto out;
    }
    qsort(w.names, w.n, sizeof *w.names, cmp_str);
    strbuf list = STRBUF_INIT;
    size_t count = 0;
    bool truncated = w.truncated;
    for (size_t i = 0; i < w.n; i++) {
        pmID pmid;
        pmDesc d;
        if (pmLookupName(1, (const char **)&w.names[i], &pmid) < 0
            || pmLookupDesc(pmid, &d) < 0 || !numeric(d.type))
            continue;
        if (count == WEB_PMNS_MAX) {
            truncated = true;
            break;
        }
        sb_adds(&list, count++ ? ",\n{\"name\":" : "\n{\"name\":");
        json_str(&list, w.names[i]);
        sb_printf(&list, ",\"type\":\"%s\",\"semantics\":\"%s\",\"units\":",
                  TYPE_STR(d.type), semantics_name(d.sem));
        json_str(&list, UNITS_STR(&d.units));
        if (d.sem == PM_SEM_COUNTER) {
            strbuf ru = STRBUF_INIT;
            rate_units(&ru, &d.units);
            sb_adds(&list, ",\"rate_units\":");
            json_str(&list, ru.buf);
            sb_free(&ru);
        }
        sb_adds(&list, ",\"instances\":");
        bool itrunc;
        instances_json(&list, s, d.indom, &itrunc);
        if (itrunc)
            sb_adds(&list, ",\"instances_truncated\":true");
        sb_addc(&list, '}');
    }
    rp->content_type = "application/json";
    sb_adds(&rp->body, "{\"host\":");
    json_str(&rp->body, s->host ? s->host : s->spec);
    sb_adds(&rp->body, ",\"prefix\":");
    json_str(&rp->body, prefix);
    sb_printf(&rp->body, ",\"count\":%zu,\"truncated\":%s,\"metrics\":[%s\n]}\n",
              count, truncated ? "true" : "false", list.buf ? list.buf : "");
    sb_free(&list);
out:
    pthread_mutex_unlock(&s->lock);
    for (size_t i = 0; i < w.n; i++)
        free(w.names[i]);
    free(w.names);
    sb_free(&why);
}

/* ---- values: the answer's shape, live or archive -------------------------------- */

/* A series of points: n times, values per instance (row-major). */
typedef struct series {
    size_t   n, cap;
    int64_t *t_ns;
    int      ninst;
    int      inst[WEB_VALUES_MAX_INST];
    char    *iname[WEB_VALUES_MAX_INST];
    double  *v;          /* cap x WEB_VALUES_MAX_INST */
    bool     truncated;
} series;

static void series_free(series *s)
{
    free(s->t_ns);
    free(s->v);
    for (int i = 0; i < s->ninst; i++)
        free(s->iname[i]);
}

static double *series_row(series *s)
{
    if (s->n == s->cap) {
        s->cap = s->cap ? 2 * s->cap : 64;
        s->t_ns = xrealloc(s->t_ns, s->cap * sizeof *s->t_ns);
        s->v = xrealloc(s->v, s->cap * WEB_VALUES_MAX_INST * sizeof *s->v);
    }
    double *row = s->v + s->n * WEB_VALUES_MAX_INST;
    for (int i = 0; i < WEB_VALUES_MAX_INST; i++)
        row[i] = NAN;
    return row;
}

/* The column of instance id in an instance table, adding it (name from
 * the current context) while there is room; -1 when full. */
static int inst_col(int *ids, char **names, int *n, int id, pmInDom indom,
                    bool archive)
{
    for (int i = 0; i < *n; i++)
        if (ids[i] == id)
            return i;
    if (*n == WEB_VALUES_MAX_INST)
        return -1;
    char *name = NULL;
    if (indom != PM_INDOM_NULL) {
        int sts = archive ? pmNameInDomArchive(indom, id, &name)
                          : pmNameInDom(indom, id, &name);
        if (sts < 0)
            name = NULL;
    }
    if (name == NULL && indom != PM_INDOM_NULL) {
        char buf[32];
        snprintf(buf, sizeof buf, "%d", id);
        name = xstrdup(buf);
    }
    ids[*n] = id;
    names[*n] = name;
    return (*n)++;
}

/* The values of one value set into row (columns by instance). */
static void take_values(const pmValueSet *vs, const pmDesc *d, double *row,
                        int *ids, char **names, int *ninst, bool archive,
                        uint64_t *dropped)
{
    for (int j = 0; j < vs->numval; j++) {
        pmAtomValue a;
        if (pmExtractValue(vs->valfmt, &vs->vlist[j], d->type, &a,
                           PM_TYPE_DOUBLE) < 0)
            continue;
        int c = inst_col(ids, names, ninst, vs->vlist[j].inst, d->indom,
                         archive);
        if (c < 0) {
            if (dropped)
                (*dropped)++;
            continue;
        }
        row[c] = a.d;
    }
}

static void t_ms(strbuf *sb, int64_t ns)
{
    sb_printf(sb, "%lld.%03lld", (long long)(ns / 1000000),
              (long long)(ns % 1000000 / 1000));
}

/* The JSON answer: counters as rates between successive points (the
 * first point has none; a decrease, a counter reset, is null). */
static void values_json(strbuf *sb, const char *metric, const msource *src,
                        const pmDesc *d, const series *s, bool live,
                        double interval_s, const char *error,
                        uint64_t inst_dropped)
{
    bool rate = d->sem == PM_SEM_COUNTER;
    sb_adds(sb, "{\"metric\":");
    json_str(sb, metric);
    sb_adds(sb, ",\"host\":");
    json_str(sb, src->host ? src->host : src->spec);
    sb_printf(sb, ",\"live\":%s,\"type\":\"%s\",\"semantics\":\"%s\","
              "\"units\":", live ? "true" : "false", TYPE_STR(d->type),
              semantics_name(d->sem));
    strbuf u = STRBUF_INIT;
    if (rate)
        rate_units(&u, &d->units);
    else
        sb_adds(&u, UNITS_STR(&d->units));
    json_str(sb, u.buf);
    sb_free(&u);
    sb_printf(sb, ",\"rate\":%s", rate ? "true" : "false");
    if (live)
        sb_printf(sb, ",\"interval_ms\":%.10g", interval_s * 1000);
    if (error && *error) {
        sb_adds(sb, ",\"error\":");
        json_str(sb, error);
    }
    if (inst_dropped)
        sb_printf(sb, ",\"instances_dropped\":%llu",
                  (unsigned long long)inst_dropped);
    sb_printf(sb, ",\"truncated\":%s,\"t_ms\":[", s->truncated ? "true"
              : "false");
    size_t first = rate ? 1 : 0;
    for (size_t k = first; k < s->n; k++) {
        if (k > first)
            sb_addc(sb, ',');
        t_ms(sb, s->t_ns[k]);
    }
    sb_adds(sb, "],\"instances\":[");
    int ninst = s->ninst;
    for (int i = 0; i < ninst; i++) {
        sb_adds(sb, i ? ",{\"name\":" : "{\"name\":");
        if (s->iname[i])
            json_str(sb, s->iname[i]);
        else
            sb_adds(sb, "null");
        sb_adds(sb, ",\"values\":[");
        for (size_t k = first; k < s->n; k++) {
            if (k > first)
                sb_addc(sb, ',');
            double v = s->v[k * WEB_VALUES_MAX_INST + i];
            if (rate) {
                double p = s->v[(k - 1) * WEB_VALUES_MAX_INST + i];
                double dt = (double)(s->t_ns[k] - s->t_ns[k - 1]) / 1e9;
                v = dt > 0 && v >= p ? (v - p) / dt : NAN;
            }
            json_num(sb, v);
        }
        sb_adds(sb, "]}");
    }
    sb_adds(sb, "]}\n");
}

/* ---- time windows ---------------------------------------------------------------- */

/* "1733230000.25": epoch seconds. */
static bool epoch_seconds(const char *s, int64_t *ns)
{
    /* decimal text read exactly, not through a double (which rounds an
     * epoch time in ns by up to 128 ns either way): the t_ms of a point
     * (its time cut to the microsecond) as start= always includes it */
    int64_t sec = 0, frac = 0, scale = 1000000000;
    const char *p = s;
    if (!isdigit((unsigned char)*p))
        return false;
    for (; isdigit((unsigned char)*p); p++) {
        sec = sec * 10 + (*p - '0');
        if (sec > 9000000000LL)
            return false;
    }
    if (*p == '.')
        for (p++; isdigit((unsigned char)*p); p++)
            if (scale > 1) {
                scale /= 10;
                frac += (*p - '0') * scale;
            }
    if (*p != '\0')
        return false;
    *ns = sec * 1000000000LL + frac;
    return true;
}

/* start/end of rq: epoch seconds or PCP time syntax against [first,
 * last] (pcp_window_parse, the rule of fold -S/-T); absent: open.  false
 * after a 400. */
static bool window(const web_request *rq, int64_t first, int64_t last,
                   int64_t *lo, int64_t *hi, web_reply *rp)
{
    const char *st = web_param_get(rq, "start"), *en = web_param_get(rq, "end");
    if (st && !*st)
        st = NULL;
    if (en && !*en)
        en = NULL;
    *lo = INT64_MIN;
    *hi = INT64_MAX;
    int64_t v;
    if (st && epoch_seconds(st, &v)) {
        *lo = v;
        st = NULL;
    }
    if (en && epoch_seconds(en, &v)) {
        *hi = v;
        en = NULL;
    }
    if (st || en) {
        int64_t l, h;
        strbuf why = STRBUF_INIT;
        if (pcp_window_parse(st, en, first, last, &l, &h, &why) < 0) {
            for (size_t i = 0; i < why.len; i++)
                if (why.buf[i] == '\n')
                    why.buf[i] = ' ';
            web_reply_error(rp, 400, "bad %s: %s", st ? "start" : "end",
                            why.buf);
            sb_free(&why);
            return false;
        }
        sb_free(&why);
        if (st)
            *lo = l;
        if (en)
            *hi = h;
    }
    if (*lo != INT64_MIN && *hi != INT64_MAX && *lo > *hi) {
        web_reply_error(rp, 400, "start is after end");
        return false;
    }
    return true;
}

/* ---- live: the watched metrics and the fetch thread ---------------------------- */

static void watched_free(watched *w)
{
    if (w == NULL)
        return;
    free(w->name);
    for (int i = 0; i < w->ninst; i++)
        free(w->iname[i]);
    free(w->t_ns);
    free(w->v);
    free(w);
}

static size_t ring_cap(const web_metrics *m)
{
    double n = (double)m->window_min * 60 / m->interval_s + 2;
    return n > WEB_VALUES_MAX_POINTS ? WEB_VALUES_MAX_POINTS : (size_t)n;
}

/* The watched entry of (src, pmid), under m->lock. */
static watched *find_watched(web_metrics *m, int src, pmID pmid)
{
    for (int i = 0; i < m->nwatch; i++)
        if (m->watch[i]->src == src && m->watch[i]->pmid == pmid)
            return m->watch[i];
    return NULL;
}

/* The pmID and descriptor of a metric watched under that name. */
static bool watched_desc(web_metrics *m, int src, const char *name,
                         pmID *pmid, pmDesc *d)
{
    bool found = false;
    pthread_mutex_lock(&m->lock);
    for (int i = 0; i < m->nwatch && !found; i++)
        if (m->watch[i]->src == src && strcmp(m->watch[i]->name, name) == 0) {
            *pmid = m->watch[i]->pmid;
            *d = m->watch[i]->desc;
            found = true;
        }
    pthread_mutex_unlock(&m->lock);
    return found;
}

/* Drop the watched metrics nobody asked for in WEB_VALUES_IDLE_S (under
 * m->lock). */
static void drop_idle(web_metrics *m, int64_t now, int64_t idle_s)
{
    for (int i = 0; i < m->nwatch;) {
        if (now - m->watch[i]->asked_s >= idle_s) {
            watched_free(m->watch[i]);
            m->watch[i] = m->watch[--m->nwatch];
        } else {
            i++;
        }
    }
}

/* The fetch thread's context for s: opened, or reconnected, on demand. */
static int use_fctx(msource *s)
{
    if (s->fctx < 0) {
        int c = pmNewContext(PM_CONTEXT_HOST, s->spec);
        if (c < 0)
            return c;
        s->fctx = c;
    }
    int sts = pmUseContext(s->fctx);
    return sts < 0 ? sts : s->fctx;
}

/* One round: each live source's watched metrics in one pmFetch; the
 * values into the rings.  The pmFetch runs without m->lock (a slow pmcd
 * holds up nobody's request); the entries found again by pmID after. */
static void fetch_round(web_metrics *m)
{
    pthread_mutex_lock(&m->fetch_lock);
    for (int si = 0; si < m->nsrc; si++) {
        msource *s = &m->src[si];
        pmID ids[WEB_VALUES_MAX];
        int n = 0;
        pthread_mutex_lock(&m->lock);
        drop_idle(m, mono_s(), WEB_VALUES_IDLE_S);
        for (int i = 0; i < m->nwatch; i++)
            if (m->watch[i]->src == si)
                ids[n++] = m->watch[i]->pmid;
        pthread_mutex_unlock(&m->lock);
        if (n == 0)
            continue;
        int sts = use_fctx(s);
        pmHighResResult *res = NULL;
        if (sts >= 0) {
            sts = pmFetchHighRes(n, ids, &res);
            if (sts < 0)        /* pmcd gone: libpcp's back-off decides */
                pmReconnectContext(s->fctx);
        }
        pthread_mutex_lock(&m->lock);
        for (int i = 0; i < n; i++) {
            watched *w = find_watched(m, si, ids[i]);
            if (w == NULL)
                continue;
            if (sts < 0) {
                snprintf(w->error, sizeof w->error, "fetch: %s",
                         ERR_STR(sts));
                continue;
            }
            const pmValueSet *vs = res->vset[i];
            if (vs->numval < 0) {
                snprintf(w->error, sizeof w->error, "%s",
                         ERR_STR(vs->numval));
                continue;
            }
            w->error[0] = '\0';
            size_t at = w->head;
            w->head = (w->head + 1) % w->cap;
            if (w->n < w->cap)
                w->n++;
            w->t_ns[at] = (int64_t)res->timestamp.tv_sec * 1000000000
                          + res->timestamp.tv_nsec;
            double *row = w->v + at * WEB_VALUES_MAX_INST;
            for (int k = 0; k < WEB_VALUES_MAX_INST; k++)
                row[k] = NAN;
            /* pmNameInDom on the fetch context: no other thread uses it */
            take_values(vs, &w->desc, row, w->inst, w->iname, &w->ninst,
                        false, &w->inst_dropped);
        }
        pthread_mutex_unlock(&m->lock);
        if (res)
            pmFreeHighResResult(res);
    }
    pthread_mutex_unlock(&m->fetch_lock);
}

static void *fetch_thread(void *arg)
{
    web_metrics *m = arg;
    pthread_mutex_lock(&m->lock);
    while (!m->stop) {
        pthread_mutex_unlock(&m->lock);
        fetch_round(m);
        pthread_mutex_lock(&m->lock);
        struct timespec until;
        clock_gettime(CLOCK_REALTIME, &until);
        double s = m->interval_s;
        until.tv_sec += (time_t)s;
        until.tv_nsec += (long)((s - (double)(time_t)s) * 1e9);
        if (until.tv_nsec >= 1000000000) {
            until.tv_sec++;
            until.tv_nsec -= 1000000000;
        }
        while (!m->stop && pthread_cond_timedwait(&m->wake, &m->lock, &until)
                           != ETIMEDOUT)
            ;
    }
    pthread_mutex_unlock(&m->lock);
    return NULL;
}

/* Start watching (src, pmid) or refresh its last ask; copy what is held
 * inside [lo, hi] into out.  false after a 503 (the table is full of
 * metrics asked for recently). */
static bool watch_and_copy(web_metrics *m, int si, const char *name,
                           pmID pmid, const pmDesc *d, int64_t lo, int64_t hi,
                           series *out, char *error, size_t esize,
                           uint64_t *dropped, web_reply *rp)
{
    pthread_mutex_lock(&m->lock);
    watched *w = find_watched(m, si, pmid);
    if (w == NULL) {
        if (m->nwatch == WEB_VALUES_MAX)
            drop_idle(m, mono_s(), WEB_VALUES_STALE_S);   /* room from a stale one */
        if (m->nwatch == WEB_VALUES_MAX) {
            pthread_mutex_unlock(&m->lock);
            web_reply_error(rp, 503, "already watching %d metrics (the "
                            "limit): one not asked for in %d s makes room",
                            WEB_VALUES_MAX, WEB_VALUES_STALE_S);
            return false;
        }
        w = xcalloc(1, sizeof *w);
        w->src = si;
        w->name = xstrdup(name);
        w->pmid = pmid;
        w->desc = *d;
        w->cap = ring_cap(m);
        w->t_ns = xcalloc(w->cap, sizeof *w->t_ns);
        w->v = xcalloc(w->cap * WEB_VALUES_MAX_INST, sizeof *w->v);
        m->watch[m->nwatch++] = w;
        pthread_cond_signal(&m->wake);      /* a first value soon */
    }
    w->asked_s = mono_s();
    /* a counter's first rate in the window needs the point before it */
    bool rate = d->sem == PM_SEM_COUNTER;
    for (size_t k = 0; k < w->n; k++) {
        size_t at = (w->head + w->cap - w->n + k) % w->cap;
        size_t next = (at + 1) % w->cap;
        bool before = rate && lo != INT64_MIN && k + 1 < w->n
                      && w->t_ns[at] < lo
                      && pcp_window_holds(lo, hi, w->t_ns[next]);
        if (!before && !pcp_window_holds(lo, hi, w->t_ns[at]))
            continue;
        double *row = series_row(out);
        out->t_ns[out->n] = w->t_ns[at];
        memcpy(row, w->v + at * WEB_VALUES_MAX_INST,
               WEB_VALUES_MAX_INST * sizeof *row);
        out->n++;
    }
    out->ninst = w->ninst;
    for (int i = 0; i < w->ninst; i++) {
        out->inst[i] = w->inst[i];
        out->iname[i] = w->iname[i] ? xstrdup(w->iname[i]) : NULL;
    }
    snprintf(error, esize, "%s", w->error);
    *dropped = w->inst_dropped;
    pthread_mutex_unlock(&m->lock);
    return true;
}

/* The span of the values held for live windows in PCP time syntax:
 * from window_min ago to now. */
static void live_span(const web_metrics *m, int64_t *first, int64_t *last)
{
    *last = now_ns();
    *first = *last - (int64_t)m->window_min * 60 * 1000000000;
}

/* ---- archives ------------------------------------------------------------------- */

static int64_t tv_ns(const struct timeval *tv)
{
    return (int64_t)tv->tv_sec * 1000000000 + (int64_t)tv->tv_usec * 1000;
}

/* Read M from the archive over [lo, hi] into out (under s->lock, qctx
 * current). */
static void read_archive(const pmDesc *d, pmID pmid, int64_t lo, int64_t hi,
                         series *out, uint64_t *dropped)
{
    struct timespec from = { 0, 0 };
    if (lo != INT64_MIN) {
        from.tv_sec = (time_t)(lo / 1000000000);
        from.tv_nsec = (long)(lo % 1000000000);
    } else {
        pmLogLabel label;
        if (pmGetArchiveLabel(&label) >= 0) {
            from.tv_sec = label.ll_start.tv_sec;
            from.tv_nsec = label.ll_start.tv_usec * 1000;
        }
    }
    /* counters: the point before the window gives the first rate */
    if (d->sem == PM_SEM_COUNTER && lo != INT64_MIN) {
        struct timespec back = from;
        pmSetModeHighRes(PM_MODE_BACK, &back, NULL);
        pmHighResResult *r = NULL;
        int64_t prev = INT64_MIN;
        if (pmFetchHighRes(1, &pmid, &r) >= 0) {
            if (r->vset[0]->numval > 0)
                prev = (int64_t)r->timestamp.tv_sec * 1000000000
                       + r->timestamp.tv_nsec;
            pmFreeHighResResult(r);
        }
        if (prev != INT64_MIN) {
            from.tv_sec = (time_t)(prev / 1000000000);
            from.tv_nsec = (long)(prev % 1000000000);
            lo = prev;
        }
    }
    pmSetModeHighRes(PM_MODE_FORW, &from, NULL);
    for (;;) {
        pmHighResResult *r = NULL;
        int sts = pmFetchHighRes(1, &pmid, &r);
        if (sts < 0)
            break;              /* PM_ERR_EOL, or the archive's error */
        int64_t t = (int64_t)r->timestamp.tv_sec * 1000000000
                    + r->timestamp.tv_nsec;
        if (hi != INT64_MAX && t > hi) {
            pmFreeHighResResult(r);
            break;
        }
        const pmValueSet *vs = r->vset[0];
        if (vs->numval > 0 && (lo == INT64_MIN || t >= lo)) {
            if (out->n == WEB_ARCHIVE_MAX_POINTS) {
                out->truncated = true;
                pmFreeHighResResult(r);
                break;
            }
            double *row = series_row(out);
            out->t_ns[out->n] = t;
            take_values(vs, d, row, out->inst, out->iname, &out->ninst, true,
                        dropped);
            out->n++;
        }
        pmFreeHighResResult(r);
    }
}

/* The archive's span, for PCP time syntax windows. */
static void archive_span(int64_t *first, int64_t *last)
{
    pmLogLabel label;
    struct timeval end;
    *first = *last = now_ns();
    if (pmGetArchiveLabel(&label) >= 0)
        *first = tv_ns(&label.ll_start);
    if (pmGetArchiveEnd(&end) >= 0)
        *last = tv_ns(&end);
}

/* ---- /api/values ---------------------------------------------------------------- */

void api_values(void *arg, const web_request *rq, web_reply *rp)
{
    web_metrics *m = arg;
    const char *metric = web_param_get(rq, "metric");
    if (metric == NULL || *metric == '\0') {
        web_reply_error(rp, 400, "metric=NAME is missing (/api/pmns lists "
                        "them)");
        return;
    }
    if (!name_ok(metric, false)) {
        web_reply_error(rp, 400, "bad metric name '%.100s'", metric);
        return;
    }
    msource *s = find_source(m, rq, rp);
    if (s == NULL)
        return;
    int si = (int)(s - m->src);
    pmID pmid;
    pmDesc d;
    series out = { 0 };
    char error[128] = "";
    uint64_t dropped = 0;
    int64_t first, last, lo, hi;
    strbuf why = STRBUF_INIT;
    if (!s->archive && watched_desc(m, si, metric, &pmid, &d)) {
        /* watched already: the ring answers, pmcd need not (it may be
         * down: the points held and the fetch error are the answer) */
        live_span(m, &first, &last);
        if (!window(rq, first, last, &lo, &hi, rp)
            || !watch_and_copy(m, si, metric, pmid, &d, lo, hi, &out, error,
                               sizeof error, &dropped, rp))
            goto out;
        goto answer;
    }
    pthread_mutex_lock(&s->lock);
    if (use_qctx(s, &why) < 0) {
        pthread_mutex_unlock(&s->lock);
        web_reply_error(rp, 502, "%s", why.buf);
        sb_free(&why);
        return;
    }
    sb_free(&why);
    int st = lookup(metric, s->spec, &pmid, &d, rp);
    if (st == 502 && !s->archive && pmReconnectContext(s->qctx) >= 0) {
        /* pmcd came back since the last request: once more */
        sb_reset(&rp->body);
        rp->status = 200;
        st = lookup(metric, s->spec, &pmid, &d, rp);
    }
    if (st != 0) {
        s->broken = rp->status == 502 && !s->archive;
        pthread_mutex_unlock(&s->lock);
        return;
    }
    if (s->archive) {
        archive_span(&first, &last);
        if (window(rq, first, last, &lo, &hi, rp))
            read_archive(&d, pmid, lo, hi, &out, &dropped);
        pthread_mutex_unlock(&s->lock);
        if (rp->status != 200)
            goto out;
    } else {
        pthread_mutex_unlock(&s->lock);
        live_span(m, &first, &last);
        if (!window(rq, first, last, &lo, &hi, rp)
            || !watch_and_copy(m, si, metric, pmid, &d, lo, hi, &out, error,
                               sizeof error, &dropped, rp))
            goto out;
    }
answer:
    rp->content_type = "application/json";
    values_json(&rp->body, metric, s, &d, &out, !s->archive, m->interval_s,
                error, dropped);
out:
    series_free(&out);
}

/* ---- POST /api/run ---------------------------------------------------------------- */

/* The value of name in an application/x-www-form-urlencoded body,
 * decoded into out; false when absent. */
static bool form_value(const char *body, size_t len, const char *name,
                       strbuf *out)
{
    size_t nl = strlen(name);
    size_t i = 0;
    while (i < len) {
        size_t j = i;
        while (j < len && body[j] != '&')
            j++;
        if (j - i > nl && memcmp(body + i, name, nl) == 0
            && body[i + nl] == '=') {
            sb_reset(out);
            for (size_t k = i + nl + 1; k < j; k++) {
                char c = body[k];
                if (c == '+')
                    c = ' ';
                else if (c == '%' && k + 2 < j
                         && isxdigit((unsigned char)body[k + 1])
                         && isxdigit((unsigned char)body[k + 2])) {
                    char hex[3] = { body[k + 1], body[k + 2], 0 };
                    c = (char)strtol(hex, NULL, 16);
                    k += 2;
                }
                sb_addc(out, c);
            }
            if (out->buf == NULL)
                sb_adds(out, "");
            return true;
        }
        i = j + 1;
    }
    return false;
}

/* A parameter of the body, else of the query string. */
static bool run_param(const web_request *rq, const char *name, strbuf *out)
{
    if (rq->body && rq->body_len
        && form_value(rq->body, rq->body_len, name, out))
        return true;
    const char *v = web_param_get(rq, name);
    if (v == NULL)
        return false;
    sb_reset(out);
    sb_adds(out, v);
    return true;
}

/* Build "SCRIPT duration=D [hz=N] [pid=N]" from rq: false after a 400. */
static bool run_request(const web_request *rq, strbuf *req, web_reply *rp)
{
    strbuf v = STRBUF_INIT;
    bool ok = false;
    if (!run_param(rq, "script", &v) || v.len == 0) {
        web_reply_error(rp, 400, "script=NAME is missing (staprelay list "
                        "names the scripts)");
        goto out;
    }
    if (!run_name_ok(v.buf)) {
        web_reply_error(rp, 400, "bad script '%.60s': a letter, then "
                        "letters, digits or '_', at most 48", v.buf);
        goto out;
    }
    sb_adds(req, v.buf);
    if (!run_param(rq, "seconds", &v) || v.len == 0) {
        web_reply_error(rp, 400, "seconds=N is missing (how long the run "
                        "lasts)");
        goto out;
    }
    if (v.len > 32 || strpbrk(v.buf, " \t\n=") || duration_parse(v.buf) <= 0) {
        web_reply_error(rp, 400, "bad seconds '%.40s' (seconds, or with a "
                        "unit: 500ms, 10s, 2m, 1h; at most 366 days)", v.buf);
        goto out;
    }
    sb_printf(req, " duration=%s", v.buf);
    static const char *const numeric_opts[] = { "hz", "pid" };
    for (size_t i = 0; i < 2; i++) {
        if (!run_param(rq, numeric_opts[i], &v) || v.len == 0)
            continue;
        const script_opt *so = script_opt_find(numeric_opts[i]);
        long n;
        if (so == NULL || !script_opt_value(so, v.buf, &n)) {
            web_reply_error(rp, 400, "bad %s '%.40s' (%s)", numeric_opts[i],
                            v.buf, so ? so->what : "unknown option");
            goto out;
        }
        sb_printf(req, " %s=%ld", numeric_opts[i], n);
    }
    ok = true;
out:
    sb_free(&v);
    return ok;
}

/* The PMDA's count of run requests (every client's), or -1. */
static long run_requests(void)
{
    const char *names[1] = { "staprelay.control.run_requests" };
    pmID pmid;
    pmDesc d;
    pmResult *r = NULL;
    long n = -1;
    if (pmLookupName(1, names, &pmid) < 0 || pmLookupDesc(pmid, &d) < 0
        || !numeric(d.type) || pmFetch(1, &pmid, &r) < 0)
        return -1;
    pmAtomValue v;
    if (r->vset[0]->numval > 0
        && pmExtractValue(r->vset[0]->valfmt, &r->vset[0]->vlist[0],
                          d.type, &v, PM_TYPE_64) >= 0)
        n = (long)v.ll;
    pmFreeResult(r);
    return n;
}

/* Store req into control.run in the current context, then fetch
 * control.run there: the store's status, the answer into ans.  A store
 * pmcd's [access] rules refuse never reaches the PMDA: then (the PMDA's
 * request count did not move) *pmcd_refused, and ans stays empty (what
 * control.run reads is not an answer to this store). */
static int store_run(const char *req, strbuf *ans, strbuf *why,
                     bool *pmcd_refused)
{
    const char *names[1] = { RUN_METRIC };
    pmID pmid;
    pmDesc d;
    *pmcd_refused = false;
    int sts = pmLookupName(1, names, &pmid);
    if (sts < 0 || pmid == PM_ID_NULL || pmLookupDesc(pmid, &d) < 0) {
        sb_printf(why, "no %s there (is pmdastaprelay installed, with runs "
                  "enabled?): %s", RUN_METRIC, ERR_STR(sts < 0 ? sts
                                                        : PM_ERR_NAME));
        return lost(sts) ? sts : 1;
    }
    long before = run_requests();
    pmResult *res = xcalloc(1, sizeof *res);
    pmValueSet *vs = xcalloc(1, sizeof *vs);
    res->numpmid = 1;
    res->vset[0] = vs;
    vs->pmid = pmid;
    vs->numval = 1;
    vs->vlist[0].inst = PM_IN_NULL;
    /* a string value: a value block of PM_VAL_HDR_SIZE + text + NUL */
    size_t len = strlen(req) + 1;
    pmValueBlock *vb = xcalloc(1, PM_VAL_HDR_SIZE + len);
    vb->vtype = PM_TYPE_STRING;
    vb->vlen = (unsigned)(PM_VAL_HDR_SIZE + len);
    memcpy(vb->vbuf, req, len);
    vs->vlist[0].value.pval = vb;
    vs->valfmt = PM_VAL_DPTR;
    int store = pmStore(res);
    free(vb);
    free(vs);
    free(res);
    sb_printf(why, "%s", store < 0 ? ERR_STR(store) : "stored");
    if (store == PM_ERR_PERMISSION && before >= 0 && run_requests() == before) {
        *pmcd_refused = true;
        return store;
    }
    pmResult *r = NULL;
    if (pmFetch(1, &pmid, &r) >= 0) {
        pmAtomValue v;
        if (r->vset[0]->numval > 0
            && pmExtractValue(r->vset[0]->valfmt, &r->vset[0]->vlist[0],
                              PM_TYPE_STRING, &v, PM_TYPE_STRING) >= 0) {
            sb_adds(ans, v.cp);
            free(v.cp);
        }
        pmFreeResult(r);
    }
    return store;
}

void api_run(void *arg, const web_request *rq, web_reply *rp)
{
    web_metrics *m = arg;
    if (!m->allow_runs) {
        web_reply_error(rp, 403, "runs are not allowed here: start "
                        "staprelay web with --allow-runs (pmcd's [access] "
                        "rules then decide who may store)");
        return;
    }
    if (strcmp(rq->method, "POST") != 0) {
        web_reply_error(rp, 405, "POST a run request (script=NAME&"
                        "seconds=N)");
        return;
    }
    if (!m->live) {
        web_reply_error(rp, 400, "runs need a live host (-h): %s",
                        m->nsrc ? "archives cannot start one"
                                : "files cannot start one");
        return;
    }
    msource *s = find_source(m, rq, rp);
    if (s == NULL)
        return;
    strbuf req = STRBUF_INIT, ans = STRBUF_INIT, why = STRBUF_INIT;
    if (!run_request(rq, &req, rp))
        goto out;
    pthread_mutex_lock(&s->lock);
    int sts;
    bool pmcd_refused = false;
    if (use_qctx(s, &why) < 0)
        sts = 1;
    else
        sts = store_run(req.buf, &ans, &why, &pmcd_refused);
    if (lost(sts))
        s->broken = true;
    pthread_mutex_unlock(&s->lock);
    if (sts == 1 || (sts < 0 && lost(sts))) {
        web_reply_error(rp, 502, "%s", why.buf);
        goto out;
    }
    /* the PMDA's answer to this context: "accepted: NAME" or "refused:
     * REASON"; a store pmcd refused never reached the PMDA */
    const char *acc = "accepted: ", *ref = "refused: ";
    bool accepted = sts >= 0 && strncmp(ans.buf ? ans.buf : "", acc,
                                        strlen(acc)) == 0;
    rp->status = accepted ? 200 : sts == PM_ERR_PERMISSION ? 403
                 : sts == -EBUSY ? 503 : lost(sts) ? 502 : sts < 0 ? 400
                 : 502;
    rp->content_type = "application/json";
    sb_adds(&rp->body, "{\"host\":");
    json_str(&rp->body, s->host ? s->host : s->spec);
    sb_adds(&rp->body, ",\"request\":");
    json_str(&rp->body, req.buf);
    sb_printf(&rp->body, ",\"accepted\":%s,\"status\":",
              accepted ? "true" : "false");
    json_str(&rp->body, why.buf);
    sb_adds(&rp->body, ",\"answer\":");
    json_str(&rp->body, ans.buf ? ans.buf : "");
    sb_adds(&rp->body, ",\"run\":");
    if (accepted && m->on_accepted)     /* followed (web/runs) */
        m->on_accepted(m->on_accepted_arg, s->spec, ans.buf + strlen(acc));
    if (accepted)
        json_str(&rp->body, ans.buf + strlen(acc));
    else
        sb_adds(&rp->body, "null");
    sb_adds(&rp->body, ",\"reason\":");
    if (accepted)
        sb_adds(&rp->body, "null");
    else if (ans.buf && strncmp(ans.buf, ref, strlen(ref)) == 0)
        json_str(&rp->body, ans.buf + strlen(ref));
    else {
        strbuf r = STRBUF_INIT;
        sb_printf(&r, "%s%s", why.buf, pmcd_refused
                  ? " (pmcd's [access] rules refused the store: the PMDA "
                    "never saw it)"
                  : sts >= 0 ? " (the PMDA gave no answer)" : "");
        json_str(&rp->body, r.buf);
        sb_free(&r);
    }
    sb_adds(&rp->body, "}\n");
out:
    sb_free(&req);
    sb_free(&ans);
    sb_free(&why);
}

/* ---- life ---------------------------------------------------------------------- */

static void add_source(web_metrics *m, const char *spec, bool archive)
{
    msource *s = &m->src[m->nsrc++];
    s->spec = xstrdup(spec);
    s->archive = archive;
    s->qctx = s->fctx = -1;
    pthread_mutex_init(&s->lock, NULL);
    if (archive) {      /* the host an archive is of, for host= */
        int c = pmNewContext(PM_CONTEXT_ARCHIVE, spec);
        if (c >= 0) {
            char buf[MAXHOSTNAMELEN];
            s->host = xstrdup(pmGetContextHostName_r(c, buf, sizeof buf));
            s->qctx = c;
        }
    } else {
        /* host= may name it without the :PORT */
        s->host = xstrdup(spec);
        char *colon = strrchr(s->host, ':');
        if (colon && !strchr(s->host, ']'))
            *colon = '\0';
    }
}

web_metrics *web_metrics_new(const pcp_options *po, double interval_s,
                             long window_min, bool allow_runs, strbuf *err)
{
    farm_list farm = { 0 };
    if (po->nhosts == 0 && po->narchives > 0
        && farm_expand(po->archives, po->narchives, &farm, err) != 0)
        return NULL;
    int n = po->nhosts ? po->nhosts : (int)farm.n;     /* 0: files only */
    web_metrics *m = xcalloc(1, sizeof *m);
    m->src = xcalloc(n > 0 ? (size_t)n : 1, sizeof *m->src);
    m->live = po->nhosts > 0;
    m->allow_runs = allow_runs;
    m->interval_s = interval_s > 0 ? interval_s : 1;
    m->window_min = window_min > 0 ? window_min : 10;
    pthread_mutex_init(&m->lock, NULL);
    pthread_mutex_init(&m->fetch_lock, NULL);
    pthread_cond_init(&m->wake, NULL);
    for (int i = 0; i < n; i++)
        add_source(m, m->live ? po->hosts[i] : farm.specs[i], !m->live);
    farm_free(&farm);
    if (m->live) {
        /* a pmcd that restarts is found again within a second or two, as
         * the collector's are (libpcp's back-off, read once; set before
         * any thread runs) */
        setenv("PMCD_RECONNECT_TIMEOUT", "1", 0);
        if (pthread_create(&m->thread, NULL, fetch_thread, m) != 0) {
            sb_adds(err, "cannot start the metrics' fetch thread");
            web_metrics_free(m);
            return NULL;
        }
        m->thread_started = true;
    }
    return m;
}

void web_metrics_routes(web_metrics *m, httpd *h)
{
    httpd_route(h, "/api/pmns", false, api_pmns, m);
    httpd_route(h, "/api/values", false, api_values, m);
    httpd_route(h, "/api/run", true, api_run, m);
}

void web_metrics_on_run(web_metrics *m,
                        void (*fn)(void *arg, const char *spec,
                                   const char *name), void *arg)
{
    m->on_accepted = fn;
    m->on_accepted_arg = arg;
}

void web_metrics_free(web_metrics *m)
{
    if (m == NULL)
        return;
    if (m->thread_started) {
        pthread_mutex_lock(&m->lock);
        m->stop = true;
        pthread_cond_signal(&m->wake);
        pthread_mutex_unlock(&m->lock);
        pthread_join(m->thread, NULL);
    }
    for (int i = 0; i < m->nwatch; i++)
        watched_free(m->watch[i]);
    for (int i = 0; i < m->nsrc; i++) {
        msource *s = &m->src[i];
        if (s->qctx >= 0)
            pmDestroyContext(s->qctx);
        if (s->fctx >= 0)
            pmDestroyContext(s->fctx);
        pthread_mutex_destroy(&s->lock);
        free(s->spec);
        free(s->host);
    }
    free(m->src);
    pthread_cond_destroy(&m->wake);
    pthread_mutex_destroy(&m->lock);
    pthread_mutex_destroy(&m->fetch_lock);
    free(m);
}
