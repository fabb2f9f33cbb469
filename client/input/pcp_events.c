/* pcp_events: event-array decoding (see pcp_events.h). */
#include "client/input/pcp_events.h"

#include <inttypes.h>
#include <math.h>
#include <string.h>

#include "common/frames.h"

pcp_field pcp_field_from_name(const char *name)
{
    static const struct { const char *n; pcp_field f; } roles[] = {
        { "stack", PCP_FIELD_STACK }, { "count", PCP_FIELD_COUNT },
        { "pid", PCP_FIELD_PID },     { "tid", PCP_FIELD_TID },
        { "cpu", PCP_FIELD_CPU },     { "comm", PCP_FIELD_COMM },
        { "duration", PCP_FIELD_DURATION }, { "state", PCP_FIELD_STATE },
    };
    if (name == NULL)
        return PCP_FIELD_OTHER;
    const char *leaf = strrchr(name, '.');
    leaf = leaf ? leaf + 1 : name;
    for (size_t i = 0; i < sizeof roles / sizeof roles[0]; i++)
        if (strcmp(leaf, roles[i].n) == 0)
            return roles[i].f;
    return PCP_FIELD_OTHER;
}

/* On-the-wire sizes (pmapi.h): a record header is the timestamp
 * (2 x 32-bit pmTimeval, or 2 x 64-bit pmTimespec for high resolution),
 * er_flags and er_nparams; a parameter is ep_pmid, a 32-bit type/len
 * word and the value, padded to a multiple of 4 bytes. */
#define REC_HDR(highres) ((highres) ? 24u : 16u)
#define PARAM_HDR 8u
#define PAD4(n) (((n) + 3u) & ~(size_t)3u)

typedef struct rec_hdr {
    int64_t  when_ns;
    uint32_t flags;
    int32_t  nparams;
} rec_hdr;

static void read_hdr(const char *p, bool highres, rec_hdr *h)
{
    if (highres) {
        int64_t sec, nsec;
        memcpy(&sec, p, 8);
        memcpy(&nsec, p + 8, 8);
        h->when_ns = sec * 1000000000 + nsec;
        p += 16;
    } else {
        int32_t sec, usec;
        memcpy(&sec, p, 4);
        memcpy(&usec, p + 4, 4);
        h->when_ns = (int64_t)sec * 1000000000 + (int64_t)usec * 1000;
        p += 8;
    }
    memcpy(&h->flags, p, 4);
    memcpy(&h->nparams, p + 4, 4);
}

/* The parameter's type/len word: same bit layout as pmValueBlock. */
static void read_param(const char *p, pmID *pmid, int *type, size_t *len)
{
    pmEventParameter ep;
    memcpy(&ep, p, sizeof ep);
    *pmid = ep.ep_pmid;
    *type = (int)ep.ep_type;
    *len = ep.ep_len;
}

/* Check the whole array; returns nrecords or a PM_ERR code. */
static int check_array(const char *base, const char *end, int nrec,
                       bool highres)
{
    const char *p = base;
    for (int r = 0; r < nrec; r++) {
        if ((size_t)(end - p) < REC_HDR(highres))
            return PM_ERR_TOOBIG;
        rec_hdr h;
        read_hdr(p, highres, &h);
        p += REC_HDR(highres);
        if (h.flags & PM_EVENT_FLAG_MISSED) {
            if (h.flags != PM_EVENT_FLAG_MISSED)
                return PM_ERR_CONV;
            continue;       /* nparams is the missed count */
        }
        if (h.nparams < 0)
            return PM_ERR_TOOSMALL;
        for (int i = 0; i < h.nparams; i++) {
            if ((size_t)(end - p) < PARAM_HDR)
                return PM_ERR_TOOBIG;
            pmID pmid;
            int type;
            size_t len;
            read_param(p, &pmid, &type, &len);
            if (len < PM_VAL_HDR_SIZE)
                return PM_ERR_TOOSMALL;
            if ((size_t)(end - p) < 4 + PAD4(len))
                return PM_ERR_TOOBIG;
            p += 4 + PAD4(len);
        }
    }
    return nrec;
}

static bool number_of(int type, const char *v, size_t n, double *out,
                      int64_t *iout)
{
    union { int32_t l; uint32_t ul; int64_t ll; uint64_t ull; float f;
            double d; } u;
    switch (type) {
    case PM_TYPE_32:
        if (n < 4) return false;
        memcpy(&u.l, v, 4);
        *iout = u.l;
        *out = u.l;
        return true;
    case PM_TYPE_U32:
        if (n < 4) return false;
        memcpy(&u.ul, v, 4);
        *iout = u.ul;
        *out = u.ul;
        return true;
    case PM_TYPE_64:
        if (n < 8) return false;
        memcpy(&u.ll, v, 8);
        *iout = u.ll;
        *out = (double)u.ll;
        return true;
    case PM_TYPE_U64:
        if (n < 8) return false;
        memcpy(&u.ull, v, 8);
        *iout = u.ull > INT64_MAX ? INT64_MAX : (int64_t)u.ull;
        *out = (double)u.ull;
        return true;
    case PM_TYPE_FLOAT:
        if (n < 4) return false;
        memcpy(&u.f, v, 4);
        *out = u.f;
        *iout = (int64_t)u.f;
        return true;
    case PM_TYPE_DOUBLE:
        if (n < 8) return false;
        memcpy(&u.d, v, 8);
        *out = u.d;
        *iout = (int64_t)u.d;
        return true;
    default:
        return false;
    }
}

int pcp_decode_events(const pmValueBlock *vb, pcp_field_fn field,
                      void *field_arg, const pcp_event_cb *cb)
{
    if (vb == NULL)
        return PM_ERR_TOOSMALL;
    bool highres;
    if (vb->vtype == PM_TYPE_EVENT)
        highres = false;
    else if (vb->vtype == PM_TYPE_HIGHRES_EVENT)
        highres = true;
    else
        return PM_ERR_TYPE;
    size_t vlen = vb->vlen;
    if (vlen < PM_VAL_HDR_SIZE + sizeof(int32_t))
        return PM_ERR_TOOSMALL;
    const char *start = (const char *)vb;
    const char *end = start + vlen;
    int32_t nrec;
    memcpy(&nrec, start + PM_VAL_HDR_SIZE, sizeof nrec);
    if (nrec < 0)
        return PM_ERR_TOOSMALL;
    const char *base = start + PM_VAL_HDR_SIZE + sizeof(int32_t);
    int rc = check_array(base, end, nrec, highres);
    if (rc < 0)
        return rc;

    const char *p = base;
    for (int r = 0; r < nrec; r++) {
        rec_hdr h;
        read_hdr(p, highres, &h);
        p += REC_HDR(highres);
        if (h.flags & PM_EVENT_FLAG_MISSED) {
            if (cb->missed && h.nparams > 0)
                cb->missed(cb->arg, h.when_ns, (uint64_t)h.nparams);
            continue;
        }
        pcp_sample s;
        memset(&s, 0, sizeof s);
        s.when_ns = h.when_ns;
        s.weight = 1;
        bool bad_duration = false;
        for (int i = 0; i < h.nparams; i++) {
            pmID pmid;
            int type;
            size_t len;
            read_param(p, &pmid, &type, &len);
            const char *v = p + PARAM_HDR;
            size_t n = len - PM_VAL_HDR_SIZE;
            p += 4 + PAD4(len);
            pcp_field role = field ? field(field_arg, pmid) : PCP_FIELD_OTHER;
            double d;
            int64_t iv;
            switch (role) {
            case PCP_FIELD_STACK:
            case PCP_FIELD_COMM:
            case PCP_FIELD_STATE:
                if (type != PM_TYPE_STRING)
                    break;
                if (role == PCP_FIELD_STACK) {
                    s.stack = v;
                    s.stack_len = strnlen(v, n);
                } else if (role == PCP_FIELD_COMM) {
                    s.comm = v;
                    s.comm_len = strnlen(v, n);
                } else {
                    s.state = v;
                    s.state_len = strnlen(v, n);
                }
                break;
            case PCP_FIELD_COUNT:
                if (number_of(type, v, n, &d, &iv) && isfinite(d) && d > 0) {
                    s.weight = d;
                    s.bad_weight = false;
                } else {
                    s.bad_weight = true;
                }
                break;
            case PCP_FIELD_DURATION:
                if (number_of(type, v, n, &d, &iv) && isfinite(d) && d >= 0) {
                    s.duration_ns = d;
                    s.has_duration = true;
                } else {
                    bad_duration = true;
                }
                break;
            case PCP_FIELD_PID:
                s.has_pid = number_of(type, v, n, &d, &iv);
                s.pid = iv;
                break;
            case PCP_FIELD_TID:
                s.has_tid = number_of(type, v, n, &d, &iv);
                s.tid = iv;
                break;
            case PCP_FIELD_CPU:
                s.has_cpu = number_of(type, v, n, &d, &iv);
                s.cpu = iv;
                break;
            default:
                break;
            }
        }
        if (bad_duration)
            s.bad_weight = true;
        if (cb->sample)
            cb->sample(cb->arg, &s);
    }
    return nrec;
}

double pcp_sample_weight(const pcp_sample *s, bool by_time)
{
    return by_time && s->has_duration ? s->duration_ns : s->weight;
}

/* Append a folded stack without the marks of its frames the options
 * do not ask for: the relay marks both _[k] and _[j]; --no-marks takes
 * them away, and --kernel or --jit with it keeps that one (as the
 * perf text collapser marks, perf_frame_opts). */
static void add_marked_as_asked(strbuf *out, const char *s, size_t n,
                                const frame_opts *fo)
{
    size_t i = 0;
    while (i <= n) {
        const char *semi = memchr(s + i, ';', n - i);
        size_t j = semi ? (size_t)(semi - s) : n;
        size_t len = j - i;
        if (len >= 4 && s[j - 4] == '_' && s[j - 3] == '[' && s[j - 1] == ']'
            && ((s[j - 2] == 'k' && !fo->mark_kernel)
                || (s[j - 2] == 'j' && !fo->mark_jit)))
            len -= 4;
        sb_add(out, s + i, len);
        if (j == n)
            break;
        sb_addc(out, ';');
        i = j + 1;
    }
}

void pcp_host_frame(strbuf *out, const char *host)
{
    frame_clean(out, host, strlen(host));
    sb_addc(out, ';');
}

block_state pcp_sample_state(const pcp_sample *s)
{
    return block_state_of(s->state, s->state_len, s->stack, s->stack_len);
}

bool pcp_sample_stack(const pcp_sample *s, const char *host, block_state state,
                      const perf_options *po, strbuf *out)
{
    if (s->stack == NULL || s->stack_len == 0)
        return false;
    sb_reset(out);
    if (host != NULL)
        pcp_host_frame(out, host);
    block_state_frame(out, state);
    bool ids = po->include_pid || po->include_tid;
    if (!po->no_comm && (ids || s->comm != NULL)) {
        char pid[24], tid[24];
        snprintf(pid, sizeof pid, "%" PRId64, s->pid);
        snprintf(tid, sizeof tid, "%" PRId64, s->tid);
        frame_process(out, s->comm, s->comm_len, s->has_pid ? pid : NULL,
                      strlen(pid), s->has_tid ? tid : NULL, strlen(tid),
                      po->include_pid, po->include_tid);
        sb_addc(out, ';');
    }
    frame_opts fo = perf_frame_opts(po);
    if (fo.mark_kernel && fo.mark_jit)
        sb_add(out, s->stack, s->stack_len);
    else
        add_marked_as_asked(out, s->stack, s->stack_len, &fo);
    return true;
}
