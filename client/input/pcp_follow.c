/* pcp_follow: following a run of staprelay.control.runs (see
 * pcp_follow.h). */
#include "client/input/pcp_follow.h"

#include <stdlib.h>
#include <string.h>

#include "client/input/pcp_source.h"
#include "client/util/stopsig.h"
#include "common/xalloc.h"

#define RUN_GONE  1     /* run_fetch_live: NAME is not listed */
#define RUN_BAD   2     /* its value is not a run (message in err) */
#define RUN_SETTLE 0.5  /* s after the end before an empty fetch ends it */

void pcp_follow_init(pcp_follow *rf, const pcp_options *po)
{
    memset(rf, 0, sizeof *rf);
    rf->name = po->run;
    rf->terminal_at = -1;
    rf->po = po;
}

void pcp_follow_free(pcp_follow *rf)
{
    pcp_run_free(&rf->cur);
    free(rf->metric);
}

/* staprelay.control.runs in the current context */
static int runs_metric(source *s, pcp_follow *rf, strbuf *err)
{
    const char *name = PCP_RUNS_METRIC;
    pmID id;
    int sts = pmLookupName(1, &name, &id);
    if (sts >= 0 && id == PM_ID_NULL)
        sts = PM_ERR_NAME;
    if (sts < 0) {
        if (s->live)
            sb_printf(err, "%s: %s: %s (is pmdastaprelay there new enough "
                      "for on-demand runs, and enabled?)", s->spec, name,
                      PCP_ERR_STR(sts));
        else
            sb_printf(err, "%s: %s is not in the archive: to draw a run from "
                      "an archive, log %s with the run's event metric (e.g. "
                      "log mandatory on 1 sec { %s "
                      "staprelay.staprelay_profile.samples.records })",
                      s->spec, name, name, name);
        return 1;
    }
    pmDesc d;
    if ((sts = pmLookupDesc(id, &d)) < 0) {
        sb_printf(err, "%s: %s: %s", s->spec, name, PCP_ERR_STR(sts));
        return 1;
    }
    if (d.type != PM_TYPE_STRING || d.indom == PM_INDOM_NULL) {
        sb_printf(err, "%s: %s is not a string metric with one instance per "
                  "run", s->spec, name);
        return 1;
    }
    rf->pmid = id;
    rf->indom = d.indom;
    return 0;
}

/* The instance id of the run (names compared whole, not up to a space). */
static int run_inst(const source *s, const pcp_follow *rf, int *inst)
{
    int *ids = NULL;
    char **names = NULL;
    int n = s->live ? pmGetInDom(rf->indom, &ids, &names)
                    : pmGetInDomArchive(rf->indom, &ids, &names);
    if (n == PM_ERR_INDOM || n == PM_ERR_INST || n == 0)
        return PM_ERR_INST;
    if (n < 0)
        return n;
    int rc = PM_ERR_INST;
    for (int i = 0; i < n; i++)
        if (strcmp(names[i], rf->name) == 0) {
            *inst = ids[i];
            rc = 0;
            break;
        }
    free(ids);
    free(names);
    return rc;
}

/* Parse a value of the run into rf->cur (replacing the previous one). */
static int run_take(const source *s, pcp_follow *rf, const char *p,
                    size_t len, strbuf *err)
{
    pcp_run nr;
    strbuf why = STRBUF_INIT;
    int rc = pcp_run_parse(p, len, &nr, &why);
    if (rc == 0 && nr.name[0] != '\0' && strcmp(nr.name, rf->name) != 0) {
        sb_adds(&why, "it names another run, \"");
        pcp_run_text(&why, nr.name, 80);
        sb_adds(&why, "\"");
        pcp_run_free(&nr);
        rc = -1;
    }
    if (rc < 0) {
        sb_printf(err, "%s: the value of %s[%s] is not a run: %s", s->spec,
                  PCP_RUNS_METRIC, rf->name, why.buf);
        sb_free(&why);
        return RUN_BAD;
    }
    sb_free(&why);
    pcp_run_free(&rf->cur);
    rf->cur = nr;
    if (rf->po && rf->po->on_run)
        rf->po->on_run(rf->po->hook_arg, &rf->cur);
    return 0;
}

/* Fetch the run's value now: 0, RUN_GONE, RUN_BAD or a PCP error. */
static int run_fetch_live(source *s, pcp_follow *rf, strbuf *err)
{
    int inst, sts;
    if ((sts = pmUseContext(s->ctx)) < 0 || (sts = run_inst(s, rf, &inst)) < 0)
        return sts == PM_ERR_INST ? RUN_GONE : sts;
    pmResult *r = NULL;
    if ((sts = pmFetch(1, &rf->pmid, &r)) < 0)
        return sts;
    const char *p;
    size_t len;
    if (r->numpmid < 1 || !reader_string_value(r->vset[0], inst, &p, &len))
        sts = RUN_GONE;
    else
        sts = run_take(s, rf, p, len, err);
    pmFreeResult(r);
    return sts;
}

/* The last value of the run that the archive holds. */
int pcp_follow_archive(source *s, pcp_follow *rf, strbuf *err)
{
    int inst, sts;
    pmLogLabel label;
    if ((sts = pmUseContext(s->ctx)) < 0
        || (sts = pmGetArchiveLabel(&label)) < 0) {
        sb_printf(err, "%s: %s", s->spec, PCP_ERR_STR(sts));
        return 1;
    }
    if (runs_metric(s, rf, err) != 0)
        return 1;
    char *last = NULL;
    size_t lastlen = 0;
    sts = run_inst(s, rf, &inst);
    if (sts == 0)
        sts = pmSetMode(PM_MODE_FORW, &label.ll_start, 0);
    while (sts >= 0) {
        pmResult *r = NULL;
        if ((sts = pmFetchArchive(&r)) < 0)
            break;
        for (int i = 0; i < r->numpmid; i++) {
            const char *p;
            size_t len;
            if (r->vset[i]->pmid == rf->pmid
                && reader_string_value(r->vset[i], inst, &p, &len)) {
                free(last);
                last = xmalloc(len + 1);
                memcpy(last, p, len);
                last[len] = '\0';
                lastlen = len;
            }
        }
        pmFreeResult(r);
    }
    if (sts != PM_ERR_EOL && sts != PM_ERR_INST) {
        sb_printf(err, "%s: reading the archive: %s", s->spec, PCP_ERR_STR(sts));
        free(last);
        return 1;
    }
    if (last == NULL) {
        sb_printf(err, "%s: no value of run %s in the archive: log %s with "
                  "the run's event metric while the run goes on (see "
                  "pminfo -a %s -f %s for the runs it holds)", s->spec,
                  rf->name, PCP_RUNS_METRIC, s->spec, PCP_RUNS_METRIC);
        return 1;
    }
    sts = run_take(s, rf, last, lastlen, err);
    free(last);
    return sts == 0 ? 0 : 1;
}

/* A run that can have no records: the error for it. */
static void run_no_events(const source *s, const pcp_follow *rf, strbuf *err)
{
    const pcp_run *r = &rf->cur;
    sb_printf(err, "run %s ", rf->name);
    switch (r->state) {
    case PCP_RUN_FAILED:
        sb_adds(err, "failed: ");
        pcp_run_text(err, r->reason[0] ? r->reason : "(no reason given)",
                     400);
        break;
    case PCP_RUN_STOPPED:
        sb_adds(err, "was stopped before it published an event metric");
        break;
    case PCP_RUN_DONE:
        sb_adds(err, "is done but published no event metric (does script ");
        pcp_run_text(err, r->script, 64);
        sb_adds(err, " record stacks?)");
        break;
    default:
        sb_printf(err, "is %s and has no event metric yet%s",
                  pcp_run_state_name(r->state),
                  s->live ? "" : " when the archive ends");
        break;
    }
}

/* Live: wait until the run has an event metric (polling its state every
 * interval, until end >= 0 or a signal). */
int pcp_follow_wait_live(reader *rd, source *s, pcp_follow *rf,
                         double interval, double end, strbuf *err)
{
    int shown = -1;
    if (runs_metric(s, rf, err) != 0)
        return 1;
    for (;;) {
        int sts = run_fetch_live(s, rf, err);
        if (sts == RUN_GONE) {
            sb_printf(err, "no run %s on %s; see pminfo -f %s", rf->name,
                      s->spec, PCP_RUNS_METRIC);
            return 1;
        }
        if (sts == RUN_BAD)
            return 1;
        if (sts < 0) {
            sb_printf(err, "%s: %s: %s", s->spec, PCP_RUNS_METRIC,
                      PCP_ERR_STR(sts));
            return 1;
        }
        if (rf->cur.nevents > 0)
            return 0;
        if (pcp_run_terminal(&rf->cur)) {
            run_no_events(s, rf, err);
            return 1;
        }
        if ((int)rf->cur.state != shown) {
            reader_notice(rd, "run %s is %s; waiting for %s", rf->name,
                          pcp_run_state_name(rf->cur.state),
                          rf->cur.state == PCP_RUN_QUEUED ? "it to start"
                          : "its event metric");
            shown = (int)rf->cur.state;
        }
        double next = reader_mono_now() + interval;
        if (end >= 0 && reader_mono_now() >= end) {
            sb_printf(err, "run %s was still %s at the end (-T)", rf->name,
                      pcp_run_state_name(rf->cur.state));
            return 1;
        }
        if (end >= 0 && next > end)
            next = end;
        reader_sleep_until(next);
        if (stopsig_count()) {
            sb_printf(err, "interrupted while waiting for run %s", rf->name);
            return 1;
        }
    }
}

/* The run has its event metric: follow it (the -h/-a source's metric and
 * window).  Returns 0, or 1 with a message in err. */
int pcp_follow_start(reader *rd, pcp_options *po, source *s, pcp_follow *rf,
                     strbuf *err)
{
    const pcp_run *r = &rf->cur;
    if (r->nevents == 0) {
        run_no_events(s, rf, err);
        return 1;
    }
    if (r->nevents > 1 && po->nmetrics == 0)
        reader_notice(rd, "run %s has %d event metrics; drawing the first "
                      "(name another as the METRIC argument)", rf->name,
                      r->nevents);
    rf->metric = xstrdup(po->nmetrics ? po->metrics[0] : r->events[0]);
    po->metrics[0] = rf->metric;
    po->nmetrics = 1;
    strbuf why = STRBUF_INIT;
    int rc = pcp_source_resolve(rd, s, &why);
    if (rc != 0) {
        sb_adds(err, why.buf);
        sb_printf(err, " (the event metric of run %s%s)", rf->name,
                  s->live && pcp_run_terminal(r)
                  ? ", which has ended: its records are gone from pmcd; "
                    "draw it from an archive"
                  : s->live ? ""
                  : ": log it with pmlogger alongside " PCP_RUNS_METRIC);
        sb_free(&why);
        return rc;
    }
    sb_free(&why);
    if (!pcp_run_choose_window(r, s->live, po->start || po->finish,
                               &s->lo_ns, &s->hi_ns))
        return 0;       /* pcp_archive_replay applies -S/-T */
    s->window = true;
    rd->st->run_window = true;
    if (s->live)
        reader_notice(rd, "run %s is %s; reading %s until it "
                      "ends", rf->name, pcp_run_state_name(r->state),
                      rf->metric);
    return 0;
}

/* After each live round: true when collection of the run is complete
 * (it ended, and a fetch at least RUN_SETTLE after that brought nothing
 * of it) or must stop (the run vanished or pmcd stopped answering). */
bool pcp_follow_progress(reader *rd, source *s, pcp_follow *rf)
{
    uint64_t in = rd->st->records - rd->st->outside;
    bool empty = in == rf->last_in;
    rf->last_in = in;
    rf->rounds++;
    if (rf->terminal_at >= 0)
        return rf->rounds > 1 && empty
               && reader_mono_now() - rf->terminal_at >= RUN_SETTLE;
    strbuf err = STRBUF_INIT;
    int sts = run_fetch_live(s, rf, &err);
    if (sts != 0) {
        if (sts == RUN_GONE)
            reader_notice(rd, "run %s is no longer listed on %s "
                          "(pmdastaprelay restarted?); drawing what arrived",
                          rf->name, s->spec);
        else if (sts == RUN_BAD)
            reader_notice(rd, "%s; drawing what arrived", err.buf);
        else
            reader_notice(rd, "%s: %s: %s; drawing what arrived", s->spec,
                          PCP_RUNS_METRIC, PCP_ERR_STR(sts));
        sb_free(&err);
        return true;
    }
    sb_free(&err);
    if (pcp_run_terminal(&rf->cur)) {
        rf->terminal_at = reader_mono_now();
        pcp_run_window(&rf->cur, &s->lo_ns, &s->hi_ns);
    }
    return false;
}

/* After the records are read: a failed run without records is an
 * error (its reason); other endings are noted. */
int pcp_follow_finish(reader *rd, const source *s, const pcp_follow *rf,
                      strbuf *err)
{
    const pcp_run *r = &rf->cur;
    strbuf why = STRBUF_INIT;
    int rc = 0;
    if (r->state == PCP_RUN_FAILED && rd->st->stacks == 0) {
        run_no_events(s, rf, err);
        rc = 1;
    } else if (r->state == PCP_RUN_FAILED) {
        pcp_run_text(&why, r->reason[0] ? r->reason : "no reason given",
                     400);
        reader_notice(rd, "run %s failed (%s); drawing the "
                      "records it published", rf->name, why.buf);
    } else if (r->state == PCP_RUN_STOPPED) {
        reader_notice(rd, "run %s was stopped before its "
                      "duration ended", rf->name);
    } else if (!s->live && !pcp_run_terminal(r)) {
        reader_notice(rd, "run %s was still %s when the archive "
                      "ends; drawing what was recorded", rf->name,
                      pcp_run_state_name(r->state));
    }
    sb_free(&why);
    return rc;
}

