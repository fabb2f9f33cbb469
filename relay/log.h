/* log: the relay's logging sink.  The relay never prints directly: the host
 * (the PMDA, a test) installs a sink.  ratelimit helps callers log a
 * repeating problem once, not on every poll. */
#ifndef STAPRELAY_LOG_H
#define STAPRELAY_LOG_H

#include <stdarg.h>
#include <stdint.h>
#include <time.h>

typedef enum { LOG_LVL_ERROR, LOG_LVL_WARNING, LOG_LVL_INFO, LOG_LVL_DEBUG } log_level;

typedef void (*log_sink_fn)(void *arg, log_level level, const char *msg);

typedef struct log_sink {
    log_sink_fn fn;
    void *arg;
} log_sink;

void log_msg(const log_sink *sink, log_level level, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
void log_vmsg(const log_sink *sink, log_level level, const char *fmt, va_list ap);

/* Remembers the last message logged for one subject: log again only when
 * the text changes or after `interval` seconds. */
typedef struct ratelimit {
    uint64_t last_hash;
    time_t last_time;
    unsigned suppressed;
} ratelimit;

/* Returns 1 if the message should be logged now (and records it). */
int ratelimit_allow(ratelimit *rl, const char *msg, time_t now, time_t interval);

#endif
