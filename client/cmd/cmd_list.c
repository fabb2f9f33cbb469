/* cmd_list: `staprelay list` -- the bundled scripts, their options and
 * the backends that can run each of them on this machine (run/run.h). */
#include "client/cmd/builtin.h"

#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "client/cmd/options.h"
#include "client/run/run.h"

/* list: the scripts, their options and the backends that can run them */
static const char list_usage[] = "staprelay list";

/* "stap bpf(no) perf": the backends that could run s, and whether they
 * can here. */
static const char *backends_here(const run_script *s, const run_env *e, char *buf, size_t len)
{
    static const run_backend all[] = { RUN_BK_STAP, RUN_BK_BPF, RUN_BK_PERF };
    char tmp[256];
    run_opts o;
    memset(&o, 0, sizeof o);
    buf[0] = '\0';
    for (size_t i = 0; i < 3; i++) {
        if (!(s->backends & all[i]))
            continue;
        bool ok = run_cannot(all[i], s, &o, e, tmp, sizeof tmp) == NULL;
        size_t k = strlen(buf);
        snprintf(buf + k, len - k, "%s%s%s", k ? " " : "", run_backend_name(all[i]),
                 ok ? "" : "(no)");
    }
    return buf;
}

int cmd_list(int argc, char **argv)
{
    cmd_opts o;
    int rc = cmd_opts_parse(&o, 0, argc, argv, list_usage);
    if (rc == 0)
        cmd_opts_free(&o);      /* o.nfiles is all list looks at */
    if (rc == 0 && o.nfiles > 0)
        rc = cmd_opts_error(&o, list_usage, "takes no arguments");
    if (rc)
        return rc == 1 ? 0 : RUN_EXIT_USAGE;
    run_catalog c;
    rc = run_catalog_load_bundled(&c, "list");
    if (rc)
        return rc;
    run_env e;
    run_env_probe(&e, "");
    printf("scripts in %s:\n\n", c.dir);
    printf("%-8s %-52s %-18s %s\n", "SCRIPT", "OPTIONS", "BACKENDS (here)", "DESCRIPTION");
    for (size_t i = 0; i < c.n; i++) {
        const run_script *s = &c.v[i];
        char opts[128], bk[96];
        run_opts_text(s->opts, opts, sizeof opts);
        backends_here(s, &e, bk, sizeof bk);
        printf("%-8s %-52s %-18s %s\n", s->name, opts, bk, s->desc);
    }
    printf("\nbackends: stap = SystemTap kernel runtime, bpf = SystemTap BPF runtime "
           "(stap/bpf/), perf = the kernel's perf and trace events (profile, offcpu, offwake,\n  hotcold: perf record; iolat: block events from tracefs); (no) = cannot run here:\n");
    if (!e.modules)
        printf("  stap: %s\n", e.modules_why);
    else if (!e.stap)
        printf("  stap: stap is not installed\n");
    if (!e.stap || !e.stapbpf)
        printf("  bpf: stap/stapbpf are not installed (apt-get install systemtap)\n");
    else if (!e.kbuild)
        printf("  bpf: %s\n", e.kbuild_why);
    else if (!e.root)
        printf("  bpf: needs root\n");
    if (!e.perf)
        printf("  perf: %s\n", e.perf_why);
    printf("\nrun one with: staprelay run SCRIPT [-T DURATION] [--name NAME] [OPTIONS]\n");
    run_catalog_free(&c);
    return 0;
}
