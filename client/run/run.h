/* run: what `staprelay list` and `staprelay run SCRIPT` (cmd/cmd_list.c,
 * cmd/cmd_run.c) stand on: the catalogue of bundled SystemTap scripts,
 * what this machine offers, and the choice of a backend to run a script.
 * It starts nothing: the backends do (backend_stap.h, backend_perf.h),
 * through child.h.
 *
 * Backends, in order of preference:
 *   stap  SystemTap's kernel-module runtime (needs CONFIG_MODULES and
 *         module loading allowed);
 *   bpf   SystemTap's BPF runtime, for scripts with a stap/bpf/ variant;
 *   perf  the scripts perf stands in for, reimplemented over perf or
 *         tracefs and published as a pmdajson-style directory
 *         (backend_perf.h: profile, offcpu, iolat).
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

#endif
