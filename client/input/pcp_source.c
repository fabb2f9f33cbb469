/* pcp_source: a source opened, its metrics resolved (see pcp_source.h). */
#include "client/input/pcp_source.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "client/input/pcp_result.h"
#include "client/stack/stackfilter.h"
#include "common/xalloc.h"

/* A metric's PMID and descriptor by name, in the current context. */
static int lookup_metric(const char *name, pmID *id, pmDesc *d)
{
    int sts = pmLookupName(1, &name, id);
    if (sts < 0)
        return sts;
    if (*id == PM_ID_NULL)
        return PM_ERR_NAME;
    return pmLookupDesc(*id, d);
}

static int lookup_event_metric(const char *name, pmID *pmid)
{
    pmID id;
    pmDesc d;
    int sts = lookup_metric(name, &id, &d);
    if (sts < 0)
        return sts;
    if (d.type != PM_TYPE_EVENT && d.type != PM_TYPE_HIGHRES_EVENT)
        return PM_ERR_TYPE;
    *pmid = id;
    return 0;
}

/* A counter of pmdastaprelay's (pcp_counters.h): an integer counter
 * with an instance domain. */
static int lookup_counter(const char *name, pmID *pmid, int *type,
                          pmInDom *indom, bool *timed)
{
    pmID id;
    pmDesc d;
    int sts = lookup_metric(name, &id, &d);
    if (sts < 0)
        return sts;
    if ((d.type != PM_TYPE_U64 && d.type != PM_TYPE_U32
         && d.type != PM_TYPE_64 && d.type != PM_TYPE_32)
        || d.sem != PM_SEM_COUNTER || d.indom == PM_INDOM_NULL)
        return PM_ERR_TYPE;
    *pmid = id;
    *type = d.type;
    *indom = d.indom;
    /* a stream with a duration: its stacks counter counts nanoseconds */
    *timed = d.units.dimTime == 1 && d.units.scaleTime == PM_TIME_NSEC
             && d.units.dimSpace == 0 && d.units.dimCount == 0;
    return 0;
}

static bool ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), m = strlen(suffix);
    return n >= m && strcmp(s + n - m, suffix) == 0;
}

/* The counter name stands for: the one it names (X.subsecond,
 * X.stacks), else the command's (po->counter). */
static pcp_counter_kind counter_kind(const reader *rd, const char *name)
{
    return ends_with(name, ".subsecond") ? PCP_COUNTER_SUBSECOND
           : ends_with(name, ".stacks") ? PCP_COUNTER_STACKS
           : rd->po->counter;
}

/* Why name has neither an event metric (event_sts) nor its counter
 * cname (sts), into err. */
static void no_counter(const source *s, const char *name, const char *cname,
                       int event_sts, int sts, strbuf *err)
{
    bool has_records = ends_with(name, ".records");
    if (event_sts == PM_ERR_TYPE && sts == PM_ERR_TYPE)
        sb_printf(err, "%s: %s is not an event metric nor a counter of "
                  "pmdastaprelay's", s->spec, name);
    else if (event_sts == PM_ERR_TYPE)
        sb_printf(err, "%s: %s is not an event metric%s%s%s, and there "
                  "is no %s", s->spec, name, has_records ? "" : " (nor is ",
                  has_records ? "" : name, has_records ? "" : ".records)",
                  cname);
    else if (event_sts == PM_ERR_NAME && sts == PM_ERR_NAME)
        sb_printf(err, "%s: %s: %s (nor %s%s%s)", s->spec, name,
                  PCP_ERR_STR(sts), has_records ? "" : name,
                  has_records ? "" : ".records, nor ", cname);
    else
        sb_printf(err, "%s: %s: no event records (%s) and no %s (%s)",
                  s->spec, name, PCP_ERR_STR(event_sts), cname,
                  PCP_ERR_STR(sts));
}

/* Metric m of s is the counter name stands for (no event metric does). */
static int resolve_counter(reader *rd, source *s, int m, const char *name,
                           int event_sts, strbuf *err)
{
    pcp_counter_kind kind = counter_kind(rd, name);
    char cname[1024], ename[1040];
    pcp_counter_name(name, kind, cname, sizeof cname);
    pmID id = PM_ID_NULL, end = PM_ID_NULL;
    int type = 0;
    pmInDom indom = PM_INDOM_NULL;
    bool timed = false;
    int sts = lookup_counter(cname, &id, &type, &indom, &timed);
    /* the event metric's name, for "log NAME.records" */
    int base = (int)(strlen(name) - (ends_with(name, ".stacks") ? 7 : 0));
    if (sts == 0 && timed && rd->po->weigh == PCP_WEIGH_EVENTS) {
        sb_printf(err, "%s: %s counts the blocks' time (ns), not how many: "
                  "--weight events needs the event records (log %.*s.records)",
                  s->spec, cname, base, name);
        return 1;
    }
    if (sts == 0 && (rd->po->by_state || stackfilter_wants_state(rd->in->filter))) {
        sb_printf(err, "%s: %s counts by stack alone, not by task state: "
                  "--by-state and --only-state need the event records (log "
                  "%.*s.records)", s->spec, cname, base, name);
        return 1;
    }
    if (sts == 0 && kind == PCP_COUNTER_SUBSECOND) {
        const char *en = ename;
        snprintf(ename, sizeof ename, "%s_end", cname);
        if (pmLookupName(1, &en, &end) < 0 || end == PM_ID_NULL) {
            sb_printf(err, "%s: %s has no %s to tell its seconds apart (log "
                      "both)", s->spec, cname, ename);
            return 1;
        }
    }
    if (sts < 0) {
        no_counter(s, name, cname, event_sts, sts, err);
        return 1;
    }
    s->pmids[m] = id;
    s->names[m] = xstrdup(cname);
    s->end_pmid[m] = end;
    s->ctype[m] = type;
    s->cindom[m] = indom;
    if (timed) {
        s->ctimed = true;
        rd->st->timed++;
    }
    bool u32 = type == PM_TYPE_U32 || type == PM_TYPE_32;
    s->counter[m] = pcp_counter_new(kind, u32, INT64_MIN, INT64_MAX,
                                    pcp_result_counted, rd);
    return 0;
}

int pcp_source_resolve(reader *rd, source *s, strbuf *err)
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
        if (sts < 0 && (sts == PM_ERR_NAME || sts == PM_ERR_NONLEAF
                        || sts == PM_ERR_TYPE) && rd->po->run == NULL) {
            rc = resolve_counter(rd, s, s->npmids, name, sts, err);
            if (rc == 0)
                s->npmids++;
            continue;
        }
        if (sts < 0) {
            if (sts == PM_ERR_TYPE)
                sb_printf(err, "%s: %s is not an event metric%s%s%s", s->spec,
                          name, b.len ? " (nor is " : "", b.len ? b.buf : "",
                          b.len ? ")" : "");
            else
                sb_printf(err, "%s: %s: %s", s->spec, name, PCP_ERR_STR(sts));
            rc = 1;
            break;
        }
        s->pmids[s->npmids] = id;
        s->names[s->npmids] = xstrdup(used);
        s->npmids++;
    }
    sb_free(&a);
    sb_free(&b);
    return rc;
}

/* ---- live: waiting for a metric to appear ---------------------------- */

/* 0 when a name NAME stands for (itself, NAME.records, the counter) is
 * in pmcd's namespace now, PM_ERR_NAME when none is, or another error
 * (pmcd gone, ...). */
static int metric_named(const reader *rd, const char *name)
{
    strbuf a = STRBUF_INIT, b = STRBUF_INIT;
    pcp_metric_candidates(name, &a, &b);
    pcp_counter_kind kind = counter_kind(rd, name);
    char cname[1024];
    pcp_counter_name(name, kind, cname, sizeof cname);
    const char *names[3] = { a.buf, b.len ? b.buf : cname, cname };
    int rc = PM_ERR_NAME;
    for (int i = 0; i < 3 && rc == PM_ERR_NAME; i++) {
        pmID id;
        int sts = pmLookupName(1, &names[i], &id);
        if (sts >= 0 && id != PM_ID_NULL)
            rc = 0;
        else if (sts < 0 && sts != PM_ERR_NAME && sts != PM_ERR_NONLEAF)
            rc = sts;
    }
    sb_free(&a);
    sb_free(&b);
    return rc;
}

/* A live source's metrics that are not in the namespace yet (the PMDA
 * discovers a source `staprelay run` just started within its poll
 * interval) are waited for, up to --wait seconds, saying so on stderr.
 * Returns how long it waited (0: it did not, everything was there or
 * --wait 0). */
static double wait_for_metrics(reader *rd, source *s)
{
    double limit = rd->po->wait_set ? rd->po->wait_s : PCP_WAIT_DEFAULT;
    double t0 = reader_mono_now(), said = -1;
    for (;;) {
        const char *missing = NULL;
        for (int m = 0; m < rd->po->nmetrics && missing == NULL; m++) {
            int sts = metric_named(rd, rd->po->metrics[m]);
            if (sts == PM_ERR_NAME)
                missing = rd->po->metrics[m];
            else if (sts < 0)   /* pcp_source_resolve says why */
                return said >= 0 ? reader_mono_now() - t0 : 0;
        }
        double now = reader_mono_now();
        if (missing == NULL) {
            if (said >= 0)
                reader_notice(rd, "%s: %s appeared after %.1f s", s->spec,
                              rd->po->metrics[0], now - t0);
            return 0;       /* there: a lookup error is not for waiting */
        }
        if (now - t0 >= limit)
            return said >= 0 ? now - t0 : 0;
        if (said < 0) {
            reader_notice(rd, "%s: %s is not there yet; waiting up to %g s "
                          "for it to appear (--wait)", s->spec, missing,
                          limit);
            said = now;
        } else if (now - said >= 10) {
            reader_notice(rd, "%s: still waiting for %s (%.0f s)", s->spec,
                          missing, now - t0);
            said = now;
        }
        double next = now + 0.25;
        reader_sleep_until(next < t0 + limit ? next : t0 + limit);
    }
}

/* ---- open, close ----------------------------------------------------- */

int pcp_source_open(reader *rd, source *s, strbuf *err)
{
    int type = s->live ? PM_CONTEXT_HOST : PM_CONTEXT_ARCHIVE;
    s->ctx = pmNewContext(type, s->spec);
    if (s->ctx < 0) {
        sb_printf(err, "%s: cannot open %s: %s", s->spec,
                  s->live ? "a connection to pmcd" : "the archive",
                  PCP_ERR_STR(s->ctx));
        return 1;
    }
    if (pmGetContextHostName_r(s->ctx, s->host, sizeof s->host) == NULL
        || s->host[0] == '\0')
        snprintf(s->host, sizeof s->host, "%s", s->spec);
    if (rd->po->run)
        return 0;       /* the metric comes from the run (pcp_follow_start) */
    double waited = s->live ? wait_for_metrics(rd, s) : 0;
    int rc = pcp_source_resolve(rd, s, err);
    if (rc != 0 && waited > 0)
        sb_printf(err, "; it did not appear within %.0f s (--wait SECONDS "
                  "waits longer; is its source running? pminfo -h %s "
                  "staprelay lists what the PMDA publishes)", waited, s->spec);
    return rc;
}

void pcp_source_close(source *s)
{
    if (s->ctx >= 0)
        pmDestroyContext(s->ctx);
    for (int i = 0; i < s->npmids; i++) {
        free(s->names[i]);
        pcp_counter_free(s->counter[i]);
    }
    free(s->fields);
    for (size_t i = 0; i < s->nnames_seen; i++)
        free(s->names_seen[i]);
    free(s->names_seen);
    strmap_free(s->inst_names);
}
