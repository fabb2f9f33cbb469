/* pcp_live: live collection from pmcd (see pcp_live.h). */
#include "client/input/pcp_live.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "client/input/pcp_result.h"
#include "client/util/stopsig.h"

/* libpcp's reconnect back-off (PMCD_RECONNECT_TIMEOUT, by default 5, 10,
 * 20, 40 then 80 s between attempts) would leave a client blind for up
 * to 80 s after pmcd is back.  A live input retries every second unless
 * the user chose a schedule; libpcp reads it once, at the first failure. */
void pcp_live_reconnect_schedule(void)
{
    setenv("PMCD_RECONNECT_TIMEOUT", "1", 0);
}

/* The state pmdastaprelay reports for the source publishing metric
 * NAME (staprelay.control.source.state of the source whose prefix NAME
 * is under): 1 when it is "ok", -1 when it is gone (vanished, an error,
 * or no longer listed), 0 when it cannot be told. */
static int source_state(source *s, const char *name)
{
    if (s->no_control)
        return 0;
    if (s->ctl_pmid[0] == 0 && s->ctl_pmid[1] == 0) {
        const char *names[2] = { "staprelay.control.source.state",
                                 "staprelay.control.source.prefix" };
        if (pmLookupName(2, names, s->ctl_pmid) != 2
            || s->ctl_pmid[0] == PM_ID_NULL || s->ctl_pmid[1] == PM_ID_NULL) {
            s->no_control = true;
            return 0;
        }
    }
    pmResult *r = NULL;
    if (pmFetch(2, s->ctl_pmid, &r) < 0)
        return 0;
    int rc = -1;
    size_t best = 0;
    const pmValueSet *st = r->numpmid == 2 ? r->vset[0] : NULL;
    const pmValueSet *px = r->numpmid == 2 ? r->vset[1] : NULL;
    for (int j = 0; px != NULL && j < px->numval; j++) {
        const char *p, *v;
        size_t plen, vlen;
        int inst = px->vlist[j].inst;
        if (!reader_string_value(px, inst, &p, &plen) || plen == 0
            || strncmp(name, "staprelay.", 10) != 0
            || strncmp(name + 10, p, plen) != 0 || name[10 + plen] != '.'
            || plen < best)
            continue;
        best = plen;
        rc = reader_string_value(st, inst, &v, &vlen) && vlen == 2
             && memcmp(v, "ok", 2) == 0 ? 1 : -1;
    }
    pmFreeResult(r);
    return rc;
}

/* After a live fetch: say when the source of the metric goes away and
 * when it comes back (an event metric has no value either way between
 * records, so the PMDA's own word on its sources decides). */
static void live_presence(reader *rd, source *s)
{
    /* a run's source goes when the run ends: that is how --run reading
     * ends (the run's state says so), not news */
    if (s->npmids == 0 || rd->po->run != NULL)
        return;
    int now = source_state(s, s->names[0]);
    if (now == 0 || now == s->presence)
        return;
    if (now < 0)
        reader_notice(rd, "%s: the source of %s is gone (see pminfo -h %s "
                      "-f staprelay.control.source.state); waiting for it "
                      "to come back", s->spec, s->names[0], s->spec);
    else if (s->presence < 0)
        reader_notice(rd, "%s: the source of %s is back", s->spec, s->names[0]);
    s->presence = now;
}

/* A failed source: reconnect (libpcp allows one attempt a second, see
 * pcp_live_reconnect_schedule).  True when it is connected again. */
static bool reconnect_source(source *s)
{
    if (!s->reconnect)
        return true;
    if (pmReconnectContext(s->ctx) < 0)
        return false;
    s->reconnect = false;
    return true;
}

/* One round: a fetch from every source.  Returns 0, or 1 when
 * po->on_round (called when set, with 0 or the first error) says stop. */
static int fetch_live(reader *rd, source *srcs, int n)
{
    int first = 0;
    for (int i = 0; i < n; i++) {
        source *s = &srcs[i];
        pmResult *r = NULL;
        int sts = pmUseContext(s->ctx);
        if (sts >= 0 && !reconnect_source(s))
            sts = PM_ERR_IPC;
        if (sts >= 0)
            sts = pmFetch(s->npmids, s->pmids, &r);
        if (sts < 0) {
            /* pmcd is gone, or the connection broke: what was fetched
             * stays; reconnect until it answers again */
            if (s->fetch_errors++ == 0) {
                s->failed_at = reader_mono_now();
                if (rd->po->on_round == NULL)
                    reader_notice(rd, "%s: fetch failed: %s; reconnecting "
                                  "(what arrived is kept)", s->spec,
                                  PCP_ERR_STR(sts));
            }
            s->reconnect = true;
            if (first == 0)
                first = sts;
            continue;
        }
        if (s->fetch_errors > 0 && rd->po->on_round == NULL)
            reader_notice(rd, "%s: reconnected after %.1f s", s->spec,
                          reader_mono_now() - s->failed_at);
        s->fetch_errors = 0;
        rd->st->fetches++;
        live_presence(rd, s);
        pcp_result_process(rd, s, r);
        pmFreeResult(r);
    }
    if (rd->po->on_round)
        return rd->po->on_round(rd->po->hook_arg, first) ? 1 : 0;
    return 0;
}

static int64_t wall_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* Progress on a terminal: one line on stderr, rewritten each round. */
static void progress(reader *rd, double end, bool last)
{
    if (!rd->po->progress)
        return;
    if (last) {
        fputs("\r\033[K", stderr);
        return;
    }
    char w[48];
    snprintf(w, sizeof w, "%.0f", rd->weight);
    fprintf(stderr, "\r\033[Kstaprelay %s: %s samples", rd->cmd, w);
    if (rd->sink.tab)
        fprintf(stderr, ", %zu stacks", stacktab_size(rd->sink.tab));
    if (end >= 0) {
        double left = end - reader_mono_now();
        fprintf(stderr, ", %.0f s left", left > 0 ? left : 0);
    } else {
        fputs(" (Ctrl-C ends)", stderr);
    }
    fflush(stderr);
}

/* After -T: records stamped inside the window may still be on their way
 * (the producer's flush, the PMDA's poll): fetch every quarter second
 * until one stamped after the end arrives, at most LIVE_DRAIN s. */
#define LIVE_DRAIN 2.0

static void drain_live(reader *rd, source *srcs, int n)
{
    double until = reader_mono_now() + LIVE_DRAIN;
    while (!rd->past_end && !stopsig_count() && reader_mono_now() < until) {
        double next = reader_mono_now() + 0.25;
        reader_sleep_until(next < until ? next : until);
        if (stopsig_count() || fetch_live(rd, srcs, n) != 0)
            break;
    }
}

/* Between rounds while a source is failing: try to reconnect every
 * RECONNECT_EVERY s, so pmcd's return is seen within a second or two
 * however long -t is.  True when one came back (fetch it now). */
#define RECONNECT_EVERY 1.0

static bool any_failing(const source *srcs, int n)
{
    for (int i = 0; i < n; i++)
        if (srcs[i].reconnect)
            return true;
    return false;
}

static bool reconnect_failing(source *srcs, int n)
{
    bool back = false;
    for (int i = 0; i < n; i++)
        if (srcs[i].reconnect && pmUseContext(srcs[i].ctx) >= 0
            && reconnect_source(&srcs[i]))
            back = true;
    return back;
}

/* When collection ends: -T (pmParseTimeWindow syntax, from now) as a
 * reader_mono_now() time and as a wall-clock time in ns; end -1 and
 * end_ns INT64_MAX without -T.  0, or 2 with a message in err. */
static int live_end(const pcp_options *po, double *end, int64_t *end_ns,
                    strbuf *err)
{
    *end = -1;
    *end_ns = INT64_MAX;
    if (!po->finish)
        return 0;
    struct timeval now, far = { INT_MAX, 0 }, rs, re, ro;
    gettimeofday(&now, NULL);
    char *msg = NULL;
    if (pmParseTimeWindow(NULL, po->finish, NULL, NULL, &now, &far, &rs,
                          &re, &ro, &msg) < 0) {
        sb_printf(err, "bad -T '%s'%s%s", po->finish, msg ? ": " : "",
                  msg ? msg : "");
        free(msg);
        return 2;
    }
    free(msg);
    *end = reader_mono_now() + pmtimevalSub(&re, &now);
    *end_ns = reader_tv_ns(&re);
    return 0;
}

/* Before the first round: with --run, wait for the run's event metric
 * and follow it (0, or 1 with a message in err); else every source's
 * window is the records' own times from now to -T (end_ns): what the
 * PMDA still holds from before (an event metric that replays, or
 * records on their way) is left out, counted. */
static int live_begin(reader *rd, pcp_options *runpo, source *srcs, int n,
                      pcp_follow *rf, double interval, double end,
                      int64_t end_ns, strbuf *err)
{
    if (rf) {       /* one source: the run's host */
        int rc = pcp_follow_wait_live(rd, &srcs[0], rf, interval, end, err);
        return rc == 0 ? pcp_follow_start(rd, runpo, &srcs[0], rf, err) : rc;
    }
    for (int i = 0; i < n; i++) {
        srcs[i].window = true;
        srcs[i].lo_ns = wall_ns();
        srcs[i].hi_ns = end_ns;
    }
    rd->st->live_window = true;
    return 0;
}

/* One round (fetch_live), and with --run the run's progress: true when
 * collection is done. */
static bool live_round(reader *rd, source *srcs, int n, pcp_follow *rf)
{
    bool done = fetch_live(rd, srcs, n) != 0;
    if (rf && !done)
        done = pcp_follow_progress(rd, &srcs[0], rf);
    return done;
}

/* Sleep until next; while a source is failing, wake every
 * RECONNECT_EVERY s to try it, and return at once when one is back (it
 * is fetched then). */
static void live_sleep(source *srcs, int n, double next)
{
    while (any_failing(srcs, n) && !stopsig_count()
           && reader_mono_now() + RECONNECT_EVERY < next) {
        reader_sleep_until(reader_mono_now() + RECONNECT_EVERY);
        if (!stopsig_count() && reconnect_failing(srcs, n))
            return;
    }
    reader_sleep_until(next);
}

/* Rounds every interval from the first (which registers each context)
 * until done, -T (end) or a stop signal.  True when a round said done. */
static bool live_rounds(reader *rd, source *srcs, int n, pcp_follow *rf,
                        double interval, double end)
{
    double t0 = reader_mono_now();
    bool done = live_round(rd, srcs, n, rf);
    while (!stopsig_count() && !done) {
        progress(rd, end, false);
        double now = reader_mono_now();
        if (end >= 0 && now >= end)
            break;
        double k = (double)(long long)((now - t0) / interval) + 1;
        double next = t0 + k * interval;
        if (end >= 0 && next > end)
            next = end;
        live_sleep(srcs, n, next);
        if (stopsig_count())
            break;
        done = live_round(rd, srcs, n, rf);
    }
    return done;
}

/* After the rounds: a stop signal ends the window now and takes one
 * last fetch; -T reached drains what is still on its way. */
static void live_finish(reader *rd, source *srcs, int n, pcp_follow *rf,
                        bool done, double end)
{
    if (stopsig_count()) {
        rd->st->interrupted = true;
        int64_t now_ns = wall_ns();
        for (int i = 0; !rf && i < n; i++)
            if (srcs[i].hi_ns > now_ns)
                srcs[i].hi_ns = now_ns;
        fetch_live(rd, srcs, n);    /* what arrived since the last tick */
    } else if (!rf && !done && end >= 0) {
        drain_live(rd, srcs, n);
    }
    progress(rd, end, true);
    if (rf && rf->terminal_at < 0)
        reader_notice(rd, "run %s was still %s when collection ended; "
                      "drawing what arrived", rf->name,
                      pcp_run_state_name(rf->cur.state));
}

int pcp_live_collect(reader *rd, pcp_options *runpo, source *srcs, int n,
                     pcp_follow *rf, strbuf *err)
{
    struct timeval itv = { 1, 0 };
    const char *t = rd->po->interval;
    if (t && !reader_parse_interval(t, &itv, err))
        return 2;
    double interval = itv.tv_sec + itv.tv_usec / 1e6;
    double end;
    int64_t end_ns;
    if (live_end(rd->po, &end, &end_ns, err) != 0)
        return 2;
    stopsig_saved saved;
    stopsig_catch(&saved, STOPSIG_SECOND_KILLS);   /* a second Ctrl-C kills */
    int rc = live_begin(rd, runpo, srcs, n, rf, interval, end, end_ns, err);
    if (rc == 0) {
        bool done = live_rounds(rd, srcs, n, rf, interval, end);
        live_finish(rd, srcs, n, rf, done, end);
    }
    stopsig_restore(&saved);
    return rc;
}
