/* pcp_reader: the state of one pcp_input_read() call -- the reader and
 * its sources (one PCP context each) -- shared by the parts of the PCP
 * reader, and the few helpers they all use: notices, delivering a
 * sample's stack, clocks.  Internal to client/input's PCP reader
 * (pcp_input.c, pcp_source.c, pcp_result.c, pcp_follow.c, pcp_live.c,
 * pcp_archive.c, pcp_series.c); callers use pcp_input.h.
 *
 * Ownership: pcp_input_read() owns the reader (its sink and stack
 * buffer) and the array of sources; a source owns its context, metric
 * names, counters and caches (pcp_source_close frees them).  The PCP
 * reader keeps no file-scope state: two reads at once (staprelay web's
 * threads) share only what is the process's -- libpcp, the stop count
 * (stopsig.h) and PMCD_RECONNECT_TIMEOUT in the environment
 * (pcp_live_reconnect_schedule). */
#ifndef STAPRELAY_PCP_READER_H
#define STAPRELAY_PCP_READER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/time.h>
#include <pcp/pmapi.h>

#include "client/input/pcp_counters.h"
#include "client/input/pcp_events.h"
#include "client/input/pcp_input.h"
#include "client/stack/stacksink.h"
#include "common/strbuf.h"
#include "common/strmap.h"

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
    /* counters (pcp_counters.h): NULL for an event metric */
    pcp_counter *counter[PCP_MAX_METRICS];
    pmID         end_pmid[PCP_MAX_METRICS];   /* .subsecond_end */
    int          ctype[PCP_MAX_METRICS];      /* PM_TYPE_U64, _U32 ... */
    pmInDom      cindom[PCP_MAX_METRICS];
    bool         ctimed;               /* a stacks counter counting ns */
    strmap      *inst_names;       /* "INDOM/INST" -> index in names_seen */
    char       **names_seen;
    size_t       nnames_seen;
    bool         window;               /* archives: -S/-T on record times */
    int64_t      lo_ns, hi_ns;
    int64_t      first_ns, last_ns;    /* archives: span of archive and records */
    uint64_t     fetch_errors;
    bool         reconnect;            /* live: the connection failed */
    double       failed_at;            /* reader_mono_now(): first failure */
    /* live: metric m had values at the last fetch (vanish notices) */
    int          presence;             /* 0 unknown, 1 there, -1 gone */
    bool         no_control;           /* no staprelay.control.source.* */
    pmID         ctl_pmid[2];          /* .state, .prefix */
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
    bool                 past_end;  /* live: a record stamped after the
                                     * window's end arrived */
    double               weight;    /* samples delivered (progress) */
} reader;

/* What collection has to say (a metric waited for, a source gone or
 * back, a run's state): on stderr as "staprelay CMD: TEXT", or to the
 * caller's po->on_notice instead when it has one (staprelay web keeps
 * them for its page). */
void reader_notice(const reader *rd, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* rd->stack, a sample's folded stack, to the live hook or the sink:
 * the filters (--focus ...) apply either way, in the sink's one place.
 * False when the filter dropped it. */
bool reader_deliver(reader *rd, double weight, int col, int64_t when_ns,
                    const stack_context *ctx);

/* A counter's stack, in rd->stack, as a record's would be drawn: a
 * counter names no process, so no process frame (--pid and --tid have
 * nothing to show); --no-marks applies.  host NULL: no host frame. */
bool reader_counter_stack(reader *rd, const char *host,
                          const pcp_sample *smp);

/* -t's syntax (pmParseInterval), more than 0; false with a message. */
bool reader_parse_interval(const char *s, struct timeval *tv, strbuf *err);

/* The string value of instance inst in vs, if there is one (pointing
 * into vs). */
bool reader_string_value(const pmValueSet *vs, int inst, const char **p,
                         size_t *len);

double  reader_mono_now(void);          /* CLOCK_MONOTONIC, s */
/* Sleep until reader_mono_now() is when; at once after a stop signal
 * (a signal cuts it short: callers re-check stopsig_count()). */
void    reader_sleep_until(double when);
int64_t reader_tv_ns(const struct timeval *tv);

#endif
