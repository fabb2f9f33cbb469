/* pcp_archive: archives replayed record by record (see pcp_archive.h). */
#include "client/input/pcp_archive.h"

#include "client/input/pcp_result.h"
#include "client/util/stopsig.h"

/* One pass over every record of the archive. */
static int archive_pass(reader *rd, source *s, const struct timeval *from,
                        strbuf *err)
{
    int sts = pmSetMode(PM_MODE_FORW, from, 0);
    if (sts < 0) {
        sb_printf(err, "%s: %s", s->spec, PCP_ERR_STR(sts));
        return 1;
    }
    for (;;) {
        pmResult *r = NULL;
        sts = pmFetchArchive(&r);
        if (sts == PM_ERR_EOL)
            return 0;
        /* a stop request (staprelay web's Ctrl-C: the commands reading
         * an archive catch no signal, so none is counted for them) */
        if (stopsig_count()) {
            if (sts >= 0)
                pmFreeResult(r);
            return 0;
        }
        if (sts < 0) {
            sb_printf(err, "%s: reading the archive: %s", s->spec,
                      PCP_ERR_STR(sts));
            return 1;
        }
        if (!rd->scan)
            rd->st->fetches++;
        pcp_result_process(rd, s, r);
        pmFreeResult(r);
    }
}

/* The span -S and -T are relative to: the archive's, widened to the
 * records' own timestamps, which may precede the archive's start (records
 * wait in the PMDA until pmlogger's next fetch) or be stamped by a
 * producer's clock. */
static int archive_span(reader *rd, source *s, strbuf *err)
{
    pmLogLabel label;
    struct timeval end;
    int sts;
    if ((sts = pmUseContext(s->ctx)) < 0
        || (sts = pmGetArchiveLabel(&label)) < 0
        || (sts = pmGetArchiveEnd(&end)) < 0) {
        sb_printf(err, "%s: %s", s->spec, PCP_ERR_STR(sts));
        return 1;
    }
    s->first_ns = reader_tv_ns(&label.ll_start);
    s->last_ns = reader_tv_ns(&end);
    rd->scan = true;
    rd->scan_lo = INT64_MAX;
    rd->scan_hi = INT64_MIN;
    int rc = archive_pass(rd, s, &label.ll_start, err);
    rd->scan = false;
    if (rd->scan_lo < s->first_ns)
        s->first_ns = rd->scan_lo;
    if (rd->scan_hi != INT64_MIN && rd->scan_hi > s->last_ns)
        s->last_ns = rd->scan_hi;
    return rc;
}

/* -S/-T against [first_ns, last_ns]: the window of every source given. */
static int set_window(const pcp_options *po, source *srcs, int n,
                      int64_t first_ns, int64_t last_ns, strbuf *err)
{
    int64_t lo_ns, hi_ns;
    strbuf why = STRBUF_INIT;
    if (pcp_window_parse(po->start, po->finish, first_ns, last_ns, &lo_ns,
                         &hi_ns, &why) < 0) {
        sb_printf(err, "%s: bad -S/-T window: %s", n == 1 ? srcs[0].spec
                  : "the archives", why.buf);
        sb_free(&why);
        return 2;
    }
    sb_free(&why);
    for (int i = 0; i < n; i++) {
        srcs[i].window = true;
        srcs[i].lo_ns = lo_ns;
        srcs[i].hi_ns = hi_ns;
        for (int m = 0; m < srcs[i].npmids; m++)
            if (srcs[i].counter[m] != NULL)
                pcp_counter_window(srcs[i].counter[m], srcs[i].lo_ns,
                                   srcs[i].hi_ns);
    }
    return 0;
}

/* With -S/-T: the window read against all the archives' span (each its
 * own for diff's two sides, col_per_source), so a farm's hosts share
 * one window. */
static int archive_windows(reader *rd, source *srcs, int n, strbuf *err)
{
    const pcp_options *po = rd->po;
    if (!po->start && !po->finish)
        return 0;
    int rc = 0;
    int64_t first = INT64_MAX, last = INT64_MIN;
    for (int i = 0; i < n && rc == 0; i++) {
        rc = archive_span(rd, &srcs[i], err);
        if (srcs[i].first_ns < first)
            first = srcs[i].first_ns;
        if (srcs[i].last_ns > last)
            last = srcs[i].last_ns;
    }
    for (int i = 0; rc == 0 && po->col_per_source && i < n; i++)
        rc = set_window(po, &srcs[i], 1, srcs[i].first_ns, srcs[i].last_ns,
                        err);
    if (rc == 0 && !po->col_per_source)
        rc = set_window(po, srcs, n, first, last, err);
    return rc;
}

int pcp_archive_replay(reader *rd, source *srcs, int n, strbuf *err)
{
    int rc = archive_windows(rd, srcs, n, err);
    for (int i = 0; i < n && rc == 0; i++) {
        pmLogLabel label;
        int sts;
        if ((sts = pmUseContext(srcs[i].ctx)) < 0
            || (sts = pmGetArchiveLabel(&label)) < 0) {
            sb_printf(err, "%s: %s", srcs[i].spec, PCP_ERR_STR(sts));
            return 1;
        }
        rc = archive_pass(rd, &srcs[i], &label.ll_start, err);
    }
    return rc;
}
