/* collect: staprelay web's collector thread (see collect.h). */
#include "client/web/collect.h"

#include <inttypes.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <time.h>

#include "client/input/input.h"
#include "client/input/pcp_input.h"
#include "client/util/stopsig.h"
#include "client/util/utf8.h"
#include "common/xalloc.h"

typedef struct notice {
    int64_t when_ns;
    char    text[240];
} notice;

struct collector {
    const cmd_opts *o;
    web_store      *store;
    httpd          *h;
    pthread_t       thread;
    bool            started;
    atomic_bool     stop;       /* collect_stop() asked */
    pthread_mutex_t lock;       /* what follows */
    bool            live, collecting;
    uint64_t        rounds;
    live_gaps       gaps;       /* microseconds, live_window's rule */
    const pcp_stats *reading;   /* read_pcp's stats, in this thread */
    int64_t         last_ok_us;
    notice          notices[COLLECT_MAX_NOTICES];
    int             nnotices;   /* the last COLLECT_MAX_NOTICES */
};

static int64_t wall_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static void say(collector *c, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static void say(collector *c, const char *fmt, ...)
{
    notice n = { .when_ns = wall_ns() };
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(n.text, sizeof n.text, fmt, ap);
    va_end(ap);
    fprintf(stderr, "staprelay web: %s\n", n.text);
    pthread_mutex_lock(&c->lock);
    if (c->nnotices == COLLECT_MAX_NOTICES) {
        memmove(&c->notices[0], &c->notices[1],
                (COLLECT_MAX_NOTICES - 1) * sizeof c->notices[0]);
        c->nnotices--;
    }
    c->notices[c->nnotices++] = n;
    pthread_mutex_unlock(&c->lock);
    if (c->h) {
        strbuf js = STRBUF_INIT;
        sb_printf(&js, "{\"when_ns\":%" PRId64 ",\"text\":\"", n.when_ns);
        json_escape(&js, n.text, strlen(n.text));
        sb_adds(&js, "\"}");
        httpd_sse_send(c->h, "notice", js.buf);
        sb_free(&js);
    }
}

/* ---- the samples ----------------------------------------------------------- */
static void on_detail(void *arg, const char *stack, size_t len, double weight,
                      int col, int64_t when_ns, const stack_context *ctx)
{
    (void)col;
    collector *c = arg;
    store_add(c->store, stack, len, weight, when_ns, ctx);
}

/* live counters' samples (no record, so no context) */
static void on_stack(void *arg, const char *stack, size_t len, double weight,
                     int64_t when_ns)
{
    collector *c = arg;
    store_add(c->store, stack, len, weight, when_ns, NULL);
}

static void send_gap(collector *c, const live_gap *g)
{
    if (c->h == NULL)
        return;
    strbuf js = STRBUF_INIT;
    sb_printf(&js, "{\"from_ns\":%" PRId64 ",\"to_ns\":", g->from_us * 1000);
    if (g->to_us < 0)
        sb_adds(&js, "null");
    else
        sb_printf(&js, "%" PRId64, g->to_us * 1000);
    sb_adds(&js, ",\"reason\":\"pmcd unreachable\"}");
    httpd_sse_send(c->h, "gap", js.buf);
    sb_free(&js);
}

static int on_round(void *arg, int status)
{
    collector *c = arg;
    int64_t now = wall_ns();
    store_prune(c->store, now);
    if (c->reading && c->reading->timed)
        store_mark_timed(c->store);
    pthread_mutex_lock(&c->lock);
    c->rounds++;
    int before = c->gaps.n;
    bool was_open = before > 0 && c->gaps.g[before - 1].to_us < 0;
    live_gaps_round(&c->gaps, status == 0, c->last_ok_us, now / 1000);
    if (status == 0)
        c->last_ok_us = now / 1000;
    if (c->o->window_min > 0)
        live_gaps_prune(&c->gaps, now / 1000 - c->o->window_min * 60000000LL);
    bool open = c->gaps.n > 0 && c->gaps.g[c->gaps.n - 1].to_us < 0;
    live_gap g = c->gaps.n ? c->gaps.g[c->gaps.n - 1] : (live_gap){ 0, 0 };
    pthread_mutex_unlock(&c->lock);
    if (open != was_open) {
        send_gap(c, &g);
        strbuf t = STRBUF_INIT;
        live_gaps one = { .n = 1 };
        one.g[0] = g;
        live_gaps_text(&one, "", &t);
        say(c, "%s%s", t.buf, open ? "" : ": collecting again");
        sb_free(&t);
    }
    if (c->h) {
        store_info si;
        store_get_info(c->store, &si);
        strbuf js = STRBUF_INIT;
        sb_printf(&js, "{\"last_ns\":%" PRId64 ",\"samples\":%zu}",
                  si.last_ns == STACK_TIME_UNKNOWN ? 0 : si.last_ns,
                  si.samples);
        httpd_sse_send(c->h, "samples", js.buf);
        sb_free(&js);
    }
    return atomic_load(&c->stop) ? 1 : 0;
}

/* ---- the inputs -------------------------------------------------------------- */
static void read_files(collector *c)
{
    const cmd_opts *o = c->o;
    input_options in = o->in;
    in.col = 0;
    in.on_detail = on_detail;
    in.on_detail_arg = c;
    for (int i = 0; i < o->nfiles && !atomic_load(&c->stop); i++) {
        stacktab *tab = stacktab_new();     /* the store keeps the samples */
        input_stats st;
        memset(&st, 0, sizeof st);
        strbuf err = STRBUF_INIT;
        if (input_read_path(o->files[i], &in, tab, &st, &err) != 0)
            say(c, "%s", err.buf);
        else if (st.ignored)
            say(c, "%s: ignored %" PRIu64 " lines with invalid format",
                o->files[i], st.ignored);
        sb_free(&err);
        stacktab_free(tab);
    }
}

/* pcp_input's notices (a metric waited for, a source gone or back, a
 * run's state): the page's too */
static void on_notice(void *arg, const char *text)
{
    say(arg, "%s", text);
}

static void read_pcp(collector *c)
{
    const cmd_opts *o = c->o;
    pcp_options po = o->pcp;
    po.progress = false;
    po.on_notice = on_notice;
    po.hook_arg = c;
    bool live = po.nhosts > 0;
    if (live) {
        po.on_stack = on_stack;
        po.on_round = on_round;
        po.hook_arg = c;
    }
    input_options in = o->in;
    in.col = 0;
    in.on_detail = on_detail;
    in.on_detail_arg = c;
    pcp_stats st;
    memset(&st, 0, sizeof st);
    strbuf err = STRBUF_INIT;
    stacktab *tab = live ? NULL : stacktab_new();
    c->reading = &st;
    int rc = pcp_input_read(&po, &in, "web", tab, &st, &err);
    c->reading = NULL;
    if (st.timed)
        store_mark_timed(c->store);
    stacktab_free(tab);
    if (rc != 0)
        say(c, "%s", err.buf);
    sb_free(&err);
    if (st.missed)
        say(c, "missed %" PRIu64 " records (the PMDA's queue overflowed "
            "before they were fetched)", st.missed);
    if (st.ignored)
        say(c, "ignored %" PRIu64 " records without a usable stack",
            st.ignored);
    if (rc == 0 && st.records == 0 && st.counter_sets == 0)
        say(c, "no event records%s", live ? " arrived"
            : po.series ? " nor counters" : " in the archive");
    if (rc == 0 && live)
        say(c, "live collection ended after %" PRIu64 " fetches",
            st.fetches);
    else if (rc == 0)
        say(c, "read %" PRIu64 " samples", st.stacks + st.counted);
}

static void *run(void *arg)
{
    collector *c = arg;
    read_files(c);
    if (!atomic_load(&c->stop) && pcp_options_active(&c->o->pcp))
        read_pcp(c);
    pthread_mutex_lock(&c->lock);
    c->collecting = false;
    pthread_mutex_unlock(&c->lock);
    if (c->h)
        httpd_sse_send(c->h, "samples", "{\"end\":true}");
    return NULL;
}

collector *collect_start(const cmd_opts *o, web_store *store, httpd *h,
                         strbuf *err)
{
    collector *c = xcalloc(1, sizeof *c);
    c->o = o;
    c->store = store;
    c->h = h;
    atomic_init(&c->stop, false);
    pthread_mutex_init(&c->lock, NULL);
    c->live = o->pcp.nhosts > 0;
    c->collecting = true;
    c->last_ok_us = wall_ns() / 1000;
    int e = pthread_create(&c->thread, NULL, run, c);
    if (e != 0) {
        sb_printf(err, "cannot start the collector: %s", strerror(e));
        pthread_mutex_destroy(&c->lock);
        free(c);
        return NULL;
    }
    c->started = true;
    return c;
}

void collect_stop(collector *c)
{
    if (c == NULL)
        return;
    atomic_store(&c->stop, true);
    /* the PCP loop checks stopsig between rounds (and while it waits for
     * a metric or a run): ask it the same way a Ctrl-C would, again
     * until it is done (collect_live resets the count when it starts) */
    for (;;) {
        pthread_mutex_lock(&c->lock);
        bool done = !c->collecting;
        pthread_mutex_unlock(&c->lock);
        if (done)
            break;
        stopsig_request();
        struct timespec ts = { 0, 50 * 1000 * 1000 };
        nanosleep(&ts, NULL);
    }
    pthread_join(c->thread, NULL);
    pthread_mutex_destroy(&c->lock);
    free(c);
}

void collect_info_json(collector *c, strbuf *out)
{
    pthread_mutex_lock(&c->lock);
    sb_printf(out, "\"live\":%s,\"collecting\":%s,\"rounds\":%" PRIu64
              ",\"gaps\":[", c->live ? "true" : "false",
              c->collecting ? "true" : "false", c->rounds);
    for (int i = 0; i < c->gaps.n; i++) {
        sb_printf(out, "%s{\"from_ns\":%" PRId64 ",\"to_ns\":", i ? "," : "",
                  c->gaps.g[i].from_us * 1000);
        if (c->gaps.g[i].to_us < 0)
            sb_adds(out, "null");
        else
            sb_printf(out, "%" PRId64, c->gaps.g[i].to_us * 1000);
        sb_adds(out, ",\"reason\":\"pmcd unreachable\"}");
    }
    sb_adds(out, "],\"notices\":[");
    for (int i = 0; i < c->nnotices; i++) {
        sb_printf(out, "%s{\"when_ns\":%" PRId64 ",\"text\":\"", i ? "," : "",
                  c->notices[i].when_ns);
        json_escape(out, c->notices[i].text, strlen(c->notices[i].text));
        sb_adds(out, "\"}");
    }
    sb_adds(out, "]");
    pthread_mutex_unlock(&c->lock);
}
