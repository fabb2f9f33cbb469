/* script_offcpu: stap/offcpu.stp over perf's sched:sched_switch events
 * (`staprelay run offcpu --backend perf`), and offwake, the same with
 * sched:sched_waking for the waker's stack (s->name says which).  Owns
 * the tasks off CPU and what they add up to (offcpu.stp's metrics and
 * layout); the processes and the read loop are perf_pipe's, the source
 * directory perf_source's. */
#ifndef STAPRELAY_SCRIPT_OFFCPU_H
#define STAPRELAY_SCRIPT_OFFCPU_H

#include "client/run/run.h"

/* Run it as name until the run ends.  Returns a RUN_EXIT_* status. */
int script_offcpu_run(const run_script *s, const run_opts *o, const char *name);

#endif
