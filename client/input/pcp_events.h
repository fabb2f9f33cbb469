/* pcp_events: decode the value of a PCP event metric (PM_TYPE_EVENT or
 * PM_TYPE_HIGHRES_EVENT) into stack samples, with no PCP context
 * involved, so hand-built arrays can be unit tested.
 *
 * The packed layout is pmapi.h's pmEventArray / pmEventRecord /
 * pmEventParameter (parameters padded to 4 bytes, as on the wire).  We
 * walk it ourselves instead of calling pmUnpackEventRecords(): the
 * record flags and MISSED counts come straight from each record header,
 * with no lookup of libpcp's anonymous event.flags / event.missed
 * metrics, and nothing is copied.
 *
 * The event-record contract (docs/design.md, pmdastaprelay(1)): parameters
 * are metrics <base>.stack (folded, root first), optional <base>.count
 * (weight, default 1), optional <base>.duration (the record's time in
 * ns, offcpu's blocked time: pcp_sample_weight), <base>.pid, .tid, .cpu
 * (integers), .comm, .state (strings: .state is offcpu's task state at
 * switch-out, client/stack/blockstate.h).  A parameter's role is its metric name's last component. */
#ifndef STAPRELAY_PCP_EVENTS_H
#define STAPRELAY_PCP_EVENTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <pcp/pmapi.h>
#include "client/input/collapse_perf.h"
#include "client/stack/blockstate.h"
#include "common/strbuf.h"

typedef enum {
    PCP_FIELD_OTHER = 0,
    PCP_FIELD_STACK,
    PCP_FIELD_COUNT,
    PCP_FIELD_PID,
    PCP_FIELD_TID,
    PCP_FIELD_CPU,
    PCP_FIELD_COMM,
    PCP_FIELD_DURATION,
    PCP_FIELD_STATE,
} pcp_field;

/* Role of a parameter metric from its name ("a.b.stack" -> STACK). */
pcp_field pcp_field_from_name(const char *name);

/* One event record, its parameters already picked out.  Strings point
 * into the decoded value and are not NUL-terminated. */
typedef struct pcp_sample {
    int64_t     when_ns;      /* record timestamp, ns since the epoch */
    const char *stack;        /* NULL when the record has no stack */
    size_t      stack_len;
    double      weight;       /* count parameter, else 1 */
    bool        bad_weight;   /* count present but not a number > 0, or
                               * duration present but not a number >= 0 */
    double      duration_ns;  /* duration parameter (ns), when has_duration */
    bool        has_duration;
    const char *comm;         /* NULL if absent */
    size_t      comm_len;
    const char *state;        /* NULL if absent */
    size_t      state_len;
    int64_t     pid, tid, cpu;
    bool        has_pid, has_tid, has_cpu;
} pcp_sample;

/* What a sample weighs: its duration in ns when it has one and by_time
 * (the default of every view: off-CPU graphs show time, a 20 ms block
 * weighs a quarter of an 80 ms one), else its count (samples, blocks). */
double pcp_sample_weight(const pcp_sample *s, bool by_time);

/* Maps a parameter PMID to its role (callers cache pmNameID()). */
typedef pcp_field (*pcp_field_fn)(void *arg, pmID pmid);

typedef struct pcp_event_cb {
    void (*sample)(void *arg, const pcp_sample *s);
    void (*missed)(void *arg, int64_t when_ns, uint64_t nmissed);
    void *arg;
} pcp_event_cb;

/* Decode one event-array value block (vlist[i].value.pval of an event
 * metric).  The whole array is checked before any record is delivered.
 * Returns the number of records (MISSED ones included), or PM_ERR_TYPE
 * (not an event array) / PM_ERR_TOOSMALL / PM_ERR_TOOBIG (malformed). */
int pcp_decode_events(const pmValueBlock *vb, pcp_field_fn field,
                      void *field_arg, const pcp_event_cb *cb);

/* The folded stack a sample contributes, assembled as from perf script
 * text (collapse_perf.h): [host;][state:CLASS;][process;]stack.  host
 * NULL: no host frame; state (pcp_sample_state's, for --by-state) as a
 * frame by blockstate.h's block_state_frame, none for BLOCK_STATE_NONE.  The process frame is stackcollapse-perf.pl's (common/frames'
 * frame_process): comm, comm-PID with include_pid, comm-PID/TID with
 * include_tid; none with no_comm, nor when the record names no process
 * (no comm) and neither --pid nor --tid asks.  The relay's _[k] and
 * _[j] marks stay as perf_frame_opts(po) asks (no_marks removes both,
 * kernel_marks / jit_marks keep theirs).  Returns false (out untouched)
 * without a stack. */
bool pcp_sample_stack(const pcp_sample *s, const char *host, block_state state,
                      const perf_options *po, strbuf *out);
/* The sample's block class (blockstate.h) from its state and stack. */
block_state pcp_sample_state(const pcp_sample *s);
/* --by-host's root frame: host as a frame (frame_clean) and ';',
 * appended to out.  The one rule: pcp_sample_stack's, and staprelay
 * web's by_host=1 (api_profile) over the hosts it holds. */
void pcp_host_frame(strbuf *out, const char *host);

#endif
