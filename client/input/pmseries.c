/* pmseries: counters from pmseries through pmproxy (see pmseries.h). */
#include "client/input/pmseries.h"

#include <curl/curl.h>
#include <inttypes.h>
#include <jansson.h>
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>

#include "client/input/series_values.h"
#include "common/xalloc.h"
#include "common/strmap.h"

#define CHUNK_S 600          /* seconds of values per request, bounded windows */

typedef pmseries_value value;

/* sets in order: by series, time and instance */
static int by_series_time(const void *a, const void *b)
{
    const value *x = a, *y = b;
    if (x->series != y->series)
        return x->series < y->series ? -1 : 1;
    if (x->ns != y->ns)
        return x->ns < y->ns ? -1 : 1;
    return (x->inst > y->inst) - (x->inst < y->inst);
}

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

/* GET base/series/WHAT?PARAMS (PARAMS already escaped) into h->body;
 * the HTTP status, or 0 with err when there was no answer. */
static long fetch(http *h, const char *what, const char *params, strbuf *err)
{
    strbuf url = STRBUF_INIT;
    sb_printf(&url, "%s/series/%s?%s", h->base, what, params);
    sb_reset(&h->body);
    curl_easy_setopt(h->curl, CURLOPT_URL, url.buf);
    CURLcode rc = curl_easy_perform(h->curl);
    sb_free(&url);
    h->st->requests++;
    h->st->bytes += h->body.len;
    long code = 0;
    curl_easy_getinfo(h->curl, CURLINFO_RESPONSE_CODE, &code);
    if (rc != CURLE_OK) {
        sb_printf(err, "pmproxy at %s: %s", h->base, curl_easy_strerror(rc));
        return 0;
    }
    return code;
}

/* h->body as JSON, or NULL with err (an HTTP error, pmproxy's message). */
static json_t *parse_body(http *h, const char *what, long code, strbuf *err)
{
    json_error_t je;
    json_t *doc = json_loadb(h->body.buf ? h->body.buf : "", h->body.len, 0, &je);
    json_t *msg = json_is_object(doc) ? json_object_get(doc, "message") : NULL;
    if (code != 200 || doc == NULL || msg != NULL) {
        sb_printf(err, "pmproxy at %s: /series/%s: HTTP %ld: %.*s", h->base,
                  what, code, msg ? 300 : 120,
                  msg ? json_string_value(msg) : h->body.buf ? h->body.buf : "");
        json_decref(doc);
        doc = NULL;
    }
    return doc;
}

/* GET base/series/WHAT?PARAMS as JSON. */
static json_t *get(http *h, const char *what, const char *params, strbuf *err)
{
    long code = fetch(h, what, params, err);
    return code ? parse_body(h, what, code, err) : NULL;
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
    /* restarts, for sparse reads: the stream's events.received */
    char        *guard_id;      /* its series, of the same source */
    char        *guard_inst;    /* its instance series for the stream */
    int64_t      guard_lo, guard_hi;    /* first and last value's time */
    int64_t     *down;          /* (down[2k], down[2k+1]]: it went down */
    size_t       ndown;
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

/* "series=A,B,..." of the ids that are not NULL; how many */
static size_t series_param(strbuf *p, char *const *ids, size_t n)
{
    size_t m = 0;
    sb_adds(p, "series=");
    for (size_t i = 0; i < n; i++)
        if (ids[i] != NULL)
            sb_printf(p, "%s%s", m++ ? "," : "", ids[i]);
    return m;
}

static const char *obj_str(json_t *o, const char *key)
{
    return json_string_value(json_object_get(o, key));
}

/* ---- values, as pmproxy sends them --------------------------------------- */

/* What a value of a /series/values reply is read into (values_of). */
typedef struct value_sink {
    void  (*fn)(void *arg, const char *sid, const char *inst, const char *text,
                double ts_ms);
    void   *arg;
} value_sink;

/* a field of a scanned value, NUL-terminated, if it fits */
static const char *field(char *buf, size_t size, const char *p, size_t n)
{
    if (p == NULL || n >= size)
        return NULL;
    memcpy(buf, p, n);
    buf[n] = '\0';
    return buf;
}

static void on_scanned(void *arg, const series_value *v)
{
    const value_sink *sink = arg;
    char sid[64], inst[64], text[64];
    if (!isnan(v->timestamp))
        sink->fn(sink->arg, field(sid, sizeof sid, v->series, v->series_len),
                 field(inst, sizeof inst, v->instance, v->instance_len),
                 field(text, sizeof text, v->value, v->value_len), v->timestamp);
}

static void no_value(void *arg, const series_value *v)
{
    (void)arg, (void)v;
}

/* GET /series/values?PARAMS, each value to sink: scanned in place
 * (series_values.h), or through jansson where the reply is not of the
 * shape the scanner knows (checked first, so no value comes twice). */
static int values_of(reader *rd, const char *params, const value_sink *sink,
                     strbuf *err)
{
    http *h = rd->h;
    long code = fetch(h, "values", params, err);
    if (code == 0)
        return 1;
    const char *body = h->body.buf ? h->body.buf : "";
    if (code == 200 && series_values_scan(body, h->body.len, no_value, NULL) >= 0) {
        series_values_scan(body, h->body.len, on_scanned, (void *)sink);
        return 0;
    }
    json_t *doc = parse_body(h, "values", code, err);
    if (doc == NULL)
        return 1;
    size_t k;
    json_t *o;
    json_array_foreach(doc, k, o) {
        json_t *ts = json_object_get(o, "timestamp");
        if (json_is_number(ts))
            sink->fn(sink->arg, obj_str(o, "series"), obj_str(o, "instance"),
                     obj_str(o, "value"), json_number_value(ts));
    }
    json_decref(doc);
    return 0;
}

/* milliseconds with microsecond decimals: to the microsecond, as an
 * archive's timeval has it */
static int64_t ms_to_ns(double ms)
{
    return llround(ms * 1000.0) * 1000;
}

/* Values read: the caller's (a value of a series of the reader, or of
 * a restart guard, of_inst telling whose). */
typedef struct value_list {
    reader *rd;
    strmap *of_inst;
    value  *v;
    size_t  n, cap;
} value_list;

static void push_value(value_list *l, value v)
{
    if (l->n == l->cap) {
        l->cap = l->cap ? 2 * l->cap : 1024;
        l->v = xrealloc(l->v, l->cap * sizeof *l->v);
    }
    l->v[l->n++] = v;
}

/* GET /series/WHAT of the series each source names in its field at
 * `field` (a char * of struct series); none: an empty list, unasked. */
static json_t *get_of_field(reader *rd, const char *what, size_t field,
                            strbuf *err)
{
    strbuf p = STRBUF_INIT;
    char **ids = xcalloc(rd->n + 1, sizeof *ids);
    for (size_t i = 0; i < rd->n; i++)
        ids[i] = *(char **)((char *)&rd->s[i] + field);
    json_t *doc = series_param(&p, ids, rd->n) ? get(rd->h, what, p.buf, err)
                                               : json_array();
    free(ids);
    sb_free(&p);
    return doc;
}

/* An instance of /series/instances: its metric series, instance series,
 * name and source (NULL where pmproxy gave none). */
typedef void (*instance_fn)(reader *rd, const char *sid, const char *inst,
                            const char *name, const char *src, void *arg);

/* Each instance of the series named in field `field` of every source. */
static int each_instance(reader *rd, size_t field, instance_fn fn, void *arg,
                         strbuf *err)
{
    json_t *doc = get_of_field(rd, "instances", field, err);
    if (doc == NULL)
        return 1;
    size_t k;
    json_t *o;
    json_array_foreach(doc, k, o) {
        const char *sid = obj_str(o, "series"), *inst = obj_str(o, "instance");
        const char *name = obj_str(o, "name");
        if (sid != NULL && inst != NULL && name != NULL)
            fn(rd, sid, inst, name, obj_str(o, "source"), arg);
    }
    json_decref(doc);
    return 0;
}

/* its name, the first instance series of its metric series, its source */
static void take_instance(reader *rd, const char *sid, const char *inst,
                          const char *name, const char *src, void *arg)
{
    char **first_inst = arg;
    int64_t si;
    if (!strmap_get(rd->by_id, sid, &si))
        return;
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

/* Instance names of every series, and one instance series each. */
static int load_instances(reader *rd, char **first_inst, strbuf *err)
{
    return each_instance(rd, offsetof(series, id), take_instance, first_inst,
                         err);
}

/* hostname of each series, from the labels of one of its instances */
static int load_hosts(reader *rd, char **first_inst, strbuf *err)
{
    strbuf p = STRBUF_INIT;
    int rc = 0;
    if (series_param(&p, first_inst, rd->n) > 0) {
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
    sb_free(&p);
    return rc;
}

/* The series expr matches, one per source: (*of)[i] is the one of series
 * i's source, or NULL (caller frees each and the array). */
static int series_of_sources(reader *rd, const char *expr, char ***of,
                             strbuf *err)
{
    *of = xcalloc(rd->n + 1, sizeof **of);
    json_t *ids = query_ids(rd->h, expr, err);
    if (ids == NULL)
        return 1;
    size_t k, n = json_array_size(ids);
    char **idv = xcalloc(n + 1, sizeof *idv);
    json_t *v, *o;
    json_array_foreach(ids, k, v)
        idv[k] = (char *)json_string_value(v);
    strbuf p = STRBUF_INIT;
    json_t *descs = series_param(&p, idv, n) ? get(rd->h, "descs", p.buf, err)
                                             : json_array();
    sb_free(&p);
    free(idv);
    json_decref(ids);
    if (descs == NULL)
        return 1;
    json_array_foreach(descs, k, o) {
        const char *sid = obj_str(o, "series"), *src = obj_str(o, "source");
        for (size_t i = 0; sid && src && i < rd->n; i++)
            if (rd->s[i].source && strcmp(rd->s[i].source, src) == 0
                && (*of)[i] == NULL)
                (*of)[i] = xstrdup(sid);
    }
    json_decref(descs);
    return 0;
}

/* .subsecond_end of each series' source */
static int load_ends(reader *rd, const char *end_expr, strbuf *err)
{
    char **ends;
    int rc = series_of_sources(rd, end_expr, &ends, err);
    for (size_t i = 0; i < rd->n; i++)
        if ((rd->s[i].end_id = ends[i]) != NULL)
            strmap_put(rd->end_of, ends[i], (int64_t)i);
    free(ends);
    return rc;
}

/* ---- restarts ------------------------------------------------------------ */

/* A restart of the agent, or of the stream, starts its .stacks counter
 * from zero; between two sparse reads it shows only if some value is
 * lower after it, which a stream younger than the step need not show.
 * The stream's staprelay.control.events.received restarts with it and
 * is logged every second by the shipped groups: where it went down, the
 * sets around are read in full, and a source without it is read in full
 * throughout. */

/* The source's metric names a stream: ROOT.STREAM.stacks; the guard is
 * ROOT.control.events.received with the query's labels. */
static bool guard_names(const char *expr, strbuf *guard, strbuf *stream)
{
    size_t n = strcspn(expr, "{[ \t"), dot = strcspn(expr, ".");
    const char *suffix = ".stacks";
    size_t ls = strlen(suffix);
    if (dot >= n || n < dot + 1 + ls + 1 || strncmp(expr + n - ls, suffix, ls) != 0)
        return false;
    sb_reset(guard);
    sb_printf(guard, "%.*s.control.events.received%s", (int)dot, expr, expr + n);
    sb_reset(stream);
    sb_printf(stream, "%.*s", (int)(n - ls - dot - 1), expr + dot + 1);
    return true;
}

/* the guard's instance for the stream (arg) */
static void take_guard(reader *rd, const char *sid, const char *inst,
                       const char *name, const char *src, void *arg)
{
    (void)src;
    for (size_t i = 0; i < rd->n; i++)
        if (rd->s[i].guard_id && strcmp(rd->s[i].guard_id, sid) == 0
            && strcmp(name, arg) == 0 && rd->s[i].guard_inst == NULL)
            rd->s[i].guard_inst = xstrdup(inst);
}

static int load_guard_instances(reader *rd, const char *stream, strbuf *err)
{
    return each_instance(rd, offsetof(series, guard_id), take_guard,
                         (void *)stream, err);
}

/* series i's guard value at ns: where it went down, a restart */
static void guard_value(series *s, int64_t ns, uint64_t v, int64_t *prev_ns,
                        uint64_t *prev_v)
{
    if (s->guard_lo == INT64_MIN)
        s->guard_lo = ns;
    else if (v < *prev_v) {
        s->down = xrealloc(s->down, (s->ndown + 1) * 2 * sizeof *s->down);
        s->down[2 * s->ndown] = *prev_ns;
        s->down[2 * s->ndown + 1] = ns;
        s->ndown++;
    }
    s->guard_hi = ns;
    *prev_ns = ns;
    *prev_v = v;
}

/* a guard's value: its series' index (of_inst: instance series ->
 * index), time and value */
static void add_guard(void *arg, const char *sid, const char *inst,
                      const char *text, double ts_ms)
{
    value_list *l = arg;
    int64_t si;
    (void)sid;
    if (inst == NULL || text == NULL || !strmap_get(l->of_inst, inst, &si))
        return;
    push_value(l, (value){ (size_t)si, ms_to_ns(ts_ms), -1,
                           strtoull(text, NULL, 10) });
}

static int read_guards(reader *rd, int64_t start_s, int64_t finish_s,
                       strbuf *err)
{
    strbuf p = STRBUF_INIT;
    char **ids = xcalloc(rd->n + 1, sizeof *ids);
    value_list l = { .of_inst = strmap_new() };
    for (size_t i = 0; i < rd->n; i++)
        if (rd->s[i].guard_inst) {
            ids[i] = rd->s[i].guard_id;
            strmap_put(l.of_inst, rd->s[i].guard_inst, (int64_t)i);
        }
    bool any = series_param(&p, ids, rd->n) > 0;
    free(ids);
    if (start_s > 0)
        sb_printf(&p, "&start=%" PRId64, start_s);
    sb_printf(&p, "&finish=%" PRId64, finish_s);
    value_sink sink = { add_guard, &l };
    int rc = any ? values_of(rd, p.buf, &sink, err) : 0;
    sb_free(&p);
    strmap_free(l.of_inst);
    if (l.n > 0)
        qsort(l.v, l.n, sizeof *l.v, by_series_time);
    int64_t prev_ns = 0;
    uint64_t prev_v = 0;
    for (size_t i = 0; rc == 0 && i < l.n; i++) {
        if (i == 0 || l.v[i].series != l.v[i - 1].series)
            prev_v = 0;
        guard_value(&rd->s[l.v[i].series], l.v[i].ns, l.v[i].v, &prev_ns, &prev_v);
    }
    free(l.v);
    return rc;
}

/* Whether series s may have restarted in (a_ns, b_ns]: a restart its
 * guard shows, or no guard there to say. */
static bool may_restart(const series *s, int64_t a_ns, int64_t b_ns)
{
    if (s->guard_lo == INT64_MIN || a_ns < s->guard_lo || b_ns > s->guard_hi)
        return true;
    for (size_t k = 0; k < s->ndown; k++)
        if (s->down[2 * k] < b_ns && s->down[2 * k + 1] > a_ns)
            return true;
    return false;
}

/* The guards of every series, for .stacks read sparsely. */
static int load_guards(reader *rd, const char *expr, int64_t start_s,
                       int64_t finish_s, strbuf *err)
{
    strbuf gexpr = STRBUF_INIT, stream = STRBUF_INIT;
    for (size_t i = 0; i < rd->n; i++)
        rd->s[i].guard_lo = rd->s[i].guard_hi = INT64_MIN;
    int rc = 0;
    if (guard_names(expr, &gexpr, &stream)) {
        char **guards;
        rc = series_of_sources(rd, gexpr.buf, &guards, err);
        for (size_t i = 0; i < rd->n; i++)
            rd->s[i].guard_id = guards[i];
        free(guards);
        if (rc == 0)
            rc = load_guard_instances(rd, stream.buf, err);
        if (rc == 0)
            rc = read_guards(rd, start_s, finish_s, err);
    }
    sb_free(&gexpr);
    sb_free(&stream);
    return rc;
}

/* ---- sets -------------------------------------------------------------- */

bool pmseries_must_read_between(const pmseries_value *a, size_t na,
                                const pmseries_value *b, size_t nb)
{
    if (na != nb)
        return true;
    for (size_t i = 0; i < na; i++)
        if (a[i].inst != b[i].inst || b[i].v < a[i].v)
            return true;
    return false;
}

/* the end of the set that begins at vals[i] */
static size_t set_end(const value *vals, size_t n, size_t i)
{
    size_t j = i;
    while (j < n && vals[j].series == vals[i].series && vals[j].ns == vals[i].ns)
        j++;
    return j;
}

/* Feed the sets of vals[0..n) (sorted) stamped in (after_ns, upto_ns]
 * that come after the series' last set fed. */
static void feed_span(reader *rd, const value *vals, size_t n, int64_t after_ns,
                      int64_t upto_ns)
{
    for (size_t i = 0; i < n;) {
        size_t j = set_end(vals, n, i);
        series *s = &rd->s[vals[i].series];
        if (vals[i].ns > s->last_ns && vals[i].ns > after_ns
            && vals[i].ns <= upto_ns) {
            rd->cur = vals[i].series;
            pcp_counter_begin(s->counter, vals[i].ns);
            for (size_t k = i; k < j; k++) {
                if (vals[k].inst < 0)
                    pcp_counter_end_second(s->counter, (int64_t)vals[k].v);
                else
                    pcp_counter_value(s->counter, rd->names[vals[k].inst], vals[k].v);
            }
            pcp_counter_end(s->counter);
            s->last_ns = vals[i].ns;
        }
        i = j;
    }
}

static void add_value(void *arg, const char *sid, const char *inst,
                      const char *text, double ts_ms)
{
    value_list *l = arg;
    int64_t si, ni = -1;
    bool end = false;
    if (sid == NULL || text == NULL)
        return;
    if (!strmap_get(l->rd->by_id, sid, &si)) {
        if (!strmap_get(l->rd->end_of, sid, &si))
            return;
        end = true;
    } else if (inst == NULL || !strmap_get(l->rd->inst, inst, &ni)) {
        return;
    }
    char *e;
    uint64_t v = strtoull(text, &e, 10);
    if (e == text || *e != '\0')
        return;
    push_value(l, (value){ (size_t)si, ms_to_ns(ts_ms), end ? -1 : (long)ni, v });
}

/* /series/values of series `only` (SIZE_MAX: all) from start_s to
 * finish_s, every value or (step_ms > 0) pmproxy's subsample; NULL with
 * err on failure. */
static value *get_values(reader *rd, size_t only, int64_t start_s,
                         int64_t finish_s, int64_t step_ms, size_t *n,
                         strbuf *err)
{
    strbuf p = STRBUF_INIT;
    char **ids = xcalloc(2 * rd->n + 1, sizeof *ids);
    for (size_t i = 0; i < rd->n; i++)
        if (only == SIZE_MAX || i == only) {
            ids[2 * i] = rd->s[i].id;
            ids[2 * i + 1] = rd->s[i].end_id;
        }
    series_param(&p, ids, 2 * rd->n);
    free(ids);
    if (start_s > 0)
        sb_printf(&p, "&start=%" PRId64, start_s);
    sb_printf(&p, "&finish=%" PRId64, finish_s);
    if (step_ms > 0)
        sb_printf(&p, "&interval=%" PRId64 ".%03dsec", step_ms / 1000,
                  (int)(step_ms % 1000));
    value_list l = { .rd = rd };
    value_sink sink = { add_value, &l };
    int rc = values_of(rd, p.buf, &sink, err);
    sb_free(&p);
    if (rc != 0) {
        free(l.v);
        return NULL;
    }
    if (l.v == NULL)
        l.v = xcalloc(1, sizeof *l.v);
    /* sorted by series, time and instance */
    qsort(l.v, l.n, sizeof *l.v, by_series_time);
    *n = l.n;
    return l.v;
}

static int read_chunk(reader *rd, int64_t start_s, int64_t finish_s,
                      strbuf *err)
{
    size_t n;
    value *vals = get_values(rd, SIZE_MAX, start_s, finish_s, 0, &n, err);
    if (vals == NULL)
        return 1;
    feed_span(rd, vals, n, INT64_MIN, INT64_MAX);
    free(vals);
    return 0;
}

/* Every set of series si in (a_ns, b_ns], read in full. */
static int reread(reader *rd, size_t si, int64_t a_ns, int64_t b_ns,
                  strbuf *err)
{
    size_t n;
    value *vals = get_values(rd, si, a_ns / 1000000000,
                             b_ns / 1000000000 + 1, 0, &n, err);
    if (vals == NULL)
        return 1;
    rd->h->st->reread++;
    feed_span(rd, vals, n, a_ns, b_ns);
    free(vals);
    return 0;
}

/* One series' sparse sets vals[0..n): each set fed, and before it the
 * sets between it and the one before, where they must be read.  A span
 * the window's edge cuts is read too: the window counts what lies inside
 * it (pcp_counters.h).  Spans to read one after another are read in one
 * request (a window older than the restart guard is all such spans). */
static int feed_sparse(reader *rd, const value *vals, size_t n, int64_t lo_ns,
                       int64_t hi_ns, strbuf *err)
{
    size_t prev = 0, prev_end = 0;
    int64_t run_from = INT64_MIN;     /* spans to read from here to prev */
    for (size_t i = 0; i < n;) {
        size_t j = set_end(vals, n, i);
        int64_t a = vals[prev].ns, b = vals[i].ns;
        bool edge = (a < lo_ns && b > lo_ns) || (a < hi_ns && b > hi_ns);
        if (i > 0 && (edge || may_restart(&rd->s[vals[i].series], a, b)
                      || pmseries_must_read_between(vals + prev, prev_end - prev,
                                                    vals + i, j - i))) {
            if (run_from == INT64_MIN)
                run_from = a;
        } else {
            if (run_from != INT64_MIN
                && reread(rd, vals[prev].series, run_from, a, err) != 0)
                return 1;
            run_from = INT64_MIN;
            feed_span(rd, vals + i, j - i, INT64_MIN, INT64_MAX);
        }
        prev = i;
        prev_end = j;
        i = j;
    }
    if (run_from != INT64_MIN && reread(rd, vals[prev].series, run_from,
                                        vals[prev].ns, err) != 0)
        return 1;
    return 0;
}

/* .stacks: a set each step, and in full only where it must be. */
static int read_sparse(reader *rd, const char *expr, int64_t lo_ns,
                       int64_t hi_ns, int64_t finish_s, int64_t step_ms,
                       strbuf *err)
{
    size_t n;
    /* unbounded: no start, so that pmproxy steps from each series' own
     * first value */
    int64_t start_s = lo_ns == INT64_MIN ? 0 : lo_ns / 1000000000;
    if (load_guards(rd, expr, start_s, finish_s, err) != 0)
        return 1;
    value *vals = get_values(rd, SIZE_MAX, start_s, finish_s, step_ms, &n, err);
    if (vals == NULL)
        return 1;
    int rc = 0;
    for (size_t i = 0; rc == 0 && i < n;) {
        size_t j = i;
        while (j < n && vals[j].series == vals[i].series)
            j++;
        rc = feed_sparse(rd, vals + i, j - i, lo_ns, hi_ns, err);
        i = j;
    }
    free(vals);
    return rc;
}

static int read_values(reader *rd, const pmseries_query *q, const char *expr,
                       bool subsecond, strbuf *err)
{
    struct timeval now;
    gettimeofday(&now, NULL);
    int64_t lo_ns = q->lo_ns, hi_ns = q->hi_ns;
    int64_t finish = hi_ns == INT64_MAX ? (int64_t)now.tv_sec + 60
                                        : hi_ns / 1000000000 + 1;
    if (!subsecond && q->step_ms > 0)
        return read_sparse(rd, expr, lo_ns, hi_ns, finish, q->step_ms, err);
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
        free(rd->s[i].guard_id);
        free(rd->s[i].guard_inst);
        free(rd->s[i].down);
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
        rc = read_values(&rd, q, expr.buf, subsecond, err);
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
