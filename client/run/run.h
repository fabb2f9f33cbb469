/* run: what `staprelay list` and `staprelay run SCRIPT` (cmd/cmd_list.c,
 * cmd/cmd_run.c) stand on: the bundled SystemTap scripts, the backends
 * that can run them on this machine, and the choice between them.
 *
 * Backends, in order of preference:
 *   stap  SystemTap's kernel-module runtime (needs CONFIG_MODULES and
 *         module loading allowed);
 *   bpf   SystemTap's BPF runtime, for scripts with a stap/bpf/ variant;
 *   perf  `perf record -g | perf script`, parsed here and published as a
 *         pmdajson-style directory (profile: cpu-clock samples; offcpu:
 *         sched_switch events, run_offcpu.c).
 * Everything that looks at the machine is in run_env, filled by
 * run_env_probe(), so the choice itself is a pure function. */
#ifndef STAPRELAY_RUN_H
#define STAPRELAY_RUN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <sys/types.h>

/* Exit statuses of `run` and `list` (staprelay(1), EXIT STATUS). */
enum {
    RUN_EXIT_OK = 0,        /* ran for the duration or until interrupted */
    RUN_EXIT_FAILED = 1,    /* the backend failed while starting or running */
    RUN_EXIT_USAGE = 2,     /* bad options, unknown script */
    RUN_EXIT_NOBACKEND = 3, /* no backend can run the script here */
};

typedef enum run_backend {
    RUN_BK_NONE = 0,
    RUN_BK_STAP = 1,
    RUN_BK_BPF = 2,
    RUN_BK_PERF = 4,
} run_backend;

/* Script options a script understands (bits). */
enum {
    RUN_OPT_HZ = 1,
    RUN_OPT_PID = 2,
    RUN_OPT_CMD = 4,
    RUN_OPT_KERNEL_ONLY = 8,
    RUN_OPT_USER_ONLY = 16,
};

typedef struct run_script {
    char    *name;      /* "profile" */
    char    *path;      /* DIR/profile.stp, or NULL (BPF-only script) */
    char    *bpf_path;  /* DIR/bpf/profile.stp, or NULL */
    char    *desc;      /* one line from the script's header */
    unsigned opts;      /* RUN_OPT_* from the header's Options block */
    unsigned backends;  /* RUN_BK_* that could run it anywhere */
} run_script;

typedef struct run_catalog {
    char       *dir;
    run_script *v;
    size_t      n;
} run_catalog;

/* Where the bundled scripts are: $STAPRELAY_STAP_DIR, else
 * <bindir>/../stap (source tree), else <bindir>/../share/staprelay/stap
 * (make install).  Returns a malloc'd path or NULL. */
char *run_find_stap_dir(void);
/* Where `run` caches built modules (malloc'd): $STAPRELAY_CACHE (env
 * here), else /var/cache/staprelay for root, else $XDG_CACHE_HOME/staprelay,
 * else $HOME/.cache/staprelay.  Never beside the sources: the test suite
 * and the demo set STAPRELAY_CACHE to build/stapcache (qa/lib/common.sh),
 * shared with stap/check.sh.  run_cache_dir() reads the environment. */
char *run_cache_dir_for(const char *env, unsigned euid, const char *xdg,
                        const char *home);
char *run_cache_dir(void);
/* Scan DIR/NAME.stp and DIR/bpf/NAME.stp.  Returns 0, or -1 if DIR cannot be
 * read (errno set). */
int run_catalog_load(run_catalog *c, const char *dir);
/* run_find_stap_dir() then run_catalog_load(); on failure prints
 * "staprelay CMD: ..." and returns RUN_EXIT_FAILED, else 0. */
int run_catalog_load_bundled(run_catalog *c, const char *cmd);
void run_catalog_free(run_catalog *c);
const run_script *run_catalog_find(const run_catalog *c, const char *name);
/* Parse a script header (for tests): fills desc and opts. */
void run_parse_header(run_script *s, const char *text);
/* "--hz N, --pid P, ..." for opts (static buffer-free: appends to buf). */
void run_opts_text(unsigned opts, char *buf, size_t len);

/* What this machine offers. */
typedef struct run_env {
    bool stap, stapbpf, perf, cc;   /* tools found (and perf runs) */
    bool modules;                   /* the kernel can load modules */
    char modules_why[256];          /* why not (when !modules) */
    bool root;
    bool kbuild;                    /* a kernel build tree or headers */
    char kbuild_why[512];
    int  perf_paranoid;             /* /proc/sys/kernel/perf_event_paranoid */
    char perf_why[256];             /* why perf is unusable, if so */
} run_env;

/* Look at the machine; root is "" normally (tests pass a fake tree that
 * holds proc/, sys/, lib/modules/ and usr/src/; DIR/kbuild.sh, which the
 * stap backends run, looks under $STAPRELAY_KB_ROOT the same way). */
void run_env_probe(run_env *e, const char *root);
/* Only the module check: true if loadable; else why. */
bool run_probe_modules(const char *root, char *why, size_t len);

/* What `run` was asked (cmd/options.c parses it: OPTS_SCRIPT). */
typedef struct run_opts {
    const char *script;
    double      duration;     /* seconds; 0 = until interrupted */
    const char *name;         /* NULL: staprelay_<script> */
    long        hz;           /* 0: the script's default (99) */
    long        pid;          /* 0: none */
    const char *cmd;
    bool        kernel_only, user_only;
    const char *dir;          /* perf: watched directory */
    const char *backend;      /* forced: "stap", "bpf", "perf" */
    bool        replay;       /* --replay: the PMDA's runs (perf backend) */
    const char *save;         /* --save FILE: perf script text kept */
    unsigned    given;        /* RUN_OPT_* the user gave */
} run_opts;

/* A module / prefix name: [A-Za-z][A-Za-z0-9_]*, at most 48 bytes. */
bool run_name_ok(const char *s);

/* Choose the backend for s with o on e.  Writes one line per backend
 * considered ("kernel runtime: ...") to why.  Returns RUN_BK_NONE when
 * nothing can run it. */
run_backend run_choose(const run_script *s, const run_opts *o, const run_env *e,
                       char *why, size_t len);
const char *run_backend_name(run_backend b);
/* Why backend b cannot run s with o on e (tmp holds a composed reason),
 * or NULL when it can. */
const char *run_cannot(run_backend b, const run_script *s, const run_opts *o,
                       const run_env *e, char *tmp, size_t len);

/* Backends (run_stap.c, run_perf.c).  name is the module/prefix name. */
int run_stap_kernel(const run_catalog *c, const run_script *s, const run_opts *o,
                    const char *name);
int run_stap_bpf(const run_catalog *c, const run_script *s, const run_opts *o,
                 const char *name, const run_env *e);
int run_perf(const run_script *s, const run_opts *o, const char *name);
/* offcpu over perf's sched_switch events (run_offcpu.c) and iolat over
 * the block request events of a tracefs instance (run_iolat.c); run_perf
 * calls them. */
int run_perf_offcpu(const run_script *s, const run_opts *o, const char *name);
int run_perf_iolat(const run_script *s, const run_opts *o, const char *name);

/* The scripts the perf backend stands in for: one table (run_perf.c),
 * read by the catalog, run_cannot and run_perf. */
typedef struct run_standin {
    const char *script;
    int (*run)(const run_script *s, const run_opts *o, const char *name);
    const char *no_bpf;        /* why stap/bpf/ has no variant of it */
    const char *tracefs_root;  /* non-NULL: read from tracefs, not perf,
                                  so it needs root (this says why) */
} run_standin;
/* The entry for a script, or NULL when perf cannot stand in for it. */
const run_standin *run_perf_standin(const char *script);
/* "profile, offcpu and iolat" (buf, len): for messages. */
const char *run_perf_standin_names(char *buf, size_t len);
/* The directory a perf backend's source goes in: --dir (created when
 * missing), else PCP_TMP_DIR/staprelay, which pmdastaprelay's Install
 * creates and watches.  NULL, with the reason on stderr, when it cannot
 * be had; else o->dir or buf. */
const char *run_perf_parent(const run_opts *o, char *buf, size_t len);

/* Shared by the backends (run.c): a deadline and signal handling. */
void run_signals_install(void);
/* How many SIGINT/SIGTERM/SIGHUP arrived since run_signals_install()
 * (util/stopsig, the client's one stop handler). */
int run_stop_requested(void);
double run_now(void);
/* Full path of an executable in $PATH, malloc'd, or NULL. */
char *run_which(const char *prog);
/* How a backend's child starts: fds to put on 0, 1, 2 (-1: inherit),
 * extra_fd as fd 9 when >= 0, preload prepended to LD_PRELOAD when set. */
typedef struct run_spawn_opts {
    int in, out, err;
    int extra_fd;
    /* perf record's --control fd:10,11 when set: {the end it reads
     * commands from, the end it writes its acks to}, put on fds 10, 11 */
    const int *control;
    const char *preload;
    /* keep SIGPIPE ignored (stapbpf: a FIFO reader that gives up early
     * must cost it a write error, not its life); default: SIG_DFL */
    bool sigpipe_ignored;
} run_spawn_opts;
/* Start argv (searched in PATH) in its own process group, so Ctrl-C
 * reaches only us and we stop the children in order.  Returns the pid or
 * -1. */
pid_t run_spawn(char *const argv[], const run_spawn_opts *o);
/* Send sig to pid's process group (children are started in their own
 * group) and wait for it to exit, escalating to SIGKILL after grace
 * seconds.  Returns the wait status. */
int run_stop_child(pid_t pid, int sig, double grace);
/* An anonymous log file for a child's stderr (/tmp/staprelay-TAG.*,
 * unlinked, close-on-exec), or -1. */
int run_tmp_log(const char *tag);
/* Copy the log to stderr under "staprelay run: WHAT said:" (nothing
 * when it is empty). */
void run_show_log(int fd, const char *what);

#endif
