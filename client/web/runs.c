/* runs: the on-demand runs staprelay web follows (see runs.h). */
#include "client/web/runs.h"

#include <inttypes.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "client/input/input.h"
#include "client/input/pcp_input.h"
#include "client/util/stopsig.h"
#include "client/util/utf8.h"
#include "common/xalloc.h"

typedef struct wrun {
    struct web_runs *w;
    char          *host, *name;     /* owned */
    web_store     *store;
    pthread_t      thread;
    /* under w->lock: */
    bool           seen;            /* a value of the run was read */
    pcp_run_state  state;
    int64_t        lo_ns, hi_ns;    /* pcp_run_window */
    bool           following;
    size_t         sent_samples;    /* in the last `run` event */
    int            sent_state;      /* -1: none yet */
    char           error[240];
    const pcp_stats *reading;       /* follow's stats, in its thread */
} wrun;

struct web_runs {
    const cmd_opts *o;
    httpd          *h;
    pthread_mutex_t lock;
    atomic_bool     stop;
    wrun           *runs[WEB_RUNS_MAX];
    int             n;
};

web_runs *web_runs_new(const cmd_opts *o, httpd *h)
{
    web_runs *w = xcalloc(1, sizeof *w);
    w->o = o;
    w->h = h;
    pthread_mutex_init(&w->lock, NULL);
    atomic_init(&w->stop, false);
    return w;
}

static size_t run_samples(wrun *r)
{
    store_lock(r->store);
    size_t n = store_count(r->store);
    store_unlock(r->store);
    return n;
}

/* One run's members (w->lock held). */
static void run_json(const wrun *r, size_t samples, strbuf *out)
{
    sb_adds(out, "{\"name\":\"");
    json_escape(out, r->name, strlen(r->name));
    sb_adds(out, "\",\"host\":\"");
    json_escape(out, r->host, strlen(r->host));
    sb_printf(out, "\",\"state\":\"%s\",\"window\":",
              r->seen ? pcp_run_state_name(r->state) : "queued");
    if (!r->seen)
        sb_adds(out, "null");
    else {
        sb_adds(out, "[");
        if (r->lo_ns == INT64_MIN)
            sb_adds(out, "null");
        else
            sb_printf(out, "%" PRId64, r->lo_ns);
        sb_adds(out, ",");
        if (r->hi_ns == INT64_MAX)
            sb_adds(out, "null");
        else
            sb_printf(out, "%" PRId64, r->hi_ns);
        sb_adds(out, "]");
    }
    sb_printf(out, ",\"samples\":%zu,\"following\":%s,\"error\":", samples,
              r->following ? "true" : "false");
    if (r->error[0]) {
        sb_adds(out, "\"");
        json_escape(out, r->error, strlen(r->error));
        sb_adds(out, "\"");
    } else {
        sb_adds(out, "null");
    }
    sb_adds(out, "}");
}

/* A `run` event when the state or the count changed (force: always). */
static void send_run(wrun *r, bool force)
{
    size_t n = run_samples(r);
    strbuf js = STRBUF_INIT;
    pthread_mutex_lock(&r->w->lock);
    int state = r->seen ? (int)r->state : (int)PCP_RUN_QUEUED;
    bool changed = force || state != r->sent_state || n != r->sent_samples;
    if (changed) {
        r->sent_state = state;
        r->sent_samples = n;
        run_json(r, n, &js);
    }
    pthread_mutex_unlock(&r->w->lock);
    if (changed && r->w->h)
        httpd_sse_send(r->w->h, "run", js.buf);
    sb_free(&js);
}

/* ---- the follower's hooks ------------------------------------------------- */
static void on_run(void *arg, const pcp_run *pr)
{
    wrun *r = arg;
    pthread_mutex_lock(&r->w->lock);
    r->seen = true;
    r->state = pr->state;
    pcp_run_window(pr, &r->lo_ns, &r->hi_ns);
    pthread_mutex_unlock(&r->w->lock);
    send_run(r, false);
}

static int on_round(void *arg, int status)
{
    (void)status;
    wrun *r = arg;
    if (r->reading && r->reading->timed)
        store_mark_timed(r->store);
    send_run(r, false);
    return atomic_load(&r->w->stop) ? 1 : 0;
}

static void on_notice(void *arg, const char *text)
{
    wrun *r = arg;
    fprintf(stderr, "staprelay web: run %s: %s\n", r->name, text);
}

static void on_detail(void *arg, const char *stack, size_t len, double weight,
                      int col, int64_t when_ns, const stack_context *ctx)
{
    (void)col;
    wrun *r = arg;
    store_add(r->store, stack, len, weight, when_ns, ctx);
}

/* counters have no run: never called with po->run, but on_stack must be
 * set for on_round's live loop to leave the table alone */
static void on_stack(void *arg, const char *stack, size_t len, double weight,
                     int64_t when_ns)
{
    wrun *r = arg;
    store_add(r->store, stack, len, weight, when_ns, NULL);
}

static void *follow(void *arg)
{
    wrun *r = arg;
    const cmd_opts *o = r->w->o;
    pcp_options po;
    memset(&po, 0, sizeof po);
    po.hosts[0] = r->host;
    po.nhosts = 1;
    po.run = r->name;           /* the metric: the run's first event */
    po.interval = o->pcp.interval;
    po.wait_s = o->pcp.wait_s;
    po.wait_set = o->pcp.wait_set;
    po.counter = o->pcp.counter;
    po.on_run = on_run;
    po.on_round = on_round;
    po.on_stack = on_stack;
    po.on_notice = on_notice;
    po.hook_arg = r;
    input_options in = o->in;
    in.col = 0;
    in.on_detail = on_detail;
    in.on_detail_arg = r;
    pcp_stats st;
    memset(&st, 0, sizeof st);
    strbuf err = STRBUF_INIT;
    r->reading = &st;
    int rc = pcp_input_read(&po, &in, "web", NULL, &st, &err);
    r->reading = NULL;
    if (st.timed)
        store_mark_timed(r->store);
    if (rc != 0)
        fprintf(stderr, "staprelay web: run %s: %s\n", r->name, err.buf);
    pthread_mutex_lock(&r->w->lock);
    r->following = false;
    if (rc != 0)
        snprintf(r->error, sizeof r->error, "%s", err.buf);
    pthread_mutex_unlock(&r->w->lock);
    sb_free(&err);
    send_run(r, true);
    return NULL;
}

int web_runs_follow(web_runs *w, const char *host, const char *name,
                    strbuf *err)
{
    pthread_mutex_lock(&w->lock);
    for (int i = 0; i < w->n; i++)
        if (strcmp(w->runs[i]->name, name) == 0
            && strcmp(w->runs[i]->host, host) == 0) {
            pthread_mutex_unlock(&w->lock);
            return 0;
        }
    if (w->n == WEB_RUNS_MAX) {
        pthread_mutex_unlock(&w->lock);
        sb_printf(err, "already following %d runs (the bound): run %s is "
                  "not followed; restart staprelay web to follow more",
                  WEB_RUNS_MAX, name);
        return -1;
    }
    wrun *r = xcalloc(1, sizeof *r);
    r->w = w;
    r->host = xstrdup(host);
    r->name = xstrdup(name);
    size_t max = (size_t)w->o->max_samples;
    r->store = store_new(max && max < WEB_RUN_MAX_SAMPLES ? max
                         : WEB_RUN_MAX_SAMPLES, 0);
    r->following = true;
    r->sent_state = -1;
    r->lo_ns = INT64_MIN;
    r->hi_ns = INT64_MAX;
    int e = pthread_create(&r->thread, NULL, follow, r);
    if (e != 0) {
        pthread_mutex_unlock(&w->lock);
        sb_printf(err, "cannot start a follower for run %s: %s", name,
                  strerror(e));
        store_free(r->store);
        free(r->host);
        free(r->name);
        free(r);
        return -1;
    }
    w->runs[w->n++] = r;
    pthread_mutex_unlock(&w->lock);
    send_run(r, true);      /* accepted: queued, as the PMDA lists it */
    return 0;
}

web_store *web_runs_store(web_runs *w, const char *name)
{
    web_store *s = NULL;
    pthread_mutex_lock(&w->lock);
    for (int i = 0; i < w->n && s == NULL; i++)
        if (strcmp(w->runs[i]->name, name) == 0)
            s = w->runs[i]->store;
    pthread_mutex_unlock(&w->lock);
    return s;
}

/* A run name as the PMDA makes them (SCRIPT-STAMP[-N]): what follow=
 * takes, so nothing else reaches the list or a message */
static bool name_ok(const char *s)
{
    size_t n = strlen(s);
    if (n == 0 || n > 128)
        return false;
    for (size_t i = 0; i < n; i++) {
        char c = s[i];
        if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')
              || (c >= '0' && c <= '9') || c == '-' || c == '_' || c == '.'))
            return false;
    }
    return true;
}

/* follow=NAME[&host=H]: a run started elsewhere (pmstore, another
 * page) on one of the -h hosts (the first by default).  False: the
 * reply is the error. */
static bool follow_param(web_runs *w, const web_request *rq, web_reply *rp)
{
    const char *name = web_param_get(rq, "follow");
    if (name == NULL)
        return true;
    const pcp_options *po = &w->o->pcp;
    if (po->nhosts == 0) {
        web_reply_error(rp, 400, "follow: runs need a live host (-h)");
        return false;
    }
    if (!name_ok(name)) {
        web_reply_error(rp, 400, "bad follow: not a run name (letters, "
                        "digits, '-', '_', '.'; at most 128)");
        return false;
    }
    const char *host = web_param_get(rq, "host"), *spec = NULL;
    for (int i = 0; i < po->nhosts && spec == NULL; i++) {
        size_t n = host ? strlen(host) : 0;
        if (host == NULL || strcmp(po->hosts[i], host) == 0
            || (strncmp(po->hosts[i], host, n) == 0
                && po->hosts[i][n] == ':'))
            spec = po->hosts[i];
    }
    if (spec == NULL) {
        web_reply_error(rp, 400, "bad host: '%s' is not one of the -h hosts",
                        host);
        return false;
    }
    strbuf err = STRBUF_INIT;
    int rc = web_runs_follow(w, spec, name, &err);
    if (rc < 0)
        web_reply_error(rp, 503, "%s", err.buf);
    sb_free(&err);
    return rc == 0;
}

void api_runs(void *arg, const web_request *rq, web_reply *rp)
{
    web_runs *w = arg;
    if (!follow_param(w, rq, rp))
        return;
    size_t counts[WEB_RUNS_MAX];
    pthread_mutex_lock(&w->lock);
    int n = w->n;
    wrun *runs[WEB_RUNS_MAX];
    memcpy(runs, w->runs, sizeof runs);
    pthread_mutex_unlock(&w->lock);
    for (int i = 0; i < n; i++)     /* store locks before the list's */
        counts[i] = run_samples(runs[i]);
    rp->content_type = "application/json";
    sb_adds(&rp->body, "{\"runs\":[");
    pthread_mutex_lock(&w->lock);
    for (int i = 0; i < n; i++) {
        sb_adds(&rp->body, i ? ",\n" : "\n");
        run_json(runs[i], counts[i], &rp->body);
    }
    pthread_mutex_unlock(&w->lock);
    sb_printf(&rp->body, "\n],\"max_runs\":%d,\"max_samples_per_run\":%d}\n",
              WEB_RUNS_MAX, WEB_RUN_MAX_SAMPLES);
}

void web_runs_routes(web_runs *w, httpd *h)
{
    httpd_route(h, "/api/runs", false, api_runs, w);
}

void web_runs_free(web_runs *w)
{
    if (w == NULL)
        return;
    atomic_store(&w->stop, true);
    /* a follower waiting for its run checks stopsig, as the collector's
     * loop does: ask until every one is done */
    for (;;) {
        bool any = false;
        pthread_mutex_lock(&w->lock);
        for (int i = 0; i < w->n; i++)
            any = any || w->runs[i]->following;
        pthread_mutex_unlock(&w->lock);
        if (!any)
            break;
        stopsig_request();
        struct timespec ts = { 0, 50 * 1000 * 1000 };
        nanosleep(&ts, NULL);
    }
    for (int i = 0; i < w->n; i++) {
        wrun *r = w->runs[i];
        pthread_join(r->thread, NULL);
        store_free(r->store);
        free(r->host);
        free(r->name);
        free(r);
    }
    pthread_mutex_destroy(&w->lock);
    free(w);
}
