/* script_opts: the limits of the bundled scripts' numeric options, one
 * table that both the client's `staprelay run --hz/--pid` and the
 * PMDA's run requests (`hz=`, `pid=`) check against, so a request the
 * PMDA accepts never fails in the client it starts. */
#ifndef STAPRELAY_SCRIPT_OPTS_H
#define STAPRELAY_SCRIPT_OPTS_H

#include <stdbool.h>

typedef struct script_opt {
    const char *name;   /* "hz", "pid" */
    long        min, max;
    const char *what;   /* "an integer 1..10000" */
} script_opt;

/* The option named name, or NULL. */
const script_opt *script_opt_find(const char *name);
/* text as the option's value: decimal digits only, within its limits. */
bool script_opt_value(const script_opt *o, const char *text, long *out);

#endif
