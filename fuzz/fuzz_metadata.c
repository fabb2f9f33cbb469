/* libFuzzer target: metadata.json parsing, then mapping a fixed data
 * document through whatever metadata came out (snapshot and events). */
#include "relay/events.h"
#include "relay/metadata.h"
#include "relay/snapshot.h"

#include <stddef.h>
#include <stdint.h>

static const char data_doc[] =
    "{\"n\": 1, \"s\": \"x\", \"d\": 2.5, \"a\": [{\"id\": \"x y\", \"v\": 1}, {\"id\": 7, \"v\": 2}],"
    " \"lat\": [{\"lo\": 0, \"hi\": 0, \"count\": 1}, {\"lo\": 1, \"hi\": null, \"count\": 2}],"
    " \"samples\": [{\"seq\": 1, \"ts\": 1764450000000000000, \"stack\": \"a;b\", \"pid\": 1}]}";

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char err[512];
    source_meta *m = metadata_parse((const char *)data, size, "fuzz", err, sizeof(err));
    if (m == NULL)
        return 0;
    json_t *doc = json_loads(data_doc, 0, NULL);
    snapshot *s = snapshot_build(m, doc);
    for (size_t k = 0; s != NULL && k < m->nmetrics; k++) {
        char buf[400];
        snapshot_problem(s, m, k, buf, sizeof(buf));
    }
    snapshot_free(s);
    event_limits lim = {1 << 16, 4096, 64, 600};
    for (size_t e = 0; e < m->nevents; e++) {
        event_stream *es = event_stream_new(&m->events[e], &lim);
        if (es != NULL)
            event_stream_ingest(es, doc, 1764450000000000000LL, NULL, "fuzz");
        event_stream_free(es);
    }
    json_decref(doc);
    metadata_free(m);
    return 0;
}
