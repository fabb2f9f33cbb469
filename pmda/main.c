/* pmdastaprelay: the PMDA process.  One libev loop serves pmcd's pipe,
 * the relay's poll timer, file watches and data-exec children; fetches
 * are answered from memory between those events. */
#include "pmda/context.h"
#include "pmda/control.h"
#include "pmda/domain.h"
#include "pmda/fetch.h"
#include "pmda/namespace.h"
#include "pmda/values.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static pmLongOptions long_options[] = {
    PMDA_OPTIONS_HEADER("Options"),
    PMOPT_DEBUG,
    PMDAOPT_DOMAIN,
    PMDAOPT_LOGFILE,
    {"config", 1, 'c', "FILE", "configuration file [default $PCP_PMDAS_DIR/staprelay/config.json]"},
    {"state-dir", 1, 's', "DIR", "where PMID numbering is kept [default $PCP_VAR_DIR/config/pmda/staprelay]"},
    PMOPT_HELP,
    PMDA_OPTIONS_END
};

static pmdaOptions options = {
    .short_options = "c:D:d:l:s:?",
    .long_options = long_options,
};

static void log_to_pcp(void *arg, log_level level, const char *msg)
{
    (void)arg;
    static const int prio[] = {LOG_ERR, LOG_WARNING, LOG_INFO, LOG_DEBUG};
    pmNotifyErr(prio[level], "%s", msg);
}

static void on_namespace_changed(void *arg)
{
    pmda_ctx *ctx = arg;
    namespace_rebuild(ctx);
    if (ctx->runs != NULL)
        runs_note_sources(ctx->runs);
}

static void on_data_changed(void *arg)
{
    pmda_ctx *ctx = arg;
    values_sync_indoms(ctx);
    /* a run whose source took over the directory of the run before it
     * (same prefix, gone and back between two polls: qa 551 on a loaded
     * machine) changes no names; its event metrics are noted as its data
     * comes, or it would end "done but published no event metric" */
    if (ctx->runs != NULL)
        runs_note_sources(ctx->runs);
}

static void on_pmcd(struct ev_loop *loop, ev_io *w, int revents)
{
    (void)revents;
    pmda_ctx *ctx = w->data;
    if (__pmdaMainPDU(&ctx->dispatch) < 0) {
        /* pmcd closed the pipe (it never kills agents): time to go */
        ev_break(loop, EVBREAK_ALL);
    }
}

static void on_signal(struct ev_loop *loop, ev_signal *w, int revents)
{
    (void)revents;
    pmNotifyErr(LOG_INFO, "caught signal %d, exiting", w->signum);
    ev_break(loop, EVBREAK_ALL);
}

static char *default_path(const char *var, const char *rest)
{
    const char *base = pmGetOptionalConfig(var);
    size_t n = strlen(base ? base : "/var/lib/pcp") + strlen(rest) + 2;
    char *p = malloc(n);
    if (p != NULL)
        snprintf(p, n, "%s/%s", base ? base : "/var/lib/pcp", rest);
    return p;
}

static relay_config *load_config(const char *path)
{
    char err[512], warn[1024];
    struct stat st;
    if (stat(path, &st) != 0 && errno == ENOENT) {
        pmNotifyErr(LOG_WARNING, "no config file %s: no sources until one is written "
                    "and the PMDA restarted", path);
        return config_new_default();
    }
    relay_config *cfg = config_load(path, err, sizeof(err), warn, sizeof(warn));
    if (cfg == NULL) {
        pmNotifyErr(LOG_ERR, "%s", err);
        return NULL;
    }
    if (warn[0] != '\0')
        pmNotifyErr(LOG_WARNING, "%s", warn);
    return cfg;
}

#ifndef STAPRELAY_BINDIR
#define STAPRELAY_BINDIR "/usr/local/bin"
#endif

/* Runs (docs/runs.md): the perf backend publishes into a directory that
 * the relay then watches like any directory_list entry.  Refusals need
 * the runs object too, so it exists even when runs are disabled. */
static runs *setup_runs(pmda_ctx *ctx, relay_config *cfg, const char *state_dir,
                        const log_sink *sink)
{
    runs_config *rc = &cfg->runs;
    size_t n = strlen(state_dir) + 8;
    char *dflt_dir = malloc(n);
    if (dflt_dir == NULL)
        return NULL;
    snprintf(dflt_dir, n, "%s/runs", state_dir);
    if (rc->directory == NULL)
        rc->directory = dflt_dir;   /* the relay keeps finished runs' names by it */
    else
        free(dflt_dir);
    const char *dir = rc->directory;
    const char *command = rc->command != NULL ? rc->command : STAPRELAY_BINDIR "/staprelay";
    if (rc->enabled) {
        if (mkdir(dir, 0755) != 0 && errno != EEXIST)
            pmNotifyErr(LOG_ERR, "runs: cannot create %s: %s", dir, strerror(errno));
        if (config_add_directory(cfg, dir) != 0)
            pmNotifyErr(LOG_ERR, "runs: out of memory");
        pmNotifyErr(LOG_INFO, "runs enabled: %zu script(s), at most %gs, %zu at once; "
                    "command %s, directory %s", rc->nscripts, rc->max_duration,
                    rc->max_concurrent, command, dir);
    }
    return runs_new(ctx->loop, rc, command, dir, sink);
}

static void init_dispatch(pmda_ctx *ctx)
{
    pmdaInterface *dp = &ctx->dispatch;
    dp->version.seven.fetch = fetch_result;
    dp->version.seven.desc = values_desc;
    dp->version.seven.instance = values_instance;
    dp->version.seven.text = namespace_text;
    dp->version.seven.pmid = namespace_pmid;
    dp->version.seven.name = namespace_name;
    dp->version.seven.children = namespace_children;
    dp->version.seven.label = values_label;
    dp->version.seven.store = control_store;
    pmdaSetResultCallBack(dp, fetch_result_done);
    pmdaSetEndContextCallBack(dp, values_end_context);
    pmdaSetLabelCallBack(dp, values_instance_labels);
    values_ctx = ctx;
    pmdaSetData(dp, ctx);
}

int main(int argc, char **argv)
{
    pmda_ctx ctx;
    memset(&ctx, 0, sizeof(ctx));
    pmSetProgname(argv[0]);
    pmdaDaemon(&ctx.dispatch, PMDA_INTERFACE_7, pmGetProgname(), STAPRELAY,
               "staprelay.log", NULL);
    char *config_path = NULL, *state_dir = NULL;
    int c;
    /* pmdaGetOptions handles the standard letters and hands ours back */
    while ((c = pmdaGetOptions(argc, argv, &options, &ctx.dispatch)) != EOF) {
        if (c == 'c') {
            free(config_path);
            config_path = strdup(options.optarg);
        } else if (c == 's') {
            free(state_dir);
            state_dir = strdup(options.optarg);
        } else {
            options.errors++;
        }
    }
    if (options.errors || options.optind != argc) {
        pmdaUsageMessage(&options);
        exit(1);
    }
    ctx.domain = ctx.dispatch.domain;
    pmdaOpenLog(&ctx.dispatch);
    signal(SIGPIPE, SIG_IGN);

    if (config_path == NULL)
        config_path = default_path("PCP_PMDAS_DIR", "staprelay/config.json");
    if (state_dir == NULL)
        state_dir = default_path("PCP_VAR_DIR", "config/pmda/staprelay");
    relay_config *cfg = load_config(config_path);
    if (cfg == NULL)
        exit(1);
    mkdir(state_dir, 0755);
    char err[512];
    ctx.ids = idmap_open(state_dir, err, sizeof(err));
    if (ctx.ids == NULL) {
        pmNotifyErr(LOG_ERR, "out of memory");
        exit(1);
    }
    if (err[0] != '\0')
        pmNotifyErr(LOG_WARNING, "%s", err);
    idmap_set_policy(ctx.ids, (int)cfg->pmid_clusters_reserved, (int)cfg->pmid_clusters_per_root);
    pmNotifyErr(LOG_INFO, "config %s, state %s, poll every %gs", config_path, state_dir,
                cfg->poll_interval);

    ctx.loop = ev_default_loop(EVFLAG_AUTO);
    log_sink sink = {log_to_pcp, NULL};
    relay_hooks hooks = {on_namespace_changed, on_data_changed, &ctx};
    ctx.runs = setup_runs(&ctx, cfg, state_dir, &sink);
    ctx.relay = relay_new(ctx.loop, cfg, &sink, &hooks);
    if (ctx.runs != NULL)
        ctx.runs->relay = ctx.relay;

    init_dispatch(&ctx);
    /* control metrics only; sources arrive with the first poll */
    pmdaInit(&ctx.dispatch, NULL, 0, NULL, 0);
    namespace_rebuild(&ctx);
    pmdaConnect(&ctx.dispatch);
    if (ctx.dispatch.status != 0) {
        pmNotifyErr(LOG_ERR, "cannot connect to pmcd: %s", pmErrStr(ctx.dispatch.status));
        exit(1);
    }
    relay_start(ctx.relay);

    ev_io_init(&ctx.pmcd_w, on_pmcd, __pmdaInFd(&ctx.dispatch), EV_READ);
    ctx.pmcd_w.data = &ctx;
    ev_io_start(ctx.loop, &ctx.pmcd_w);
    ev_signal_init(&ctx.term_w, on_signal, SIGTERM);
    ev_signal_init(&ctx.int_w, on_signal, SIGINT);
    ev_signal_start(ctx.loop, &ctx.term_w);
    ev_signal_start(ctx.loop, &ctx.int_w);
    ev_run(ctx.loop, 0);

    runs_free(ctx.runs);
    relay_free(ctx.relay);
    namespace_free(&ctx);
    fetch_free(&ctx);
    control_free(&ctx);
    idmap_free(ctx.ids);
    free(config_path);
    free(state_dir);
    ev_loop_destroy(ctx.loop);
    exit(0);
}
