/* api_profile: staprelay web's profile endpoints (see api_profile.h). */
#include "client/web/api_profile.h"


#include <ctype.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "client/cmd/inout.h"
#include "client/input/input.h"
#include "client/input/pcp_events.h"
#include "client/input/pcp_input.h"
#include "client/render/callgraph_dot.h"
#include "client/render/annotate_out.h"
#include "client/render/flamesvg.h"
#include "client/render/folded_out.h"
#include "client/render/heatmap_out.h"
#include "client/render/pprof_write.h"
#include "client/render/speedscope.h"
#include "client/stack/flametree.h"
#include "client/stack/heatmap.h"
#include "client/stack/hotcold.h"
#include "client/stack/top.h"
#include "client/util/utf8.h"

/* ---- the selection ---------------------------------------------------------- */
static bool flag(const web_request *rq, const char *name, bool *v,
                 web_reply *rp);

/* "1733230000.25": epoch seconds, exactly (no float between). */
static bool epoch_seconds(const char *s, int64_t *ns)
{
    const char *p = s;
    int64_t sec = 0, frac = 0, scale = 1000000000;
    if (!isdigit((unsigned char)*p))
        return false;
    for (; isdigit((unsigned char)*p); p++) {
        if (sec > (INT64_MAX / 1000000000 - 10) / 10)
            return false;
        sec = sec * 10 + (*p - '0');
    }
    if (*p == '.') {
        p++;
        if (!isdigit((unsigned char)*p))
            return false;
        for (; isdigit((unsigned char)*p); p++)
            if (scale > 1) {
                scale /= 10;
                frac += (*p - '0') * scale;
            }
    }
    if (*p)
        return false;
    *ns = sec * 1000000000 + frac;
    return true;
}

/* pmParseTimeWindow's reason on one line. */
static void one_line(strbuf *sb)
{
    for (size_t i = 0; i < sb->len; i++)
        if (sb->buf[i] == '\n')
            sb->buf[i] = ' ';
    while (sb->len > 0 && sb->buf[sb->len - 1] == ' ')
        sb->buf[--sb->len] = '\0';
}

static bool parse_window(const char *start,
                         const char *end, const char *sname, const char *ename,
                         web_sel *sel, web_reply *rp)
{
    sel->lo_ns = INT64_MIN;
    sel->hi_ns = INT64_MAX;
    int64_t v;
    if (start && *start == '\0')
        start = NULL;
    if (end && *end == '\0')
        end = NULL;
    if (start && epoch_seconds(start, &v)) {
        sel->lo_ns = v;
        start = NULL;
    }
    if (end && epoch_seconds(end, &v)) {
        sel->hi_ns = v;
        end = NULL;
    }
    if (start || end) {     /* PCP time syntax, against what is held */
        store_info si;
        store_get_info(sel->store, &si);
        struct timespec now;
        clock_gettime(CLOCK_REALTIME, &now);
        int64_t now_ns = (int64_t)now.tv_sec * 1000000000 + now.tv_nsec;
        int64_t first = si.first_ns != STACK_TIME_UNKNOWN ? si.first_ns : now_ns;
        int64_t last = si.last_ns != STACK_TIME_UNKNOWN ? si.last_ns : now_ns;
        int64_t lo, hi;
        strbuf why = STRBUF_INIT;
        if (pcp_window_parse(start, end, first, last, &lo, &hi, &why) < 0) {
            one_line(&why);
            web_reply_error(rp, 400, "bad %s%s%s: %s", start ? sname : ename,
                            start && end ? " or " : "", start && end ? ename
                            : "", why.buf);
            sb_free(&why);
            return false;
        }
        sb_free(&why);
        if (start)
            sel->lo_ns = lo;
        if (end)
            sel->hi_ns = hi;
    }
    if (sel->lo_ns != INT64_MIN && sel->hi_ns != INT64_MAX
        && sel->lo_ns > sel->hi_ns) {
        web_reply_error(rp, 400, "%s is after %s", sname, ename);
        return false;
    }
    return true;
}

static bool parse_ids(const web_request *rq, const char *name, int64_t *ids,
                      int *n, web_reply *rp)
{
    const char *vals[STACKFILTER_MAX_IDS];
    int k = web_param_all(rq, name, vals, STACKFILTER_MAX_IDS);
    if (k > STACKFILTER_MAX_IDS) {
        web_reply_error(rp, 400, "more than %d %s values", STACKFILTER_MAX_IDS,
                        name);
        return false;
    }
    for (int i = 0; i < k; i++) {
        char *e;
        long long v = strtoll(vals[i], &e, 10);
        if (*vals[i] == '\0' || *e || v < 0 || v > INT32_MAX) {
            web_reply_error(rp, 400, "bad %s: '%s' (a number)", name, vals[i]);
            return false;
        }
        ids[i] = v;
    }
    *n = k;
    return true;
}

static bool parse_names(const web_request *rq, const char *name,
                        const char **names, int *n, web_reply *rp)
{
    int k = web_param_all(rq, name, names, STACKFILTER_MAX_IDS);
    if (k > STACKFILTER_MAX_IDS) {
        web_reply_error(rp, 400, "more than %d %s values", STACKFILTER_MAX_IDS,
                        name);
        return false;
    }
    *n = k;
    return true;
}

/* state=CLASS[,CLASS...], repeatable: the block classes kept (one rule
 * with --only-state: blockstate.h) */
static bool parse_states(const web_request *rq, unsigned *mask,
                         web_reply *rp)
{
    const char *vals[STACKFILTER_MAX_IDS];
    int k = web_param_all(rq, "state", vals, STACKFILTER_MAX_IDS);
    if (k > STACKFILTER_MAX_IDS) {
        web_reply_error(rp, 400, "more than %d state values",
                        STACKFILTER_MAX_IDS);
        return false;
    }
    for (int i = 0; i < k; i++) {
        strbuf why = STRBUF_INIT;
        bool ok = *vals[i] == '\0' || block_state_add_list(vals[i], mask, &why);
        if (!ok)
            web_reply_error(rp, 400, "bad state: %s", why.buf);
        sb_free(&why);
        if (!ok)
            return false;
    }
    return true;
}

bool web_sel_parse(const web_profile *p, const web_request *rq,
                   const char *start_name, const char *end_name,
                   web_sel *sel, web_reply *rp)
{
    memset(sel, 0, sizeof *sel);
    sel->rows = p->o->rows > 0 ? p->o->rows : HEATMAP_DEFAULT_ROWS;
    sel->by_host = p->by_host;
    if (!flag(rq, "by_host", &sel->by_host, rp))
        return false;
    sel->store = p->store;
    const char *run = web_param_get(rq, "run");
    if (run && *run) {      /* a run's own samples (web/runs) */
        sel->store = p->runs ? web_runs_store(p->runs, run) : NULL;
        if (sel->store == NULL) {
            web_reply_error(rp, 400, "bad run: '%s' is not followed here "
                            "(GET /api/runs lists those that are)", run);
            return false;
        }
    }
    if (!flag(rq, "hotcold", &sel->hotcold, rp))
        return false;
    /* hot/cold weighs both parts in ns (flame --hotcold's count name) */
    sel->countname = inout_count_name(p->o, sel->hotcold || store_timed(sel->store));
    const char *metric = web_param_get(rq, "metric");
    if (metric && *metric) {
        /* the samples of every metric collected are merged (as `fold`
         * merges its metrics): one of them may be named, no other */
        const pcp_options *po = &p->o->pcp;
        bool known = po->nmetrics == 0;   /* a run's, a query's: theirs */
        for (int i = 0; i < po->nmetrics && !known; i++) {
            strbuf a = STRBUF_INIT, b = STRBUF_INIT;
            pcp_metric_candidates(po->metrics[i], &a, &b);
            known = strcmp(metric, po->metrics[i]) == 0
                    || strcmp(metric, a.buf) == 0 || strcmp(metric, b.buf) == 0;
            sb_free(&a);
            sb_free(&b);
        }
        if (!known) {
            web_reply_error(rp, 400, "bad metric: '%s' is not collected here",
                            metric);
            return false;
        }
    }
    const char *rows = web_param_get(rq, "rows");
    if (rows) {
        char *e;
        long v = strtol(rows, &e, 10);
        if (*rows == '\0' || *e || v < 1 || v > HEATMAP_MAX_ROWS) {
            web_reply_error(rp, 400, "bad rows: '%s' (1 to %d)", rows,
                            HEATMAP_MAX_ROWS);
            return false;
        }
        sel->rows = (int)v;
    }
    if (!parse_window(web_param_get(rq, start_name),
                      web_param_get(rq, end_name), start_name, end_name, sel,
                      rp))
        return false;
    stackfilter_spec spec;
    memset(&spec, 0, sizeof spec);
    static const char *const res[] = { "focus", "ignore", "hide", "show" };
    const char **slot[] = { &spec.focus, &spec.ignore, &spec.hide, &spec.show };
    for (int i = 0; i < 4; i++) {
        const char *v = web_param_get(rq, res[i]);
        *slot[i] = v && *v ? v : NULL;
    }
    if (!parse_ids(rq, "pid", spec.pids, &spec.npids, rp)
        || !parse_ids(rq, "tid", spec.tids, &spec.ntids, rp)
        || !parse_names(rq, "comm", spec.comms, &spec.ncomms, rp)
        || !parse_names(rq, "host", spec.hosts, &spec.nhosts, rp)
        || !parse_states(rq, &spec.states, rp))
        return false;
    strbuf err = STRBUF_INIT;
    sel->filter = stackfilter_new(&spec, &err);
    if (sel->filter == NULL) {
        /* the rule's words name the option: here it is the parameter */
        const char *why = err.buf;
        if (strncmp(why, "--only-", 7) == 0)
            why += 7;
        else if (strncmp(why, "--", 2) == 0)
            why += 2;
        web_reply_error(rp, 400, "%s", why);
        sb_free(&err);
        return false;
    }
    sb_free(&err);
    if (stackfilter_empty(sel->filter)) {
        stackfilter_free(sel->filter);
        sel->filter = NULL;
    }
    return true;
}

void web_sel_free(web_sel *sel)
{
    stackfilter_free(sel->filter);
    sel->filter = NULL;
}

/* hotcold=1: the collector's stacks, as flame --hotcold draws them */
static void replay_hotcold(hotcold *hc, stack_sink *sink, int col)
{
    stacktab *t = stacktab_new();
    hotcold_fill(hc, t);
    for (size_t i = 0; i < stacktab_size(t); i++) {
        const stack_entry *e = stacktab_entry(t, i);
        stack_sink_add(sink, e->stack, e->len, e->count[0], col);
    }
    stacktab_free(t);
}

void web_sel_replay(const web_profile *p, const web_sel *sel,
                    stack_sink *sink, int col)
{
    strbuf kept = STRBUF_INIT, framed = STRBUF_INIT;
    hotcold *hc = sel->hotcold
                ? hotcold_new(1e9 / (double)(p->hotcold_hz > 0 ? p->hotcold_hz : 99))
                : NULL;
    bool windowed = sel->lo_ns != INT64_MIN || sel->hi_ns != INT64_MAX;
    web_store *st = sel->store ? sel->store : p->store;
    store_lock(st);
    size_t n = store_count(st);
    for (size_t i = 0; i < n; i++) {
        store_sample s;
        store_get(st, i, &s);
        /* a file's sample has no time: in every window, as `fold -a -S
         * -T FILE` keeps a file's stacks */
        if (windowed && s.t_ns != STACK_TIME_UNKNOWN
            && !pcp_window_holds(sel->lo_ns, sel->hi_ns, s.t_ns))
            continue;
        stack_context ctx = {
            .comm = s.comm, .comm_len = s.comm ? strlen(s.comm) : 0,
            .pid = s.pid, .tid = s.tid, .host = s.host, .state = s.state,
            .time_ns = s.t_ns, .samples = -1,
            /* a block's time: its unit for pprof, its part for hot/cold */
            .weight_type = s.timed ? STACK_TIME_WEIGHT_TYPE : NULL,
            .weight_unit = s.timed ? STACK_TIME_WEIGHT_UNIT : NULL,
        };
        const char *stack = s.stack;
        size_t len = s.len;
        if (sel->by_host && s.host) {
            /* fold --by-host's stack: a sample without a host (a
             * file's) has no host frame there either */
            sb_reset(&framed);
            pcp_host_frame(&framed, s.host);
            sb_add(&framed, s.stack, s.len);
            stack = framed.buf;
            len = framed.len;
        }
        if (sel->filter) {
            if (!stackfilter_apply(sel->filter, stack, len, &ctx, &kept))
                continue;
            stack = kept.buf;
            len = kept.len;
        }
        if (hc)
            hotcold_observe(hc, stack, len, s.weight, col, s.t_ns, &ctx);
        else
            stack_sink_add_ctx(sink, stack, len, s.weight, col, s.t_ns, &ctx);
    }
    store_unlock(st);
    if (hc) {
        replay_hotcold(hc, sink, col);
        hotcold_free(hc);
    }
    sb_free(&kept);
    sb_free(&framed);
}

/* ---- writing into a reply ------------------------------------------------------ */
typedef int (*write_fn)(FILE *out, void *arg);

/* What a command's writer prints, as the reply's body. */
static int reply_write(web_reply *rp, write_fn fn, void *arg)
{
    char *buf = NULL;
    size_t n = 0;
    FILE *mem = open_memstream(&buf, &n);
    if (mem == NULL) {
        web_reply_error(rp, 500, "out of memory");
        return -1;
    }
    int rc = fn(mem, arg);
    if (fclose(mem) != 0)
        rc = -1;
    if (rc == 0)
        sb_add(&rp->body, buf, n);
    else
        web_reply_error(rp, 500, "could not write the reply");
    free(buf);
    return rc;
}

/* The selection's samples in a stack table (column col); the sink's
 * observers as given. */
static stacktab *select_into(const web_profile *p, const web_sel *sel,
                             stack_sample_fn obs, void *obs_arg,
                             stack_detail_fn det, void *det_arg)
{
    stacktab *tab = stacktab_new();
    stack_sink sink;
    stack_sink_init(&sink, tab, 0, false);
    stack_sink_observe(&sink, obs, obs_arg);
    stack_sink_observe_detail(&sink, det, det_arg);
    web_sel_replay(p, sel, &sink, 0);
    stack_sink_free(&sink);
    return tab;
}

static bool flag(const web_request *rq, const char *name, bool *v,
                 web_reply *rp)
{
    const char *s = web_param_get(rq, name);
    if (s == NULL)
        return true;
    if (strcmp(s, "1") == 0 || strcmp(s, "true") == 0 || *s == '\0')
        *v = true;
    else if (strcmp(s, "0") == 0 || strcmp(s, "false") == 0)
        *v = false;
    else {
        web_reply_error(rp, 400, "bad %s: '%s' (1 or 0)", name, s);
        return false;
    }
    return true;
}

/* ---- /api/info ------------------------------------------------------------------- */
static void json_str(strbuf *sb, const char *s)
{
    sb_addc(sb, '"');
    json_escape(sb, s, strlen(s));
    sb_addc(sb, '"');
}

static void json_list(strbuf *sb, const char *name, const char *const *v,
                      int n)
{
    sb_printf(sb, ",\"%s\":[", name);
    for (int i = 0; i < n; i++) {
        if (i)
            sb_addc(sb, ',');
        json_str(sb, v[i]);
    }
    sb_addc(sb, ']');
}

void api_info(void *arg, const web_request *rq, web_reply *rp)
{
    (void)rq;
    web_profile *p = arg;
    const cmd_opts *o = p->o;
    store_info si;
    store_get_info(p->store, &si);
    strbuf *sb = &rp->body;
    rp->content_type = "application/json";
    sb_adds(sb, "{\"version\":1");
    json_list(sb, "pmcds", o->pcp.hosts, o->pcp.nhosts);
    json_list(sb, "archives", o->pcp.archives, o->pcp.narchives);
    json_list(sb, "files", (const char *const *)o->files, o->nfiles);
    json_list(sb, "metrics", o->pcp.metrics, o->pcp.nmetrics);
    sb_adds(sb, ",\"series\":");
    if (o->pcp.series)
        json_str(sb, o->pcp.series);
    else
        sb_adds(sb, "null");
    sb_adds(sb, ",\"run\":");
    if (o->pcp.run)
        json_str(sb, o->pcp.run);
    else
        sb_adds(sb, "null");
    const char *hosts[STORE_MAX_HOSTS];
    for (int i = 0; i < si.nhosts; i++)
        hosts[i] = si.hosts[i];
    json_list(sb, "hosts", hosts, si.nhosts);
    sb_printf(sb, ",\"first_ns\":%" PRId64 ",\"last_ns\":%" PRId64,
              si.first_ns == STACK_TIME_UNKNOWN ? 0 : si.first_ns,
              si.last_ns == STACK_TIME_UNKNOWN ? 0 : si.last_ns);
    sb_printf(sb, ",\"window_minutes\":%ld,\"rows\":%d", o->pcp.nhosts
              ? o->window_min : 0L, o->rows);
    sb_printf(sb, ",\"samples\":%zu,\"max_samples\":%zu,\"added\":%" PRIu64
              ",\"dropped\":%" PRIu64 ",\"pruned\":%" PRIu64
              ",\"strings\":%zu,\"memory_bytes\":%zu", si.samples,
              si.max_samples, si.added, si.dropped, si.pruned, si.strings,
              si.bytes);
    sb_adds(sb, ",\"count\":");
    json_str(sb, inout_count_name(o, si.timed));
    sb_printf(sb, ",\"allow_runs\":%s", o->allow_runs ? "true" : "false");
    sb_printf(sb, ",\"hotcold_hz\":%ld,\"hotcold_hz_from\":", p->hotcold_hz);
    json_str(sb, p->hotcold_from ? p->hotcold_from : "--hz's default");
    sb_printf(sb, ",\"by_host\":%s", p->by_host ? "true" : "false");
    if (p->h) {
        httpd_stats hs;
        httpd_get_stats(p->h, &hs);
        sb_printf(sb, ",\"http\":{\"requests\":%" PRIu64 ",\"refused\":%"
                  PRIu64 ",\"sse_clients\":%" PRIu64 ",\"sse_dropped\":%"
                  PRIu64 ",\"sse_queued\":%" PRIu64 "}", hs.requests,
                  hs.refused, hs.sse_clients, hs.sse_dropped, hs.sse_queued);
    }
    if (p->coll) {
        sb_addc(sb, ',');
        collect_info_json(p->coll, sb);
    } else {
        sb_adds(sb, ",\"live\":false,\"collecting\":false,\"rounds\":0,"
                "\"gaps\":[],\"notices\":[]");
    }
    sb_adds(sb, "}\n");
}

/* ---- /api/folded ------------------------------------------------------------------ */
static int write_folded(FILE *out, void *arg)
{
    return folded_write(out, arg, stacktab_has_col1(arg));
}

void api_folded(void *arg, const web_request *rq, web_reply *rp)
{
    web_profile *p = arg;
    web_sel sel;
    if (!web_sel_parse(p, rq, "start", "end", &sel, rp))
        return;
    stacktab *tab = select_into(p, &sel, NULL, NULL, NULL, NULL);
    rp->content_type = "text/plain; charset=utf-8";
    reply_write(rp, write_folded, tab);
    stacktab_free(tab);
    web_sel_free(&sel);
}

/* ---- /api/heatmap ----------------------------------------------------------------- */
/* cmd_heatmap's rule: a record weighs the samples it stands for */
static void heat_observe(void *arg, size_t entry, int col, double weight,
                         int64_t when_ns)
{
    (void)col;
    heatmap *h = arg;
    if (when_ns == STACK_TIME_UNKNOWN)
        heatmap_add_untimed(h);
    else
        heatmap_add_weighted(h, entry, heatmap_floor_div(when_ns, 1000),
                             weight);
}

static int write_heatmap(FILE *out, void *arg)
{
    return heatmap_write_json(out, arg) < 0 ? -1 : 0;
}

void api_heatmap(void *arg, const web_request *rq, web_reply *rp)
{
    web_profile *p = arg;
    web_sel sel;
    if (!web_sel_parse(p, rq, "start", "end", &sel, rp))
        return;
    sel.hotcold = false;    /* hot/cold has no times: cells are the samples' */
    heatmap *h = heatmap_new(p->o->keep_idle);
    stack_sink sink;
    stack_sink_init(&sink, h->tab, 0, false);
    stack_sink_observe(&sink, heat_observe, h);
    web_sel_replay(p, &sel, &sink, 0);
    stack_sink_free(&sink);
    rp->content_type = "application/json";
    strbuf err = STRBUF_INIT;
    if (h->n == 0) {
        /* nothing timed in the selection: an empty grid, not an error */
        sb_printf(&rp->body, "{\"rows\": [], \"columns\": [], \"values\": [], "
                  "\"maxvalue\": 0, \"empty\": \"no samples with times in "
                  "the selection\"}\n");
    } else if (heatmap_grid(h, sel.rows, &err) < 0) {
        web_reply_error(rp, 400, "%s", err.buf);
    } else {
        reply_write(rp, write_heatmap, h);
    }
    sb_free(&err);
    heatmap_free(h);
    web_sel_free(&sel);
}

/* ---- /api/flame.svg, /api/diff.svg -------------------------------------------------- */
typedef struct svg_job {
    const flametree   *t;
    const svg_options *svg;
} svg_job;

static int write_svg(FILE *out, void *arg)
{
    svg_job *j = arg;
    return flamesvg_write(out, j->t, j->svg) < 0 ? -1 : 0;
}

/* The SVG options of the command line, then the request's. */
static bool svg_params(const web_profile *p, const web_request *rq,
                       svg_options *svg, bool *reverse, web_reply *rp)
{
    *svg = p->o->svg;
    svg->cp = false;            /* never a palette.map written per request */
    svg->pmap = NULL;
    *reverse = p->o->reverse;
    if (!flag(rq, "inverted", &svg->inverted, rp)
        || !flag(rq, "reverse", reverse, rp)
        || !flag(rq, "hash", &svg->hash, rp))
        return false;
    const char *title = web_param_get(rq, "title");
    if (title && *title)
        svg->title = title;
    const char *width = web_param_get(rq, "width");
    if (width) {
        char *e;
        double w = strtod(width, &e);
        if (*width == '\0' || *e || !(w >= 100 && w <= 100000)) {
            web_reply_error(rp, 400, "bad width: '%s' (100 to 100000 pixels)",
                            width);
            return false;
        }
        svg->width = w;
    }
    return true;
}

/* The flame graph (mode FT_SINGLE) or differential (FT_DIFF) of tab as
 * the commands draw it, as an SVG download named filename. */
static void reply_flame(const web_profile *p, web_reply *rp, const stacktab *tab,
                        svg_options *svg, ft_mode mode, bool reverse,
                        const char *filename)
{
    ft_options fo = { .mode = mode, .reverse = reverse,
                      .sort_weight = p->o->sort_weight };
    flamesvg_tree_options(svg, &fo);
    flametree *t = flametree_build(tab, &fo);
    svg_job j = { t, svg };
    rp->content_type = "image/svg+xml";
    rp->filename = filename;
    reply_write(rp, write_svg, &j);
    flametree_free(t);
}

void api_flame_svg(void *arg, const web_request *rq, web_reply *rp)
{
    web_profile *p = arg;
    web_sel sel;
    svg_options svg;
    bool reverse;
    if (!svg_params(p, rq, &svg, &reverse, rp)
        || !web_sel_parse(p, rq, "start", "end", &sel, rp))
        return;
    svg.countname = sel.countname;
    if (sel.hotcold && svg.colors == PAL_HOT)   /* flame --hotcold's rule */
        svg.colors = PAL_HOTCOLD;
    stacktab *tab = select_into(p, &sel, NULL, NULL, NULL, NULL);
    reply_flame(p, rp, tab, &svg, FT_SINGLE, reverse, "flame.svg");
    stacktab_free(tab);
    web_sel_free(&sel);
}

void api_diff_svg(void *arg, const web_request *rq, web_reply *rp)
{
    web_profile *p = arg;
    web_sel after, before;
    svg_options svg;
    bool reverse, absolute = p->o->absolute;
    if (!svg_params(p, rq, &svg, &reverse, rp)
        || !flag(rq, "absolute", &absolute, rp))
        return;
    if (web_param_get(rq, "base_start") == NULL
        && web_param_get(rq, "base_end") == NULL) {
        web_reply_error(rp, 400, "diff needs a baseline: base_start and/or "
                        "base_end");
        return;
    }
    if (!web_sel_parse(p, rq, "start", "end", &after, rp))
        return;
    if (!web_sel_parse(p, rq, "base_start", "base_end", &before, rp)) {
        web_sel_free(&after);
        return;
    }
    svg.countname = after.countname;
    stacktab *tab = stacktab_new();
    stack_sink sink;
    stack_sink_init(&sink, tab, 0, false);
    web_sel_replay(p, &before, &sink, 0);
    web_sel_replay(p, &after, &sink, 1);
    stack_sink_free(&sink);
    double t0 = stacktab_total(tab, 0), t1 = stacktab_total(tab, 1);
    if (t0 <= 0 || t1 <= 0) {
        web_reply_error(rp, 400, "%s window has no stack samples",
                        t0 <= 0 ? "the baseline (base_start..base_end)"
                                : "the selected (start..end)");
    } else {
        /* diff's rules: shares compared unless absolute=1, and its
         * subtitle saying which */
        bool scaled = !absolute && stacktab_normalize(tab);
        char note[900];
        flamesvg_diff_note(note, sizeof note, svg.subtitle, svg.countname,
                        scaled, absolute, t0, t1);
        svg.subtitle = note;
        if (svg.title == NULL)
            svg.title = "Differential Flame Graph";
        reply_flame(p, rp, tab, &svg, FT_DIFF, reverse, "diff.svg");
    }
    stacktab_free(tab);
    web_sel_free(&after);
    web_sel_free(&before);
}

/* ---- /api/pprof, /api/speedscope ------------------------------------------------------ */
typedef struct pprof_job {
    pprof_builder *b;
    strbuf         notes;
} pprof_job;

static int write_pprof(FILE *out, void *arg)
{
    pprof_job *j = arg;
    return pprof_builder_write(j->b, out, "staprelay web", &j->notes);
}

void api_pprof(void *arg, const web_request *rq, web_reply *rp)
{
    web_profile *p = arg;
    web_sel sel;
    bool times = false;
    if (!flag(rq, "sample_times", &times, rp)
        || !web_sel_parse(p, rq, "start", "end", &sel, rp))
        return;
    pprof_job j = { pprof_builder_new(times), STRBUF_INIT };
    stacktab *tab = select_into(p, &sel, NULL, NULL, pprof_builder_observe,
                                j.b);
    rp->content_type = "application/octet-stream";
    rp->filename = "profile.pb.gz";
    reply_write(rp, write_pprof, &j);
    pprof_builder_free(j.b);
    sb_free(&j.notes);
    stacktab_free(tab);
    web_sel_free(&sel);
}

typedef struct ss_job {
    stacktab            *tab;
    speedscope_timeline *tl;
    const char          *unit;
} ss_job;

static int write_speedscope(FILE *out, void *arg)
{
    ss_job *j = arg;
    return speedscope_write(out, j->tab, 0, "staprelay web", j->unit, j->tl);
}

void api_speedscope(void *arg, const web_request *rq, web_reply *rp)
{
    web_profile *p = arg;
    web_sel sel;
    if (!web_sel_parse(p, rq, "start", "end", &sel, rp))
        return;
    speedscope_timeline tl = { 0 };
    stacktab *tab = select_into(p, &sel, speedscope_timeline_observe, &tl,
                                NULL, NULL);
    ss_job j = { tab, &tl, speedscope_unit(sel.countname) };
    rp->content_type = "application/json";
    rp->filename = "profile.speedscope.json";
    reply_write(rp, write_speedscope, &j);
    speedscope_timeline_free(&tl);
    stacktab_free(tab);
    web_sel_free(&sel);
}

/* ---- /api/top --------------------------------------------------------------------------- */
typedef struct top_job {
    top_result *r;
    size_t      limit;
    const char *countname, *by;
} top_job;

static int write_top(FILE *out, void *arg)
{
    top_job *j = arg;
    return top_write_json(out, j->r, j->limit, j->countname, j->by);
}

void api_top(void *arg, const web_request *rq, web_reply *rp)
{
    web_profile *p = arg;
    const char *by = web_param_get(rq, "by");
    if (by == NULL)
        by = "self";
    if (strcmp(by, "self") != 0 && strcmp(by, "total") != 0) {
        web_reply_error(rp, 400, "bad by: '%s' (self or total)", by);
        return;
    }
    size_t limit = 0;
    const char *lim = web_param_get(rq, "limit");
    if (lim) {
        char *e;
        long v = strtol(lim, &e, 10);
        if (*lim == '\0' || *e || v < 0) {
            web_reply_error(rp, 400, "bad limit: '%s' (0: all)", lim);
            return;
        }
        limit = (size_t)v;
    }
    web_sel sel;
    if (!web_sel_parse(p, rq, "start", "end", &sel, rp))
        return;
    stacktab *tab = select_into(p, &sel, NULL, NULL, NULL, NULL);
    top_result *r = top_compute(tab, 0);
    top_sort(r, strcmp(by, "total") == 0);
    top_job j = { r, limit, sel.countname, by };
    rp->content_type = "application/json";
    reply_write(rp, write_top, &j);
    top_free(r);
    stacktab_free(tab);
    web_sel_free(&sel);
}

/* ---- /api/graph.dot, /api/graph.svg ------------------------------------------ */
/* `staprelay graph` of the selection: its DOT text, or the SVG Graphviz
 * draws of it (dot on PATH; 502 with the reason when it is missing or
 * fails).  pprof's cut-offs are the command's defaults, or
 * nodecount=N&nodefraction=F&edgefraction=F. */
static bool cutoffs(const web_request *rq, cg_options *co, web_reply *rp)
{
    static const char *const names[] = { "nodefraction", "edgefraction" };
    double *vals[] = { &co->nodefraction, &co->edgefraction };
    for (int i = 0; i < 2; i++) {
        const char *v = web_param_get(rq, names[i]);
        if (v == NULL)
            continue;
        char *e;
        double d = strtod(v, &e);
        if (*v == '\0' || *e || !(d >= 0 && d <= 1)) {
            web_reply_error(rp, 400, "bad %s: '%s' (0 to 1)", names[i], v);
            return false;
        }
        *vals[i] = d;
    }
    const char *n = web_param_get(rq, "nodecount");
    if (n != NULL) {
        char *e;
        long v = strtol(n, &e, 10);
        if (*n == '\0' || *e || v < 0 || v > 1000000) {
            web_reply_error(rp, 400, "bad nodecount: '%s' (0 to 1000000)", n);
            return false;
        }
        co->nodecount = v;
    }
    return true;
}

static void graph_reply(web_profile *p, const web_request *rq, web_reply *rp,
                        bool svg)
{
    cg_options co = CG_DEFAULT_OPTIONS;    /* the command's defaults: pprof's */
    web_sel sel;
    if (!cutoffs(rq, &co, rp) || !web_sel_parse(p, rq, "start", "end", &sel, rp))
        return;
    stacktab *tab = select_into(p, &sel, NULL, NULL, NULL, NULL);
    strbuf dot = STRBUF_INIT;
    callgraph_dot_of(&dot, tab, 0, &co, sel.countname);
    if (!svg) {
        rp->content_type = "text/vnd.graphviz";
        sb_add(&rp->body, dot.buf, dot.len);
    } else {
        /* dot writes to a file descriptor: an unlinked temporary file,
         * read back whole (a memory stream has none) */
        FILE *out = tmpfile();
        strbuf err = STRBUF_INIT;
        if (out == NULL) {
            web_reply_error(rp, 500, "no temporary file for the call graph: %s",
                            strerror(errno));
        } else if (callgraph_svg(&dot, out, CALLGRAPH_DOT_TIMEOUT_S, &err) < 0) {
            web_reply_error(rp, 502, "the call graph needs Graphviz: %s", err.buf);
        } else {
            char buf[65536];
            size_t n;
            rewind(out);
            while ((n = fread(buf, 1, sizeof buf, out)) > 0)
                sb_add(&rp->body, buf, n);
            rp->content_type = "image/svg+xml";
        }
        if (out)
            fclose(out);
        sb_free(&err);
    }
    sb_free(&dot);
    stacktab_free(tab);
    web_sel_free(&sel);
}

void api_graph_dot(void *arg, const web_request *rq, web_reply *rp)
{
    graph_reply(arg, rq, rp, false);
}

void api_graph_svg(void *arg, const web_request *rq, web_reply *rp)
{
    graph_reply(arg, rq, rp, true);
}

/* ---- /api/annotate ---------------------------------------------------------------- */
/* The store keeps folded stacks, not the frames as read (module and
 * address): annotate's input is re-read from the files given to web,
 * and the selection applied to each sample as the store's replay does
 * (the window; the filters, a reshaped stack losing its frames as
 * stack_sink's rule has it). */
typedef struct ann_job {
    annotate      *a;
    const web_sel *sel;
    strbuf         kept;
} ann_job;

static void ann_observe(void *arg, const char *stack, size_t len,
                        double weight, int col, int64_t when_ns,
                        const stack_context *ctx)
{
    ann_job *j = arg;
    const web_sel *sel = j->sel;
    if ((sel->lo_ns != INT64_MIN || sel->hi_ns != INT64_MAX)
        && when_ns != STACK_TIME_UNKNOWN
        && !pcp_window_holds(sel->lo_ns, sel->hi_ns, when_ns))
        return;
    stack_context bare;
    if (sel->filter) {
        if (!stackfilter_apply(sel->filter, stack, len, ctx, &j->kept))
            return;
        if (j->kept.len != len && ctx && ctx->frames) {
            bare = *ctx;
            bare.frames = NULL;
            ctx = &bare;
        }
        stack = j->kept.buf;
        len = j->kept.len;
    }
    annotate_observe(j->a, stack, len, weight, col, when_ns, ctx);
}

void api_annotate(void *arg, const web_request *rq, web_reply *rp)
{
    web_profile *p = arg;
    const cmd_opts *o = p->o;
    const char *fn = web_param_get(rq, "function");
    if (fn == NULL || *fn == '\0') {
        web_reply_error(rp, 400, "annotate needs function= (a regular "
                        "expression, as `staprelay annotate` takes)");
        return;
    }
    {   /* the filters' rule for hostile patterns (stackfilter.h) */
        stackfilter_spec spec;
        memset(&spec, 0, sizeof spec);
        spec.focus = fn;
        strbuf why = STRBUF_INIT;
        stackfilter *check = stackfilter_new(&spec, &why);
        if (check == NULL) {
            const char *w = strncmp(why.buf, "--focus", 7) == 0 ? why.buf + 7
                            : why.buf;
            while (*w == ':' || *w == ' ')
                w++;
            web_reply_error(rp, 400, "bad function: %s", w);
            sb_free(&why);
            return;
        }
        stackfilter_free(check);
        sb_free(&why);
    }
    if (o->nfiles == 0) {
        web_reply_error(rp, 404, "no source lines: annotate reads perf "
                        "script or SystemTap input files (staprelay web "
                        "FILE...), and none was given");
        return;
    }
    web_sel sel;
    if (!web_sel_parse(p, rq, "start", "end", &sel, rp))
        return;
    char *warn = NULL;
    size_t nwarn = 0;
    FILE *wf = open_memstream(&warn, &nwarn);
    annotate *a = wf ? annotate_new(fn, "staprelay web", wf) : NULL;
    if (a == NULL) {
        if (wf)
            web_reply_error(rp, 400, "bad function: '%s' (a POSIX extended "
                            "regular expression)", fn);
        else
            web_reply_error(rp, 500, "out of memory");
        if (wf)
            fclose(wf);
        free(warn);
        web_sel_free(&sel);
        return;
    }
    ann_job j = { a, &sel, STRBUF_INIT };
    input_options in = o->in;        /* web's own filters: where read */
    in.col = 0;
    in.on_detail = ann_observe;
    in.on_detail_arg = &j;
    strbuf err = STRBUF_INIT;
    int failed = 0;
    for (int i = 0; i < o->nfiles; i++) {
        stacktab *tab = stacktab_new();
        input_stats st;
        memset(&st, 0, sizeof st);
        sb_reset(&err);
        if (input_read_path(o->files[i], &in, tab, &st, &err) != 0)
            failed++;
        stacktab_free(tab);
    }
    if (!annotate_found(a)) {
        strbuf why = STRBUF_INIT;
        annotate_none(a, fn, &why);
        web_reply_error(rp, 404, "%s%s%s", why.buf, failed ? ": " : "",
                        failed ? err.buf : "");
        sb_free(&why);
    } else {
        /* annotate's stdout is the body; its warnings (a binary or
         * line table missing) go with a 404 when no routine could be
         * shown */
        char *buf = NULL;
        size_t n = 0;
        FILE *mem = open_memstream(&buf, &n);
        int shown = mem ? annotate_print(mem, a) : -1;
        if (mem)
            fclose(mem);
        fflush(wf);
        if (shown == 0) {
            rp->content_type = "text/plain; charset=utf-8";
            sb_add(&rp->body, buf, n);
        } else if (shown > 0) {
            web_reply_error(rp, 404, "no source lines for '%s': %.*s", fn,
                            (int)(nwarn && warn[nwarn - 1] == '\n' ? nwarn - 1
                                  : nwarn), warn ? warn : "");
        } else {
            web_reply_error(rp, 500, "out of memory");
        }
        free(buf);
    }
    sb_free(&err);
    sb_free(&j.kept);
    annotate_free(a);
    fclose(wf);
    free(warn);
    web_sel_free(&sel);
}

void api_profile_routes(httpd *h, web_profile *p)
{
    httpd_route(h, "/api/annotate", false, api_annotate, p);
    httpd_route(h, "/api/info", false, api_info, p);
    httpd_route(h, "/api/folded", false, api_folded, p);
    httpd_route(h, "/api/heatmap", false, api_heatmap, p);
    httpd_route(h, "/api/flame.svg", false, api_flame_svg, p);
    httpd_route(h, "/api/diff.svg", false, api_diff_svg, p);
    httpd_route(h, "/api/pprof", false, api_pprof, p);
    httpd_route(h, "/api/speedscope", false, api_speedscope, p);
    httpd_route(h, "/api/top", false, api_top, p);
    httpd_route(h, "/api/graph.dot", false, api_graph_dot, p);
    httpd_route(h, "/api/graph.svg", false, api_graph_svg, p);
}
