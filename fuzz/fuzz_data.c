/* libFuzzer target: a data document (values, arrays, histogram buckets,
 * event records with stacks) parsed as a source's read parses it (the
 * bounded pre-scan, numbers beyond int64 kept, values in an arena) and
 * mapped through fixed metadata that uses every type, unsigned
 * included. */
#include "relay/events.h"
#include "relay/jsondoc.h"
#include "relay/metadata.h"
#include "relay/snapshot.h"

#include <stddef.h>
#include <stdint.h>
#include <string.h>

static const char meta_doc[] =
    "{\"metrics\": ["
    " {\"name\": \"n\", \"pointer\": \"/n\", \"type\": \"integer\"},"
    " {\"name\": \"s\", \"pointer\": \"/s\", \"type\": \"string\"},"
    " {\"name\": \"d\", \"pointer\": \"/d\", \"type\": \"double\"},"
    " {\"name\": \"u\", \"pointer\": \"/n\", \"type\": \"unsigned\"},"
    " {\"name\": \"a\", \"pointer\": \"/a\", \"type\": \"array\", \"index\": \"/id\","
    "  \"metrics\": [{\"name\": \"v\", \"pointer\": \"/v\", \"type\": \"integer\"}]},"
    " {\"name\": \"lat\", \"pointer\": \"/lat\", \"type\": \"histogram\"},"
    " {\"name\": \"ev\", \"pointer\": \"/samples\", \"type\": \"event\", \"timestamp\": \"/ts\","
    "  \"sequence\": \"/seq\", \"dropped\": \"/dropped\", \"fields\": ["
    "   {\"name\": \"stack\", \"pointer\": \"/stack\", \"type\": \"stack\"},"
    "   {\"name\": \"pid\", \"pointer\": \"/pid\", \"type\": \"integer\", \"optional\": true},"
    "   {\"name\": \"count\", \"pointer\": \"/count\", \"type\": \"integer\", \"optional\": true}]}]}";

static source_meta *meta;

static int consume(void *arg, const void *blob, size_t len, int64_t when)
{
    (void)arg; (void)when;
    field_value v[3];
    event_blob_decode(blob, len, v, 3);
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char err[256];
    if (meta == NULL)
        meta = metadata_parse(meta_doc, strlen(meta_doc), "fuzz", err, sizeof(err));
    json_error_t jerr;
    /* the arena parse, as a source's read does it (relay/source.c) */
    jsondoc_arena arena = JSONDOC_ARENA_INIT;
    json_t *doc = jsondoc_parse_arena((const char *)data, size, 64u << 20, &arena, &jerr,
                                      err, sizeof(err));
    if (doc == NULL)
        return 0;
    snapshot *s = snapshot_build_limited(meta, doc, 1u << 20, err, sizeof(err));
    for (size_t k = 0; s != NULL && k < meta->nmetrics; k++) {
        char buf[400];
        snapshot_problem(s, meta, k, buf, sizeof(buf));
    }
    snapshot_free(s);
    event_limits lim = {1 << 16, 4096, 64, 600};
    event_stream *es = event_stream_new(&meta->events[0], &lim);
    uint64_t missed;
    evqueue_read(es->queue, 1, 1 << 20, &missed, consume, NULL);
    event_stream_ingest(es, doc, 1764450000000000000LL, NULL, "fuzz");
    event_stream_ingest(es, doc, 1764450000000000000LL, NULL, "fuzz");
    evqueue_read(es->queue, 1, 1 << 20, &missed, consume, NULL);
    event_stream_free(es);
    jsondoc_arena_release(&arena);
    return 0;
}
