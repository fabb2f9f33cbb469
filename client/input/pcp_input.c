/* pcp_input: the PCP reader's entry point and its public rules (see
 * pcp_input.h): options checked, the sources set up, then the job of
 * each -- live (pcp_live.c), archives (pcp_archive.c), a run
 * (pcp_follow.c), pmseries (pcp_series.c) -- over the shared reader
 * (pcp_reader.h). */
#include "client/input/pcp_input.h"

#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <pcp/pmapi.h>

#include "client/input/farm.h"
#include "client/input/pcp_archive.h"
#include "client/input/pcp_follow.h"
#include "client/input/pcp_live.h"
#include "client/input/pcp_reader.h"
#include "client/input/pcp_series.h"
#include "client/input/pcp_source.h"
#include "common/xalloc.h"

bool pcp_options_active(const pcp_options *po)
{
    return po != NULL && (po->nhosts > 0 || po->narchives > 0
                          || po->series != NULL);
}

/* Which sources: -h, -a and --series exclude each other; --pmproxy
 * goes with --series.  0, or -1 with a message in err. */
static int check_sources(const pcp_options *po, strbuf *err)
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
    return 0;
}

/* -S, -T and -t of -h or -a sources.  0, or -1 with a message in err. */
static int check_times(const pcp_options *po, strbuf *err)
{
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
        struct timeval tv;
        if (po->nhosts == 0) {
            sb_adds(err, "-t applies to live collection (-h) and --series "
                         "only; archives are replayed record by record");
            return -1;
        }
        if (!reader_parse_interval(po->interval, &tv, err))
            return -1;
    }
    return 0;
}

/* --run: one source, at most one metric.  0, or -1 with a message. */
static int check_run(const pcp_options *po, strbuf *err)
{
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
    return 0;
}

int pcp_options_check(const pcp_options *po, strbuf *err)
{
    if (check_sources(po, err) < 0)
        return -1;
    struct timeval tv;
    if (po->series != NULL)     /* the query names the metric */
        return po->interval && !reader_parse_interval(po->interval, &tv, err)
               ? -1 : 0;
    if (check_times(po, err) < 0 || (po->run != NULL && check_run(po, err) < 0))
        return -1;
    if (po->by_host && !pcp_options_active(po)) {
        sb_adds(err, "--by-host needs -h, -a or --series");
        return -1;
    }
    if (po->by_state && !pcp_options_active(po)) {
        sb_adds(err, "--by-state needs -h, -a or --series (the event records' state)");
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

/* ---- the -S/-T window (archives; staprelay web's selections) --------- */

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
    *lo_ns = start ? reader_tv_ns(&rs) : INT64_MIN;
    *hi_ns = finish ? reader_tv_ns(&re) : INT64_MAX;
    return 0;
}

/* ---- reading --------------------------------------------------------- */

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

/* The sources: each -h, or each archive of the farm expanded from the
 * -a arguments, not opened yet; with col_per_source, source i fills
 * column i (diff's two sides).  0, or 2 with a message in err. */
static int sources_init(const pcp_options *po, const farm_list *farm,
                        bool live, source *srcs, int n, strbuf *err)
{
    int rc = 0;
    for (int i = 0; i < n; i++) {
        srcs[i].ctx = -1;
        srcs[i].live = live;
        srcs[i].spec = live ? po->hosts[i] : farm->specs[i];
        int side = live ? i : farm->origin[i];
        srcs[i].col = po->col_per_source ? side : -1;
        if (po->col_per_source && side > 1) {
            sb_adds(err, "at most two sources, one per side");
            rc = 2;
        }
    }
    return rc;
}

/* Open the sources, then read them: live or the archives, following
 * the run when po->run names one (rd->po is runpo, the copy whose
 * metric becomes the run's). */
static int read_sources(reader *rd, pcp_options *runpo, source *srcs, int n,
                        pcp_follow *rf, strbuf *err)
{
    bool live = runpo->nhosts > 0, run = runpo->run != NULL;
    int rc = 0;
    for (int i = 0; i < n && rc == 0; i++)
        rc = pcp_source_open(rd, &srcs[i], err);
    if (rc == 0 && run && !live) {
        rc = pcp_follow_archive(&srcs[0], rf, err);
        if (rc == 0)
            rc = pcp_follow_start(rd, runpo, &srcs[0], rf, err);
    }
    if (rc == 0)
        rc = live ? pcp_live_collect(rd, runpo, srcs, n, run ? rf : NULL, err)
                  : pcp_archive_replay(rd, srcs, n, err);
    if (rc == 0 && run)
        rc = pcp_follow_finish(rd, &srcs[0], rf, err);
    return rc;
}

/* -h or -a: the sources set up and read; what the run was handed to
 * po->run_info; the counters' figures into rd->st. */
static int read_contexts(reader *rd, const pcp_options *po,
                         pcp_options *runpo, strbuf *err)
{
    bool live = po->nhosts > 0;
    /* archives: a farm directory stands for one archive per host */
    farm_list farm = { 0 };
    if (!live && farm_expand(po->archives, po->narchives, &farm, err) != 0)
        return 1;
    int n = live ? po->nhosts : (int)farm.n;
    if (po->run && n > 1) {
        sb_printf(err, "--run follows one run: %s holds %d hosts' archives",
                  po->archives[0], n);
        n = 0;
    }
    source *srcs = xcalloc(n > 0 ? (size_t)n : 1, sizeof *srcs);
    pcp_follow rf;
    pcp_follow_init(&rf, po);
    int rc = n > 0 ? sources_init(po, &farm, live, srcs, n, err) : 2;
    if (rc == 0)
        rc = read_sources(rd, runpo, srcs, n, &rf, err);
    if (po->run_info) {
        *po->run_info = rf.cur;      /* handed over */
        memset(&rf.cur, 0, sizeof rf.cur);
    }
    counter_stats(srcs, n, rd->st);
    pcp_follow_free(&rf);
    for (int i = 0; i < n; i++)
        pcp_source_close(&srcs[i]);
    free(srcs);
    farm_free(&farm);
    return rc;
}

int pcp_input_read(const pcp_options *po, const input_options *in,
                   const char *cmd, stacktab *tab, pcp_stats *st,
                   strbuf *err)
{
    if (pcp_options_check(po, err) < 0)
        return 2;
    if (po->nhosts > 0)
        pcp_live_reconnect_schedule();
    pcp_options runpo = *po;    /* with --run, the metric is the run's */
    reader rd = { .po = &runpo, .in = in, .cmd = cmd, .st = st,
                  .stack = STRBUF_INIT };
    stack_sink_init(&rd.sink, tab, in->col, in->strip_hex);
    stack_sink_observe(&rd.sink, in->on_sample, in->on_sample_arg);
    stack_sink_observe_detail(&rd.sink, in->on_detail, in->on_detail_arg);
    stack_sink_filter(&rd.sink, in->filter);
    int rc = po->series ? pcp_series_read(&rd, err)
                        : read_contexts(&rd, po, &runpo, err);
    stack_sink_free(&rd.sink);
    sb_free(&rd.stack);
    return rc;
}
