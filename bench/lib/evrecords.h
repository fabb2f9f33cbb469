/* evrecords: what the benchmark event clients (bench/events/evclient.c,
 * bench/soak.d/consumer.c) share: a sequence-number check, and a walk
 * over a packed pmEventArray as pmcd sends it that counts records and
 * MISSED without unpacking them (no per-record allocation). */
#ifndef STAPRELAY_BENCH_EVRECORDS_H
#define STAPRELAY_BENCH_EVRECORDS_H

#include <pcp/pmapi.h>
#include <stdint.h>
#include <string.h>

typedef struct seq_check {
    int64_t first, last;   /* -1 until a record is seen */
    uint64_t dups;         /* repeated or out of order */
    uint64_t gaps;         /* numbers never seen */
} seq_check;

#define SEQ_CHECK_INIT {-1, -1, 0, 0}

static inline void seq_check_saw(seq_check *c, int64_t seq)
{
    if (seq < 0)
        return;
    if (c->first < 0)
        c->first = seq;
    if (c->last >= 0 && seq <= c->last)
        c->dups++;
    else if (c->last >= 0 && seq > c->last + 1)
        c->gaps += (uint64_t)(seq - c->last - 1);
    if (seq > c->last)
        c->last = seq;
}

/* Walk one packed event array: records go to *got (each record's 64-bit
 * parameter seqpmid to c), MISSED counts to *miss. */
static inline void evrecords_walk(const pmValueBlock *vb, pmID seqpmid, seq_check *c,
                                  uint64_t *got, uint64_t *miss)
{
    const pmEventArray *ea = (const pmEventArray *)vb;
    const char *base = (const char *)&ea->ea_record[0];
    for (int k = 0; k < ea->ea_nrecords; k++) {
        const pmEventRecord *er = (const pmEventRecord *)base;
        base += sizeof(er->er_timestamp) + sizeof(er->er_flags) + sizeof(er->er_nparams);
        if (er->er_flags & PM_EVENT_FLAG_MISSED) {
            *miss += (uint64_t)er->er_nparams;
            continue;
        }
        int64_t seq = -1;
        for (int p = 0; p < er->er_nparams; p++) {
            const pmEventParameter *ep = (const pmEventParameter *)base;
            if (ep->ep_pmid == seqpmid && ep->ep_type == PM_TYPE_64)
                memcpy(&seq, base + sizeof(pmEventParameter), sizeof(seq));
            base += sizeof(ep->ep_pmid) + ((ep->ep_len + 3) & ~3u);
        }
        (*got)++;
        seq_check_saw(c, seq);
    }
}

#endif
