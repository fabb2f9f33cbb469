/* pcp_follow: the PCP reader following a run (--run NAME, docs/runs.md)
 * through staprelay.control.runs: the run's value fetched and parsed
 * (pcp_runs.h), its event metric resolved as the source's metric and
 * its window set; live, polled until it has an event metric and each
 * round until it has ended and settled; from an archive, the last value
 * recorded.  One source only.  Internal to client/input's PCP reader
 * (pcp_reader.h). */
#ifndef STAPRELAY_PCP_FOLLOW_H
#define STAPRELAY_PCP_FOLLOW_H

#include <stdbool.h>
#include <stdint.h>
#include <pcp/pmapi.h>

#include "client/input/pcp_reader.h"
#include "client/input/pcp_runs.h"
#include "common/strbuf.h"

typedef struct pcp_follow {
    const char *name;
    pmID        pmid;           /* staprelay.control.runs */
    pmInDom     indom;
    pcp_run     cur;            /* the value last seen */
    char       *metric;         /* the event metric followed (owned) */
    double      terminal_at;    /* reader_mono_now() when seen ended, or -1 */
    uint64_t    last_in;        /* in-window records after the last round */
    int         rounds;
    const pcp_options *po;      /* its on_run hook */
} pcp_follow;

/* The run po->run, not read yet; po (its on_run hook) must outlive rf. */
void pcp_follow_init(pcp_follow *rf, const pcp_options *po);
void pcp_follow_free(pcp_follow *rf);

/* Archive: the last value of the run that s's archive holds into
 * rf->cur.  Returns 0, or 1 with a message in err. */
int pcp_follow_archive(source *s, pcp_follow *rf, strbuf *err);

/* Live: wait until the run has an event metric, polling its state every
 * interval s, until end (reader_mono_now() time; < 0: none) or a stop
 * signal.  Returns 0, or 1 with a message in err. */
int pcp_follow_wait_live(reader *rd, source *s, pcp_follow *rf,
                         double interval, double end, strbuf *err);

/* The run has its event metric: make it po's one metric (po is the
 * reader's copy of the options), resolve it in s and set s's window
 * (the run's, unless an archive read has -S/-T).  Returns 0, or 1 with
 * a message in err. */
int pcp_follow_start(reader *rd, pcp_options *po, source *s, pcp_follow *rf,
                     strbuf *err);

/* Live, after each round: true when collection of the run is complete
 * or must stop. */
bool pcp_follow_progress(reader *rd, source *s, pcp_follow *rf);

/* After the records are read: a failed run without records is an error
 * (1, its reason in err); other endings are noted.  0 otherwise. */
int pcp_follow_finish(reader *rd, const source *s, const pcp_follow *rf,
                      strbuf *err);

#endif
