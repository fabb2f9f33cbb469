/* script_opts: what the PMDA's run requests and the client's `staprelay
 * run` agree on about a bundled script's run: the limits of its numeric
 * options (one table both check, so a request the PMDA accepts never
 * fails in the client it starts), the name a run publishes under and the
 * file that marks a run's source directory. */
#ifndef STAPRELAY_SCRIPT_OPTS_H
#define STAPRELAY_SCRIPT_OPTS_H

#include <stdbool.h>
#include <stddef.h>

typedef struct script_opt {
    const char *name;   /* "hz", "pid" */
    long        min, max;
    const char *what;   /* "an integer 1..10000" */
} script_opt;

/* The name a run of script publishes under when none is given:
 * "staprelay_SCRIPT" (the SystemTap module name and the PCP name
 * component).  The PMDA passes it to `staprelay run --name` itself. */
void script_run_name(char *buf, size_t len, const char *script);

/* The file a run's source directory holds (its pid, written before its
 * metadata.json): the relay keeps such a source's names when the
 * directory goes, as a module's, so clients still get the records it
 * queued (docs/runs.md). */
#define SCRIPT_RUN_MARK ".staprelay-run"

/* The option named name, or NULL. */
const script_opt *script_opt_find(const char *name);
/* text as the option's value: decimal digits only, within its limits. */
bool script_opt_value(const script_opt *o, const char *text, long *out);

#endif
