/* run: the bundled scripts, this machine's backends and the choice
 * between them (see run.h). */
#include "client/run/run.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "client/run/backend_perf.h"
#include "client/run/child.h"
#include "common/strbuf.h"
#include "common/xalloc.h"

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
    run_script *v = xrealloc(c->v, (c->n + 1) * sizeof *v);
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
        /* the perf backend reimplements some scripts (backend_perf_find) */
        if (backend_perf_find(name) != NULL)
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

int run_catalog_load_bundled(run_catalog *c, const char *cmd)
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
    char *p = child_which(name);
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

    char *perf = child_which("perf");
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
        char **nv = xrealloc(v, (n + 1) * sizeof *v);
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

const char *run_cannot(run_backend b, const run_script *s, const run_opts *o,
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
            const backend_perf_standin *st = backend_perf_find(s->name);
            snprintf(tmp, len, "no BPF variant (%s)",
                     st != NULL ? st->no_bpf : "stap/bpf/ has none for this script");
            return tmp;
        }
        if (!e->stap || !e->stapbpf)
            return "stap/stapbpf are not installed (apt-get install systemtap)";
        if (!e->kbuild)
            return e->kbuild_why;
        if (!e->root)
            return "loading BPF programs needs root (CAP_BPF, CAP_PERFMON, CAP_SYS_ADMIN)";
        return NULL;
    case RUN_BK_PERF: {
        const backend_perf_standin *st = backend_perf_find(s->name);
        if (st == NULL) {
            char names[128];
            snprintf(tmp, len, "perf can only stand in for %s",
                     backend_perf_names(names, sizeof names));
            return tmp;
        }
        if (st->tracefs_root != NULL)   /* tracefs, not perf */
            return e->root ? NULL : st->tracefs_root;
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
    }
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
        { RUN_BK_PERF, "perf / tracefs" },
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
        const char *r = run_cannot(b, s, o, e, tmp, sizeof tmp);
        if (r) {
            addf(why, len, "  %s (%s): no: %s\n", order[i].label, run_backend_name(b), r);
        } else {
            addf(why, len, "  %s (%s): yes\n", order[i].label, run_backend_name(b));
            chosen = b;
        }
    }
    return chosen;
}
