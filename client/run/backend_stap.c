/* backend_stap: the SystemTap backends of `staprelay run`.
 *
 * Both backends get their kernel build tree (and, for the kernel runtime,
 * the patched runtime that Debian's headers need with systemtap < 5.2)
 * from DIR/kbuild.sh, the script stap/check.sh uses too, so `run` builds
 * exactly as the checks do.
 *
 * kernel runtime:  sh DIR/kmod.sh CACHE NAME DIR/SCRIPT.stp [-d BINARY] [-- HZ]
 *                  (stap -p4, cached by content: stap/kmod.sh)
 *                  staprun [-x PID | -c CMD] NAME.ko [kernel_only=1|user_only=1]
 *   BINARY is --cmd's program or --pid's executable (its user frames get
 *   names); files in /proc/systemtap/NAME (the relay's default stap root).
 *
 * BPF runtime (scripts in DIR/bpf/):
 *   stap --runtime=bpf [-r TREE] -p4 -m NAME DIR/bpf/SCRIPT.stp  (cached)
 *   [LD_PRELOAD=memlock_shim.so] stapbpf [-x PID | -c CMD] NAME.bo
 *   files (FIFOs) in /var/tmp/systemtap-$USER/NAME: the relay's default
 *   stap_roots cover every /var/tmp/systemtap-* directory.
 * The cache is backend_stap_cache_dir() (backend_stap.h): never beside
 * the sources. */
#include "client/run/backend_stap.h"

#include <errno.h>
#include <fcntl.h>
#include <pwd.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>

#include "client/run/child.h"
#include "common/strbuf.h"
#include "common/xalloc.h"

static void print_argv(const char *what, char *const argv[], const char *preload)
{
    fprintf(stderr, "staprelay run: %s: %s%s%s", what, preload ? "LD_PRELOAD=" : "",
            preload ? preload : "", preload ? " " : "");
    for (size_t i = 0; argv[i]; i++)
        fprintf(stderr, "%s%s", i ? " " : "", argv[i]);
    fprintf(stderr, "\n");
}

/* Wait for pid until it exits, the deadline passes (0: none) or we are
 * interrupted; then stop it with SIGINT (stap and stapbpf unload cleanly
 * on SIGINT), escalating after 30 s.  *stopped says whether we stopped
 * it.  Returns the wait status. */
static int supervise_note(pid_t pid, double deadline, bool *stopped,
                          const char *building, const char *cache);

static int supervise(pid_t pid, double deadline, bool *stopped)
{
    return supervise_note(pid, deadline, stopped, NULL, NULL);
}

/* supervise, saying on stderr what is being built when it takes more
 * than 2 s (a cached module takes less: no note), then every 15 s. */
static int supervise_note(pid_t pid, double deadline, bool *stopped,
                          const char *building, const char *cache)
{
    int status = 0;
    *stopped = false;
    double t0 = child_now(), said = 0;
    for (;;) {
        pid_t r = waitpid(pid, &status, WNOHANG);
        if (r == pid)
            return status;
        double now = child_now();
        if (building && said == 0 && now - t0 >= 2) {
            fprintf(stderr, "staprelay run: building %s: the first build of a "
                    "script takes a minute or two (later runs reuse it from "
                    "%s)\n", building, cache);
            said = now;
        } else if (building && said > 0 && now - said >= 15) {
            fprintf(stderr, "staprelay run: building %s... %.0f s\n",
                    building, now - t0);
            said = now;
        }
        if (r < 0 && errno != EINTR)
            return status;
        if (child_stop_requested() || (deadline > 0 && child_now() >= deadline)) {
            *stopped = true;
            kill(pid, SIGINT);
            double until = child_now() + 30;
            int seen = child_stop_requested();
            for (;;) {
                r = waitpid(pid, &status, WNOHANG);
                if (r == pid || (r < 0 && errno == ECHILD))
                    return status;
                if (child_now() > until || child_stop_requested() > seen + 1) {
                    fprintf(stderr, "staprelay run: %d does not stop: killing it\n", (int)pid);
                    return child_stop(pid, SIGTERM, 5);
                }
                usleep(100000);
            }
        }
        usleep(100000);
    }
}

static bool log_has(int fd, const char *needle)
{
    if (fd < 0 || lseek(fd, 0, SEEK_SET) != 0)
        return false;
    strbuf sb = STRBUF_INIT;
    char buf[4096];
    ssize_t n;
    while ((n = read(fd, buf, sizeof buf)) > 0 && sb.len < (1 << 20))
        sb_add(&sb, buf, (size_t)n);
    bool r = sb.buf && strstr(sb.buf, needle);
    sb_free(&sb);
    return r;
}

/* The traced process: -x PID or -c CMD (pid holds the PID's text). */
static size_t add_target(const char **argv, size_t k, const run_opts *o,
                         strbuf *pid)
{
    if (o->pid) {
        sb_printf(pid, "%ld", o->pid);
        argv[k++] = "-x";
        argv[k++] = pid->buf;
    } else if (o->cmd) {
        argv[k++] = "-c";
        argv[k++] = o->cmd;
    }
    return k;
}

static void where(const char *name, const char *files)
{
    fprintf(stderr, "staprelay run: files in %s\n"
            "staprelay run: metrics: pminfo -f staprelay.%s\n", files, name);
}

/* ---- shared: cache, kernel build tree ----------------------------------- */

static int mkdirs(const char *path)
{
    strbuf sb = STRBUF_INIT;
    sb_adds(&sb, path);
    for (size_t i = 1; i <= sb.len; i++) {
        if (sb.buf[i] != '/' && sb.buf[i] != '\0')
            continue;
        char c = sb.buf[i];
        sb.buf[i] = '\0';
        if (mkdir(sb.buf, 0755) != 0 && errno != EEXIST) {
            sb_free(&sb);
            return -1;
        }
        sb.buf[i] = c;
    }
    sb_free(&sb);
    return 0;
}

char *backend_stap_cache_dir_for(const char *env, unsigned euid, const char *xdg,
                        const char *home)
{
    strbuf sb = STRBUF_INIT;
    if (env && *env)
        sb_adds(&sb, env);
    else if (euid == 0)
        sb_adds(&sb, "/var/cache/staprelay");
    else if (xdg && *xdg == '/')    /* XDG: a relative value is ignored */
        sb_printf(&sb, "%s/staprelay", xdg);
    else
        sb_printf(&sb, "%s/.cache/staprelay", home && *home ? home : "/tmp");
    return sb_steal(&sb);
}

char *backend_stap_cache_dir(void)
{
    const char *home = getenv("HOME");
    struct passwd *pw = home && *home ? NULL : getpwuid(geteuid());
    return backend_stap_cache_dir_for(getenv("STAPRELAY_CACHE"), (unsigned)geteuid(),
                             getenv("XDG_CACHE_HOME"),
                             pw ? pw->pw_dir : home);
}

/* Run a shell snippet with positional args; returns its stdout (trimmed,
 * malloc'd) or NULL when it failed. */
static char *sh_out(const char *script, const char *const args[])
{
    int pfd[2];
    if (pipe2(pfd, O_CLOEXEC) != 0)
        return NULL;
    const char *argv[16];
    size_t k = 0;
    argv[k++] = "sh";
    argv[k++] = "-c";
    argv[k++] = script;
    argv[k++] = "sh";
    for (size_t i = 0; args && args[i] && k < 15; i++)
        argv[k++] = args[i];
    argv[k] = NULL;
    pid_t p = fork();
    if (p < 0) {
        close(pfd[0]);
        close(pfd[1]);
        return NULL;
    }
    if (p == 0) {
        dup2(pfd[1], 1);
        execvp("sh", (char *const *)argv);
        _exit(127);
    }
    close(pfd[1]);
    strbuf sb = STRBUF_INIT;
    char buf[4096];
    ssize_t n;
    while ((n = read(pfd[0], buf, sizeof buf)) > 0 || (n < 0 && errno == EINTR))
        if (n > 0)
            sb_add(&sb, buf, (size_t)n);
    close(pfd[0]);
    int st;
    while (waitpid(p, &st, 0) < 0 && errno == EINTR)
        ;
    if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) {
        sb_free(&sb);
        return NULL;
    }
    while (sb.len && (sb.buf[sb.len - 1] == '\n' || sb.buf[sb.len - 1] == ' '))
        sb.buf[--sb.len] = '\0';
    if (sb.buf == NULL)
        sb_add(&sb, "", 0);
    return sb_steal(&sb);
}

/* The build tree (stap -r) and runtime (stap -R) from DIR/kbuild.sh,
 * shared with stap/check.sh: the same tree and the same runtime fix
 * (only when the headers need it).  Its reasons go to our stderr. */
/* Remove what a gone stapbpf left of module NAME's FIFOs in DIR
 * (stap/bpf-leftovers.sh: *.json FIFOs and the then empty directory,
 * nothing while a stapbpf runs NAME.bo).  Best effort: a leftover it
 * cannot remove shows as stapbpf's own "File exists". */
static void bpf_leftovers_remove(const run_catalog *c, const char *dir, const char *name)
{
    strbuf script = STRBUF_INIT;
    sb_printf(&script, "%s/bpf-leftovers.sh", c->dir);
    const char *args[] = { script.buf, dir, name, NULL };
    free(sh_out("exec sh \"$1\" \"$2\" \"$3\"", args));
    sb_free(&script);
}

typedef struct kbuild {
    char *line;                 /* "REL\tTREE\tRUNTIME", split in place */
    const char *rel;
    const char *tree;           /* NULL: stap's default tree will do */
    const char *runtime;        /* NULL: the stock runtime will do */
} kbuild;

static int kbuild_get(const run_catalog *c, const char *cache, kbuild *kb)
{
    memset(kb, 0, sizeof *kb);
    strbuf script = STRBUF_INIT;
    sb_printf(&script, "%s/kbuild.sh", c->dir);
    const char *args[] = { script.buf, cache, NULL };
    kb->line = sh_out("exec sh \"$1\" \"$2\"", args);
    sb_free(&script);
    if (kb->line == NULL)
        return -1;
    char *f[3];
    char *p = kb->line;
    for (size_t i = 0; i < 3; i++) {
        f[i] = p;
        p = p ? strchr(p, '\t') : NULL;
        if (p)
            *p++ = '\0';
    }
    if (f[1] == NULL || f[2] == NULL || *f[0] == '\0') {
        free(kb->line);
        kb->line = NULL;
        return -1;
    }
    kb->rel = f[0];
    kb->tree = strcmp(f[1], "-") ? f[1] : NULL;
    kb->runtime = strcmp(f[2], "-") ? f[2] : NULL;
    return 0;
}

/* The cache directory, created, as an absolute path (malloc'd), or NULL. */
static char *cache_made(const run_catalog *c)
{
    (void)c;
    char *cache = backend_stap_cache_dir();
    if (mkdirs(cache) != 0) {
        fprintf(stderr, "staprelay run: cannot create the cache %s: %s\n", cache, strerror(errno));
        free(cache);
        return NULL;
    }
    char *real = realpath(cache, NULL);
    if (real != NULL) {
        free(cache);
        cache = real;
    }
    return cache;
}

/* ---- kernel runtime ----------------------------------------------------- */

/* The program whose user frames should be named: --cmd's first word
 * (looked up in PATH) or --pid's executable.  malloc'd, or NULL. */
static char *target_binary(const run_opts *o)
{
    if (o->cmd) {
        size_t n = strcspn(o->cmd, " \t");
        strbuf w = STRBUF_INIT;
        sb_add(&w, o->cmd, n);
        char *p = w.buf ? child_which(w.buf) : NULL;
        sb_free(&w);
        return p;
    }
    if (o->pid) {
        strbuf exe = STRBUF_INIT;
        sb_printf(&exe, "/proc/%ld/exe", o->pid);
        char *p = realpath(exe.buf, NULL);
        sb_free(&exe);
        return p;
    }
    return NULL;
}

/* DIR/kmod.sh: the module, from the cache or built (stap -p4, a minute
 * the first time), as a child we can interrupt.  Returns the .ko path
 * (malloc'd), or NULL with *interrupted set when Ctrl-C stopped it. */
static char *kmod_build(const run_catalog *c, const run_script *s, const run_opts *o,
                        const char *name, const char *cache, bool *interrupted)
{
    *interrupted = false;
    strbuf script = STRBUF_INIT, hz = STRBUF_INIT;
    sb_printf(&script, "%s/kmod.sh", c->dir);
    char *bin = target_binary(o);
    const char *argv[16];
    size_t k = 0;
    argv[k++] = "sh";
    argv[k++] = script.buf;
    argv[k++] = cache;
    argv[k++] = name;
    argv[k++] = s->path;
    if (bin) {
        argv[k++] = "-d";
        argv[k++] = bin;
    }
    if (o->hz) {
        sb_printf(&hz, "%ld", o->hz);
        argv[k++] = "--";
        argv[k++] = hz.buf;
    }
    argv[k] = NULL;
    char *ko = NULL;
    int out = child_tmp_log("kmod");
    child_spawn_opts so = {.in = -1, .out = out, .err = -1, .extra_fd = -1,
                           .sigpipe_ignored = true};
    pid_t p = out >= 0 ? child_spawn((char *const *)argv, &so) : -1;
    if (p < 0) {
        fprintf(stderr, "staprelay run: cannot run %s: %s\n", script.buf, strerror(errno));
    } else {
        bool stopped;
        int st = supervise_note(p, 0, &stopped, name, cache);
        *interrupted = stopped;
        if (!stopped && WIFEXITED(st) && WEXITSTATUS(st) == 0 && lseek(out, 0, SEEK_SET) == 0) {
            char buf[4096];
            ssize_t n = read(out, buf, sizeof buf - 1);
            if (n > 0) {
                buf[n] = '\0';
                buf[strcspn(buf, "\n")] = '\0';
                if (buf[0] == '/' && access(buf, R_OK) == 0)
                    ko = xstrdup(buf);
            }
        }
    }
    if (out >= 0)
        close(out);
    free(bin);
    sb_free(&script);
    sb_free(&hz);
    return ko;
}

int backend_stap_kernel(const run_catalog *c, const run_script *s, const run_opts *o,
                    const char *name)
{
    char *cache = cache_made(c);
    if (cache == NULL)
        return RUN_EXIT_FAILED;
    /* the duration counts from the start: the build included */
    double deadline = o->duration > 0 ? child_now() + o->duration : 0;
    bool interrupted;
    char *ko = kmod_build(c, s, o, name, cache, &interrupted);
    free(cache);
    if (ko == NULL) {
        if (interrupted) {
            fprintf(stderr, "staprelay run: interrupted while building\n");
            return RUN_EXIT_OK;
        }
        fprintf(stderr, "staprelay run: no module for %s: building it failed (above); "
                "stap needs the headers of the running kernel "
                "(linux-headers-$(uname -r))\n", s->path);
        return RUN_EXIT_FAILED;
    }
    strbuf pid = STRBUF_INIT;
    const char *argv[16];
    size_t k = 0;
    argv[k++] = "staprun";
    k = add_target(argv, k, o, &pid);
    argv[k++] = ko;
    if (o->kernel_only)
        argv[k++] = "kernel_only=1";
    if (o->user_only)
        argv[k++] = "user_only=1";
    argv[k] = NULL;
    print_argv("running", (char *const *)argv, NULL);
    strbuf files = STRBUF_INIT;
    sb_printf(&files, "/proc/systemtap/%s", name);
    where(name, files.buf);
    sb_free(&files);

    int rc = RUN_EXIT_FAILED;
    child_spawn_opts so = {.in = -1, .out = -1, .err = -1, .extra_fd = -1, .sigpipe_ignored = true};
    pid_t p = child_spawn((char *const *)argv, &so);
    if (p < 0) {
        fprintf(stderr, "staprelay run: cannot start staprun: %s\n", strerror(errno));
    } else {
        bool stopped;
        /* staprun unloads the module on SIGINT, as stap does */
        int st = supervise(p, deadline, &stopped);
        if (stopped || (WIFEXITED(st) && WEXITSTATUS(st) == 0))
            rc = RUN_EXIT_OK;
        else
            fprintf(stderr, "staprelay run: staprun failed (exit %d)\n",
                    WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st));
    }
    sb_free(&pid);
    free(ko);
    return rc;
}

/* ---- BPF runtime: building and running ----------------------------------- */

/* Same key as stap/check.sh, so a .bo it built is reused: the script,
 * stap's version, the release and module name. */
static const char key_sh[] =
    "{ cat \"$1\"; stap -V 2>&1 | head -1; echo \"$2 $3\"; } | sha256sum | cut -c1-24\n";

/* Whether this process may raise RLIMIT_MEMLOCK to infinity (stapbpf
 * insists); tried in a child so our own limit is untouched. */
static bool memlock_ok(void)
{
    pid_t p = fork();
    if (p < 0)
        return false;
    if (p == 0) {
        struct rlimit rl = { RLIM_INFINITY, RLIM_INFINITY };
        _exit(setrlimit(RLIMIT_MEMLOCK, &rl) == 0 ? 0 : 1);
    }
    int st;
    while (waitpid(p, &st, 0) < 0 && errno == EINTR)
        ;
    return WIFEXITED(st) && WEXITSTATUS(st) == 0;
}

static bool newer(const char *a, const char *b)
{
    struct stat sa, sb;
    if (stat(a, &sa) != 0)
        return false;
    if (stat(b, &sb) != 0)
        return true;
    return sa.st_mtime > sb.st_mtime;
}

/* What the steps of one BPF run share. */
typedef struct bpf_run {
    const run_catalog *c;
    const run_script *s;
    const char *name;
    int logfd;                  /* stap's, then stapbpf's output */
    char *cache;
    kbuild kb;
    strbuf bo;                  /* the cached build: CACHE/bo/KEY.bo */
    strbuf tmpd;                /* CACHE/run.XXXXXX, this run's */
    strbuf runbo;               /* TMPD/NAME.bo, what stapbpf runs */
    strbuf shim;
    strbuf shim_link;           /* /tmp/staprelay-shim.XXXXXX/memlock_shim.so,
                                 * when the shim's own path cannot be preloaded */
} bpf_run;

/* The build tree, the cache key, the directories and SYSTEMTAP_DIR.
 * -1 with the reason on stderr. */
static int bpf_prepare(bpf_run *r)
{
    if (kbuild_get(r->c, r->cache, &r->kb) != 0) {
        fprintf(stderr, "staprelay run: no kernel build tree for stap: install "
                "linux-headers-amd64 (stap needs headers and a System.map even for BPF)\n");
        return -1;
    }
    const char *kargs[] = { r->s->bpf_path, r->kb.rel, r->name, NULL };
    char *key = sh_out(key_sh, kargs);
    if (key == NULL || strlen(key) < 8) {
        fprintf(stderr, "staprelay run: cannot hash %s (sha256sum)\n", r->s->bpf_path);
        free(key);
        return -1;
    }
    strbuf home = STRBUF_INIT, bod = STRBUF_INIT;
    sb_printf(&home, "%s/home", r->cache);
    sb_printf(&bod, "%s/bo", r->cache);
    sb_printf(&r->bo, "%s/%s.bo", bod.buf, key);
    free(key);
    sb_printf(&r->tmpd, "%s/run.XXXXXX", r->cache);
    int rc = 0;
    if (mkdirs(home.buf) != 0 || mkdtemp(r->tmpd.buf) == NULL) {
        fprintf(stderr, "staprelay run: cannot create directories under %s: %s\n",
                r->cache, strerror(errno));
        sb_reset(&r->tmpd);
        rc = -1;
    } else {
        mkdirs(bod.buf);
        setenv("SYSTEMTAP_DIR", home.buf, 1);
        sb_printf(&r->runbo, "%s/%s.bo", r->tmpd.buf, r->name);
    }
    sb_free(&home);
    sb_free(&bod);
    return rc;
}

/* stap -p4 in TMPD, as a child we can interrupt, then the cache gets a
 * copy.  0, 1 when Ctrl-C stopped it, -1 when it failed (said). */
static int bpf_build(bpf_run *r)
{
    const char *argv[16];
    size_t k = 0;
    argv[k++] = "stap";
    argv[k++] = "--runtime=bpf";
    if (r->kb.tree) {
        argv[k++] = "-r";
        argv[k++] = r->kb.tree;
    }
    argv[k++] = "-p4";
    argv[k++] = "-m";
    argv[k++] = r->name;
    argv[k++] = r->s->bpf_path;
    argv[k] = NULL;
    print_argv("building (the first build of a script takes a minute)",
               (char *const *)argv, NULL);
    child_spawn_opts so = {.in = -1, .out = r->logfd, .err = r->logfd, .extra_fd = -1,
                           .cwd = r->tmpd.buf, .sigpipe_ignored = true};
    pid_t p = child_spawn((char *const *)argv, &so);
    if (p < 0) {
        fprintf(stderr, "staprelay run: fork: %s\n", strerror(errno));
        return -1;
    }
    bool stopped;
    int st = supervise_note(p, 0, &stopped, r->name, r->cache);
    if (stopped) {
        fprintf(stderr, "staprelay run: interrupted while building\n");
        return 1;
    }
    if (!WIFEXITED(st) || WEXITSTATUS(st) != 0 || access(r->runbo.buf, R_OK) != 0) {
        child_show_log(r->logfd, "stap");
        fprintf(stderr, "staprelay run: building %s for the BPF runtime failed\n",
                r->s->bpf_path);
        return -1;
    }
    /* cache it (copy through the shell keeps this short) */
    const char *cargs[] = { r->runbo.buf, r->bo.buf, NULL };
    free(sh_out("cp \"$1\" \"$2.tmp.$$\" && mv \"$2.tmp.$$\" \"$2\"", cargs));
    return 0;
}

/* NAME.bo in TMPD: from the cache, else built.  As bpf_build. */
static int bpf_object(bpf_run *r)
{
    if (access(r->bo.buf, R_OK) == 0) {
        fprintf(stderr, "staprelay run: using the cached BPF build %s\n", r->bo.buf);
    } else {
        int b = bpf_build(r);
        if (b != 0)
            return b;
    }
    if (access(r->runbo.buf, R_OK) != 0) {
        const char *cargs[] = { r->bo.buf, r->runbo.buf, NULL };
        char *out = sh_out("cp \"$1\" \"$2\"", cargs);
        if (out == NULL) {
            fprintf(stderr, "staprelay run: cannot copy %s\n", r->bo.buf);
            return -1;
        }
        free(out);
    }
    return 0;
}

/* ld.so splits LD_PRELOAD at blanks and colons: a shim under such a path
 * (a checkout in "/tmp/a b/", whose build/stapcache holds it) is reached
 * through a link in a fresh directory of /tmp.  The path to preload, or
 * NULL (said). */
static const char *shim_preloadable(bpf_run *r)
{
    if (strpbrk(r->shim.buf, " \t\n:") == NULL)
        return r->shim.buf;
    char dir[] = "/tmp/staprelay-shim.XXXXXX";
    if (mkdtemp(dir) == NULL) {
        fprintf(stderr, "staprelay run: cannot make %s for the shim: %s\n", dir,
                strerror(errno));
        return NULL;
    }
    sb_printf(&r->shim_link, "%s/memlock_shim.so", dir);
    if (symlink(r->shim.buf, r->shim_link.buf) != 0) {
        fprintf(stderr, "staprelay run: cannot link %s to %s: %s\n", r->shim_link.buf,
                r->shim.buf, strerror(errno));
        rmdir(dir);
        sb_reset(&r->shim_link);
        return NULL;
    }
    return r->shim_link.buf;
}

/* The RLIMIT_MEMLOCK shim, only where the limit cannot be raised: 0
 * with *preload its path (or NULL: not needed), -1 when it cannot be
 * built (said). */
static int memlock_preload(bpf_run *r, const char **preload)
{
    *preload = NULL;
    if (memlock_ok())
        return 0;
    strbuf src = STRBUF_INIT;
    sb_printf(&src, "%s/memlock_shim.c", r->c->dir);
    sb_printf(&r->shim, "%s/memlock_shim.so", r->cache);
    int rc = 0;
    if (newer(src.buf, r->shim.buf)) {
        char *cc = child_which("cc");
        const char *cargs[] = { r->shim.buf, src.buf, NULL };
        char *out = NULL;
        if (cc == NULL) {
            fprintf(stderr, "staprelay run: RLIMIT_MEMLOCK cannot be raised here "
                    "(no CAP_SYS_RESOURCE) and stapbpf insists: building the shim "
                    "%s needs cc (apt-get install gcc)\n", src.buf);
            rc = -1;
        } else if ((out = sh_out("cc -shared -fPIC -O2 -o \"$1.tmp.$$\" \"$2\" -ldl && "
                                 "mv \"$1.tmp.$$\" \"$1\"", cargs)) == NULL) {
            fprintf(stderr, "staprelay run: cannot build %s from %s\n", r->shim.buf, src.buf);
            rc = -1;
        }
        free(out);
        free(cc);
    }
    sb_free(&src);
    if (rc != 0)
        return rc;
    *preload = shim_preloadable(r);
    if (*preload == NULL)
        return -1;
    fprintf(stderr, "staprelay run: RLIMIT_MEMLOCK cannot be raised here (no "
            "CAP_SYS_RESOURCE): preloading the shim for stapbpf\n");
    return 0;
}

/* Say "loaded" once stapbpf's FIFOs are there (up to 10 s). */
static void say_loaded(pid_t p, const char *fifo, const run_opts *o)
{
    strbuf data = STRBUF_INIT;
    sb_printf(&data, "%s/data.json", fifo);
    for (int i = 0; i < 100; i++) {
        struct stat st;
        if (stat(data.buf, &st) == 0 && S_ISFIFO(st.st_mode)) {
            fprintf(stderr, "staprelay run: loaded; %s\n", o->duration > 0 ?
                    "running for the duration (Ctrl-C stops it earlier)" : "running until Ctrl-C");
            break;
        }
        if (waitpid(p, NULL, WNOHANG) != 0 || child_stop_requested())
            break;
        usleep(100000);
    }
    sb_free(&data);
}

/* stapbpf NAME.bo until the run ends.  Returns the run's status. */
static int bpf_stapbpf(bpf_run *r, const run_opts *o, const char *preload)
{
    strbuf pid = STRBUF_INIT, fifo = STRBUF_INIT, files = STRBUF_INIT;
    const char *argv[16];
    size_t k = 0;
    argv[k++] = "stapbpf";
    k = add_target(argv, k, o, &pid);
    argv[k++] = r->runbo.buf;
    argv[k] = NULL;
    print_argv("running", (char *const *)argv, preload);
    struct passwd *pw = getpwuid(geteuid());
    sb_printf(&fifo, "/var/tmp/systemtap-%s/%s", pw ? pw->pw_name : "root", r->name);
    sb_printf(&files, "%s (FIFOs; the PMDA's default stap_roots, /var/tmp/systemtap-*, "
              "cover them)", fifo.buf);
    where(r->name, files.buf);
    sb_free(&files);
    /* stapbpf 4.8 can leave its module's directory, even its FIFOs,
     * behind when it stops, and then refuses the next start ("making
     * procfs fifos. File exists"): what a gone stapbpf left goes, never
     * a running one's (one rule: stap/bpf-leftovers.sh). */
    bpf_leftovers_remove(r->c, fifo.buf, r->name);
    /* only stapbpf's output from here on */
    if (r->logfd >= 0 && (lseek(r->logfd, 0, SEEK_SET) != 0 || ftruncate(r->logfd, 0) != 0)) {
        close(r->logfd);
        r->logfd = child_tmp_log("run");
    }
    child_spawn_opts so = {.in = -1, .out = r->logfd, .err = r->logfd, .extra_fd = -1,
                           .preload = preload, .sigpipe_ignored = true};
    pid_t p = child_spawn((char *const *)argv, &so);
    int rc = RUN_EXIT_FAILED;
    if (p < 0) {
        fprintf(stderr, "staprelay run: cannot start stapbpf: %s\n", strerror(errno));
        goto out;
    }
    double deadline = o->duration > 0 ? child_now() + o->duration : 0;
    say_loaded(p, fifo.buf, o);
    bool stopped;
    int st = supervise(p, deadline, &stopped);
    if (stopped || (WIFEXITED(st) && WEXITSTATUS(st) == 0)) {
        rc = RUN_EXIT_OK;
        bpf_leftovers_remove(r->c, fifo.buf, r->name);    /* (above) */
        fprintf(stderr, "staprelay run: stopped; stapbpf removed %s\n", fifo.buf);
    } else {
        child_show_log(r->logfd, "stapbpf");
        if (log_has(r->logfd, "Operation not permitted") || log_has(r->logfd, "ermission denied"))
            fprintf(stderr, "staprelay run: the kernel refused the BPF programs "
                    "(BPF permission: root with CAP_BPF/CAP_SYS_ADMIN, "
                    "kernel.unprivileged_bpf_disabled, lockdown)\n");
        fprintf(stderr, "staprelay run: stapbpf failed (%s %d)\n",
                WIFEXITED(st) ? "exit" : "signal", WIFEXITED(st) ? WEXITSTATUS(st) : WTERMSIG(st));
        bpf_leftovers_remove(r->c, fifo.buf, r->name);    /* a dead one's FIFOs */
    }
out:
    sb_free(&fifo);
    sb_free(&pid);
    return rc;
}

int backend_stap_bpf(const run_catalog *c, const run_script *s, const run_opts *o,
                     const char *name, const run_env *e)
{
    (void)e;
    bpf_run r = { .c = c, .s = s, .name = name, .bo = STRBUF_INIT, .tmpd = STRBUF_INIT,
                  .runbo = STRBUF_INIT, .shim = STRBUF_INIT, .shim_link = STRBUF_INIT,
                  .logfd = -1 };
    int rc = RUN_EXIT_FAILED;
    r.cache = cache_made(c);
    if (r.cache == NULL || bpf_prepare(&r) != 0)
        goto out;
    r.logfd = child_tmp_log("run");
    int built = bpf_object(&r);
    const char *preload = NULL;
    if (built > 0)
        rc = RUN_EXIT_OK;                  /* interrupted while building */
    else if (built == 0 && memlock_preload(&r, &preload) == 0)
        rc = bpf_stapbpf(&r, o, preload);
out:
    if (r.runbo.len)
        unlink(r.runbo.buf);
    if (r.tmpd.len) {
        const char *rargs[] = { r.tmpd.buf, NULL };
        free(sh_out("rm -rf \"$1\"", rargs));
    }
    if (r.shim_link.len) {
        unlink(r.shim_link.buf);
        *strrchr(r.shim_link.buf, '/') = '\0';
        rmdir(r.shim_link.buf);
    }
    if (r.logfd >= 0)
        close(r.logfd);
    free(r.cache);
    free(r.kb.line);
    sb_free(&r.bo);
    sb_free(&r.tmpd);
    sb_free(&r.runbo);
    sb_free(&r.shim);
    sb_free(&r.shim_link);
    return rc;
}
