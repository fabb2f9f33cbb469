/* cmd_web: `staprelay web` -- the live profiling page over PCP
 * (docs/web.md).  This file only wires the parts together: the store
 * (web/store), the collector thread feeding it (web/collect), the HTTP
 * server (web/httpd) and the endpoints' route registrations (one call
 * per web/api_* module). */
#include "client/cmd/builtin.h"

#include <pcp/pmapi.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "client/cmd/inout.h"
#include "client/cmd/options.h"
#include "client/render/flamesvg.h"
#include "client/web/api_metrics.h"
#include "client/web/api_profile.h"
#include "client/web/collect.h"
#include "client/web/httpd.h"
#include "client/web/runs.h"
#include "client/web/store.h"

static const char web_usage[] =
    "staprelay web [-h HOST[:PORT]]... [-a ARCHIVE|FARM]... [--series QUERY] "
    "[--run NAME] [--listen ADDR:PORT] [--window-minutes N] [--allow-runs] "
    "[-t INTERVAL] [input options] [FILE...] [METRIC...]";

/* Every endpoint's registration: one line per module. */
static void add_routes(httpd *h, web_profile *p, web_metrics *m)
{
    api_profile_routes(h, p);
    web_metrics_routes(m, h);
    web_runs_routes(p->runs, h);
}

/* A run the page started: followed (web/runs); a refusal is a line on
 * stderr, the run itself goes on */
static void follow_run(void *arg, const char *spec, const char *name)
{
    strbuf err = STRBUF_INIT;
    if (web_runs_follow(arg, spec, name, &err) < 0)
        fprintf(stderr, "staprelay web: %s\n", err.buf);
    sb_free(&err);
}

/* -t in seconds (its syntax was checked with the options); 1 s. */
static double interval_seconds(const cmd_opts *o)
{
    struct timeval tv;
    char *msg = NULL;
    double s = 1;
    if (o->pcp.interval && pmParseInterval(o->pcp.interval, &tv, &msg) >= 0)
        s = (double)tv.tv_sec + tv.tv_usec / 1e6;
    free(msg);
    return s > 0 ? s : 1;
}

/* web, its options parsed (cmd_web frees them) */
static int web_command(cmd_opts *o)
{
    int rc = 0;
    if (o->output_dir)
        return cmd_opts_error(o, web_usage, "--output-dir: web writes no "
                              "files (its page has the downloads)");
    if (o->svg.cp)
        return cmd_opts_error(o, web_usage, "--cp: web writes no "
                              "palette.map (the page keeps colours by name)");
    if (o->svg.flamechart)
        return cmd_opts_error(o, web_usage, "--flamechart: not in web");
    if (o->nfiles == 0 && !pcp_options_active(&o->pcp))
        return cmd_opts_error(o, web_usage, "nothing to show: give -h, -a, "
                              "--series or files");
    strbuf err = STRBUF_INIT;
    if (flamesvg_prepare(&o->svg, &err) < 0) {      /* --nameattr, once */
        fprintf(stderr, "staprelay web: %s\n", err.buf);
        sb_free(&err);
        return 1;
    }

    /* Signals: every thread started from here blocks them; this one
     * waits for them (sigwait) and passes a stop on to the collector. */
    sigset_t stops, old;
    sigemptyset(&stops);
    sigaddset(&stops, SIGINT);
    sigaddset(&stops, SIGTERM);
    sigaddset(&stops, SIGHUP);
    pthread_sigmask(SIG_BLOCK, &stops, &old);
    signal(SIGPIPE, SIG_IGN);    /* a vanished browser is an EPIPE */

    bool live = o->pcp.nhosts > 0;
    web_store *store = store_new((size_t)o->max_samples,
                                 live ? o->window_min * 60 * 1000000000LL : 0);
    httpd *h = httpd_new(o->listen, &err);
    collector *coll = NULL;
    if (h == NULL) {
        fprintf(stderr, "staprelay web: %s\n", err.buf);
        rc = 1;
    }
    /* --by-host is by_host's default: the store keeps stacks without
     * the host frame (each sample keeps its host), so by_host=0 can
     * still show them merged */
    web_runs *runs = web_runs_new(o, h);
    web_profile prof = { o, store, NULL, h, o->pcp.by_host, runs, 99, NULL };
    /* hotcold=1's on-CPU sample time, as flame --hotcold reads it */
    if (rc == 0)
        prof.hotcold_hz = inout_hotcold_hz(o, &prof.hotcold_from);
    o->pcp.by_host = false;
    o->pcp.keep_state = true;    /* the URL's state= filter */
    web_metrics *metrics = NULL;
    if (rc == 0) {
        metrics = web_metrics_new(&o->pcp, interval_seconds(o), o->window_min,
                                  o->allow_runs, &err);
        if (metrics == NULL) {
            fprintf(stderr, "staprelay web: %s\n", err.buf);
            rc = 1;
        }
    }
    if (rc == 0) {
        web_metrics_on_run(metrics, follow_run, runs);
        add_routes(h, &prof, metrics);
        if (httpd_run(h, &err) < 0) {
            fprintf(stderr, "staprelay web: %s\n", err.buf);
            rc = 1;
        }
    }
    if (rc == 0) {
        coll = collect_start(o, store, h, &err);
        if (coll == NULL) {
            fprintf(stderr, "staprelay web: %s\n", err.buf);
            rc = 1;
        }
        prof.coll = coll;
    }
    if (rc == 0) {
        fprintf(stderr, "staprelay web: %s\n", httpd_url(h));
        int sig = 0;
        sigwait(&stops, &sig);
        fprintf(stderr, "staprelay web: stopping (%s)\n", strsignal(sig));
    }
    collect_stop(coll);           /* the last round, then joined */
    prof.coll = NULL;
    web_runs_free(runs);          /* their last rounds, joined */
    prof.runs = NULL;
    httpd_free(h);                /* clients ended, threads joined */
    web_metrics_free(metrics);    /* its fetch thread joined */
    store_free(store);
    flamesvg_finish(&o->svg, &err);
    sb_free(&err);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    return rc;
}

int cmd_web(int argc, char **argv)
{
    cmd_opts o;
    int rc = cmd_opts_parse(&o, OPTS_INPUT | OPTS_PCP | OPTS_FROM_RUN
                            | OPTS_SVG | OPTS_TREE | OPTS_HEATMAP | OPTS_WEB,
                            argc, argv, web_usage);
    if (rc != 0)
        return rc == 1 ? 0 : rc;
    rc = web_command(&o);
    cmd_opts_free(&o);
    return rc;
}
