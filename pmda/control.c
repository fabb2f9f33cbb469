/* control: definitions and values of staprelay.control.*. */
#include "pmda/control.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define COUNT PMDA_PMUNITS(0, 0, 1, 0, 0, PM_COUNT_ONE)
#define SECS PMDA_PMUNITS(0, 1, 0, 0, PM_TIME_SEC, 0)
#define NONE PMDA_PMUNITS(0, 0, 0, 0, 0, 0)
#define BYTES PMDA_PMUNITS(1, 0, 0, PM_SPACE_BYTE, 0, 0)

enum {
    C_NSOURCES, C_STATE, C_READS, C_READ_ERRORS, C_PARSE_ERRORS, C_EXEC_TIMEOUTS,
    C_METRIC_PROBLEMS, C_METADATA_ERRORS, C_LAST_ERROR, C_PREFIX, C_NMETRICS,
    C_DATA_AGE, C_UPDATES, C_POLL_INTERVAL, C_REBUILDS, C_DROPPED_ELEMENTS,
    C_MEMORY, C_MEMORY_REFUSALS, C_TOTAL_MEMORY, C_UNTRUSTED_MEMORY,
    E_RECEIVED = 20, E_DELIVERED, E_DROPPED, E_MISSED, E_DUPLICATES, E_LOST, E_REJECTED,
    E_QUEUED, E_QUEUE_BYTES, E_CLIENTS, E_LAST_REJECT, E_STACKS, E_STACKS_EVICTED, E_EXPIRED,
    E_SUBSECOND_LATE, E_STACK_CANDIDATES,
    /* a source metric numbered after the event ones: items 16-19 (the
     * memory metrics) were taken first, and items never change meaning */
    C_STATE_CODE,
    /* an event metric numbered after C_STATE_CODE, for the same reason */
    E_SEQ_RESETS,
    R_RUN = 40, R_STOP, R_RUNS, R_REQUESTS, R_REFUSALS,
};

const control_metric control_metrics[] = {
    {C_NSOURCES, "nsources", PM_TYPE_U32, PM_SEM_INSTANT, INDOM_SOURCES, false, NONE,
     "Number of sources publishing metrics",
     "Sources found under the configured directories whose metadata is usable\n"
     "and whose prefix they own.  Sources in error still count."},
    {C_STATE, "source.state", PM_TYPE_STRING, PM_SEM_INSTANT, INDOM_SOURCES, true, NONE,
     "State of each source",
     "waiting (no data read yet), ok, error (last read failed: no values),\n"
     "bad-metadata, duplicate-prefix or rejected (trusted directory failed\n"
     "the ownership check).  Instances are source directories."},
    {C_READS, "source.reads", PM_TYPE_U64, PM_SEM_COUNTER, INDOM_SOURCES, true, COUNT,
     "Data reads attempted per source", "Files read and data-exec commands run."},
    {C_READ_ERRORS, "source.read_errors", PM_TYPE_U64, PM_SEM_COUNTER, INDOM_SOURCES, true, COUNT,
     "Data reads that failed",
     "Open or read failures, documents over max_document_size, data-exec\n"
     "commands that failed, were killed, or exited non-zero."},
    {C_PARSE_ERRORS, "source.parse_errors", PM_TYPE_U64, PM_SEM_COUNTER, INDOM_SOURCES, true, COUNT,
     "Data documents that were not valid JSON", ""},
    {C_EXEC_TIMEOUTS, "source.exec_timeouts", PM_TYPE_U64, PM_SEM_COUNTER, INDOM_SOURCES, true, COUNT,
     "data-exec commands killed by the time-out", ""},
    {C_METRIC_PROBLEMS, "source.metric_problems", PM_TYPE_U32, PM_SEM_INSTANT, INDOM_SOURCES, true, COUNT,
     "Metrics of the source currently without a value",
     "Metrics whose pointer is missing from the data or whose JSON value has\n"
     "the wrong type.  Each such metric reports no value; the others are\n"
     "unaffected.  Each problem is logged once when it appears."},
    {C_METADATA_ERRORS, "source.metadata_errors", PM_TYPE_U64, PM_SEM_COUNTER, INDOM_SOURCES, true, COUNT,
     "Problems found in the source's metadata",
     "Unusable metadata, skipped metrics, invalid semantics or units."},
    {C_LAST_ERROR, "source.last_error", PM_TYPE_STRING, PM_SEM_INSTANT, INDOM_SOURCES, true, NONE,
     "Most recent problem of the source",
     "Empty when the source is healthy.  Without a current problem, the latest\n"
     "sequence reset of one of its event streams (events.sequence_resets)."},
    {C_PREFIX, "source.prefix", PM_TYPE_STRING, PM_SEM_DISCRETE, INDOM_SOURCES, true, NONE,
     "Prefix the source publishes under", "Metrics appear as staprelay.<prefix>.<name>."},
    {C_NMETRICS, "source.metrics", PM_TYPE_U32, PM_SEM_INSTANT, INDOM_SOURCES, true, COUNT,
     "Metrics defined by the source's metadata", ""},
    {C_DATA_AGE, "source.data_age", PM_TYPE_DOUBLE, PM_SEM_INSTANT, INDOM_SOURCES, true, SECS,
     "Seconds since the source's data was last read successfully",
     "Values are served from the last good read; this says how old it is."},
    {C_UPDATES, "source.updates", PM_TYPE_U64, PM_SEM_COUNTER, INDOM_SOURCES, true, COUNT,
     "Times the source's values were replaced", ""},
    {C_POLL_INTERVAL, "poll_interval", PM_TYPE_DOUBLE, PM_SEM_DISCRETE, INDOM_SOURCES, false, SECS,
     "Seconds between source refreshes", "From the configuration (poll_interval)."},
    {C_REBUILDS, "namespace_changes", PM_TYPE_U64, PM_SEM_COUNTER, INDOM_SOURCES, false, COUNT,
     "Times the metric namespace was rebuilt",
     "Sources appearing or vanishing, metadata changes, prefix ownership moves."},
    {C_DROPPED_ELEMENTS, "source.dropped_elements", PM_TYPE_U32, PM_SEM_INSTANT, INDOM_SOURCES,
     true, COUNT, "Array elements and histogram buckets left out of the last read",
     "Elements whose index is missing, unusable or repeats an earlier one, and\n"
     "buckets with unusable or repeated bounds: their values are not published.\n"
     "Each change is also logged once."},
    {C_STATE_CODE, "source.state_code", PM_TYPE_U32, PM_SEM_INSTANT, INDOM_SOURCES, true, NONE,
     "State of each source as a number, for pmie",
     "0 waiting, 1 ok, 2 error, 3 bad-metadata, 4 duplicate-prefix,\n"
     "5 rejected, 6 vanished: the states of source.state, which pmie cannot\n"
     "compare (it tests numbers only).  These numbers never change meaning."},
    {C_MEMORY, "source.memory", PM_TYPE_U64, PM_SEM_INSTANT, INDOM_SOURCES, true, BYTES,
     "Memory held by the source",
     "Its metadata, the values and instance names its metrics read (not the\n"
     "document they came from), its event queues and stack tables.  Bounded by\n"
     "max_source_memory, and by what max_total_memory leaves beside the other\n"
     "sources (sources any user may write share half of it)."},
    {C_MEMORY_REFUSALS, "source.memory_refusals", PM_TYPE_U64, PM_SEM_COUNTER, INDOM_SOURCES,
     true, COUNT, "Documents, values or metadata refused for memory",
     "A document whose parse would take more than max_document_memory, values or\n"
     "metadata more than the source may hold: the source then has no values,\n"
     "and last_error says which budget ran out."},
    {C_TOTAL_MEMORY, "memory", PM_TYPE_U64, PM_SEM_INSTANT, INDOM_SOURCES, false, BYTES,
     "Memory held by all sources", "The sum of staprelay.control.source.memory; at most\n"
     "max_total_memory."},
    {C_UNTRUSTED_MEMORY, "memory_untrusted", PM_TYPE_U64, PM_SEM_INSTANT, INDOM_SOURCES, false,
     BYTES, "Memory held by sources any user may write",
     "Sources of directory_list and users' SystemTap roots; at most half of\n"
     "max_total_memory, so the other half stays for trusted sources and root's\n"
     "SystemTap modules."},
    {E_RECEIVED, "events.received", PM_TYPE_U64, PM_SEM_COUNTER, INDOM_EVENTS, true, COUNT,
     "Event records accepted from the source",
     "Valid, new records queued for clients.  Instances are <prefix>.<event>."},
    {E_DELIVERED, "events.delivered", PM_TYPE_U64, PM_SEM_COUNTER, INDOM_EVENTS, true, COUNT,
     "Event records handed to clients, summed over clients", ""},
    {E_DROPPED, "events.dropped", PM_TYPE_U64, PM_SEM_COUNTER, INDOM_EVENTS, true, COUNT,
     "Records evicted from a full queue before every client read them",
     "The queue is bounded by event_queue_size; the oldest records go first and\n"
     "each client that had not read them gets a MISSED record with the count."},
    {E_MISSED, "events.missed", PM_TYPE_U64, PM_SEM_COUNTER, INDOM_EVENTS, true, COUNT,
     "Records clients missed (reported to them as MISSED records), summed", ""},
    {E_DUPLICATES, "events.duplicates", PM_TYPE_U64, PM_SEM_COUNTER, INDOM_EVENTS, true, COUNT,
     "Records dropped because their sequence number was already seen",
     "A plain file read twice yields the same records again."},
    {E_LOST, "events.lost", PM_TYPE_U64, PM_SEM_COUNTER, INDOM_EVENTS, true, COUNT,
     "Records lost at the source",
     "Gaps in sequence numbers plus the producer's own count of records it\n"
     "could not buffer (the event's \"dropped\" pointer)."},
    {E_SEQ_RESETS, "events.sequence_resets", PM_TYPE_U64, PM_SEM_COUNTER, INDOM_EVENTS, true,
     COUNT, "Sequence jumps taken as a new numbering, not as lost records",
     "A jump forward of more than 2^32 records that is also more than one\n"
     "record per nanosecond since the previous number was read, or a number\n"
     "more than 2^32 before the first one of the stream's history (a wrap from\n"
     "INT64_MAX to INT64_MIN): no loss explains it, so nothing is added to\n"
     "events.lost.  The source's last_error says which numbers it went between."},
    {E_REJECTED, "events.rejected", PM_TYPE_U64, PM_SEM_COUNTER, INDOM_EVENTS, true, COUNT,
     "Records rejected as malformed",
     "Missing field, wrong type, a stack with no frames, an absurd timestamp or\n"
     "a record larger than max_record_size; see events.last_reject."},
    {E_QUEUED, "events.queued", PM_TYPE_U64, PM_SEM_INSTANT, INDOM_EVENTS, true, COUNT,
     "Records waiting in the queue", ""},
    {E_QUEUE_BYTES, "events.queue_bytes", PM_TYPE_U64, PM_SEM_INSTANT, INDOM_EVENTS, true,
     PMDA_PMUNITS(1, 0, 0, PM_SPACE_BYTE, 0, 0), "Memory held by the queue", ""},
    {E_CLIENTS, "events.clients", PM_TYPE_U32, PM_SEM_INSTANT, INDOM_EVENTS, true, COUNT,
     "Client contexts reading the stream", ""},
    {E_LAST_REJECT, "events.last_reject", PM_TYPE_STRING, PM_SEM_INSTANT, INDOM_EVENTS, true,
     NONE, "Why the last rejected record was rejected", ""},
    {E_STACKS, "events.stacks", PM_TYPE_U32, PM_SEM_INSTANT, INDOM_EVENTS, true, COUNT,
     "Instances of the stream's stacks counter, [other] included", ""},
    {E_STACKS_EVICTED, "events.stacks_evicted", PM_TYPE_U64, PM_SEM_COUNTER, INDOM_EVENTS, true,
     COUNT, "Stacks the stacks counter let go (expired, evicted or forgotten)",
     "Instances that left the counter (a stack that dropped out of the\n"
     "heaviest max_stacks, or unseen for stack_expiry seconds, leaves one\n"
     "stacks_refresh period after it stopped counting), and stacks tracked\n"
     "but not shown that were forgotten to make room (the candidates' bound or\n"
     "the source's memory; their samples went to [other])."},
    {E_EXPIRED, "events.expired", PM_TYPE_U64, PM_SEM_COUNTER, INDOM_EVENTS, true, COUNT,
     "Records evicted from a full queue while no client was reading",
     "With no client registered the queue keeps the newest event_queue_size\n"
     "bytes; older records are lost to whoever connects later."},
    {E_SUBSECOND_LATE, "events.subsecond_late", PM_TYPE_U64, PM_SEM_COUNTER, INDOM_EVENTS, true,
     COUNT, "Samples counted in .subsecond after their second was closed",
     "They arrived more than subsecond_delay after their second ended (or more\n"
     "than a minute ahead of the clock), so a heat map drawn from .subsecond\n"
     "shows them in a later column than their records do."},
    {E_STACK_CANDIDATES, "events.stack_candidates", PM_TYPE_U32, PM_SEM_INSTANT, INDOM_EVENTS,
     true, COUNT, "Distinct stacks the stream's stacks counter tracks",
     "Every stack seen recently, kept or not (at most 4 max_stacks); the\n"
     "heaviest are the counter's instances, the others count in [other]."},
    {R_RUN, "run", PM_TYPE_STRING, PM_SEM_DISCRETE, INDOM_SOURCES, false, NONE,
     "Store \"SCRIPT [key=value ...]\" here to start a bundled script",
     "pmstore staprelay.control.run \"profile duration=20 hz=99\" asks for one run\n"
     "of a bundled script (keys: duration, hz, pid, cmd, stacks).  Disabled\n"
     "unless the config's runs.enabled is true and the script is listed in\n"
     "runs.scripts; pmcd's [access] rules decide who may store.  Fetching it\n"
     "says what happened to this client's last request (pmstore -F reads it\n"
     "in the storing context; a context that never stored reads the latest\n"
     "answer): \"accepted: NAME\" or \"refused: REASON\".  See docs/runs.md\n"
     "and staprelay.control.runs."},
    {R_STOP, "stop", PM_TYPE_STRING, PM_SEM_DISCRETE, INDOM_SOURCES, false, NONE,
     "Store a run's NAME here to end it early",
     "The run's process group gets SIGTERM (SIGKILL 10 s later) and its state\n"
     "becomes stopped.  An unknown or finished NAME fails with ESRCH."},
    {R_RUNS, "runs", PM_TYPE_STRING, PM_SEM_INSTANT, INDOM_RUNS, true, NONE,
     "Runs requested through staprelay.control.run, one JSON object each",
     "Instances are run names (SCRIPT-YYYYMMDDTHHMMSS).  Each value is a JSON\n"
     "object: name, script, request, state (queued, running, done, failed,\n"
     "stopped), reason, queued/started/ended (epoch seconds, 0 until then),\n"
     "prefix (where its metrics appear) and events (its event metrics)."},
    {R_REQUESTS, "run_requests", PM_TYPE_U64, PM_SEM_COUNTER, INDOM_SOURCES, false, COUNT,
     "Run requests stored into staprelay.control.run", ""},
    {R_REFUSALS, "run_refusals", PM_TYPE_U64, PM_SEM_COUNTER, INDOM_SOURCES, false, COUNT,
     "Run requests refused", "Each refusal is also logged with its reason."},
};
const size_t control_nmetrics = sizeof(control_metrics) / sizeof(control_metrics[0]);

const control_metric *control_lookup(int item)
{
    for (size_t i = 0; i < control_nmetrics; i++)
        if (control_metrics[i].item == item)
            return &control_metrics[i];
    return NULL;
}

/* source.state_code: a published contract, so spelled out here rather
 * than taken from the relay's enum order. */
static uint32_t state_code(source_state st)
{
    switch (st) {
    case SRC_WAITING: return 0;
    case SRC_OK: return 1;
    case SRC_ERROR: return 2;
    case SRC_BAD_METADATA: return 3;
    case SRC_DUPLICATE: return 4;
    case SRC_REJECTED: return 5;
    case SRC_VANISHED: return 6;
    }
    return 2;
}

static int event_fetch(pmda_ctx *ctx, const control_metric *cm, long pos, pmAtomValue *atom)
{
    if (pos < 0 || (size_t)pos >= ctx->nstreams)
        return PM_ERR_INST;
    const stream_ref *sr = &ctx->streams[pos];
    const event_stream *es = sr->src->streams ? sr->src->streams[sr->event] : NULL;
    if (es == NULL)
        return PMDA_FETCH_NOVALUES;
    evqueue_stats st;
    evqueue_get_stats(es->queue, &st);
    switch (cm->item) {
    case E_RECEIVED: atom->ull = es->received; break;
    case E_DELIVERED: atom->ull = st.delivered; break;
    case E_DROPPED: atom->ull = st.dropped; break;
    case E_MISSED: atom->ull = st.missed; break;
    case E_DUPLICATES: atom->ull = es->duplicates; break;
    case E_LOST: atom->ull = es->lost; break;
    case E_SEQ_RESETS: atom->ull = es->seq_resets; break;
    case E_REJECTED: atom->ull = es->rejected; break;
    case E_QUEUED: atom->ull = st.queued; break;
    case E_QUEUE_BYTES: atom->ull = st.bytes; break;
    case E_CLIENTS: atom->ul = st.clients; break;
    case E_LAST_REJECT: atom->cp = (char *)es->last_reject; break;
    case E_STACKS: atom->ul = es->stacks ? (uint32_t)stackcount_size(es->stacks) : 0; break;
    case E_STACKS_EVICTED: atom->ull = es->stacks ? stackcount_evicted(es->stacks) : 0; break;
    case E_EXPIRED: atom->ull = st.expired; break;
    case E_SUBSECOND_LATE: atom->ull = es->subsec ? es->subsec->late + es->subsec->early : 0; break;
    case E_STACK_CANDIDATES:
        atom->ul = es->stacks ? (uint32_t)stackcount_candidates(es->stacks) : 0;
        break;
    default: return PM_ERR_PMID;
    }
    return PMDA_FETCH_STATIC;
}

/* ---- control.run's answers -------------------------------------------
 * Every store into control.run is answered to the client that made it:
 * the store's own status says accepted or refused, and control.run, read
 * in the same context (pmstore -F, a client that stores then fetches),
 * says "accepted: NAME" or "refused: REASON" for that store, whatever
 * other clients stored meanwhile (issue 25: 20 clients storing at once
 * each read the last store's answer, none its own).  A context that never
 * stored reads the latest answer of any (pmstore, then pminfo -f, as
 * docs/runs.md shows).  Answers go when pmcd says their context ended;
 * the table is bounded, the oldest answer giving way. */
#define RUN_ANSWERS 256

typedef struct run_answer {
    int client;
    uint64_t seq;          /* 0: free */
    char text[sizeof(((runs *)0)->last)];
} run_answer;

struct run_answers {
    run_answer v[RUN_ANSWERS];
    uint64_t seq;
};

static run_answer *answer_of(pmda_ctx *ctx, int client)
{
    for (size_t i = 0; ctx->answers != NULL && i < RUN_ANSWERS; i++)
        if (ctx->answers->v[i].seq != 0 && ctx->answers->v[i].client == client)
            return &ctx->answers->v[i];
    return NULL;
}

static void remember_answer(pmda_ctx *ctx, int client, const char *text)
{
    if (ctx->answers == NULL && (ctx->answers = calloc(1, sizeof *ctx->answers)) == NULL)
        return;   /* the client reads the latest answer instead */
    run_answer *a = answer_of(ctx, client);
    if (a == NULL) {
        /* a free slot (seq 0) or else the oldest answer */
        a = &ctx->answers->v[0];
        for (size_t i = 1; i < RUN_ANSWERS && a->seq != 0; i++)
            if (ctx->answers->v[i].seq < a->seq)
                a = &ctx->answers->v[i];
    }
    a->client = client;
    a->seq = ++ctx->answers->seq;
    snprintf(a->text, sizeof a->text, "%s", text);
}

void control_end_context(pmda_ctx *ctx, int context)
{
    run_answer *a = answer_of(ctx, context);
    if (a != NULL)
        a->seq = 0;
}

void control_free(pmda_ctx *ctx)
{
    free(ctx->answers);
    ctx->answers = NULL;
}

static const char *run_answer_for(pmda_ctx *ctx)
{
    const run_answer *a = answer_of(ctx, ctx->client);
    if (a != NULL)
        return a->text;
    return ctx->runs != NULL ? ctx->runs->last : "";
}

static int runs_fetch(pmda_ctx *ctx, const control_metric *cm, long pos, pmAtomValue *atom)
{
    runs *rs = ctx->runs;
    if (cm->per_instance) {
        if (rs == NULL || pos < 0 || (size_t)pos >= runs_count(rs))
            return PM_ERR_INST;
        const char *json = runs_json(rs, (size_t)pos);
        if (json == NULL)
            return PMDA_FETCH_NOVALUES;
        atom->cp = (char *)json;
        return PMDA_FETCH_STATIC;
    }
    switch (cm->item) {
    case R_RUN: atom->cp = (char *)run_answer_for(ctx); break;
    case R_STOP: atom->cp = ""; break;
    case R_REQUESTS: atom->ull = rs != NULL ? rs->requests : 0; break;
    case R_REFUSALS: atom->ull = rs != NULL ? rs->refusals : 0; break;
    default: return PM_ERR_PMID;
    }
    return PMDA_FETCH_STATIC;
}

int control_fetch(pmda_ctx *ctx, const control_metric *cm, long pos, pmAtomValue *atom)
{
    relay *r = ctx->relay;
    if (cm->per_instance && cm->indom == INDOM_EVENTS)
        return event_fetch(ctx, cm, pos, atom);
    if (cm->item >= R_RUN)
        return runs_fetch(ctx, cm, pos, atom);
    if (!cm->per_instance) {
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
        case C_TOTAL_MEMORY:
            atom->ull = r->mem_total;
            return PMDA_FETCH_STATIC;
        case C_UNTRUSTED_MEMORY:
            atom->ull = r->mem_untrusted;
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
    case C_STATE_CODE:
        atom->ul = state_code(s->state);
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
    case C_MEMORY:
        atom->ull = s->mem_held;
        break;
    case C_MEMORY_REFUSALS:
        atom->ull = s->stats.memory_refusals;
        break;
    case C_DROPPED_ELEMENTS:
        atom->ul = 0;
        for (size_t a = 0; s->snap != NULL && a < s->snap->narrays; a++)
            atom->ul += s->snap->arrays[a].skipped;
        break;
    default:
        return PM_ERR_PMID;
    }
    return PMDA_FETCH_STATIC;
}

/* A stored string value, NUL-terminated in buf.  pmstore sends strings as
 * PM_VAL_DPTR/SPTR blocks; anything else is the wrong type. */
static int stored_string(const pmValueSet *vs, char *buf, size_t buflen)
{
    if (vs->numval != 1 || vs->valfmt == PM_VAL_INSITU)
        return PM_ERR_TYPE;
    const pmValueBlock *vb = vs->vlist[0].value.pval;
    if (vb == NULL || vb->vtype != PM_TYPE_STRING || vb->vlen < PM_VAL_HDR_SIZE)
        return PM_ERR_TYPE;
    size_t n = vb->vlen - PM_VAL_HDR_SIZE;
    if (n > 0 && vb->vbuf[n - 1] == '\0')   /* pmstore sends the terminator */
        n--;
    if (n >= buflen)
        return PM_ERR_BADSTORE;
    memcpy(buf, vb->vbuf, n);
    buf[n] = '\0';
    if (strlen(buf) != n)    /* a NUL inside the value */
        return PM_ERR_BADSTORE;
    return 0;
}

/* PCP's error for a runs error: a relay errno where PCP has a code of
 * its own, the errno otherwise (pmErrStr prints strerror for those). */
static int pcp_error(int rc)
{
    switch (rc) {
    case -EPERM: return PM_ERR_PERMISSION;
    case -EINVAL: return PM_ERR_BADSTORE;
    default: return rc;
    }
}

/* A store into control.run, answered to the client that made it. */
static int store_run(pmda_ctx *ctx, int client, int rc, const char *text)
{
    if (ctx->runs == NULL) {
        /* setup_runs could not even allocate: nothing to count it in */
        char answer[sizeof(((runs *)0)->last)];
        rc = rc != 0 ? rc : -ENOMEM;
        snprintf(answer, sizeof answer, "refused: %s", pmErrStr(rc));
        pmNotifyErr(LOG_WARNING, "store into staprelay.control.run refused: %s",
                    pmErrStr(rc));
        remember_answer(ctx, client, answer);
        return rc;
    }
    if (rc != 0)
        rc = runs_reject(ctx->runs, rc, pmErrStr(rc));
    else
        rc = pcp_error(runs_request(ctx->runs, text));
    remember_answer(ctx, client, ctx->runs->last);
    return rc;
}

static int store_one(pmda_ctx *ctx, int client, const pmValueSet *vs)
{
    if (pmID_domain(vs->pmid) != (unsigned)ctx->domain || pmID_cluster(vs->pmid) != 0)
        return PM_ERR_PERMISSION;
    int item = (int)pmID_item(vs->pmid);
    if (item != R_RUN && item != R_STOP)
        return control_lookup(item) != NULL ? PM_ERR_PERMISSION : PM_ERR_PMID;
    char text[2048];
    int rc = stored_string(vs, text, sizeof(text));
    if (item == R_RUN)
        return store_run(ctx, client, rc, text);
    if (rc == 0 && ctx->runs == NULL)
        rc = PM_ERR_PERMISSION;
    if (rc != 0) {
        pmNotifyErr(LOG_WARNING, "store into staprelay.control.stop refused: %s",
                    pmErrStr(rc));
        return rc;
    }
    rc = runs_stop(ctx->runs, text);
    if (rc != 0)
        pmNotifyErr(LOG_WARNING, "store into staprelay.control.stop refused: no active run "
                    "\"%.64s\"", text);
    return rc;
}

int control_store(pmdaResult *result, pmdaExt *pmda)
{
    pmda_ctx *ctx = pmdaExtGetData(pmda);
    int rc = 0;
    /* libpcp_pmda sets e_context from every PDU, the store's too */
    for (int i = 0; i < result->numpmid && rc == 0; i++)
        rc = store_one(ctx, pmda->e_context, result->vset[i]);
    return rc;
}
