/* pcp_counters: counters to samples (see pcp_counters.h). */
#include "client/input/pcp_counters.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/xalloc.h"
#include "common/stackname.h"

#define NS_PER_S 1000000000LL
#define NS_PER_MS 1000000LL

struct pcp_counter {
    pcp_counter_kind kind;
    counterdelta    *cd;
    int64_t          lo_ns, hi_ns;
    pcp_counter_fn   fn;
    void            *arg;
    int64_t          end_prev, end_cur;   /* .subsecond_end, PCP_NO_END */
    char            *scratch;
    size_t           scratch_len;
    pcp_counter_stats st;
};

pcp_counter *pcp_counter_new(pcp_counter_kind kind, bool u32,
                             int64_t lo_ns, int64_t hi_ns,
                             pcp_counter_fn fn, void *arg)
{
    pcp_counter *c = xcalloc(1, sizeof *c);
    c->kind = kind;
    c->cd = counterdelta_new(u32);
    c->lo_ns = lo_ns;
    c->hi_ns = hi_ns;
    c->fn = fn;
    c->arg = arg;
    c->end_prev = c->end_cur = PCP_NO_END;
    return c;
}

void pcp_counter_free(pcp_counter *c)
{
    if (c == NULL)
        return;
    counterdelta_free(c->cd);
    free(c->scratch);
    free(c);
}

void pcp_counter_window(pcp_counter *c, int64_t lo_ns, int64_t hi_ns)
{
    c->lo_ns = lo_ns;
    c->hi_ns = hi_ns;
}

void pcp_counter_begin(pcp_counter *c, int64_t when_ns)
{
    counterdelta_begin(c->cd, when_ns);
    c->end_cur = PCP_NO_END;
}

void pcp_counter_value(pcp_counter *c, const char *name, uint64_t value)
{
    counterdelta_value(c->cd, name, value);
}

void pcp_counter_end_second(pcp_counter *c, int64_t end_s)
{
    c->end_cur = end_s;
}

static void stack_increment(pcp_counter *c, const char *name, uint64_t inc,
                            int64_t prev_ns, int64_t now_ns)
{
    if (prev_ns < c->lo_ns || now_ns > c->hi_ns) {
        c->st.outside += inc;
        return;
    }
    size_t n = strlen(name);
    if (n + 1 > c->scratch_len) {
        c->scratch_len = n + 1;
        c->scratch = xrealloc(c->scratch, c->scratch_len);
    }
    size_t len = stackname_decode(name, n, c->scratch);
    c->fn(c->arg, c->scratch, len, (double)inc, now_ns);
    c->st.samples += inc;
}

/* "LO-HI" in milliseconds, 0 <= LO < 1000 */
static bool bucket_start(const char *name, int64_t *lo_ms)
{
    char *end;
    long lo = strtol(name, &end, 10);
    if (end == name || *end != '-' || lo < 0 || lo >= 1000)
        return false;
    *lo_ms = lo;
    return true;
}

static void subsecond_increment(pcp_counter *c, const char *name,
                                uint64_t inc, int64_t prev_ns, int64_t now_ns)
{
    (void)prev_ns;
    (void)now_ns;
    int64_t lo_ms;
    if (!bucket_start(name, &lo_ms)) {
        c->st.bad_names += inc;
        return;
    }
    if (c->end_prev == PCP_NO_END || c->end_cur == PCP_NO_END) {
        c->st.no_end += inc;
        return;
    }
    /* the seconds end_prev .. end_cur-1; more than one cannot be told
     * apart, nor can late samples (no second closed): the last one */
    int64_t col = c->end_cur - 1;
    if (c->end_cur - c->end_prev == 1)
        col = c->end_prev;
    else
        c->st.merged += inc;
    int64_t when = col * NS_PER_S + lo_ms * NS_PER_MS;
    if (when < c->lo_ns || when > c->hi_ns) {
        c->st.outside += inc;
        return;
    }
    c->fn(c->arg, PCP_SUBSECOND_STACK, strlen(PCP_SUBSECOND_STACK),
          (double)inc, when);
    c->st.samples += inc;
}

static void on_increment(void *arg, const char *name, uint64_t inc,
                         int64_t prev_ns, int64_t now_ns)
{
    pcp_counter *c = arg;
    if (c->kind == PCP_COUNTER_STACKS)
        stack_increment(c, name, inc, prev_ns, now_ns);
    else
        subsecond_increment(c, name, inc, prev_ns, now_ns);
}

void pcp_counter_end(pcp_counter *c)
{
    uint64_t before = counterdelta_sets(c->cd);
    counterdelta_end(c->cd, on_increment, c);
    if (counterdelta_sets(c->cd) != before) {   /* it was a set */
        c->st.sets++;
        c->end_prev = c->end_cur;
    }
}

const pcp_counter_stats *pcp_counter_stats_of(const pcp_counter *c)
{
    return &c->st;
}

void pcp_counter_name(const char *name, pcp_counter_kind kind, char *out,
                      size_t outlen)
{
    const char *suffix = kind == PCP_COUNTER_STACKS ? ".stacks" : ".subsecond";
    size_t n = strlen(name), m = strlen(suffix);
    if (n >= m && strcmp(name + n - m, suffix) == 0)
        snprintf(out, outlen, "%s", name);
    else
        snprintf(out, outlen, "%s%s", name, suffix);
}
