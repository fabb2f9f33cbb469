/* backend_perf: see backend_perf.h. */
#include "client/run/backend_perf.h"

#include <stdio.h>
#include <string.h>

#include "client/run/script_iolat.h"
#include "client/run/script_offcpu.h"
#include "client/run/script_profile.h"

#define NO_BACKTRACES "SystemTap's BPF runtime has no backtraces"

static const backend_perf_standin standins[] = {
    {"profile", script_profile_run, NO_BACKTRACES, NULL},
    {"offcpu", script_offcpu_run, NO_BACKTRACES, NULL},
    {"offwake", script_offcpu_run, NO_BACKTRACES, NULL},
    {"hotcold", script_offcpu_run, NO_BACKTRACES, NULL},
    {"iolat", script_iolat_run,
     "SystemTap 4.8's BPF runtime reads a request's disk with the build headers' layout: "
     "contrib/bpf-iolat/README.md",
     "iolat's block events come from tracefs, which needs root"},
};

const backend_perf_standin *backend_perf_find(const char *script)
{
    for (size_t i = 0; i < sizeof standins / sizeof standins[0]; i++)
        if (strcmp(standins[i].script, script) == 0)
            return &standins[i];
    return NULL;
}

const char *backend_perf_names(char *buf, size_t len)
{
    size_t n = sizeof standins / sizeof standins[0], off = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < n && off < len; i++)
        off += (size_t)snprintf(buf + off, len - off, "%s%s", standins[i].script,
                                i + 2 == n ? " and " : i + 1 < n ? ", " : "");
    return buf;
}

int backend_perf_run(const run_script *s, const run_opts *o, const char *name)
{
    const backend_perf_standin *st = backend_perf_find(s->name);
    if (st == NULL) {
        char names[128];
        fprintf(stderr, "staprelay run: perf can only stand in for %s\n",
                backend_perf_names(names, sizeof names));
        return RUN_EXIT_FAILED;
    }
    return st->run(s, o, name);
}
