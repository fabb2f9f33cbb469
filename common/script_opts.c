/* script_opts: numeric script option limits (see script_opts.h). */
#include "common/script_opts.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const script_opt table[] = {
    /* profile.stp's timer.profile-style sampling; above 10 kHz the probe
     * costs more than it measures */
    { "hz", 1, 10000, "an integer 1..10000" },
    /* Linux's PID_MAX_LIMIT (2^22) */
    { "pid", 1, 4194304, "a process id 1..4194304" },
};

void script_run_name(char *buf, size_t len, const char *script)
{
    snprintf(buf, len, "staprelay_%s", script);
}

const script_opt *script_opt_find(const char *name)
{
    for (size_t i = 0; i < sizeof table / sizeof table[0]; i++)
        if (strcmp(table[i].name, name) == 0)
            return &table[i];
    return NULL;
}

bool script_opt_value(const script_opt *o, const char *text, long *out)
{
    if (!isdigit((unsigned char)text[0]))
        return false;
    char *end;
    errno = 0;
    long v = strtol(text, &end, 10);
    if (errno != 0 || *end != '\0' || v < o->min || v > o->max)
        return false;
    *out = v;
    return true;
}
