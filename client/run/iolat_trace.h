/* iolat_trace: what the kernel's block_rq_issue, block_rq_complete and
 * block_rq_requeue trace events add up to, in stap/iolat.stp's layout --
 * the accounting of iolat's perf backend (script_iolat.c reads the events
 * from tracefs).
 *
 * A request is known by its device and first sector (what the events
 * print), a flush (issued at sector 0, completed at sector -1) by its
 * device alone; of requests with the same key in flight the oldest
 * completes first, a requeued one's issue is dropped, and the empty
 * second completion that ends a write with FUA or a preflush is skipped
 * (iolat.stp keys by the request itself).  Issue to completion is its
 * latency.  Rows are "disk:dir" (the
 * kernel's disk name from SYS_ROOT/sys/dev/block/MAJ:MIN/uevent, else
 * "MAJ,MIN"; dir read, write or other from the rwbs flags), each with
 * requests, bytes, errors, time, max and a log2 histogram
 * latency_<disk>_<dir> (bytes other than [A-Za-z0-9_] made '_', _2, _3...
 * on a clash, as the tapset names them); at most 256 rows, further disks
 * count under "other:DIR".  At most 65536 requests in flight (older than
 * 30 s ones are forgotten first; beyond that a request is counted as not
 * tracked; after events were lost, pairing starts again); a completion
 * whose issue was not seen is counted as not timed. */
#ifndef STAPRELAY_IOLAT_TRACE_H
#define STAPRELAY_IOLAT_TRACE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct iolat_trace iolat_trace;

typedef struct iolat_counts {
    uint64_t requests, errors;      /* completions timed, with an error */
    uint64_t untracked;             /* issues not kept (table full) */
    uint64_t untimed;               /* completions whose issue was not seen (issued
                                       before the run, not kept, or forgotten) */
    uint64_t lost;                  /* events the trace buffer lost ([LOST N EVENTS]) */
    uint64_t unparsed;              /* lines not understood */
    size_t   rows;                  /* disk:dir rows */
} iolat_counts;

/* SYS_ROOT: "" (or NULL) for the machine, a fake tree in tests.  The
 * caller frees with iolat_trace_free. */
iolat_trace *iolat_trace_new(const char *sys_root);
void iolat_trace_free(iolat_trace *t);
/* One line of trace_pipe (S, N bytes, no newline).  Returns true when it
 * added a row: metadata.json must be written again before the data. */
bool iolat_trace_line(iolat_trace *t, const char *s, size_t n);
/* metadata.json and data.json text (malloc'd). */
char *iolat_trace_metadata(const iolat_trace *t);
char *iolat_trace_data(const iolat_trace *t);
void iolat_trace_counts(const iolat_trace *t, iolat_counts *c);

#endif
