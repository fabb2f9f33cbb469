/* control: definitions and values of staprelay.control.*. */
#include "pmda/control.h"

#include <string.h>

#define COUNT PMDA_PMUNITS(0, 0, 1, 0, 0, PM_COUNT_ONE)
#define SECS PMDA_PMUNITS(0, 1, 0, 0, PM_TIME_SEC, 0)
#define NONE PMDA_PMUNITS(0, 0, 0, 0, 0, 0)

enum {
    C_NSOURCES, C_STATE, C_READS, C_READ_ERRORS, C_PARSE_ERRORS, C_EXEC_TIMEOUTS,
    C_METRIC_PROBLEMS, C_METADATA_ERRORS, C_LAST_ERROR, C_PREFIX, C_NMETRICS,
    C_DATA_AGE, C_UPDATES, C_POLL_INTERVAL, C_REBUILDS,
};

const control_metric control_metrics[] = {
    {C_NSOURCES, "nsources", PM_TYPE_U32, PM_SEM_INSTANT, false, NONE,
     "Number of sources publishing metrics",
     "Sources found under the configured directories whose metadata is usable\n"
     "and whose prefix they own.  Sources in error still count."},
    {C_STATE, "source.state", PM_TYPE_STRING, PM_SEM_INSTANT, true, NONE,
     "State of each source",
     "waiting (no data read yet), ok, error (last read failed: no values),\n"
     "bad-metadata, duplicate-prefix or rejected (trusted directory failed\n"
     "the ownership check).  Instances are source directories."},
    {C_READS, "source.reads", PM_TYPE_U64, PM_SEM_COUNTER, true, COUNT,
     "Data reads attempted per source", "Files read and data-exec commands run."},
    {C_READ_ERRORS, "source.read_errors", PM_TYPE_U64, PM_SEM_COUNTER, true, COUNT,
     "Data reads that failed",
     "Open or read failures, documents over max_document_size, data-exec\n"
     "commands that failed, were killed, or exited non-zero."},
    {C_PARSE_ERRORS, "source.parse_errors", PM_TYPE_U64, PM_SEM_COUNTER, true, COUNT,
     "Data documents that were not valid JSON", ""},
    {C_EXEC_TIMEOUTS, "source.exec_timeouts", PM_TYPE_U64, PM_SEM_COUNTER, true, COUNT,
     "data-exec commands killed by the time-out", ""},
    {C_METRIC_PROBLEMS, "source.metric_problems", PM_TYPE_U32, PM_SEM_INSTANT, true, COUNT,
     "Metrics of the source currently without a value",
     "Metrics whose pointer is missing from the data or whose JSON value has\n"
     "the wrong type.  Each such metric reports no value; the others are\n"
     "unaffected.  Each problem is logged once when it appears."},
    {C_METADATA_ERRORS, "source.metadata_errors", PM_TYPE_U64, PM_SEM_COUNTER, true, COUNT,
     "Problems found in the source's metadata",
     "Unusable metadata, skipped metrics, invalid semantics or units."},
    {C_LAST_ERROR, "source.last_error", PM_TYPE_STRING, PM_SEM_INSTANT, true, NONE,
     "Most recent problem of the source", "Empty when the source is healthy."},
    {C_PREFIX, "source.prefix", PM_TYPE_STRING, PM_SEM_DISCRETE, true, NONE,
     "Prefix the source publishes under", "Metrics appear as staprelay.<prefix>.<name>."},
    {C_NMETRICS, "source.metrics", PM_TYPE_U32, PM_SEM_INSTANT, true, COUNT,
     "Metrics defined by the source's metadata", ""},
    {C_DATA_AGE, "source.data_age", PM_TYPE_DOUBLE, PM_SEM_INSTANT, true, SECS,
     "Seconds since the source's data was last read successfully",
     "Values are served from the last good read; this says how old it is."},
    {C_UPDATES, "source.updates", PM_TYPE_U64, PM_SEM_COUNTER, true, COUNT,
     "Times the source's values were replaced", ""},
    {C_POLL_INTERVAL, "poll_interval", PM_TYPE_DOUBLE, PM_SEM_DISCRETE, false, SECS,
     "Seconds between source refreshes", "From the configuration (poll_interval)."},
    {C_REBUILDS, "namespace_changes", PM_TYPE_U64, PM_SEM_COUNTER, false, COUNT,
     "Times the metric namespace was rebuilt",
     "Sources appearing or vanishing, metadata changes, prefix ownership moves."},
};
const size_t control_nmetrics = sizeof(control_metrics) / sizeof(control_metrics[0]);

const control_metric *control_lookup(int item)
{
    for (size_t i = 0; i < control_nmetrics; i++)
        if (control_metrics[i].item == item)
            return &control_metrics[i];
    return NULL;
}

int control_fetch(pmda_ctx *ctx, const control_metric *cm, long pos, pmAtomValue *atom)
{
    relay *r = ctx->relay;
    if (!cm->per_source) {
        switch (cm->item) {
        case C_NSOURCES:
            atom->ul = (uint32_t)relay_active_sources(r);
            return PMDA_FETCH_STATIC;
        case C_POLL_INTERVAL:
            atom->d = r->cfg->poll_interval;
            return PMDA_FETCH_STATIC;
        case C_REBUILDS:
            atom->ull = ctx->rebuilds;
            return PMDA_FETCH_STATIC;
        }
        return PM_ERR_PMID;
    }
    if (pos < 0 || (size_t)pos >= r->nsources)
        return PM_ERR_INST;
    const source *s = r->sources[pos];
    switch (cm->item) {
    case C_STATE:
        atom->cp = (char *)source_state_name(s->state);
        break;
    case C_READS:
        atom->ull = s->stats.reads;
        break;
    case C_READ_ERRORS:
        atom->ull = s->stats.read_errors;
        break;
    case C_PARSE_ERRORS:
        atom->ull = s->stats.parse_errors;
        break;
    case C_EXEC_TIMEOUTS:
        atom->ull = s->stats.exec_timeouts;
        break;
    case C_METRIC_PROBLEMS:
        atom->ul = s->snap != NULL ? s->metric_problems : 0;
        break;
    case C_METADATA_ERRORS:
        atom->ull = s->stats.metadata_errors;
        break;
    case C_LAST_ERROR:
        atom->cp = (char *)s->last_error;
        break;
    case C_PREFIX:
        if (source_prefix(s) == NULL)
            return PMDA_FETCH_NOVALUES;
        atom->cp = (char *)source_prefix(s);
        break;
    case C_NMETRICS:
        atom->ul = s->meta != NULL ? (uint32_t)s->meta->nmetrics : 0;
        break;
    case C_DATA_AGE:
        if (s->last_ok == 0)
            return PMDA_FETCH_NOVALUES;
        atom->d = ev_time() - s->last_ok;
        break;
    case C_UPDATES:
        atom->ull = s->generation;
        break;
    default:
        return PM_ERR_PMID;
    }
    return PMDA_FETCH_STATIC;
}
