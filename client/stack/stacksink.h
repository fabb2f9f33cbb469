/* stacksink: where input modules deliver collapsed stacks.  Wraps a
 * stacktab with the per-input policy that is not the parser's business:
 * which weight column to fill and optional hex-address normalisation
 * (difffolded.pl -s).  Every input module -- folded, perf, stap, and
 * later PCP event records -- ends in stack_sink_add(). */
#ifndef STAPRELAY_STACKSINK_H
#define STAPRELAY_STACKSINK_H

#include <stdbool.h>
#include <stdint.h>
#include "client/stack/blockstate.h"
#include "client/stack/stacktab.h"
#include "common/frames.h"
#include "common/strbuf.h"

/* A sample's time in nanoseconds since the epoch; inputs without
 * per-sample times (files) deliver STACK_TIME_UNKNOWN. */
#define STACK_TIME_UNKNOWN INT64_MIN

/* Optional per-sample observer (e.g. a heat map binning samples by
 * time).  Called after the sample went into the table, with the stack
 * as stored (after --strip-hex) and the table entry index. */
typedef void (*stack_sample_fn)(void *arg, size_t entry, int col,
                                double weight, int64_t when_ns);

/* What an input knows of a sample beyond its folded stack, for the
 * exports that keep it (pprof): valid during the stack_sink_add_ctx()
 * call that passes it.  Inputs without it (folded text) pass NULL. */
typedef struct stack_context {
    const char *comm;          /* process name, or NULL */
    size_t      comm_len;
    int64_t     pid, tid;      /* -1: unknown */
    const char *host;          /* the host the sample came from, or NULL */
    block_state state;         /* an off-CPU block's class, or
                                * BLOCK_STATE_NONE (blockstate.h) */
    int64_t     time_ns;       /* the sample's time when the weight's
                                * when_ns is not given (perf keeps heat
                                * maps counting samples that way), or
                                * STACK_TIME_UNKNOWN */
    double      samples;       /* how many samples the delivery stands
                                * for; < 0: unknown (pprof input) */
    const char *weight_type;   /* what the weight measures ("cpu",
                                * "inuse_space"); NULL: samples */
    const char *weight_unit;   /* its unit ("nanoseconds", "bytes") */
    const stackfold *frames;   /* the frames as read, leaf first, with
                                * their addresses and modules; or NULL.
                                * They are the last frames of the folded
                                * stack (a process or host root frame
                                * comes before them). */
} stack_context;

/* A weight that is time: an off-CPU block weighed by its duration (PCP
 * inputs, unless --weight events), in pprof's words. */
#define STACK_TIME_WEIGHT_TYPE "wall"
#define STACK_TIME_WEIGHT_UNIT "nanoseconds"
/* True when ctx (may be NULL) says its sample's weight is such a time:
 * hot/cold's off-CPU part, what staprelay web's store keeps of it. */
bool stack_context_weighs_time(const stack_context *ctx);

/* Optional observer of every sample with its context (ctx may be
 * NULL); stack is as stored (after --strip-hex). */
typedef void (*stack_detail_fn)(void *arg, const char *stack, size_t len,
                                double weight, int col, int64_t when_ns,
                                const stack_context *ctx);

struct stackfilter;

typedef struct stack_sink {
    stacktab *tab;       /* not owned */
    int       col;       /* column for single-count input */
    bool      strip_hex; /* rewrite 0x[0-9a-f]+ as 0x... */
    uint64_t  stacks;    /* stacks delivered */
    int64_t   first_ns;  /* earliest / latest known sample time, or */
    int64_t   last_ns;   /* STACK_TIME_UNKNOWN when none had a time */
    stack_sample_fn on_sample;
    void     *on_sample_arg;
    stack_detail_fn on_detail;
    void     *on_detail_arg;
    const struct stackfilter *filter;  /* not owned; NULL: none */
    uint64_t  filtered;  /* samples the filter dropped */
    strbuf    scratch;
    strbuf    kept;      /* the filter's output */
} stack_sink;

void stack_sink_init(stack_sink *s, stacktab *tab, int col, bool strip_hex);
void stack_sink_free(stack_sink *s);
/* Deliver one folded stack with a weight; col < 0 means the sink's own
 * column. */
void stack_sink_add(stack_sink *s, const char *stack, size_t len,
                    double weight, int col);
/* The same with the sample's time (ns since the epoch, or
 * STACK_TIME_UNKNOWN): PCP event records carry one. */
void stack_sink_add_at(stack_sink *s, const char *stack, size_t len,
                       double weight, int col, int64_t when_ns);
/* The same with what the input knows of the sample (NULL: nothing). */
void stack_sink_add_ctx(stack_sink *s, const char *stack, size_t len,
                        double weight, int col, int64_t when_ns,
                        const stack_context *ctx);
/* The filters (--focus ... --only-host, stack/stackfilter.h) every
 * sample delivered passes first, with its context (after --strip-hex:
 * the frames as drawn); NULL removes them.  The one place they apply:
 * inputs that deliver elsewhere (a live hook) call stack_sink_pass. */
void stack_sink_filter(stack_sink *s, const struct stackfilter *f);
/* Apply s's filter (after --strip-hex) to one sample: false when it is
 * dropped (counted in s->filtered); true with *stack, *len the stack to
 * keep (s's own buffer until the next call, or the input's). */
bool stack_sink_pass(stack_sink *s, const char **stack, size_t *len,
                     const stack_context *ctx);
/* Install an observer; NULL removes it. */
void stack_sink_observe(stack_sink *s, stack_sample_fn fn, void *arg);
void stack_sink_observe_detail(stack_sink *s, stack_detail_fn fn, void *arg);

#endif
