/* api_metrics: staprelay web's PCP metric endpoints (docs/web.md) --
 * any numeric PCP metric on the samples' clock, and on-demand runs:
 *
 *   GET  /api/pmns?prefix=P[&host=H]   the numeric metrics below P (the
 *        live host's PMNS, or the archive's with -a): name, type,
 *        semantics, units, instance names.  At most WEB_PMNS_MAX metrics
 *        and WEB_PMNS_MAX_INST instances each ("truncated" says so).
 *   GET  /api/values?metric=M[&host=H][&start=&end=]   M's values, per
 *        instance, counters as rates per second; timestamps ("t_ms") in
 *        epoch milliseconds (the JavaScript Date unit, microseconds in
 *        the fraction), the clock of the samples' "*_ns" (pmcd's
 *        timestamps).  Live: the first request for M starts watching it
 *        (fetched every interval by this module's own thread and PCP
 *        contexts), later ones get the last window_min minutes held; a
 *        metric nobody asked for in WEB_VALUES_IDLE_S is dropped, and
 *        when WEB_VALUES_MAX are watched one nobody asked for in
 *        WEB_VALUES_STALE_S makes room (the page asks for its charts'
 *        metrics every second or so).
 *        Archives: read from the archive over [start, end].
 *   POST /api/run   (allow_runs only, else 403) body
 *        script=SCRIPT&seconds=DURATION[&hz=N][&pid=N][&host=H]: the
 *        request "SCRIPT duration=DURATION ..." stored into
 *        staprelay.control.run of the live host (docs/runs.md; validated
 *        by the rules the PMDA applies: run_name_ok, common/duration,
 *        common/script_opts), then control.run fetched in the same
 *        context: the PMDA's answer to this store ("accepted: NAME" or
 *        "refused: REASON") and the run's name.
 *
 * Refusals: a missing or malformed parameter is 400; an unknown host
 * or metric 404; a non-numeric metric 400; a pmcd that cannot be
 * reached 502; each with the reason as the body (text/plain).
 *
 * Memory: at most WEB_VALUES_MAX watched metrics, each a ring of at most
 * WEB_VALUES_MAX_POINTS fetches (window_min minutes of -t intervals) of
 * WEB_VALUES_MAX_INST instances: 16 x 3600 x 32 doubles, under 16 MiB
 * however long the page stays open.  An archive answer holds at most
 * WEB_ARCHIVE_MAX_POINTS points (then "truncated").
 *
 * Threads: handlers run in libmicrohttpd's threads, the fetch loop in
 * its own; each source's query context is used under its lock, the
 * fetch thread has contexts of its own, the watched table has a lock of
 * its own (never held across a PCP call). */
#ifndef STAPRELAY_WEB_API_METRICS_H
#define STAPRELAY_WEB_API_METRICS_H

#include <stdbool.h>
#include "client/input/pcp_input.h"
#include "client/web/httpd.h"
#include "common/strbuf.h"

#define WEB_PMNS_MAX           500
#define WEB_PMNS_MAX_INST      64
#define WEB_PMNS_MAX_NAMES     20000   /* names walked before giving up */
#define WEB_VALUES_MAX         16
#define WEB_VALUES_MAX_INST    32
#define WEB_VALUES_MAX_POINTS  3600
#define WEB_VALUES_IDLE_S      120
#define WEB_VALUES_STALE_S     10
#define WEB_ARCHIVE_MAX_POINTS 20000

typedef struct web_metrics web_metrics;

/* Sources from po (-h hosts live, else -a archives and farms; none: the
 * handlers say there is no PCP source); interval_s
 * the live fetch interval (-t, 1 s by default), window_min the minutes
 * of values kept.  Connects lazily: a pmcd that is down is a 502 until
 * it is back.  Starts the fetch thread when live.  NULL with err. */
web_metrics *web_metrics_new(const pcp_options *po, double interval_s,
                             long window_min, bool allow_runs, strbuf *err);
/* Register /api/pmns, /api/values and /api/run (POST) on h. */
void web_metrics_routes(web_metrics *m, httpd *h);
/* A run the PMDA accepted (POST /api/run): fn(arg, the -h spec, its
 * name), from the handler's thread, before the reply (staprelay web
 * follows it: web/runs).  Call before httpd_run(). */
void web_metrics_on_run(web_metrics *m,
                        void (*fn)(void *arg, const char *spec,
                                   const char *name), void *arg);
/* Stop the fetch thread, close the contexts, free m (NULL: nothing). */
void web_metrics_free(web_metrics *m);

/* The handlers (arg: the web_metrics), for the routes and the tests. */
void api_pmns(void *arg, const web_request *rq, web_reply *rp);
void api_values(void *arg, const web_request *rq, web_reply *rp);
void api_run(void *arg, const web_request *rq, web_reply *rp);

#endif
