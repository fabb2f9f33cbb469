/* cmd_run: `staprelay run SCRIPT` -- checks the options against the
 * script's header, chooses a backend (run/run.h) and hands over to it. */
#include "client/cmd/builtin.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include "client/cmd/options.h"
#include "client/run/backend_perf.h"
#include "client/run/backend_stap.h"
#include "client/run/child.h"
#include "client/run/run.h"
#include "common/script_opts.h"
#include "common/strbuf.h"

static const char run_usage[] =
    "staprelay run SCRIPT [-T DURATION] [--name NAME] [--backend stap|bpf|perf]\n"
    "                     [--hz N] [--pid P | --cmd C] [--kernel-only | --user-only]\n"
    "                     [--dir DIR]\n"
    "Runs a bundled script (staprelay list) until DURATION or Ctrl-C; its metrics\n"
    "appear as staprelay.NAME.* (default NAME: staprelay_SCRIPT).";

int cmd_run(int argc, char **argv)
{
    cmd_opts opts;
    int rc = cmd_opts_parse(&opts, OPTS_SCRIPT, argc, argv, run_usage);
    if (rc)
        return rc == 1 ? 0 : RUN_EXIT_USAGE;
    const run_opts o = opts.script;     /* all run keeps of its options */
    cmd_opts_free(&opts);
    run_catalog c;
    rc = run_catalog_load_bundled(&c, "run");
    if (rc)
        return rc;
    const run_script *s = run_catalog_find(&c, o.script);
    if (s == NULL) {
        strbuf names = STRBUF_INIT;
        for (size_t i = 0; i < c.n; i++)
            sb_printf(&names, "%s%s", i ? ", " : "", c.v[i].name);
        fprintf(stderr, "staprelay run: unknown script '%s' (bundled: %s; see staprelay list)\n",
                o.script, names.buf ? names.buf : "none");
        sb_free(&names);
        run_catalog_free(&c);
        return RUN_EXIT_USAGE;
    }
    unsigned bad = o.given & ~s->opts;
    if (bad) {
        char t[128], ok[128];
        run_opts_text(bad, t, sizeof t);
        run_opts_text(s->opts, ok, sizeof ok);
        fprintf(stderr, "staprelay run: %s does not take %s (%s%s)\n", s->name, t,
                s->opts ? "its options: " : "it takes no script options", s->opts ? ok : "");
        run_catalog_free(&c);
        return RUN_EXIT_USAGE;
    }
    char name[64];
    if (o.name)
        snprintf(name, sizeof name, "%s", o.name);
    else
        script_run_name(name, sizeof name, s->name);
    if (!run_name_ok(name)) {
        fprintf(stderr, "staprelay run: '%s' is not a usable module name; give --name\n", name);
        run_catalog_free(&c);
        return RUN_EXIT_USAGE;
    }
    if (o.pid && kill((pid_t)o.pid, 0) != 0 && errno == ESRCH) {
        fprintf(stderr, "staprelay run: no process %ld\n", o.pid);
        run_catalog_free(&c);
        return RUN_EXIT_USAGE;
    }

    run_env e;
    run_env_probe(&e, "");
    char why[2048];
    run_backend b = run_choose(s, &o, &e, why, sizeof why);
    if (b == RUN_BK_NONE) {
        fprintf(stderr, "staprelay run: no backend can run %s here:\n%s", s->name, why);
        run_catalog_free(&c);
        return RUN_EXIT_NOBACKEND;
    }
    fprintf(stderr, "staprelay run: %s with the %s backend as %s\n%s", s->name,
            run_backend_name(b), name, why);
    fflush(stderr);
    child_signals_install();
    switch (b) {
    case RUN_BK_STAP: rc = backend_stap_kernel(&c, s, &o, name); break;
    case RUN_BK_BPF: rc = backend_stap_bpf(&c, s, &o, name, &e); break;
    default: rc = backend_perf_run(s, &o, name); break;
    }
    run_catalog_free(&c);
    return rc;
}
