/* libFuzzer target: pprof profiles (profile.proto, gzipped or raw) as
 * `staprelay fold` reads them -- pprof_codec's decode and checks, then
 * pprof_read's walk of every sample into a stack table, with pprof
 * export watching (the round trip a hostile profile can reach).  Seeds:
 * real Go CPU and heap profiles (fuzz/seeds/go-*.pb.gz) and their
 * uncompressed protos (scripts/fuzz.sh), so mutations reach the proto
 * decoder and not only gzip's checksum. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "client/input/pprof_read.h"
#include "client/render/pprof_write.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    stacktab *tab = stacktab_new();
    stack_sink sink;
    stack_sink_init(&sink, tab, 0, false);
    pprof_builder *b = pprof_builder_new(size > 0 && (data[0] & 1));
    stack_sink_observe_detail(&sink, pprof_builder_observe, b);
    input_options opt;
    memset(&opt, 0, sizeof opt);
    input_stats st;
    memset(&st, 0, sizeof st);
    strbuf err = STRBUF_INIT;
    if (pprof_read_buffer(data, size, &opt, &sink, &st, &err) == 0) {
        FILE *null = fopen("/dev/null", "w");
        strbuf notes = STRBUF_INIT;
        pprof_builder_write(b, null, NULL, &notes);
        sb_free(&notes);
        fclose(null);
    }
    sb_free(&err);
    pprof_builder_free(b);
    stack_sink_free(&sink);
    stacktab_free(tab);
    return 0;
}
