/* log: sink dispatch and the per-subject rate limiter. */
#include "relay/log.h"
#include "common/strmap.h"

#include <stdio.h>

void log_vmsg(const log_sink *sink, log_level level, const char *fmt, va_list ap)
{
    char buf[1024];
    vsnprintf(buf, sizeof(buf), fmt, ap);
    if (sink != NULL && sink->fn != NULL)
        sink->fn(sink->arg, level, buf);
    else
        fprintf(stderr, "staprelay: %s\n", buf);
}

void log_msg(const log_sink *sink, log_level level, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    log_vmsg(sink, level, fmt, ap);
    va_end(ap);
}

int ratelimit_allow(ratelimit *rl, const char *msg, time_t now, time_t interval)
{
    uint64_t h = strmap_hash(msg);
    if (h == rl->last_hash && now - rl->last_time < interval) {
        rl->suppressed++;
        return 0;
    }
    rl->last_hash = h;
    rl->last_time = now;
    rl->suppressed = 0;
    return 1;
}
