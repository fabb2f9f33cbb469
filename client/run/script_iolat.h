/* script_iolat: stap/iolat.stp over the block request events of a
 * tracefs instance of its own -- not perf, though the perf backend runs
 * it (`staprelay run iolat --backend perf`).  Owns the tracefs instance;
 * what the events add up to is iolat_trace's, the read loop perf_pipe's
 * (a trace_pipe), the source directory perf_source's. */
#ifndef STAPRELAY_SCRIPT_IOLAT_H
#define STAPRELAY_SCRIPT_IOLAT_H

#include "client/run/run.h"

/* Run it as name until the run ends.  Returns a RUN_EXIT_* status. */
int script_iolat_run(const run_script *s, const run_opts *o, const char *name);

#endif
