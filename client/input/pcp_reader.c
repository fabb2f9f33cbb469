/* pcp_reader: the PCP reader's shared helpers (see pcp_reader.h). */
#include "client/input/pcp_reader.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "client/util/stopsig.h"

void reader_notice(const reader *rd, const char *fmt, ...)
{
    char text[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    if (rd->po->on_notice)
        rd->po->on_notice(rd->po->hook_arg, text);
    else
        fprintf(stderr, "staprelay %s: %s\n", rd->cmd, text);
}

bool reader_deliver(reader *rd, double weight, int col, int64_t when_ns,
                    const stack_context *ctx)
{
    if (rd->po->on_stack) {
        const char *stack = rd->stack.buf;
        size_t len = rd->stack.len;
        if (!stack_sink_pass(&rd->sink, &stack, &len, ctx))
            return false;
        if (rd->in->on_detail && ctx)   /* web: the sample with its context */
            rd->in->on_detail(rd->in->on_detail_arg, stack, len, weight, col,
                              when_ns, ctx);
        else
            rd->po->on_stack(rd->po->hook_arg, stack, len, weight, when_ns);
        return true;
    }
    uint64_t before = rd->sink.filtered;
    stack_sink_add_ctx(&rd->sink, rd->stack.buf, rd->stack.len, weight, col,
                       when_ns, ctx);
    return rd->sink.filtered == before;
}

bool reader_counter_stack(reader *rd, const char *host, const pcp_sample *smp)
{
    perf_options po = rd->in->perf;
    po.include_pid = po.include_tid = false;
    po.no_comm = true;
    return pcp_sample_stack(smp, host, BLOCK_STATE_NONE, &po, &rd->stack);
}

bool reader_parse_interval(const char *s, struct timeval *tv, strbuf *err)
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

bool reader_string_value(const pmValueSet *vs, int inst, const char **p,
                         size_t *len)
{
    if (vs->numval <= 0 || vs->valfmt == PM_VAL_INSITU)
        return false;
    for (int j = 0; j < vs->numval; j++) {
        if (vs->vlist[j].inst != inst)
            continue;
        const pmValueBlock *vb = vs->vlist[j].value.pval;
        if (vb == NULL || vb->vtype != PM_TYPE_STRING
            || vb->vlen < PM_VAL_HDR_SIZE)
            return false;
        *p = vb->vbuf;
        *len = strnlen(vb->vbuf, vb->vlen - PM_VAL_HDR_SIZE);
        return true;
    }
    return false;
}

double reader_mono_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

void reader_sleep_until(double when)
{
    double d = when - reader_mono_now();
    if (d <= 0 || stopsig_count())
        return;
    struct timespec ts = { (time_t)d, (long)((d - (time_t)d) * 1e9) };
    nanosleep(&ts, NULL);   /* EINTR: the caller re-checks stopsig_count() */
}

int64_t reader_tv_ns(const struct timeval *tv)
{
    return (int64_t)tv->tv_sec * 1000000000 + (int64_t)tv->tv_usec * 1000;
}
