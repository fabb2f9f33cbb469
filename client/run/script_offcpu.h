/* script_offcpu: stap/offcpu.stp over perf's sched:sched_switch events
 * (`staprelay run offcpu --backend perf`), and offwake, the same with
 * sched:sched_waking for the waker's stack (s->name says which).  Owns
 * the tasks off CPU and what they add up to (offcpu.stp's metrics and
 * layout); the processes and the read loop are perf_pipe's, the source
 * directory perf_source's. */
#ifndef STAPRELAY_SCRIPT_OFFCPU_H
#define STAPRELAY_SCRIPT_OFFCPU_H

#include <stdbool.h>
#include <stdint.h>

#include "client/run/run.h"

/* Run it as name until the run ends.  Returns a RUN_EXIT_* status. */
int script_offcpu_run(const run_script *s, const run_opts *o, const char *name);

/* The records (blocks, comma-separated JSON, malloc'd) that perf script
 * TEXT makes, offwake's when wake, with *late set to the events left out
 * as late: how the pairing's rules are checked against orders perf
 * really delivers (tests). */
char *script_offcpu_replay(const char *text, bool wake, uint64_t *late);

#endif
