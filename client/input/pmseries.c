/* pmseries: counters from pmseries through pmproxy (see pmseries.h). */
#include "client/input/pmseries.h"

#include <curl/curl.h>
#include <inttypes.h>
#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>

#include "common/xalloc.h"
#include "relay/strmap.h"

#define CHUNK_S 600          /* seconds of values per request, bounded windows */

typedef struct http {
    CURL           *curl;
    const char     *base;
    strbuf          body;
    pmseries_stats *st;
} http;

static size_t on_body(char *p, size_t size, size_t n, void *arg)
{
    sb_add(arg, p, size * n);
    return size * n;
}

/* GET base/series/WHAT?PARAMS (PARAMS already escaped) as JSON. */
static json_t *get(http *h, const char *what, const char *params, strbuf *err)
{
    strbuf url = STRBUF_INIT;
    sb_printf(&url, "%s/series/%s?%s", h->base, what, params);
    sb_reset(&h->body);
    curl_easy_setopt(h->curl, CURLOPT_URL, url.buf);
    CURLcode rc = curl_easy_perform(h->curl);
    h->st->requests++;
    h->st->bytes += h->body.len;
    long code = 0;
    curl_easy_getinfo(h->curl, CURLINFO_RESPONSE_CODE, &code);
    json_t *doc = NULL;
    if (rc != CURLE_OK) {
        sb_printf(err, "pmproxy at %s: %s", h->base, curl_easy_strerror(rc));
    } else {
        json_error_t je;
        doc = json_loadb(h->body.buf ? h->body.buf : "", h->body.len, 0, &je);
        json_t *msg = json_is_object(doc) ? json_object_get(doc, "message") : NULL;
        if (code != 200 || doc == NULL || msg != NULL) {
            sb_printf(err, "pmproxy at %s: /series/%s: HTTP %ld: %.*s", h->base,
                      what, code, msg ? 300 : 120,
                      msg ? json_string_value(msg) : h->body.buf ? h->body.buf : "");
            json_decref(doc);
            doc = NULL;
        }
    }
    sb_free(&url);
    return doc;
}

/* ---- the query ---------------------------------------------------------- */

void pmseries_counter_query(const char *query, pcp_counter_kind kind,
                            const char *suffix, strbuf *out)
{
    size_t n = strcspn(query, "{[ \t");
    char name[1024], metric[1100];
    snprintf(name, sizeof name, "%.*s", (int)(n < 1000 ? n : 1000), query);
    if (strstr(name, ".subsecond") && !strstr(name, ".subsecond_end"))
        kind = PCP_COUNTER_SUBSECOND;
    pcp_counter_name(name, kind, metric, sizeof metric);
    sb_reset(out);
    sb_printf(out, "%s%s%s", metric, suffix, query + n);
}

/* One source: a metric series and what belongs to it. */
typedef struct series {
    char        *id;
    char        *source;
    char        *host;
    char        *end_id;    /* .subsecond_end of the same source */
    pcp_counter *counter;
    int64_t      last_ns;   /* the last set read (chunks may overlap) */
} series;

typedef struct reader {
    http          *h;
    pmseries_fn    fn;
    void          *arg;
    series        *s;
    size_t         n;
    strmap        *inst;        /* instance series -> index in names */
    char         **names;
    size_t         nnames;
    strmap        *by_id;       /* metric series -> index in s */
    strmap        *end_of;      /* end series -> index in s */
    size_t         cur;         /* the series being fed */
} reader;

static void on_counted(void *arg, const char *folded, size_t len, double w,
                       int64_t when_ns)
{
    reader *rd = arg;
    rd->fn(rd->arg, rd->s[rd->cur].host, folded, len, w, when_ns);
}

static char *escape(http *h, const char *s)
{
    char *e = curl_easy_escape(h->curl, s, 0);
    char *copy = xstrdup(e ? e : "");
    curl_free(e);
    return copy;
}

/* The series ids an expression matches. */
static json_t *query_ids(http *h, const char *expr, strbuf *err)
{
    char *e = escape(h, expr);
    strbuf p = STRBUF_INIT;
    sb_printf(&p, "expr=%s", e);
    json_t *ids = get(h, "query", p.buf, err);
    free(e);
    sb_free(&p);
    if (ids != NULL && !json_is_array(ids)) {
        sb_printf(err, "pmproxy: /series/query: not a list of series");
        json_decref(ids);
        return NULL;
    }
    return ids;
}

static void join_ids(strbuf *p, const char *key, char *const *ids, size_t n)
{
    sb_printf(p, "%s=", key);
    for (size_t i = 0; i < n; i++)
        sb_printf(p, "%s%s", i ? "," : "", ids[i]);
}

static const char *obj_str(json_t *o, const char *key)
{
    return json_string_value(json_object_get(o, key));
}

/* Instance names of every series, and one instance series each. */
static int load_instances(reader *rd, char **first_inst, strbuf *err)
{
    strbuf p = STRBUF_INIT;
    char **ids = xcalloc(rd->n, sizeof *ids);
    for (size_t i = 0; i < rd->n; i++)
        ids[i] = rd->s[i].id;
    join_ids(&p, "series", ids, rd->n);
    free(ids);
    json_t *doc = get(rd->h, "instances", p.buf, err);
    sb_free(&p);
    if (doc == NULL)
        return 1;
    size_t k;
    json_t *o;
    json_array_foreach(doc, k, o) {
        const char *sid = obj_str(o, "series"), *inst = obj_str(o, "instance");
        const char *name = obj_str(o, "name"), *src = obj_str(o, "source");
        int64_t si;
        if (sid == NULL || inst == NULL || name == NULL
            || !strmap_get(rd->by_id, sid, &si))
            continue;
        if (!strmap_get(rd->inst, inst, NULL)) {
            rd->names = xrealloc(rd->names, (rd->nnames + 1) * sizeof *rd->names);
            rd->names[rd->nnames] = xstrdup(name);
            strmap_put(rd->inst, inst, (int64_t)rd->nnames++);
        }
        if (first_inst[si] == NULL)
            first_inst[si] = xstrdup(inst);
        if (rd->s[si].source == NULL && src != NULL)
            rd->s[si].source = xstrdup(src);
    }
    json_decref(doc);
    return 0;
}

/* hostname of each series, from the labels of one of its instances */
static int load_hosts(reader *rd, char **first_inst, strbuf *err)
{
    strbuf p = STRBUF_INIT;
    size_t m = 0;
    char **ids = xcalloc(rd->n, sizeof *ids);
    for (size_t i = 0; i < rd->n; i++)
        if (first_inst[i] != NULL)
            ids[m++] = first_inst[i];
    int rc = 0;
    if (m > 0) {
        join_ids(&p, "series", ids, m);
        json_t *doc = get(rd->h, "labels", p.buf, err);
        size_t k;
        json_t *o;
        json_array_foreach(doc, k, o) {
            const char *inst = obj_str(o, "series");
            const char *host = obj_str(json_object_get(o, "labels"), "hostname");
            for (size_t i = 0; inst && host && i < rd->n; i++)
                if (first_inst[i] && strcmp(first_inst[i], inst) == 0
                    && rd->s[i].host == NULL)
                    rd->s[i].host = xstrdup(host);
        }
        rc = doc == NULL;
        json_decref(doc);
    }
    for (size_t i = 0; i < rd->n; i++)
        if (rd->s[i].host == NULL)   /* labels lost: the source id names it */
            rd->s[i].host = xstrdup(rd->s[i].source ? rd->s[i].source : rd->s[i].id);
    free(ids);
    sb_free(&p);
    return rc;
}

/* .subsecond_end of each series' source */
static int load_ends(reader *rd, const char *end_expr, strbuf *err)
{
    json_t *ids = query_ids(rd->h, end_expr, err);
    if (ids == NULL)
        return 1;
    size_t k;
    json_t *v;
    strbuf p = STRBUF_INIT;
    sb_adds(&p, "series=");
    json_array_foreach(ids, k, v)
        sb_printf(&p, "%s%s", k ? "," : "", json_string_value(v));
    json_t *descs = json_array_size(ids) ? get(rd->h, "descs", p.buf, err) : json_array();
    sb_free(&p);
    json_decref(ids);
    if (descs == NULL)
        return 1;
    json_t *o;
    json_array_foreach(descs, k, o) {
        const char *sid = obj_str(o, "series"), *src = obj_str(o, "source");
        for (size_t i = 0; sid && src && i < rd->n; i++)
            if (rd->s[i].source && strcmp(rd->s[i].source, src) == 0
                && rd->s[i].end_id == NULL) {
                rd->s[i].end_id = xstrdup(sid);
                strmap_put(rd->end_of, sid, (int64_t)i);
            }
    }
    json_decref(descs);
    return 0;
}

/* ---- values ------------------------------------------------------------- */

typedef struct value {
    size_t   series;
    int64_t  ns;
    long     name;      /* index in rd->names; -1: a .subsecond_end value */
    uint64_t v;
} value;

static int by_series_time(const void *a, const void *b)
{
    const value *x = a, *y = b;
    if (x->series != y->series)
        return x->series < y->series ? -1 : 1;
    if (x->ns != y->ns)
        return x->ns < y->ns ? -1 : 1;
    return (x->name > y->name) - (x->name < y->name);
}

static void feed(reader *rd, value *vals, size_t n)
{
    qsort(vals, n, sizeof *vals, by_series_time);
    for (size_t i = 0; i < n;) {
        size_t j = i;
        series *s = &rd->s[vals[i].series];
        while (j < n && vals[j].series == vals[i].series && vals[j].ns == vals[i].ns)
            j++;
        if (vals[i].ns > s->last_ns) {
            rd->cur = vals[i].series;
            pcp_counter_begin(s->counter, vals[i].ns);
            for (size_t k = i; k < j; k++) {
                if (vals[k].name < 0)
                    pcp_counter_end_second(s->counter, (int64_t)vals[k].v);
                else
                    pcp_counter_value(s->counter, rd->names[vals[k].name], vals[k].v);
            }
            pcp_counter_end(s->counter);
            s->last_ns = vals[i].ns;
        }
        i = j;
    }
}

static int read_chunk(reader *rd, int64_t start_s, int64_t finish_s,
                      strbuf *err)
{
    strbuf p = STRBUF_INIT;
    sb_adds(&p, "series=");
    for (size_t i = 0; i < rd->n; i++) {
        sb_printf(&p, "%s%s", i ? "," : "", rd->s[i].id);
        if (rd->s[i].end_id)
            sb_printf(&p, ",%s", rd->s[i].end_id);
    }
    sb_printf(&p, "&start=%" PRId64 "&finish=%" PRId64, start_s, finish_s);
    json_t *doc = get(rd->h, "values", p.buf, err);
    sb_free(&p);
    if (doc == NULL)
        return 1;
    size_t n = json_array_size(doc), m = 0, k;
    value *vals = xcalloc(n ? n : 1, sizeof *vals);
    json_t *o;
    json_array_foreach(doc, k, o) {
        const char *sid = obj_str(o, "series"), *inst = obj_str(o, "instance");
        const char *text = obj_str(o, "value");
        json_t *ts = json_object_get(o, "timestamp");
        int64_t si, ni = -1;
        bool end = false;
        if (sid == NULL || text == NULL || !json_is_number(ts))
            continue;
        if (!strmap_get(rd->by_id, sid, &si)) {
            if (!strmap_get(rd->end_of, sid, &si))
                continue;
            end = true;
        } else if (inst == NULL || !strmap_get(rd->inst, inst, &ni)) {
            continue;
        }
        char *e;
        uint64_t v = strtoull(text, &e, 10);
        if (e == text || *e != '\0')
            continue;
        /* milliseconds with microsecond decimals: to the microsecond, as
         * an archive's timeval has it */
        int64_t us = llround(json_number_value(ts) * 1000.0);
        vals[m++] = (value){ (size_t)si, us * 1000, end ? -1 : (long)ni, v };
    }
    json_decref(doc);
    feed(rd, vals, m);
    free(vals);
    return 0;
}

static int read_values(reader *rd, int64_t lo_ns, int64_t hi_ns, strbuf *err)
{
    struct timeval now;
    gettimeofday(&now, NULL);
    int64_t finish = hi_ns == INT64_MAX ? (int64_t)now.tv_sec + 60
                                        : hi_ns / 1000000000 + 1;
    if (lo_ns == INT64_MIN)     /* unbounded: everything, in one request */
        return read_chunk(rd, 1, finish, err);
    int rc = 0;
    for (int64_t start = lo_ns / 1000000000; rc == 0 && start <= finish;
         start += CHUNK_S)
        rc = read_chunk(rd, start, start + CHUNK_S < finish ? start + CHUNK_S
                                                              : finish, err);
    return rc;
}

/* ---- entry point -------------------------------------------------------- */

static void free_reader(reader *rd)
{
    for (size_t i = 0; i < rd->n; i++) {
        free(rd->s[i].id);
        free(rd->s[i].source);
        free(rd->s[i].host);
        free(rd->s[i].end_id);
        pcp_counter_free(rd->s[i].counter);
    }
    free(rd->s);
    for (size_t i = 0; i < rd->nnames; i++)
        free(rd->names[i]);
    free(rd->names);
    strmap_free(rd->inst);
    strmap_free(rd->by_id);
    strmap_free(rd->end_of);
}

static void sum_stats(const reader *rd, pmseries_stats *st)
{
    st->series = rd->n;
    for (size_t i = 0; i < rd->n; i++) {
        const pcp_counter_stats *cs = pcp_counter_stats_of(rd->s[i].counter);
        st->sets += cs->sets;
        st->samples += cs->samples;
        st->outside += cs->outside;
        st->merged += cs->merged;
        st->no_end += cs->no_end;
    }
}

int pmseries_read(const pmseries_query *q, pmseries_fn fn, void *arg,
                  pmseries_stats *st, strbuf *err)
{
    curl_global_init(CURL_GLOBAL_DEFAULT);
    http h = { curl_easy_init(), q->url, STRBUF_INIT, st };
    if (h.curl == NULL) {
        sb_adds(err, "cannot start libcurl");
        return 1;
    }
    curl_easy_setopt(h.curl, CURLOPT_WRITEFUNCTION, on_body);
    curl_easy_setopt(h.curl, CURLOPT_WRITEDATA, &h.body);
    curl_easy_setopt(h.curl, CURLOPT_CONNECTTIMEOUT, 10L);
    curl_easy_setopt(h.curl, CURLOPT_TIMEOUT, 600L);
    curl_easy_setopt(h.curl, CURLOPT_NOSIGNAL, 1L);
    reader rd = { .h = &h, .fn = fn, .arg = arg, .inst = strmap_new(),
                  .by_id = strmap_new(), .end_of = strmap_new() };
    strbuf expr = STRBUF_INIT, end_expr = STRBUF_INIT;
    pmseries_counter_query(q->query, q->kind, "", &expr);
    bool subsecond = strstr(expr.buf, ".subsecond") != NULL;
    json_t *ids = query_ids(&h, expr.buf, err);
    int rc = ids == NULL;
    if (rc == 0 && json_array_size(ids) == 0) {
        sb_printf(err, "pmproxy at %s: no series match %s (is the farm "
                  "loaded into pmseries, and the metric logged?)", q->url,
                  expr.buf);
        rc = 1;
    }
    size_t k;
    json_t *v;
    json_array_foreach(ids, k, v) {
        if (!json_is_string(v))
            continue;
        rd.s = xrealloc(rd.s, (rd.n + 1) * sizeof *rd.s);
        rd.s[rd.n] = (series){ .id = xstrdup(json_string_value(v)),
                               .last_ns = INT64_MIN };
        rd.s[rd.n].counter = pcp_counter_new(subsecond ? PCP_COUNTER_SUBSECOND
                                                       : PCP_COUNTER_STACKS,
                                             subsecond, q->lo_ns, q->hi_ns,
                                             on_counted, &rd);
        strmap_put(rd.by_id, rd.s[rd.n].id, (int64_t)rd.n);
        rd.n++;
    }
    json_decref(ids);
    char **first_inst = xcalloc(rd.n ? rd.n : 1, sizeof *first_inst);
    if (rc == 0)
        rc = load_instances(&rd, first_inst, err);
    if (rc == 0)
        rc = load_hosts(&rd, first_inst, err);
    if (rc == 0 && subsecond) {
        pmseries_counter_query(q->query, PCP_COUNTER_SUBSECOND, "_end", &end_expr);
        rc = load_ends(&rd, end_expr.buf, err);
    }
    if (rc == 0)
        rc = read_values(&rd, q->lo_ns, q->hi_ns, err);
    for (size_t i = 0; i < rd.n; i++)
        free(first_inst[i]);
    free(first_inst);
    sum_stats(&rd, st);
    free_reader(&rd);
    sb_free(&expr);
    sb_free(&end_expr);
    sb_free(&h.body);
    curl_easy_cleanup(h.curl);
    curl_global_cleanup();
    return rc;
}
