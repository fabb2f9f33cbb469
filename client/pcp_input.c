/* pcp_input: live and archive event-record inputs (see pcp_input.h). */
#include "client/pcp_input.h"

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <time.h>
#include <pcp/pmapi.h>

#include "client/pcp_events.h"
#include "client/stacksink.h"

typedef struct field_entry {
    pmID      pmid;
    pcp_field role;
} field_entry;

typedef struct source {
    const char  *spec;                 /* -h / -a argument */
    bool         live;
    int          ctx;
    int          col;                  /* stacktab column, -1: the sink's */
    char         host[PM_MAX_HOSTNAMELEN];
    int          npmids;
    pmID         pmids[PCP_MAX_METRICS];
    char        *names[PCP_MAX_METRICS];
    field_entry *fields;               /* parameter PMID -> role cache */
    size_t       nfields, capfields;
    bool         window;               /* archives: -S/-T on record times */
    int64_t      lo_ns, hi_ns;
    uint64_t     fetch_errors;
} source;

typedef struct reader {
    const pcp_options   *po;
    const input_options *in;
    const char          *cmd;
    pcp_stats           *st;
    stack_sink           sink;
    strbuf               stack;
    source              *cur;
    bool                 scan;      /* only find the records' time span */
    int64_t              scan_lo, scan_hi;
} reader;

bool pcp_options_active(const pcp_options *po)
{
    return po != NULL && (po->nhosts > 0 || po->narchives > 0);
}

static bool parse_interval(const char *s, struct timeval *tv, strbuf *err)
{
    char *msg = NULL;
    if (pmParseInterval(s, tv, &msg) < 0) {
        sb_printf(err, "bad -t interval '%s'%s%s", s, msg ? ": " : "",
                  msg ? msg : "");
        free(msg);
        return false;
    }
    free(msg);
    if (tv->tv_sec == 0 && tv->tv_usec == 0) {
        sb_printf(err, "bad -t interval '%s': must be more than 0", s);
        return false;
    }
    return true;
}

int pcp_options_check(const pcp_options *po, strbuf *err)
{
    if (po->nhosts > 0 && po->narchives > 0) {
        sb_adds(err, "-h (live) and -a (archive) cannot be mixed");
        return -1;
    }
    if (po->narchives == 0 && po->start != NULL) {
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
        if (po->nhosts == 0) {
            sb_adds(err, "-t applies to live collection (-h) only; archives "
                         "are replayed record by record");
            return -1;
        }
        struct timeval tv;
        if (!parse_interval(po->interval, &tv, err))
            return -1;
    }
    if (po->by_host && !pcp_options_active(po)) {
        sb_adds(err, "--by-host needs -h or -a");
        return -1;
    }
    if (pcp_options_active(po) && po->nmetrics == 0) {
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

/* ---- per-source setup ------------------------------------------------ */

static int lookup_event_metric(const char *name, pmID *pmid)
{
    pmID id;
    int sts = pmLookupName(1, &name, &id);
    if (sts < 0)
        return sts;
    if (id == PM_ID_NULL)
        return PM_ERR_NAME;
    pmDesc d;
    if ((sts = pmLookupDesc(id, &d)) < 0)
        return sts;
    if (d.type != PM_TYPE_EVENT && d.type != PM_TYPE_HIGHRES_EVENT)
        return PM_ERR_TYPE;
    *pmid = id;
    return 0;
}

static int resolve_metrics(reader *rd, source *s, strbuf *err)
{
    strbuf a = STRBUF_INIT, b = STRBUF_INIT;
    int rc = 0;
    for (int m = 0; m < rd->po->nmetrics && rc == 0; m++) {
        const char *name = rd->po->metrics[m];
        pcp_metric_candidates(name, &a, &b);
        pmID id;
        int sts = lookup_event_metric(a.buf, &id);
        const char *used = a.buf;
        if (sts < 0 && b.len > 0) {
            int sts2 = lookup_event_metric(b.buf, &id);
            if (sts2 == 0) {
                sts = 0;
                used = b.buf;
            } else if (sts == PM_ERR_NAME || sts == PM_ERR_NONLEAF) {
                sts = sts2;
            }
        }
        if (sts < 0) {
            if (sts == PM_ERR_TYPE)
                sb_printf(err, "%s: %s is not an event metric%s%s%s", s->spec,
                          name, b.len ? " (nor is " : "", b.len ? b.buf : "",
                          b.len ? ")" : "");
            else
                sb_printf(err, "%s: %s: %s", s->spec, name, pmErrStr(sts));
            rc = 1;
            break;
        }
        s->pmids[s->npmids] = id;
        s->names[s->npmids] = strdup(used);
        s->npmids++;
    }
    sb_free(&a);
    sb_free(&b);
    return rc;
}

static int open_source(reader *rd, source *s, strbuf *err)
{
    int type = s->live ? PM_CONTEXT_HOST : PM_CONTEXT_ARCHIVE;
    s->ctx = pmNewContext(type, s->spec);
    if (s->ctx < 0) {
        sb_printf(err, "%s: cannot open %s: %s", s->spec,
                  s->live ? "a connection to pmcd" : "the archive",
                  pmErrStr(s->ctx));
        return 1;
    }
    if (pmGetContextHostName_r(s->ctx, s->host, sizeof s->host) == NULL
        || s->host[0] == '\0')
        snprintf(s->host, sizeof s->host, "%s", s->spec);
    return resolve_metrics(rd, s, err);
}

static void close_source(source *s)
{
    if (s->ctx >= 0)
        pmDestroyContext(s->ctx);
    for (int i = 0; i < s->npmids; i++)
        free(s->names[i]);
    free(s->fields);
}

/* ---- decoding -------------------------------------------------------- */

static pcp_field field_role(void *arg, pmID pmid)
{
    source *s = arg;
    for (size_t i = 0; i < s->nfields; i++)
        if (s->fields[i].pmid == pmid)
            return s->fields[i].role;
    char *name = NULL;
    pcp_field role = PCP_FIELD_OTHER;
    if (pmNameID(pmid, &name) >= 0)
        role = pcp_field_from_name(name);
    free(name);
    if (s->nfields == s->capfields) {
        size_t cap = s->capfields ? s->capfields * 2 : 16;
        field_entry *f = realloc(s->fields, cap * sizeof *f);
        if (f == NULL)
            return role;
        s->fields = f;
        s->capfields = cap;
    }
    s->fields[s->nfields++] = (field_entry){ pmid, role };
    return role;
}

static void on_sample(void *arg, const pcp_sample *smp)
{
    reader *rd = arg;
    source *s = rd->cur;
    if (rd->scan) {
        if (smp->when_ns < rd->scan_lo)
            rd->scan_lo = smp->when_ns;
        if (smp->when_ns > rd->scan_hi)
            rd->scan_hi = smp->when_ns;
        return;
    }
    rd->st->records++;
    if (s->window && (smp->when_ns < s->lo_ns || smp->when_ns > s->hi_ns)) {
        rd->st->outside++;
        return;
    }
    if (smp->bad_weight
        || !pcp_sample_stack(smp, rd->po->by_host ? s->host : NULL,
                             rd->in->perf.include_pid,
                             rd->in->perf.include_tid, &rd->stack)) {
        rd->st->ignored++;
        return;
    }
    if (rd->po->on_stack)
        rd->po->on_stack(rd->po->hook_arg, rd->stack.buf, rd->stack.len,
                         smp->weight, smp->when_ns);
    else
        stack_sink_add_at(&rd->sink, rd->stack.buf, rd->stack.len,
                          smp->weight, s->col, smp->when_ns);
    rd->st->stacks++;
}

static void on_missed(void *arg, int64_t when_ns, uint64_t n)
{
    reader *rd = arg;
    source *s = rd->cur;
    if (rd->scan)
        return;
    if (s->window && (when_ns < s->lo_ns || when_ns > s->hi_ns))
        return;
    rd->st->missed += n;
}

static void process_result(reader *rd, source *s, const pmResult *r)
{
    pcp_event_cb cb = { on_sample, on_missed, rd };
    rd->cur = s;
    for (int i = 0; i < r->numpmid; i++) {
        const pmValueSet *vs = r->vset[i];
        int m;
        for (m = 0; m < s->npmids; m++)
            if (vs->pmid == s->pmids[m])
                break;
        if (m == s->npmids || vs->numval <= 0
            || vs->valfmt == PM_VAL_INSITU)
            continue;
        for (int j = 0; j < vs->numval; j++) {
            int sts = pcp_decode_events(vs->vlist[j].value.pval, field_role,
                                        s, &cb);
            if (sts < 0)
                fprintf(stderr, "staprelay %s: %s: %s: undecodable event "
                        "records: %s\n", rd->cmd, s->spec, s->names[m],
                        pmErrStr(sts));
        }
    }
}

/* ---- live ------------------------------------------------------------ */

static volatile sig_atomic_t stop_requested;

static void on_stop_signal(int sig)
{
    (void)sig;
    stop_requested = 1;
}

static double mono_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static void sleep_until(double when)
{
    double d = when - mono_now();
    if (d <= 0 || stop_requested)
        return;
    struct timespec ts = { (time_t)d, (long)((d - (time_t)d) * 1e9) };
    nanosleep(&ts, NULL);   /* EINTR: the caller re-checks stop_requested */
}

/* One round: a fetch from every source.  Returns 0, or the first
 * error; calls po->on_round when set (its nonzero return: stop). */
static int fetch_live(reader *rd, source *srcs, int n)
{
    int first = 0;
    for (int i = 0; i < n; i++) {
        source *s = &srcs[i];
        pmResult *r = NULL;
        int sts = pmUseContext(s->ctx);
        if (sts >= 0 && rd->po->on_round && s->fetch_errors > 0)
            sts = pmReconnectContext(s->ctx);   /* throttled by libpcp */
        if (sts >= 0)
            sts = pmFetch(s->npmids, s->pmids, &r);
        if (sts < 0) {
            if (s->fetch_errors++ == 0 && rd->po->on_round == NULL)
                fprintf(stderr, "staprelay %s: %s: fetch failed: %s\n",
                        rd->cmd, s->spec, pmErrStr(sts));
            if (first == 0)
                first = sts;
            continue;
        }
        if (rd->po->on_round)
            s->fetch_errors = 0;
        rd->st->fetches++;
        process_result(rd, s, r);
        pmFreeResult(r);
    }
    if (rd->po->on_round)
        return rd->po->on_round(rd->po->hook_arg, first) ? 1 : 0;
    return 0;
}

static int collect_live(reader *rd, source *srcs, int n, strbuf *err)
{
    const pcp_options *po = rd->po;
    struct timeval itv = { 1, 0 };
    if (po->interval && !parse_interval(po->interval, &itv, err))
        return 2;
    double interval = itv.tv_sec + itv.tv_usec / 1e6;
    double end = -1;
    if (po->finish) {
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
        end = mono_now() + pmtimevalSub(&re, &now);
    }

    struct sigaction sa, old_int, old_term;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_stop_signal;
    sa.sa_flags = SA_RESETHAND;     /* a second Ctrl-C kills */
    sigemptyset(&sa.sa_mask);
    stop_requested = 0;
    sigaction(SIGINT, &sa, &old_int);
    sigaction(SIGTERM, &sa, &old_term);

    double t0 = mono_now();
    bool done = fetch_live(rd, srcs, n) != 0;  /* registers each context */
    while (!stop_requested && !done) {
        double now = mono_now();
        if (end >= 0 && now >= end)
            break;
        double k = (double)(long long)((now - t0) / interval) + 1;
        double next = t0 + k * interval;
        if (end >= 0 && next > end)
            next = end;
        sleep_until(next);
        if (stop_requested)
            break;
        done = fetch_live(rd, srcs, n) != 0;
    }
    if (stop_requested) {
        rd->st->interrupted = true;
        fetch_live(rd, srcs, n);    /* what arrived since the last tick */
    }
    sigaction(SIGINT, &old_int, NULL);
    sigaction(SIGTERM, &old_term, NULL);
    return 0;
}

/* ---- archives -------------------------------------------------------- */

static int64_t tv_ns(const struct timeval *tv)
{
    return (int64_t)tv->tv_sec * 1000000000 + (int64_t)tv->tv_usec * 1000;
}

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

/* One pass over every record of the archive. */
static int archive_pass(reader *rd, source *s, const struct timeval *from,
                        strbuf *err)
{
    int sts = pmSetMode(PM_MODE_FORW, from, 0);
    if (sts < 0) {
        sb_printf(err, "%s: %s", s->spec, pmErrStr(sts));
        return 1;
    }
    for (;;) {
        pmResult *r = NULL;
        sts = pmFetchArchive(&r);
        if (sts == PM_ERR_EOL)
            return 0;
        if (sts < 0) {
            sb_printf(err, "%s: reading the archive: %s", s->spec,
                      pmErrStr(sts));
            return 1;
        }
        if (!rd->scan)
            rd->st->fetches++;
        process_result(rd, s, r);
        pmFreeResult(r);
    }
}

static int replay_archive(reader *rd, source *s, strbuf *err)
{
    const pcp_options *po = rd->po;
    pmLogLabel label;
    struct timeval end;
    int sts;
    if ((sts = pmUseContext(s->ctx)) < 0
        || (sts = pmGetArchiveLabel(&label)) < 0
        || (sts = pmGetArchiveEnd(&end)) < 0) {
        sb_printf(err, "%s: %s", s->spec, pmErrStr(sts));
        return 1;
    }
    if (po->start || po->finish) {
        /* The window is about record timestamps, which may precede the
         * archive's start (records wait in the PMDA until pmlogger's next
         * fetch) or be stamped by a producer's clock: the bounds that -S
         * and -T are relative to cover both the archive and its records. */
        struct timeval lo = label.ll_start, hi = end, rs, re, ro;
        rd->scan = true;
        rd->scan_lo = INT64_MAX;
        rd->scan_hi = INT64_MIN;
        int rc = archive_pass(rd, s, &label.ll_start, err);
        rd->scan = false;
        if (rc != 0)
            return rc;
        if (rd->scan_lo != INT64_MAX && rd->scan_lo < tv_ns(&lo))
            ns_tv(rd->scan_lo, &lo);
        if (rd->scan_hi != INT64_MIN && rd->scan_hi > tv_ns(&hi))
            ns_tv(rd->scan_hi, &hi);
        char *msg = NULL;
        if (pmParseTimeWindow(po->start, po->finish, NULL, NULL, &lo, &hi,
                              &rs, &re, &ro, &msg) < 0) {
            sb_printf(err, "%s: bad -S/-T window%s%s", s->spec,
                      msg ? ": " : "", msg ? msg : "");
            free(msg);
            return 2;
        }
        free(msg);
        s->window = true;
        s->lo_ns = po->start ? tv_ns(&rs) : INT64_MIN;
        s->hi_ns = po->finish ? tv_ns(&re) : INT64_MAX;
    }
    return archive_pass(rd, s, &label.ll_start, err);
}

/* ---- entry point ----------------------------------------------------- */

int pcp_input_read(const pcp_options *po, const input_options *in,
                   const char *cmd, stacktab *tab, pcp_stats *st,
                   strbuf *err)
{
    if (pcp_options_check(po, err) < 0)
        return 2;
    bool live = po->nhosts > 0;
    int n = live ? po->nhosts : po->narchives;
    if (po->col_per_source && n > 2) {
        sb_adds(err, "at most two sources, one per side");
        return 2;
    }
    source *srcs = calloc((size_t)n, sizeof *srcs);
    if (srcs == NULL) {
        sb_adds(err, "out of memory");
        return 1;
    }
    reader rd = { .po = po, .in = in, .cmd = cmd, .st = st,
                  .stack = STRBUF_INIT };
    stack_sink_init(&rd.sink, tab, in->col, in->strip_hex);
    stack_sink_observe(&rd.sink, in->on_sample, in->on_sample_arg);
    int rc = 0;
    for (int i = 0; i < n; i++) {
        srcs[i].ctx = -1;
        srcs[i].col = po->col_per_source ? i : -1;
        srcs[i].live = live;
        srcs[i].spec = live ? po->hosts[i] : po->archives[i];
    }
    for (int i = 0; i < n && rc == 0; i++)
        rc = open_source(&rd, &srcs[i], err);
    if (rc == 0) {
        if (live) {
            rc = collect_live(&rd, srcs, n, err);
        } else {
            for (int i = 0; i < n && rc == 0; i++)
                rc = replay_archive(&rd, &srcs[i], err);
        }
    }
    for (int i = 0; i < n; i++)
        close_source(&srcs[i]);
    free(srcs);
    stack_sink_free(&rd.sink);
    sb_free(&rd.stack);
    return rc;
}
