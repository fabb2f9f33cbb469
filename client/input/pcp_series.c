/* pcp_series: --series, pmseries through pmproxy, into the reader's
 * sink (see pcp_series.h). */
#include "client/input/pcp_series.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "client/input/pmseries.h"

static void counted_from_series(void *arg, const char *host, const char *folded,
                                size_t len, double weight, int64_t when_ns)
{
    reader *rd = arg;
    pcp_sample smp = { .when_ns = when_ns, .stack = folded, .stack_len = len,
                       .weight = weight };
    if (!reader_counter_stack(rd, rd->po->by_host ? host : NULL, &smp))
        return;
    stack_context ctx = { .pid = -1, .tid = -1, .host = host,
                          .time_ns = when_ns, .samples = weight };
    reader_deliver(rd, weight, -1, when_ns, &ctx);
}

/* -S/-T for pmseries, against (the epoch, now): what pmseries holds may
 * be of any time.  A time of day alone (@10:00) takes the date of the
 * earlier bound, so it is read again against (today's midnight, now):
 * today's 10:00, as the user means (against midnight alone, an earlier
 * time would be cut to midnight). */
static bool series_window(const pcp_options *po, struct timeval *rs,
                          struct timeval *re, strbuf *err)
{
    struct timeval epoch = { 1, 0 }, now, ro, ts, te;
    gettimeofday(&now, NULL);
    time_t t = now.tv_sec;
    struct tm tm;
    localtime_r(&t, &tm);
    tm.tm_hour = tm.tm_min = tm.tm_sec = 0;
    struct timeval midnight = { mktime(&tm), 0 };
    char *msg = NULL;
    if (pmParseTimeWindow(po->start, po->finish, NULL, NULL, &epoch, &now,
                          rs, re, &ro, &msg) < 0
        || pmParseTimeWindow(po->start, po->finish, NULL, NULL, &midnight,
                             &now, &ts, &te, &ro, &msg) < 0) {
        sb_printf(err, "bad -S/-T window%s%s", msg ? ": " : "", msg ? msg : "");
        free(msg);
        return false;
    }
    free(msg);
    if (rs->tv_sec < 2 * 86400)     /* a time of day, on the epoch's date */
        *rs = ts;
    if (re->tv_sec < 2 * 86400)
        *re = te;
    return true;
}

/* --series: the window (series_window), then pmseries. */
int pcp_series_read(reader *rd, strbuf *err)
{
    const pcp_options *po = rd->po;
    pmseries_query q = { .url = po->pmproxy, .query = po->series,
                         .kind = po->counter, .lo_ns = INT64_MIN,
                         .hi_ns = INT64_MAX,
                         .step_ms = PMSERIES_DEFAULT_STEP_MS };
    struct timeval step;
    if (po->interval != NULL && reader_parse_interval(po->interval, &step, err))
        q.step_ms = (int64_t)step.tv_sec * 1000 + step.tv_usec / 1000;
    if (q.url == NULL)
        q.url = getenv("PCP_PMPROXY_URL");
    if (q.url == NULL)
        q.url = PMSERIES_DEFAULT_URL;
    if (po->start || po->finish) {
        struct timeval rs, re;
        if (!series_window(po, &rs, &re, err))
            return 2;
        q.lo_ns = po->start ? reader_tv_ns(&rs) : INT64_MIN;
        q.hi_ns = po->finish ? reader_tv_ns(&re) : INT64_MAX;
    }
    pmseries_stats ps;
    memset(&ps, 0, sizeof ps);
    int rc = pmseries_read(&q, counted_from_series, rd, &ps, err);
    rd->st->counted += ps.samples;
    rd->st->counter_sets += ps.sets;
    rd->st->outside += ps.outside;
    rd->st->merged += ps.merged;
    rd->st->no_end += ps.no_end;
    return rc;
}
