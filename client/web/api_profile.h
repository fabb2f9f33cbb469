/* api_profile: staprelay web's profile endpoints (docs/web.md): the
 * samples of a selection rendered by the commands' own writers, so an
 * API call gives what the command prints for the same input, window and
 * options:
 *   /api/info       JSON: inputs, hosts, metrics, times and counts held,
 *                   drops, gaps, notices
 *   /api/folded     `staprelay fold` (folded_write)
 *   /api/heatmap    `staprelay heatmap --format json` (heatmap_write_json)
 *   /api/flame.svg  `staprelay flame` (flamesvg; inverted=1: an icicle)
 *   /api/diff.svg   `staprelay diff` of base_start..base_end (BEFORE)
 *                   against start..end (AFTER), normalised unless
 *                   absolute=1
 *   /api/pprof, /api/speedscope   `fold --format pprof|speedscope`
 *   /api/top        JSON rows {name, self, total} (stack/top)
 *
 * A selection (web_sel) is the page's URL parameters: metric, host,
 * start/end (epoch seconds, or PCP time syntax read against the samples
 * held: pcp_window_parse, the rule of `fold -a -S/-T`), focus, ignore,
 * hide, show, pid, tid, comm (stack/stackfilter), rows, by_host (the
 * sample's host as the root frame: `fold --by-host`, pcp_host_frame's
 * rule, before the filters see the stack, as in fold).  The selected
 * samples are replayed, in arrival order, into a stack_sink as an input
 * would deliver them, and the command's writer does the rest.
 *
 * Handlers are plain functions of (arg, request, reply), arg being the
 * web_profile: the unit tests call them directly. */
#ifndef STAPRELAY_WEB_API_PROFILE_H
#define STAPRELAY_WEB_API_PROFILE_H

#include <stdbool.h>
#include <stdint.h>
#include "client/cmd/options.h"
#include "client/stack/stackfilter.h"
#include "client/stack/stacksink.h"
#include "client/web/collect.h"
#include "client/web/httpd.h"
#include "client/web/runs.h"
#include "client/web/store.h"

typedef struct web_profile {
    cmd_opts   *o;          /* the command's options: inputs, SVG, rows */
    web_store  *store;
    collector  *coll;       /* NULL: no collector (tests) */
    httpd      *h;          /* NULL: no HTTP server (tests) */
    bool        by_host;    /* by_host's default (web --by-host) */
    web_runs   *runs;       /* the runs followed; NULL: none (tests) */
    long        hotcold_hz; /* hotcold=1: an on-CPU sample is 1/hz s */
    const char *hotcold_from; /* which rule of inout_hotcold_hz said so
                               * (static; NULL: none asked, the default) */
} web_profile;

/* A parsed selection. */
typedef struct web_sel {
    int64_t      lo_ns, hi_ns;   /* pcp_window_holds; INT64_MIN/MAX: open */
    stackfilter *filter;         /* NULL: nothing filtered */
    int          rows;           /* heat map rows */
    bool         by_host;        /* by_host=1: the host as the root frame */
    web_store   *store;          /* run=NAME: that run's; else p->store */
    const char  *countname;      /* "samples", "ns" (inout_count_name) */
    bool         hotcold;        /* hotcold=1: flame --hotcold's stacks */
} web_sel;

/* Parse the selection parameters of rq, named with prefix ("" or
 * "base_" for start/end; the filters are shared).  false after
 * web_reply_error(rp, 400, reason). */
bool web_sel_parse(const web_profile *p, const web_request *rq,
                   const char *start_name, const char *end_name,
                   web_sel *sel, web_reply *rp);
void web_sel_free(web_sel *sel);
/* Deliver the selected samples to sink (column col), in arrival order,
 * with their times and contexts; with sel->hotcold, the hot/cold graph's
 * stacks of them instead (stack/hotcold: under oncpu/offcpu, each thread
 * scaled to at most the selection's window, without times). */
void web_sel_replay(const web_profile *p, const web_sel *sel,
                    stack_sink *sink, int col);

void api_info(void *arg, const web_request *rq, web_reply *rp);
void api_folded(void *arg, const web_request *rq, web_reply *rp);
void api_heatmap(void *arg, const web_request *rq, web_reply *rp);
void api_flame_svg(void *arg, const web_request *rq, web_reply *rp);
void api_diff_svg(void *arg, const web_request *rq, web_reply *rp);
void api_pprof(void *arg, const web_request *rq, web_reply *rp);
void api_speedscope(void *arg, const web_request *rq, web_reply *rp);
void api_top(void *arg, const web_request *rq, web_reply *rp);
/* `staprelay graph --format dot` / its SVG (Graphviz) of the selection. */
void api_graph_dot(void *arg, const web_request *rq, web_reply *rp);
void api_graph_svg(void *arg, const web_request *rq, web_reply *rp);
/* /api/annotate?function=REGEX&SEL: `staprelay annotate REGEX FILE...`
 * of the files given to web (re-read: the store keeps no addresses),
 * the selection's window and filters applied to each sample */
void api_annotate(void *arg, const web_request *rq, web_reply *rp);

/* Register every route above on h with p as the handlers' argument. */
void api_profile_routes(httpd *h, web_profile *p);

#endif
