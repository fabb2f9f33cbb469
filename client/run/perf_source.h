/* perf_source: the perf backend of `staprelay run profile`.
 *
 * perf_sampler turns `perf script -F comm,pid,tid,cpu,time,ip,sym,dso --ns`
 * text (recorded with -k realtime, so times are Unix epoch) into samples
 * whose stack is the frame lines perf printed, leaf first, one per line
 * (blanks before them dropped; lines of the side not wanted under
 * --kernel-only/--user-only left out): the relay folds them with the one
 * frame grammar (common/frames), as it folds SystemTap's backtraces, so
 * nothing of its rules is written again here.  Headers are read by
 * common/perf_header.
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
#include "common/strbuf.h"

typedef struct perf_sample {
    strbuf   comm;
    long     pid, tid;
    int      cpu;          /* -1 when perf printed none */
    int64_t  ts_ns;        /* 0 when perf printed none */
    strbuf   stack;        /* perf frame lines, leaf first, '\n'-joined */
    size_t   nframes;      /* lines that hold a frame */
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
    size_t   nframes;
    uint64_t samples, idle, empty, bad_lines;
} perf_sampler;

void perf_sampler_init(perf_sampler *ps, perf_sample_fn fn, void *arg);
void perf_sampler_free(perf_sampler *ps);
void perf_sampler_line(perf_sampler *ps, const char *s, size_t n);
void perf_sampler_finish(perf_sampler *ps);

typedef struct perf_source perf_source;
typedef char *(*perf_source_data_fn)(const perf_source *src, void *arg);

struct perf_source {
    char    *dir;              /* PARENT/NAME */
    char    *name;
    long     hz;
    uint64_t seq, taken, dropped, written;
    uint64_t flushes;          /* data.json files written (the first, empty, included) */
    size_t   npending, max_pending;
    strbuf   pending;          /* JSON records, comma-separated */
    bool     dirty;
    /* Another script's layout (script_offcpu.c, perf_source_open_as): what
     * makes data.json from pending. */
    perf_source_data_fn data_fn;
    void    *data_arg;
    /* Called with data_arg once data.json holds what data_fn made: a
     * script with records of its own beyond pending (hotcold's samples)
     * lets them go then.  NULL: none. */
    void   (*flushed_fn)(void *data_arg);
    /* Who read data.json: an inotify watch (IN_CLOSE_NOWRITE) on each
     * file's inode, set before it takes the name, so a read between the
     * rename and the watch is not missed.  read_fd < 0: no inotify. */
    int      read_fd, data_wd;
    bool     data_read;        /* the current data.json was read */
    bool     ever_read;        /* some data.json was (there is a reader) */
};

/* The sample record's fields in metadata.json (profile.stp's), one a
 * line, the last without a comma. */
extern const char perf_source_sample_fields[];
/* metadata.json text for prefix (malloc'd).  replay: the event metric
 * replays (a client's first fetch starts at the oldest record still
 * queued) -- only for the PMDA's on-demand runs (docs/runs.md), so that
 * `--run NAME` gets a run from its start; otherwise a client sees the
 * records from when it connects, as for any event source. */
char *perf_source_metadata(const char *prefix, bool replay);
/* The PARENT a perf backend's source goes in: dir (--dir, created when
 * missing), else PCP_TMP_DIR/staprelay, which pmdastaprelay's Install
 * creates and watches.  NULL, with the reason on stderr, when it cannot
 * be had; else dir or buf. */
const char *perf_source_parent(const char *dir, char *buf, size_t len);
/* Create PARENT/NAME (PARENT must exist) and write metadata.json and an
 * empty data.json.  A directory left by a run that is gone (its
 * .staprelay-run pid file names no process) is reused; a live one is an
 * error.  Returns 0 or -1 with err. */
int perf_source_open(perf_source *src, const char *parent, const char *name, long hz,
                     bool replay,
                     char *err, size_t errlen);
/* perf_source_open for another script's layout: META_TEXT is written as
 * metadata.json, DATA_FN(src, DATA_ARG) makes data.json (from
 * src->pending, the records queued with perf_source_add_json). */
int perf_source_open_as(perf_source *src, const char *parent, const char *name, long hz,
                        bool replay, const char *meta_text, perf_source_data_fn data_fn, void *data_arg,
                        char *err, size_t errlen);
/* Queue one sample (counts it as taken; beyond max_pending it is dropped
 * and counted in samples_dropped). */
void perf_source_add(perf_source *src, const perf_sample *s);
/* A sample's record, as perf_source_add queues it: {"seq": SEQ, "ts":
 * TS_NS, "pid", "tid", "cpu", "comm", "count": 1, "stack"}, appended to
 * p (a script that keeps samples of its own: hotcold). */
void perf_source_sample_json(strbuf *p, uint64_t seq, int64_t ts_ns, const perf_sample *s);
/* data.json's list of an event's records: "  \"NAME\": [...]", the n
 * records (comma-separated JSON text) one a line, appended to sb. */
void perf_source_event_array(strbuf *sb, const char *name, const strbuf *records, size_t n);
/* profile's part of data.json: taken, frequency, samples_dropped and
 * the samples (no braces, no comma after it). */
void perf_source_samples_json(strbuf *sb, uint64_t taken, long hz, uint64_t dropped,
                              const strbuf *records, size_t n);
/* Queue a record rendered by the caller (JSON object text, with the
 * "seq" it took from ++src->seq); dropped and counted beyond max_pending.
 * Marks the source changed. */
void perf_source_add_json(perf_source *src, const char *record);
/* Replace metadata.json with META_TEXT (a script whose metrics grow, as
 * iolat's per-disk histograms).  Returns 0 or -1 with err. */
int perf_source_set_metadata(perf_source *src, const char *meta_text, char *err, size_t errlen);
/* Append a log2 histogram as the tapset's @staprelay_out_hist_log writes
 * it: [{"lo", "hi", "count"}...] from the first to the last bucket that
 * holds a value; bucket 0 holds the zeros, bucket k >= 1 the values
 * 2^(k-1) to 2^k - 1. */
void perf_source_hist_log(strbuf *sb, const uint64_t hist[65]);
/* Count v in its bucket of such a histogram. */
void perf_source_hist_add(uint64_t hist[65], uint64_t v);
/* Replace data.json with the queued records (if anything changed). */
int perf_source_flush(perf_source *src, char *err, size_t errlen);
/* The data.json text the next flush would write (tests; malloc'd). */
char *perf_source_data(const perf_source *src);
/* Wait until the current data.json has been read by someone (the PMDA:
 * a read is a close of the file opened without write), at most timeout
 * seconds.  1: it was read; 0: not in time; -1: cannot tell (no inotify).
 * A run waits for this before it removes the source, so that the last
 * records reach the PMDA however slowly a loaded machine runs it. */
int perf_source_wait_read(perf_source *src, double timeout);
/* Remove the directory (when remove) and free. */
void perf_source_close(perf_source *src, bool remove);

#endif
