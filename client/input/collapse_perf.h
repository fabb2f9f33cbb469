/* collapse_perf: turns `perf script` text into folded stacks with
 * stackcollapse-perf.pl's rules: comm (or comm-PID, comm-PID/TID) as the
 * root frame, only the first event type seen, weights from the sample
 * period when perf printed one, symbol tidying and _[k]/_[j]/_[i]
 * annotations.  Line driven, so input is streamed. */
#ifndef STAPRELAY_COLLAPSE_PERF_H
#define STAPRELAY_COLLAPSE_PERF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "client/stack/stacksink.h"

typedef struct perf_options {
    bool include_pid;      /* --pid: root is comm-PID */
    bool include_tid;      /* --tid: root is comm-PID/TID */
    bool annotate_kernel;  /* --kernel: _[k] on kernel frames */
    bool annotate_jit;     /* --jit: _[j] on /tmp/perf-N.map frames */
    bool include_addrs;    /* --addrs: [unknown] frames get <pc> */
} perf_options;

typedef struct perf_collapser perf_collapser;

perf_collapser *perf_collapser_new(const perf_options *opt, stack_sink *sink);
void perf_collapser_free(perf_collapser *pc);
void perf_collapser_line(perf_collapser *pc, const char *s, size_t n);
/* Flush a final sample not followed by a blank line. */
void perf_collapser_finish(perf_collapser *pc);
uint64_t perf_collapser_ignored(const perf_collapser *pc);
/* The event type being kept ("" until one is seen), and how many
 * samples of other types were skipped. */
const char *perf_collapser_event(const perf_collapser *pc);
uint64_t perf_collapser_filtered(const perf_collapser *pc);

/* Exposed for tests: tidy one raw symbol as stackcollapse-perf.pl does
 * (no annotation).  Appends to out. */
void perf_tidy_symbol(strbuf *out, const char *func, size_t n, bool java);

/* Exposed for tests: header / frame line recognisers. */
typedef struct perf_header {
    const char *comm; size_t comm_len;
    const char *pid;  size_t pid_len;    /* NULL when perf printed none */
    const char *tid;  size_t tid_len;
    const char *event; size_t event_len; /* NULL if not found */
    double period;                       /* 0 when not printed */
} perf_header;
bool perf_parse_header(const char *s, size_t n, perf_header *h);

typedef struct perf_frame {
    const char *pc;   size_t pc_len;
    const char *func; size_t func_len;
    const char *mod;  size_t mod_len;
} perf_frame;
bool perf_parse_frame(const char *s, size_t n, perf_frame *f);

#endif
