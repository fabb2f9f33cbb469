/* script_profile: stap/profile.stp over perf's cpu-clock samples with
 * call graphs (`staprelay run profile --backend perf`).  Owns profile's
 * perf command lines, its --control handshake's announcement
 * ("staprelay run: sampling") and --save; the processes and the read
 * loop are perf_pipe's, the source directory perf_source's.  (The
 * comment at the top of script_profile.c says why the handshake.) */
#ifndef STAPRELAY_SCRIPT_PROFILE_H
#define STAPRELAY_SCRIPT_PROFILE_H

#include "client/run/run.h"

/* Run it as name until the run ends.  Returns a RUN_EXIT_* status. */
int script_profile_run(const run_script *s, const run_opts *o, const char *name);

#endif
