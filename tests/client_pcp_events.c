/* Suite: client/input/pcp_events without a pmcd: event arrays built by
 * hand in pmapi.h's packed layout, decoded to samples and folded stacks;
 * libpcp's own pmUnpackEventRecords() as an oracle for the layout. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "client/input/pcp_events.h"
#include "client/input/pcp_input.h"
#include "tests/testutil.h"

/* ---- a packed event array builder ----------------------------------- */

#define PM_STACK pmID_build(490, 1, 1)
#define PM_COUNT pmID_build(490, 1, 2)
#define PM_PID   pmID_build(490, 1, 3)
#define PM_TID   pmID_build(490, 1, 4)
#define PM_COMM  pmID_build(490, 1, 5)
#define PM_DUR   pmID_build(490, 1, 6)
#define PM_OTHER pmID_build(490, 1, 9)

typedef struct ebuf {
    char  *buf;
    size_t len, cap;
    size_t nrec_at;     /* offset of ea_nrecords */
    size_t nparams_at;  /* offset of the open record's er_nparams */
    bool   highres;
} ebuf;

static void eb_put(ebuf *e, const void *p, size_t n)
{
    if (e->len + n + 8 > e->cap) {
        e->cap = (e->len + n + 8) * 2;
        e->buf = realloc(e->buf, e->cap);
    }
    memcpy(e->buf + e->len, p, n);
    e->len += n;
}

static void eb_pad(ebuf *e)
{
    static const char zero[4];
    eb_put(e, zero, (4 - e->len % 4) % 4);
}

static void eb_begin(ebuf *e, bool highres)
{
    memset(e, 0, sizeof *e);
    e->highres = highres;
    int32_t hdr = 0, n = 0;
    eb_put(e, &hdr, 4);          /* vtype/vlen, filled in by eb_end */
    e->nrec_at = e->len;
    eb_put(e, &n, 4);
}

static void eb_bump(ebuf *e, size_t at)
{
    int32_t n;
    memcpy(&n, e->buf + at, 4);
    n++;
    memcpy(e->buf + at, &n, 4);
}

static void eb_record(ebuf *e, int64_t sec, int64_t nsec, uint32_t flags,
                      int32_t nparams)
{
    eb_bump(e, e->nrec_at);
    if (e->highres) {
        eb_put(e, &sec, 8);
        eb_put(e, &nsec, 8);
    } else {
        int32_t s = (int32_t)sec, us = (int32_t)(nsec / 1000);
        eb_put(e, &s, 4);
        eb_put(e, &us, 4);
    }
    eb_put(e, &flags, 4);
    e->nparams_at = e->len;
    eb_put(e, &nparams, 4);
}

static void eb_param(ebuf *e, pmID pmid, int type, const void *v, size_t n)
{
    eb_bump(e, e->nparams_at);
    pmEventParameter ep;
    memset(&ep, 0, sizeof ep);
    ep.ep_pmid = pmid;
    ep.ep_type = (unsigned)type;
    ep.ep_len = (unsigned)(PM_VAL_HDR_SIZE + n);
    eb_put(e, &ep, sizeof ep);
    eb_put(e, v, n);
    eb_pad(e);
}

static void eb_str(ebuf *e, pmID pmid, const char *s)
{
    eb_param(e, pmid, PM_TYPE_STRING, s, strlen(s) + 1);
}

static void eb_i64(ebuf *e, pmID pmid, int64_t v)
{
    eb_param(e, pmid, PM_TYPE_64, &v, 8);
}

static pmValueBlock *eb_end(ebuf *e)
{
    pmValueBlock *vb = (pmValueBlock *)e->buf;
    vb->vtype = e->highres ? PM_TYPE_HIGHRES_EVENT : PM_TYPE_EVENT;
    vb->vlen = (unsigned)e->len;
    return vb;
}

/* ---- collecting decoded samples ------------------------------------- */

typedef struct got {
    int      nsamples;
    char     stacks[8][128];
    int64_t  when[8];
    double   weight[8];
    double   by_time[8];    /* pcp_sample_weight(s, true) */
    bool     bad[8];
    uint64_t missed;
    strbuf   folded;        /* every pcp_sample_stack(), one per line */
} got;

static pcp_field fake_roles(void *arg, pmID pmid)
{
    (void)arg;
    if (pmid == PM_STACK) return PCP_FIELD_STACK;
    if (pmid == PM_COUNT) return PCP_FIELD_COUNT;
    if (pmid == PM_PID) return PCP_FIELD_PID;
    if (pmid == PM_TID) return PCP_FIELD_TID;
    if (pmid == PM_COMM) return PCP_FIELD_COMM;
    if (pmid == PM_DUR) return PCP_FIELD_DURATION;
    return PCP_FIELD_OTHER;
}

static void got_sample(void *arg, const pcp_sample *s)
{
    got *g = arg;
    int i = g->nsamples++;
    if (i >= 8)
        return;
    if (s->stack)
        snprintf(g->stacks[i], sizeof g->stacks[i], "%.*s",
                 (int)s->stack_len, s->stack);
    else
        snprintf(g->stacks[i], sizeof g->stacks[i], "(none)");
    g->when[i] = s->when_ns;
    g->weight[i] = pcp_sample_weight(s, false);
    g->by_time[i] = pcp_sample_weight(s, true);
    g->bad[i] = s->bad_weight;
    strbuf one = STRBUF_INIT;
    if (pcp_sample_stack(s, "web1", BLOCK_STATE_NONE, &(perf_options){ .include_pid = true, .include_tid = true }, &one))
        sb_printf(&g->folded, "%s\n", one.buf);
    else
        sb_adds(&g->folded, "-\n");
    sb_free(&one);
}

static void got_missed(void *arg, int64_t when, uint64_t n)
{
    (void)when;
    ((got *)arg)->missed += n;
}

static int decode(pmValueBlock *vb, got *g)
{
    memset(g, 0, sizeof *g);
    pcp_event_cb cb = { got_sample, got_missed, g };
    return pcp_decode_events(vb, fake_roles, NULL, &cb);
}

/* A typical fetch: two samples (one weighted), a MISSED record, one
 * without a stack, one with a zero count, an unknown parameter. */
static pmValueBlock *typical(ebuf *e, bool highres)
{
    eb_begin(e, highres);
    eb_record(e, 1764450000, 10000, PM_EVENT_FLAG_POINT, 0);
    eb_str(e, PM_STACK, "main;work;leaf_[k]");
    eb_i64(e, PM_COUNT, 3);
    eb_i64(e, PM_PID, 10);
    eb_i64(e, PM_TID, 11);
    eb_str(e, PM_COMM, "my;prog");
    eb_i64(e, PM_OTHER, 99);
    eb_record(e, 1764450001, 0, PM_EVENT_FLAG_MISSED, 7);
    eb_record(e, 1764450002, 500000000, PM_EVENT_FLAG_POINT, 0);
    eb_str(e, PM_STACK, "main;idle");     /* odd length: padded */
    eb_record(e, 1764450003, 0, PM_EVENT_FLAG_POINT, 0);
    eb_str(e, PM_COMM, "nostack");
    eb_record(e, 1764450004, 0, PM_EVENT_FLAG_POINT, 0);
    eb_str(e, PM_STACK, "main;zero");
    eb_i64(e, PM_COUNT, 0);
    return eb_end(e);
}

START_TEST(decode_typical_array)
{
    for (int hr = 0; hr < 2; hr++) {
        ebuf e;
        got g;
        pmValueBlock *vb = typical(&e, hr);
        ck_assert_int_eq(decode(vb, &g), 5);
        ck_assert_int_eq(g.nsamples, 4);
        ck_assert_uint_eq(g.missed, 7);
        ck_assert_str_eq(g.stacks[0], "main;work;leaf_[k]");
        ck_assert(g.weight[0] == 3);
        ck_assert(g.when[0] == 1764450000LL * 1000000000 + 10000);
        ck_assert_str_eq(g.stacks[1], "main;idle");
        ck_assert(g.weight[1] == 1 && !g.bad[1]);
        ck_assert(g.when[1] == 1764450002LL * 1000000000 + 500000000);
        ck_assert_str_eq(g.stacks[2], "(none)");
        ck_assert(g.bad[3]);
        ck_assert_str_eq(g.folded.buf,
                         "web1;my:prog-10/11;main;work;leaf_[k]\n"
                         "web1;?-?/?;main;idle\n"
                         "-\n"
                         "web1;?-?/?;main;zero\n");
        sb_free(&g.folded);
        free(e.buf);
    }
}
END_TEST

/* Off-CPU records: a block weighs its duration (ns) by default, so
 * 20 ms and 80 ms weigh 1:4; counting events they weigh 1:1; a record
 * without a duration weighs its count either way; a negative duration
 * is a bad weight (the record is ignored and counted). */
START_TEST(decode_duration_weighs_time)
{
    ebuf e;
    got g;
    eb_begin(&e, true);
    eb_record(&e, 1764450000, 0, PM_EVENT_FLAG_POINT, 0);
    eb_str(&e, PM_STACK, "main;nap");
    eb_i64(&e, PM_DUR, 20000000);
    eb_record(&e, 1764450000, 1, PM_EVENT_FLAG_POINT, 0);
    eb_i64(&e, PM_DUR, 80000000);
    eb_str(&e, PM_STACK, "main;doze");
    eb_record(&e, 1764450000, 2, PM_EVENT_FLAG_POINT, 0);
    eb_str(&e, PM_STACK, "main;spin");
    eb_i64(&e, PM_COUNT, 3);
    eb_record(&e, 1764450000, 3, PM_EVENT_FLAG_POINT, 0);
    eb_str(&e, PM_STACK, "main;bad");
    eb_i64(&e, PM_DUR, -1);
    eb_record(&e, 1764450000, 4, PM_EVENT_FLAG_POINT, 0);
    eb_i64(&e, PM_DUR, -1);           /* a good count does not hide it */
    eb_i64(&e, PM_COUNT, 2);
    eb_str(&e, PM_STACK, "main;bad");
    ck_assert_int_eq(decode(eb_end(&e), &g), 5);
    ck_assert_int_eq(g.nsamples, 5);
    ck_assert(g.by_time[0] == 20000000 && g.by_time[1] == 80000000);
    ck_assert(g.by_time[1] == 4 * g.by_time[0]);
    ck_assert(g.weight[0] == 1 && g.weight[1] == 1);
    ck_assert(!g.bad[0] && !g.bad[1]);
    ck_assert(g.by_time[2] == 3 && g.weight[2] == 3 && !g.bad[2]);
    ck_assert(g.bad[3] && g.bad[4]);
    ck_assert_int_eq(pcp_field_from_name("staprelay.staprelay_offcpu.blocks.duration"),
                     PCP_FIELD_DURATION);
    sb_free(&g.folded);
    free(e.buf);
}
END_TEST

START_TEST(decode_rejects_malformed_arrays)
{
    ebuf e;
    got g;
    pmValueBlock *vb = typical(&e, false);
    unsigned full = vb->vlen;
    vb->vlen = full - 4;                 /* last parameter cut short */
    ck_assert_int_eq(decode(vb, &g), PM_ERR_TOOBIG);
    ck_assert_int_eq(g.nsamples, 0);     /* checked before delivering */
    vb->vlen = full;
    vb->vtype = PM_TYPE_STRING;
    ck_assert_int_eq(decode(vb, &g), PM_ERR_TYPE);
    vb->vtype = PM_TYPE_EVENT;
    vb->vlen = 6;
    ck_assert_int_eq(decode(vb, &g), PM_ERR_TOOSMALL);
    free(e.buf);

    eb_begin(&e, false);
    eb_record(&e, 1, 0, PM_EVENT_FLAG_MISSED | PM_EVENT_FLAG_POINT, 3);
    ck_assert_int_eq(decode(eb_end(&e), &g), PM_ERR_CONV);
    free(e.buf);

    eb_begin(&e, false);                 /* no records at all */
    ck_assert_int_eq(decode(eb_end(&e), &g), 0);
    free(e.buf);
}
END_TEST

/* libpcp decodes our hand-built array the same way: the layout (and its
 * 4-byte parameter padding) is the one pmUnpackEventRecords() reads. */
START_TEST(layout_matches_libpcp)
{
    ebuf e;
    pmValueBlock *vb = typical(&e, false);
    pmValueSet vs;
    memset(&vs, 0, sizeof vs);
    vs.pmid = pmID_build(490, 1, 0);
    vs.numval = 1;
    vs.valfmt = PM_VAL_DPTR;
    vs.vlist[0].inst = PM_IN_NULL;
    vs.vlist[0].value.pval = vb;
    pmResult **recs = NULL;
    int n = pmUnpackEventRecords(&vs, 0, &recs);
    ck_assert_int_eq(n, 5);
    /* record 2 (index 2): flags vset, then the stack */
    const pmResult *r = recs[2];
    ck_assert_int_eq(r->timestamp.tv_sec, 1764450002);
    ck_assert_int_eq(r->timestamp.tv_usec, 500000);
    ck_assert_int_eq(r->numpmid, 2);
    ck_assert(r->vset[1]->pmid == PM_STACK);
    ck_assert_str_eq(r->vset[1]->vlist[0].value.pval->vbuf, "main;idle");
    /* record 0: flags + 6 parameters; the comm is the 5th parameter */
    r = recs[0];
    ck_assert_int_eq(r->numpmid, 7);
    ck_assert(r->vset[5]->pmid == PM_COMM);
    ck_assert_str_eq(r->vset[5]->vlist[0].value.pval->vbuf, "my;prog");
    /* MISSED: flags and the missed count */
    ck_assert_int_eq(recs[1]->numpmid, 2);
    ck_assert_int_eq(recs[1]->vset[1]->vlist[0].value.lval, 7);
    pmFreeEventResult(recs);
    free(e.buf);
}
END_TEST

START_TEST(field_roles_and_stack_text)
{
    ck_assert_int_eq(pcp_field_from_name("staprelay.p.e.stack"), PCP_FIELD_STACK);
    ck_assert_int_eq(pcp_field_from_name("staprelay.p.e.count"), PCP_FIELD_COUNT);
    ck_assert_int_eq(pcp_field_from_name("staprelay.p.e.comm"), PCP_FIELD_COMM);
    ck_assert_int_eq(pcp_field_from_name("x.tid"), PCP_FIELD_TID);
    ck_assert_int_eq(pcp_field_from_name("cpu"), PCP_FIELD_CPU);
    ck_assert_int_eq(pcp_field_from_name("staprelay.p.e.stacks"), PCP_FIELD_OTHER);
    ck_assert_int_eq(pcp_field_from_name(NULL), PCP_FIELD_OTHER);

    pcp_sample s;
    memset(&s, 0, sizeof s);
    strbuf out = STRBUF_INIT;
    ck_assert(!pcp_sample_stack(&s, NULL, BLOCK_STATE_NONE, &(perf_options){ .include_pid = false, .include_tid = false }, &out));
    s.stack = "a;b";
    s.stack_len = 3;
    ck_assert(pcp_sample_stack(&s, NULL, BLOCK_STATE_NONE, &(perf_options){ .include_pid = false, .include_tid = false }, &out));
    ck_assert_str_eq(out.buf, "a;b");
    s.comm = "bash";
    s.comm_len = 4;
    s.pid = 42;
    s.has_pid = true;
    ck_assert(pcp_sample_stack(&s, "h;x", BLOCK_STATE_NONE, &(perf_options){ .include_pid = true, .include_tid = false }, &out));
    ck_assert_str_eq(out.buf, "h:x;bash-42;a;b");
    s.tid = 43;
    s.has_tid = true;
    ck_assert(pcp_sample_stack(&s, NULL, BLOCK_STATE_NONE, &(perf_options){ .include_pid = false, .include_tid = true }, &out));
    ck_assert_str_eq(out.buf, "bash-42/43;a;b");
    /* --pid/--tid on records without a pid, tid or comm: "?" where the
     * value is missing, as stackcollapse-perf.pl writes comm-?/TID when
     * perf printed no PID */
    s.has_pid = false;
    ck_assert(pcp_sample_stack(&s, NULL, BLOCK_STATE_NONE, &(perf_options){ .include_pid = true, .include_tid = false }, &out));
    ck_assert_str_eq(out.buf, "bash-?;a;b");
    ck_assert(pcp_sample_stack(&s, NULL, BLOCK_STATE_NONE, &(perf_options){ .include_pid = false, .include_tid = true }, &out));
    ck_assert_str_eq(out.buf, "bash-?/43;a;b");
    s.has_tid = false;
    s.comm = NULL;
    s.comm_len = 0;
    ck_assert(pcp_sample_stack(&s, NULL, BLOCK_STATE_NONE, &(perf_options){ .include_pid = false, .include_tid = true }, &out));
    ck_assert_str_eq(out.buf, "?-?/?;a;b");
    s.has_pid = true;
    ck_assert(pcp_sample_stack(&s, "h", BLOCK_STATE_NONE, &(perf_options){ .include_pid = true, .include_tid = false }, &out));
    ck_assert_str_eq(out.buf, "h;?-42;a;b");
    s.comm = "bash";
    s.comm_len = 4;
    s.has_tid = true;

    /* the one stack assembly: comm as the root frame by default (as
     * from perf script text), --no-comm drops it, --no-marks removes
     * the relay's _[k] / _[j] (not _[i]) */
    s.stack = "main;f_[i];sys_read_[k];jit_[j]";
    s.stack_len = strlen(s.stack);
    ck_assert(pcp_sample_stack(&s, NULL, BLOCK_STATE_NONE, &(perf_options){ 0 }, &out));
    ck_assert_str_eq(out.buf, "bash;main;f_[i];sys_read_[k];jit_[j]");
    ck_assert(pcp_sample_stack(&s, NULL, BLOCK_STATE_NONE, &(perf_options){ .no_comm = true },
                               &out));
    ck_assert_str_eq(out.buf, "main;f_[i];sys_read_[k];jit_[j]");
    ck_assert(pcp_sample_stack(&s, "h", BLOCK_STATE_NONE, &(perf_options){ .no_marks = true },
                               &out));
    ck_assert_str_eq(out.buf, "h;bash;main;f_[i];sys_read;jit");
    /* --no-marks --jit: the JIT mark alone; --no-marks --kernel: the
     * kernel's alone (stackcollapse-perf.pl --jit / --kernel) */
    ck_assert(pcp_sample_stack(&s, NULL, BLOCK_STATE_NONE, &(perf_options){ .no_comm = true,
                               .no_marks = true, .jit_marks = true }, &out));
    ck_assert_str_eq(out.buf, "main;f_[i];sys_read;jit_[j]");
    ck_assert(pcp_sample_stack(&s, NULL, BLOCK_STATE_NONE, &(perf_options){ .no_comm = true,
                               .no_marks = true, .kernel_marks = true }, &out));
    ck_assert_str_eq(out.buf, "main;f_[i];sys_read_[k];jit");
    sb_free(&out);

    strbuf a = STRBUF_INIT, b = STRBUF_INIT;
    pcp_metric_candidates("staprelay.p.e", &a, &b);
    ck_assert_str_eq(a.buf, "staprelay.p.e");
    ck_assert_str_eq(b.buf, "staprelay.p.e.records");
    pcp_metric_candidates("staprelay.p.e.records", &a, &b);
    ck_assert_str_eq(a.buf, "staprelay.p.e.records");
    ck_assert_uint_eq(b.len, 0);
    sb_free(&a);
    sb_free(&b);
}
END_TEST

TEST_SUITE(client_pcp_events)
{
    Suite *s = suite_create(test_suite_name);
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, decode_typical_array);
    tcase_add_test(tc, decode_duration_weighs_time);
    tcase_add_test(tc, decode_rejects_malformed_arrays);
    tcase_add_test(tc, layout_matches_libpcp);
    tcase_add_test(tc, field_roles_and_stack_text);
    suite_add_tcase(s, tc);
    return s;
}
