/* run: `staprelay list` and `staprelay run` (see run.h). */
#include "client/run.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "client/commands.h"
#include "client/strbuf.h"
#include "client/xalloc.h"

/* ---- small helpers ------------------------------------------------------ */

static char *path2(const char *a, const char *b)
{
    strbuf sb = STRBUF_INIT;
    sb_printf(&sb, "%s/%s", a, b);
    return sb_steal(&sb);
}

static char *slurp(const char *path, size_t max)
{
    FILE *fp = fopen(path, "r");
    if (fp == NULL)
        return NULL;
    strbuf sb = STRBUF_INIT;
    char buf[4096];
    size_t n;
    while (sb.len < max && (n = fread(buf, 1, sizeof buf, fp)) > 0)
        sb_add(&sb, buf, n);
    fclose(fp);
    if (sb.buf == NULL)
        sb_add(&sb, "", 0);
    return sb_steal(&sb);
}

double run_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

char *run_which(const char *prog)
{
    if (strchr(prog, '/'))
        return access(prog, X_OK) == 0 ? xstrdup(prog) : NULL;
    const char *path = getenv("PATH");
    if (path == NULL || *path == '\0')
        path = "/usr/local/bin:/usr/bin:/bin:/usr/local/sbin:/usr/sbin:/sbin";
    while (*path) {
        size_t n = strcspn(path, ":");
        strbuf sb = STRBUF_INIT;
        if (n == 0)
            sb_adds(&sb, ".");
        else
            sb_add(&sb, path, n);
        sb_printf(&sb, "/%s", prog);
        struct stat st;
        if (stat(sb.buf, &st) == 0 && S_ISREG(st.st_mode) && access(sb.buf, X_OK) == 0)
            return sb_steal(&sb);
        sb_free(&sb);
        path += n;
        if (*path == ':')
            path++;
    }
    return NULL;
}

/* ---- signals ------------------------------------------------------------ */

static volatile sig_atomic_t stop_count;

static void on_stop(int sig)
{
    (void)sig;
    stop_count++;
}

void run_signals_install(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_stop;
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = 0;            /* no SA_RESTART: interrupt poll/waitpid */
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGHUP, &sa, NULL);
    signal(SIGPIPE, SIG_IGN);
}

int run_stop_requested(void)
{
    return stop_count;
}

pid_t run_spawn(char *const argv[], const run_spawn_opts *o)
{
    pid_t pid = fork();
    if (pid < 0)
        return -1;
    if (pid == 0) {
        setpgid(0, 0);
        signal(SIGINT, SIG_DFL);
        signal(SIGTERM, SIG_DFL);
        signal(SIGHUP, SIG_DFL);
        if (!o->sigpipe_ignored)
            signal(SIGPIPE, SIG_DFL);
        if (o->preload != NULL) {
            const char *old = getenv("LD_PRELOAD");
            strbuf sb = STRBUF_INIT;
            sb_adds(&sb, o->preload);
            if (old && *old)
                sb_printf(&sb, " %s", old);
            setenv("LD_PRELOAD", sb.buf, 1);
        }
        if ((o->extra_fd >= 0 && dup2(o->extra_fd, 9) < 0) ||
            (o->in >= 0 && dup2(o->in, 0) < 0) || (o->out >= 0 && dup2(o->out, 1) < 0) ||
            (o->err >= 0 && dup2(o->err, 2) < 0))
            _exit(127);
        execvp(argv[0], argv);
        fprintf(stderr, "staprelay run: cannot run %s: %s\n", argv[0], strerror(errno));
        _exit(127);
    }
    setpgid(pid, pid);
    return pid;
}

int run_stop_child(pid_t pid, int sig, double grace)
{
    int status = 0;
    if (kill(-pid, sig) != 0)
        kill(pid, sig);
    double until = run_now() + grace;
    for (;;) {
        pid_t r = waitpid(pid, &status, WNOHANG);
        if (r == pid || (r < 0 && errno == ECHILD))
            return status;
        if (run_now() > until) {
            kill(-pid, SIGKILL);
            kill(pid, SIGKILL);
            while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
                ;
            return status;
        }
        usleep(50000);
    }
}

int run_tmp_log(const char *tag)
{
    strbuf name = STRBUF_INIT;
    sb_printf(&name, "/tmp/staprelay-%s.XXXXXX", tag);
    int fd = mkstemp(name.buf);
    if (fd >= 0) {
        unlink(name.buf);
        fcntl(fd, F_SETFD, FD_CLOEXEC);
    }
    sb_free(&name);
    return fd;
}

void run_show_log(int fd, const char *what)
{
    if (fd < 0 || lseek(fd, 0, SEEK_SET) != 0)
        return;
    char buf[4096];
    ssize_t n;
    bool any = false;
    while ((n = read(fd, buf, sizeof buf)) > 0) {
        if (!any)
            fprintf(stderr, "staprelay run: %s said:\n", what);
        any = true;
        fwrite(buf, 1, (size_t)n, stderr);
    }
}

/* ---- the bundled scripts ------------------------------------------------ */

static bool is_stap_dir(const char *d)
{
    char *t = path2(d, "tapset/staprelay.stp");
    bool ok = access(t, R_OK) == 0;
    free(t);
    return ok;
}

char *run_find_stap_dir(void)
{
    const char *env = getenv("STAPRELAY_STAP_DIR");
    if (env != NULL && *env != '\0')
        return xstrdup(env);
    char exe[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n <= 0)
        return NULL;
    exe[n] = '\0';
    char *slash = strrchr(exe, '/');
    if (slash == NULL)
        return NULL;
    *slash = '\0';             /* exe is now <bindir> */
    static const char *const rel[] = { "../stap", "../share/staprelay/stap" };
    for (size_t i = 0; i < sizeof rel / sizeof rel[0]; i++) {
        char *d = path2(exe, rel[i]);
        char real[PATH_MAX];
        if (is_stap_dir(d) && realpath(d, real) != NULL) {
            free(d);
            return xstrdup(real);
        }
        free(d);
    }
    return NULL;
}

static bool has_word(const char *s, const char *w)
{
    size_t n = strlen(w);
    for (const char *p = strstr(s, w); p; p = strstr(p + 1, w)) {
        bool left = p == s || !(isalnum((unsigned char)p[-1]) || p[-1] == '_');
        bool right = !(isalnum((unsigned char)p[n]) || p[n] == '_');
        if (left && right)
            return true;
    }
    return false;
}

/* The header is the leading block of // comment lines.  Line one after
 * "#!" is "// NAME.stp - what it does (staprelay)"; the Options block
 * (up to the next unindented heading) names HZ, -x PID, -c CMD,
 * kernel_only and user_only when the script takes them. */
void run_parse_header(run_script *s, const char *text)
{
    strbuf desc = STRBUF_INIT, opts = STRBUF_INIT;
    bool in_opts = false, have_desc = false;
    const char *p = text;
    while (*p) {
        size_t n = strcspn(p, "\n");
        const char *line = p;
        p += n + (p[n] == '\n');
        if (n >= 2 && line[0] == '#' && line[1] == '!')
            continue;
        if (n < 2 || line[0] != '/' || line[1] != '/')
            break;
        const char *c = line + 2;
        size_t cn = n - 2;
        if (cn > 0 && *c == ' ') {
            c++;
            cn--;
        }
        if (!have_desc) {
            const char *dash = NULL;
            for (size_t i = 0; i + 2 < cn; i++)
                if (c[i] == ' ' && c[i + 1] == '-' && c[i + 2] == ' ') {
                    dash = c + i + 3;
                    break;
                }
            if (dash != NULL) {
                size_t dn = cn - (size_t)(dash - c);
                static const char tag[] = " (staprelay)";
                if (dn >= sizeof tag - 1 && memcmp(dash + dn - (sizeof tag - 1), tag, sizeof tag - 1) == 0)
                    dn -= sizeof tag - 1;
                sb_add(&desc, dash, dn);
                have_desc = true;
            }
            continue;
        }
        if (cn > 0 && !isspace((unsigned char)c[0])) {
            in_opts = cn >= 7 && memcmp(c, "Options", 7) == 0;
            continue;
        }
        if (in_opts) {
            sb_add(&opts, c, cn);
            sb_addc(&opts, '\n');
        }
    }
    free(s->desc);
    s->desc = sb_steal(&desc);
    if (s->desc == NULL)
        s->desc = xstrdup("");
    s->opts = 0;
    const char *o = opts.buf ? opts.buf : "";
    if (has_word(o, "HZ"))
        s->opts |= RUN_OPT_HZ;
    if (strstr(o, "-x PID"))
        s->opts |= RUN_OPT_PID;
    if (strstr(o, "-c CMD"))
        s->opts |= RUN_OPT_CMD;
    if (has_word(o, "kernel_only"))
        s->opts |= RUN_OPT_KERNEL_ONLY;
    if (has_word(o, "user_only"))
        s->opts |= RUN_OPT_USER_ONLY;
    sb_free(&opts);
}

static run_script *catalog_get(run_catalog *c, const char *name)
{
    for (size_t i = 0; i < c->n; i++)
        if (strcmp(c->v[i].name, name) == 0)
            return &c->v[i];
    run_script *v = realloc(c->v, (c->n + 1) * sizeof *v);
    if (v == NULL)
        abort();
    c->v = v;
    run_script *s = &c->v[c->n++];
    memset(s, 0, sizeof *s);
    s->name = xstrdup(name);
    return s;
}

static int by_name(const void *a, const void *b)
{
    return strcmp(((const run_script *)a)->name, ((const run_script *)b)->name);
}

static int scan(run_catalog *c, const char *dir, bool bpf)
{
    DIR *d = opendir(dir);
    if (d == NULL)
        return -1;
    struct dirent *de;
    while ((de = readdir(d)) != NULL) {
        size_t n = strlen(de->d_name);
        if (n <= 4 || strcmp(de->d_name + n - 4, ".stp") != 0 || de->d_name[0] == '.')
            continue;
        char name[256];
        snprintf(name, sizeof name, "%.*s", (int)(n - 4), de->d_name);
        char *path = path2(dir, de->d_name);
        char *text = slurp(path, 16384);
        if (text == NULL) {
            free(path);
            continue;
        }
        run_script *s = catalog_get(c, name);
        if (bpf) {
            s->bpf_path = path;
            s->backends |= RUN_BK_BPF;
        } else {
            s->path = path;
            s->backends |= RUN_BK_STAP;
        }
        /* the kernel-runtime script's header wins */
        if (!bpf || s->path == NULL) {
            unsigned keep = s->opts;
            run_parse_header(s, text);
            if (bpf && keep)
                s->opts |= keep;
        }
        free(text);
        /* the perf backend reimplements profile.stp and offcpu.stp */
        if (strcmp(name, "profile") == 0 || strcmp(name, "offcpu") == 0)
            s->backends |= RUN_BK_PERF;
    }
    closedir(d);
    return 0;
}

int run_catalog_load(run_catalog *c, const char *dir)
{
    memset(c, 0, sizeof *c);
    c->dir = xstrdup(dir);
    if (scan(c, dir, false) != 0) {
        int e = errno;
        run_catalog_free(c);
        errno = e;
        return -1;
    }
    char *b = path2(dir, "bpf");
    scan(c, b, true);           /* optional */
    free(b);
    if (c->n > 1)
        qsort(c->v, c->n, sizeof *c->v, by_name);
    return 0;
}

void run_catalog_free(run_catalog *c)
{
    for (size_t i = 0; i < c->n; i++) {
        free(c->v[i].name);
        free(c->v[i].path);
        free(c->v[i].bpf_path);
        free(c->v[i].desc);
    }
    free(c->v);
    free(c->dir);
    memset(c, 0, sizeof *c);
}

const run_script *run_catalog_find(const run_catalog *c, const char *name)
{
    for (size_t i = 0; i < c->n; i++)
        if (strcmp(c->v[i].name, name) == 0)
            return &c->v[i];
    return NULL;
}

void run_opts_text(unsigned opts, char *buf, size_t len)
{
    static const struct { unsigned bit; const char *text; } names[] = {
        { RUN_OPT_HZ, "--hz N" },
        { RUN_OPT_PID, "--pid P" },
        { RUN_OPT_CMD, "--cmd C" },
        { RUN_OPT_KERNEL_ONLY, "--kernel-only" },
        { RUN_OPT_USER_ONLY, "--user-only" },
    };
    size_t k = 0;
    if (len == 0)
        return;
    buf[0] = '\0';
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        if (!(opts & names[i].bit))
            continue;
        int w = snprintf(buf + k, len - k, "%s%s", k ? ", " : "", names[i].text);
        if (w < 0 || (size_t)w >= len - k)
            break;
        k += (size_t)w;
    }
    if (k == 0)
        snprintf(buf, len, "-");
}

/* ---- the machine -------------------------------------------------------- */

static char *rooted(const char *root, const char *path)
{
    strbuf sb = STRBUF_INIT;
    sb_printf(&sb, "%s%s", root ? root : "", path);
    return sb_steal(&sb);
}

static int read_int(const char *root, const char *path, int dflt)
{
    char *p = rooted(root, path);
    char *t = slurp(p, 64);
    free(p);
    if (t == NULL)
        return dflt;
    char *end;
    long v = strtol(t, &end, 10);
    int r = end == t ? dflt : (int)v;
    free(t);
    return r;
}

bool run_probe_modules(const char *root, char *why, size_t len)
{
    char *p = rooted(root, "/proc/modules");
    bool have = access(p, F_OK) == 0;
    free(p);
    if (!have) {
        snprintf(why, len, "this kernel has no loadable-module support "
                 "(CONFIG_MODULES is not set: no /proc/modules)");
        return false;
    }
    if (read_int(root, "/proc/sys/kernel/modules_disabled", 0) == 1) {
        snprintf(why, len, "module loading is disabled (kernel.modules_disabled = 1)");
        return false;
    }
    p = rooted(root, "/sys/kernel/security/lockdown");
    char *t = slurp(p, 256);
    free(p);
    if (t != NULL) {
        bool locked = strstr(t, "[integrity]") || strstr(t, "[confidentiality]");
        free(t);
        if (locked) {
            snprintf(why, len, "the kernel is locked down: unsigned modules such as "
                     "SystemTap's are refused (/sys/kernel/security/lockdown)");
            return false;
        }
    }
    snprintf(why, len, "the kernel can load modules");
    return true;
}

static bool have_tool(const char *name)
{
    char *p = run_which(name);
    free(p);
    return p != NULL;
}

static bool newest_headers(const char *root, char *out, size_t len);

void run_env_probe(run_env *e, const char *root)
{
    memset(e, 0, sizeof *e);
    e->stap = have_tool("stap");
    e->stapbpf = have_tool("stapbpf");
    e->cc = have_tool("cc");
    e->root = geteuid() == 0;
    e->modules = run_probe_modules(root, e->modules_why, sizeof e->modules_why);
    e->perf_paranoid = read_int(root, "/proc/sys/kernel/perf_event_paranoid", 2);

    char rel[200];
    char *osr = rooted(root, "/proc/sys/kernel/osrelease");
    char *t = slurp(osr, 255);
    free(osr);
    snprintf(rel, sizeof rel, "%s", t ? t : "");
    free(t);
    rel[strcspn(rel, "\n")] = '\0';
    char build[512], hdr[200];
    snprintf(build, sizeof build, "/lib/modules/%s/build/.config", rel);
    char *b = rooted(root, build);
    if (access(b, R_OK) == 0) {
        e->kbuild = true;
        snprintf(e->kbuild_why, sizeof e->kbuild_why, "/lib/modules/%s/build", rel);
    } else if (newest_headers(root, hdr, sizeof hdr)) {
        e->kbuild = true;
        snprintf(e->kbuild_why, sizeof e->kbuild_why, "%s", hdr);
    } else {
        snprintf(e->kbuild_why, sizeof e->kbuild_why,
                 "no kernel build tree (/lib/modules/%s/build) and no "
                 "/usr/src/linux-headers-*: apt-get install linux-headers-amd64", rel);
    }
    free(b);

    char *perf = run_which("perf");
    if (perf == NULL) {
        snprintf(e->perf_why, sizeof e->perf_why,
                 "perf is not installed (apt-get install linux-perf)");
    } else {
        /* Debian's /usr/bin/perf is a wrapper that fails when no perf
         * for a usable kernel version is installed: run it. */
        strbuf cmd = STRBUF_INIT;
        sb_printf(&cmd, "'%s' version >/dev/null 2>&1", perf);
        int rc = system(cmd.buf);
        sb_free(&cmd);
        if (rc != 0)
            snprintf(e->perf_why, sizeof e->perf_why,
                     "%s does not run here (perf version failed: install linux-perf "
                     "for this kernel)", perf);
        else
            e->perf = true;
        free(perf);
    }
}

/* Newest /usr/src/linux-headers-*-amd64 (or any arch flavour that has a
 * .config), by version order. */
static int vercmp(const void *a, const void *b)
{
    return strverscmp(*(char *const *)a, *(char *const *)b);
}

static bool newest_headers(const char *root, char *out, size_t len)
{
    char *src = rooted(root, "/usr/src");
    DIR *d = opendir(src);
    if (d == NULL) {
        free(src);
        return false;
    }
    char **v = NULL;
    size_t n = 0;
    struct dirent *de;
    while ((de = readdir(d)) != NULL) {
        if (strncmp(de->d_name, "linux-headers-", 14) != 0)
            continue;
        char *p = path2(src, de->d_name);
        char *cfg = path2(p, ".config");
        bool ok = access(cfg, R_OK) == 0;
        free(cfg);
        if (!ok) {
            free(p);
            continue;
        }
        char **nv = realloc(v, (n + 1) * sizeof *v);
        if (nv == NULL)
            abort();
        v = nv;
        v[n++] = p;
    }
    closedir(d);
    free(src);
    if (n == 0) {
        free(v);
        return false;
    }
    qsort(v, n, sizeof *v, vercmp);
    snprintf(out, len, "%s", v[n - 1]);
    for (size_t i = 0; i < n; i++)
        free(v[i]);
    free(v);
    return true;
}

/* ---- options ------------------------------------------------------------ */

double run_parse_duration(const char *s)
{
    if (s == NULL || *s == '\0')
        return -1;
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (end == s || errno != 0 || v < 0 || v != v)
        return -1;
    static const struct { const char *unit; double mul; } units[] = {
        { "", 1 }, { "s", 1 }, { "sec", 1 }, { "secs", 1 }, { "second", 1 }, { "seconds", 1 },
        { "ms", 0.001 }, { "msec", 0.001 }, { "msecs", 0.001 },
        { "m", 60 }, { "min", 60 }, { "mins", 60 }, { "minute", 60 }, { "minutes", 60 },
        { "h", 3600 }, { "hour", 3600 }, { "hours", 3600 },
    };
    for (size_t i = 0; i < sizeof units / sizeof units[0]; i++)
        if (strcmp(end, units[i].unit) == 0) {
            double r = v * units[i].mul;
            return r > 366.0 * 86400 ? -1 : r;
        }
    return -1;
}

bool run_name_ok(const char *s)
{
    size_t n = strlen(s);
    if (n == 0 || n > 48 || !isalpha((unsigned char)s[0]))
        return false;
    for (size_t i = 0; i < n; i++)
        if (!(isalnum((unsigned char)s[i]) || s[i] == '_'))
            return false;
    return true;
}

static bool parse_long(const char *s, long lo, long hi, long *out)
{
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (end == s || *end != '\0' || errno != 0 || v < lo || v > hi)
        return false;
    *out = v;
    return true;
}

int run_parse_args(int argc, char **argv, run_opts *o, char *err, size_t errlen)
{
    enum { O_HZ = 256, O_PID, O_CMD, O_KONLY, O_UONLY, O_NAME, O_DIR, O_BACKEND };
    static const struct option lopts[] = {
        { "duration", required_argument, NULL, 'T' },
        { "name", required_argument, NULL, O_NAME },
        { "hz", required_argument, NULL, O_HZ },
        { "pid", required_argument, NULL, O_PID },
        { "cmd", required_argument, NULL, O_CMD },
        { "kernel-only", no_argument, NULL, O_KONLY },
        { "user-only", no_argument, NULL, O_UONLY },
        { "dir", required_argument, NULL, O_DIR },
        { "backend", required_argument, NULL, O_BACKEND },
        { "help", no_argument, NULL, 'H' },
        { NULL, 0, NULL, 0 },
    };
    memset(o, 0, sizeof *o);
    err[0] = '\0';
    optind = 0;                 /* full re-initialisation (GNU) */
    opterr = 0;
    int c;
    while ((c = getopt_long(argc, argv, ":T:", lopts, NULL)) != -1) {
        switch (c) {
        case 'T':
            o->duration = run_parse_duration(optarg);
            if (o->duration <= 0) {
                snprintf(err, errlen, "bad duration '%s' (seconds, or with a unit: "
                         "500ms, 10s, 2m, 1h)", optarg);
                return 2;
            }
            break;
        case O_NAME:
            if (!run_name_ok(optarg)) {
                snprintf(err, errlen, "bad name '%s': a letter, then letters, digits "
                         "or '_', at most 48 (it is the module name and a PCP name "
                         "component)", optarg);
                return 2;
            }
            o->name = optarg;
            break;
        case O_HZ:
            if (!parse_long(optarg, 1, 100000, &o->hz)) {
                snprintf(err, errlen, "bad --hz '%s' (1..100000)", optarg);
                return 2;
            }
            o->given |= RUN_OPT_HZ;
            break;
        case O_PID:
            if (!parse_long(optarg, 1, 0x3fffffff, &o->pid)) {
                snprintf(err, errlen, "bad --pid '%s'", optarg);
                return 2;
            }
            o->given |= RUN_OPT_PID;
            break;
        case O_CMD:
            if (*optarg == '\0') {
                snprintf(err, errlen, "empty --cmd");
                return 2;
            }
            o->cmd = optarg;
            o->given |= RUN_OPT_CMD;
            break;
        case O_KONLY:
            o->kernel_only = true;
            o->given |= RUN_OPT_KERNEL_ONLY;
            break;
        case O_UONLY:
            o->user_only = true;
            o->given |= RUN_OPT_USER_ONLY;
            break;
        case O_DIR:
            o->dir = optarg;
            break;
        case O_BACKEND:
            if (strcmp(optarg, "stap") && strcmp(optarg, "bpf") && strcmp(optarg, "perf")) {
                snprintf(err, errlen, "bad --backend '%s' (stap, bpf or perf)", optarg);
                return 2;
            }
            o->backend = optarg;
            break;
        case 'H':
            o->help = true;
            return 0;
        case ':':
            snprintf(err, errlen, "option '%s' needs a value", argv[optind - 1]);
            return 2;
        default:
            snprintf(err, errlen, "unknown option '%s'", argv[optind - 1]);
            return 2;
        }
    }
    if (optind >= argc) {
        snprintf(err, errlen, "no script named (staprelay list shows them)");
        return 2;
    }
    o->script = argv[optind++];
    if (optind < argc) {
        snprintf(err, errlen, "unexpected argument '%s' after the script name", argv[optind]);
        return 2;
    }
    if (o->pid && o->cmd) {
        snprintf(err, errlen, "--pid and --cmd exclude each other");
        return 2;
    }
    if (o->kernel_only && o->user_only) {
        snprintf(err, errlen, "--kernel-only and --user-only exclude each other");
        return 2;
    }
    return 0;
}

/* ---- the choice --------------------------------------------------------- */

const char *run_backend_name(run_backend b)
{
    switch (b) {
    case RUN_BK_STAP: return "stap";
    case RUN_BK_BPF: return "bpf";
    case RUN_BK_PERF: return "perf";
    default: return "none";
    }
}

static void addf(char *buf, size_t len, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void addf(char *buf, size_t len, const char *fmt, ...)
{
    size_t k = strlen(buf);
    if (k >= len)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf + k, len - k, fmt, ap);
    va_end(ap);
}

/* Why backend b cannot run s here, or NULL if it can. */
static const char *cannot(run_backend b, const run_script *s, const run_opts *o,
                          const run_env *e, char *tmp, size_t len)
{
    switch (b) {
    case RUN_BK_STAP:
        if (s->path == NULL)
            return "no kernel-runtime version of this script";
        if (!e->modules)
            return e->modules_why;
        if (!e->stap)
            return "stap is not installed (apt-get install systemtap)";
        if (!e->kbuild)
            return e->kbuild_why;
        if (!e->root)
            return "loading a module needs root (or the stapusr group and a signed, "
                   "trusted module)";
        return NULL;
    case RUN_BK_BPF:
        if (s->bpf_path == NULL) {
            if (s->backends & RUN_BK_PERF)
                return "no BPF variant (SystemTap's BPF runtime has no backtraces)";
            return "no BPF variant (stap/bpf/ has none for this script)";
        }
        if (!e->stap || !e->stapbpf)
            return "stap/stapbpf are not installed (apt-get install systemtap)";
        if (!e->kbuild)
            return e->kbuild_why;
        if (!e->root)
            return "loading BPF programs needs root (CAP_BPF, CAP_PERFMON, CAP_SYS_ADMIN)";
        return NULL;
    case RUN_BK_PERF:
        if (!(s->backends & RUN_BK_PERF))
            return "perf can only stand in for profile and offcpu";
        if (!e->perf)
            return e->perf_why;
        if (!e->root && !o->pid && !o->cmd && e->perf_paranoid > 0) {
            snprintf(tmp, len, "system-wide sampling needs root or "
                     "kernel.perf_event_paranoid <= 0 (it is %d): use --pid or --cmd",
                     e->perf_paranoid);
            return tmp;
        }
        if (!e->root && e->perf_paranoid > 2) {
            snprintf(tmp, len, "kernel.perf_event_paranoid is %d: perf is refused to "
                     "users", e->perf_paranoid);
            return tmp;
        }
        return NULL;
    default:
        return "unknown backend";
    }
}

run_backend run_choose(const run_script *s, const run_opts *o, const run_env *e,
                       char *why, size_t len)
{
    static const struct { run_backend b; const char *label; } order[] = {
        { RUN_BK_STAP, "SystemTap kernel runtime" },
        { RUN_BK_BPF, "SystemTap BPF runtime" },
        { RUN_BK_PERF, "perf record -g" },
    };
    why[0] = '\0';
    run_backend forced = RUN_BK_NONE;
    if (o && o->backend)
        forced = strcmp(o->backend, "stap") == 0 ? RUN_BK_STAP
               : strcmp(o->backend, "bpf") == 0 ? RUN_BK_BPF : RUN_BK_PERF;
    run_backend chosen = RUN_BK_NONE;
    char tmp[256];
    run_opts none;
    if (o == NULL) {
        memset(&none, 0, sizeof none);
        o = &none;
    }
    for (size_t i = 0; i < sizeof order / sizeof order[0]; i++) {
        run_backend b = order[i].b;
        if (forced && b != forced) {
            addf(why, len, "  %s (%s): not tried (--backend %s)\n", order[i].label,
                 run_backend_name(b), o->backend);
            continue;
        }
        if (chosen) {
            addf(why, len, "  %s (%s): not needed\n", order[i].label, run_backend_name(b));
            continue;
        }
        const char *r = cannot(b, s, o, e, tmp, sizeof tmp);
        if (r) {
            addf(why, len, "  %s (%s): no: %s\n", order[i].label, run_backend_name(b), r);
        } else {
            addf(why, len, "  %s (%s): yes\n", order[i].label, run_backend_name(b));
            chosen = b;
        }
    }
    return chosen;
}

/* ---- commands ----------------------------------------------------------- */

static int load_catalog(run_catalog *c, const char *cmd)
{
    char *dir = run_find_stap_dir();
    if (dir == NULL) {
        fprintf(stderr, "staprelay %s: cannot find the bundled scripts: looked in "
                "<bindir>/../stap and <bindir>/../share/staprelay/stap "
                "(set STAPRELAY_STAP_DIR)\n", cmd);
        return RUN_EXIT_FAILED;
    }
    if (run_catalog_load(c, dir) != 0) {
        fprintf(stderr, "staprelay %s: %s: %s\n", cmd, dir, strerror(errno));
        free(dir);
        return RUN_EXIT_FAILED;
    }
    free(dir);
    return 0;
}

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
        bool ok = cannot(all[i], s, &o, e, tmp, sizeof tmp) == NULL;
        addf(buf, len, "%s%s%s", buf[0] ? " " : "", run_backend_name(all[i]), ok ? "" : "(no)");
    }
    return buf;
}

int cmd_list(int argc, char **argv)
{
    (void)argv;
    if (argc > 1 && (strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "--help") == 0)) {
        printf("usage: staprelay list\n\nLists the bundled scripts, their options and "
               "the backends (stap, bpf, perf) that can run them here.\n");
        return 0;
    }
    if (argc > 1) {
        fprintf(stderr, "staprelay list: takes no arguments\nusage: staprelay list\n");
        return RUN_EXIT_USAGE;
    }
    run_catalog c;
    int rc = load_catalog(&c, "list");
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
           "(stap/bpf/), perf = perf record -g (profile, offcpu); (no) = cannot run here:\n");
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

static void run_usage(FILE *fp)
{
    fprintf(fp,
            "usage: staprelay run SCRIPT [-T DURATION] [--name NAME] [--backend stap|bpf|perf]\n"
            "                     [--hz N] [--pid P | --cmd C] [--kernel-only | --user-only]\n"
            "                     [--dir DIR]\n"
            "Runs a bundled script (staprelay list) until DURATION or Ctrl-C; its metrics\n"
            "appear as staprelay.NAME.* (default NAME: staprelay_SCRIPT).\n");
}

int cmd_run(int argc, char **argv)
{
    run_opts o;
    char err[512];
    if (run_parse_args(argc, argv, &o, err, sizeof err) != 0) {
        fprintf(stderr, "staprelay run: %s\n", err);
        run_usage(stderr);
        return RUN_EXIT_USAGE;
    }
    if (o.help) {
        run_usage(stdout);
        return 0;
    }
    run_catalog c;
    int rc = load_catalog(&c, "run");
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
        snprintf(name, sizeof name, "staprelay_%s", s->name);
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
    run_signals_install();
    switch (b) {
    case RUN_BK_STAP: rc = run_stap_kernel(&c, s, &o, name); break;
    case RUN_BK_BPF: rc = run_stap_bpf(&c, s, &o, name, &e); break;
    default: rc = run_perf(s, &o, name); break;
    }
    run_catalog_free(&c);
    return rc;
}
