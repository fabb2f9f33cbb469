/* backend_perf: the perf backend of `staprelay run`: the table of the
 * scripts it stands in for (script_profile.h, script_offcpu.h,
 * script_iolat.h: each reimplements one bundled script over perf or
 * tracefs and publishes it as a pmdajson-style directory through
 * perf_source, with the metric names of the stap/ script it stands in
 * for), read by the catalogue and the choice (run.c), and the dispatch
 * to them.  Owns nothing but that table. */
#ifndef STAPRELAY_BACKEND_PERF_H
#define STAPRELAY_BACKEND_PERF_H

#include <stddef.h>

#include "client/run/run.h"

typedef struct backend_perf_standin {
    const char *script;
    int (*run)(const run_script *s, const run_opts *o, const char *name);
    const char *no_bpf;        /* why stap/bpf/ has no variant of it */
    const char *tracefs_root;  /* non-NULL: read from tracefs, not perf,
                                  so it needs root (this says why) */
} backend_perf_standin;

/* The entry for a script, or NULL when perf cannot stand in for it. */
const backend_perf_standin *backend_perf_find(const char *script);
/* "profile, offcpu and iolat" (buf, len): for messages. */
const char *backend_perf_names(char *buf, size_t len);
/* Run s's stand-in as name.  Returns a RUN_EXIT_* status. */
int backend_perf_run(const run_script *s, const run_opts *o, const char *name);

#endif
