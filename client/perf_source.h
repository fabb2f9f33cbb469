/* perf_source: the perf backend of `staprelay run profile`.
 *
 * perf_sampler turns `perf script -F comm,pid,tid,cpu,time,ip,sym,dso --ns`
 * text (recorded with -k realtime, so times are Unix epoch) into samples
 * with a folded stack: root first, ';'-joined, symbols tidied as
 * stackcollapse-perf.pl does (client/collapse_perf), kernel frames
 * suffixed "_[k]", no comm root frame (profile.stp's stacks have none).
 *
 * perf_source publishes them as a pmdajson-style source directory,
 * PARENT/NAME/{metadata.json,data.json}, with the metadata of
 * stap/profile.stp (event `samples`: stack, pid, tid, cpu, comm, count;
 * timestamp in nsec, sequence numbers from 1; counters taken, frequency,
 * samples_dropped).  data.json is replaced atomically (temp + rename) and
 * holds the records since the previous write. */
#ifndef STAPRELAY_PERF_SOURCE_H
#define STAPRELAY_PERF_SOURCE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "client/strbuf.h"

typedef struct perf_sample {
    strbuf   comm;
    long     pid, tid;
    int      cpu;          /* -1 when perf printed none */
    int64_t  ts_ns;        /* 0 when perf printed none */
    strbuf   stack;        /* folded, root first */
    size_t   nframes;
} perf_sample;

typedef void (*perf_sample_fn)(void *arg, const perf_sample *s);

typedef struct perf_sampler {
    bool     kernel_only, user_only;
    bool     keep_idle;        /* also pid 0 (default: skipped, as profile.stp) */
    perf_sample_fn fn;
    void    *arg;
    /* state */
    bool     in_sample;
    perf_sample cur;
    strbuf   frames;           /* leaf first, each frame NUL-terminated */
    size_t   nframes;
    strbuf   tmp;
    uint64_t samples, idle, empty, bad_lines;
} perf_sampler;

void perf_sampler_init(perf_sampler *ps, perf_sample_fn fn, void *arg);
void perf_sampler_free(perf_sampler *ps);
void perf_sampler_line(perf_sampler *ps, const char *s, size_t n);
void perf_sampler_finish(perf_sampler *ps);
/* "comm pid/tid [cpu] sec.nsec:" (comm may hold spaces; cpu and time
 * optional).  Exposed for tests. */
bool perf_sample_header(const char *s, size_t n, perf_sample *out);
/* One frame's folded name (tidied, "[dso]" for unknown symbols, "_[k]"
 * for kernel frames) into out; *kernel says which it was.  False when the
 * line is not a frame. */
bool perf_sample_frame(const char *s, size_t n, strbuf *out, bool *kernel);

typedef struct perf_source perf_source;
typedef char *(*perf_source_data_fn)(const perf_source *src, void *arg);

struct perf_source {
    char    *dir;              /* PARENT/NAME */
    char    *name;
    long     hz;
    uint64_t seq, taken, dropped, written;
    size_t   npending, max_pending;
    strbuf   pending;          /* JSON records, comma-separated */
    bool     dirty;
    /* Another script's layout (run_offcpu.c, perf_source_open_as): its
     * metadata.json text, and what makes data.json from pending. */
    const char *meta_text;
    perf_source_data_fn data_fn;
    void    *data_arg;
};

/* metadata.json text for prefix (malloc'd). */
char *perf_source_metadata(const char *prefix);
/* Create PARENT/NAME (PARENT must exist) and write metadata.json and an
 * empty data.json.  A directory left by a run that is gone (its
 * .staprelay-run pid file names no process) is reused; a live one is an
 * error.  Returns 0 or -1 with err. */
int perf_source_open(perf_source *src, const char *parent, const char *name, long hz,
                     char *err, size_t errlen);
/* perf_source_open for another script's layout: META_TEXT is written as
 * metadata.json, DATA_FN(src, DATA_ARG) makes data.json (from
 * src->pending, the records queued with perf_source_add_json). */
int perf_source_open_as(perf_source *src, const char *parent, const char *name, long hz,
                        const char *meta_text, perf_source_data_fn data_fn, void *data_arg,
                        char *err, size_t errlen);
/* Queue one sample (counts it as taken; beyond max_pending it is dropped
 * and counted in samples_dropped). */
void perf_source_add(perf_source *src, const perf_sample *s);
/* Queue a record rendered by the caller (JSON object text, with the
 * "seq" it took from ++src->seq); dropped and counted beyond max_pending.
 * Marks the source changed. */
void perf_source_add_json(perf_source *src, const char *record);
/* Replace data.json with the queued records (if anything changed). */
int perf_source_flush(perf_source *src, char *err, size_t errlen);
/* The data.json text the next flush would write (tests; malloc'd). */
char *perf_source_data(const perf_source *src);
/* Remove the directory (when remove) and free. */
void perf_source_close(perf_source *src, bool remove);

#endif
