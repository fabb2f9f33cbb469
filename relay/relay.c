/* relay: discovery, the poll timer and prefix ownership. */
#include "relay/relay.h"

#include <dirent.h>
#include <errno.h>
#include <glob.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/script_opts.h"

/* Directory levels walked below each configured directory. */
#define SCAN_MAX_DEPTH 8

relay *relay_new(struct ev_loop *loop, relay_config *cfg, const log_sink *log,
                 const relay_hooks *hooks)
{
    relay *r = calloc(1, sizeof(*r));
    if (r == NULL)
        return NULL;
    r->loop = loop;
    r->cfg = cfg;
    if (log != NULL)
        r->log = *log;
    if (hooks != NULL)
        r->hooks = *hooks;
    struct passwd *pw = getpwnam(cfg->exec_user);
    if (pw != NULL && pw->pw_uid != 0) {
        r->exec_uid = pw->pw_uid;
        r->exec_gid = pw->pw_gid;
        r->exec_user_ok = true;
    }
    return r;
}

/* Tell the host once that values changed. */
static void settle_data(relay *r)
{
    if (r->data_dirty) {
        r->data_dirty = false;
        if (r->hooks.data_changed != NULL)
            r->hooks.data_changed(r->hooks.arg);
    }
}

/* Sources that vanished during this round: free now, when nothing of
 * the round can point at them any more. */
static void free_dead_sources(relay *r)
{
    for (size_t i = 0; i < r->ndead_sources; i++)
        source_free(r->dead_sources[i]);
    free(r->dead_sources);
    r->dead_sources = NULL;
    r->ndead_sources = 0;
}

void relay_free(relay *r)
{
    if (r == NULL)
        return;
    ev_timer_stop(r->loop, &r->poll_w);
    for (size_t i = 0; i < r->nsources; i++)
        source_free(r->sources[i]);
    free(r->sources);
    /* what relay_settle does, but the namespace hook: nothing is left to
     * name */
    settle_data(r);
    free_dead_sources(r);
    config_free(r->cfg);
    free(r);
}

void relay_mark_namespace_dirty(relay *r)
{
    r->namespace_dirty = true;
}

size_t relay_active_sources(const relay *r)
{
    size_t n = 0;
    for (size_t i = 0; i < r->nsources; i++)
        n += r->sources[i]->meta != NULL && r->sources[i]->state != SRC_DUPLICATE &&
             r->sources[i]->state != SRC_REJECTED && r->sources[i]->state != SRC_VANISHED;
    return n;
}

/* ---- discovery ------------------------------------------------------------ */

static source *find_source(relay *r, const char *dir)
{
    for (size_t i = 0; i < r->nsources; i++)
        if (strcmp(r->sources[i]->dir, dir) == 0)
            return r->sources[i];
    return NULL;
}

static void defer_free(relay *r, source *s)
{
    source **nd = realloc(r->dead_sources, (r->ndead_sources + 1) * sizeof(*nd));
    if (nd != NULL) {
        r->dead_sources = nd;
        r->dead_sources[r->ndead_sources++] = s;
    } else {
        source_free(s);   /* cannot defer: the host rebuilds right after */
    }
}

static source *add_source(relay *r, const char *dir, bool trusted, bool stap_module)
{
    source *old = find_source(r, dir);
    if (old != NULL && old->state != SRC_VANISHED) {
        old->seen = true;
        return old;
    }
    /* new, or a module loaded again: a fresh source (same names, same
     * PMIDs) takes the vanished one's place */
    source *s = source_new(r, dir, trusted, stap_module);
    if (s == NULL)
        return NULL;
    if (old != NULL) {
        for (size_t i = 0; i < r->nsources; i++)
            if (r->sources[i] == old)
                r->sources[i] = s;
        defer_free(r, old);
    } else {
        source **ns = realloc(r->sources, (r->nsources + 1) * sizeof(*ns));
        if (ns == NULL) {
            source_free(s);
            return NULL;
        }
        r->sources = ns;
        r->sources[r->nsources++] = s;
    }
    s->seen = true;
    r->namespace_dirty = true;   /* the host lists sources too */
    log_msg(&r->log, LOG_LVL_INFO, "new source %s%s", dir,
            stap_module ? " (SystemTap module)" : trusted ? " (trusted)" : "");
    return s;
}

static bool has_metadata(const char *dir)
{
    char path[4200];
    struct stat st;
    if ((size_t)snprintf(path, sizeof(path), "%s/metadata.json", dir) >= sizeof(path))
        return false;
    return stat(path, &st) == 0 && !S_ISDIR(st.st_mode);
}

static bool is_runs_directory(const relay *r, const char *root)
{
    const char *runs_dir = r->cfg->runs.enabled ? r->cfg->runs.directory : NULL;
    return runs_dir != NULL && strcmp(root, runs_dir) == 0;
}

/* A `staprelay run` anywhere (--dir, PCP_TMP_DIR/staprelay) marks its
 * directory before it writes metadata.json, so the mark is there when
 * the source is found. */
static bool is_run_source(const char *dir)
{
    char path[4200];
    struct stat st;
    if ((size_t)snprintf(path, sizeof(path), "%s/%s", dir, SCRIPT_RUN_MARK) >= sizeof(path))
        return false;
    return lstat(path, &st) == 0 && S_ISREG(st.st_mode);
}

/* Walk one directory tree.  Symbolic links to directories are not
 * followed below the configured root, so a link can neither loop the walk
 * nor pull in a tree from elsewhere (pmdajson's os.walk did the same). */
static void scan_tree(relay *r, const char *root, const char *dir, bool trusted, int depth)
{
    if (has_metadata(dir)) {
        source *s = add_source(r, dir, trusted, false);
        if (s != NULL && s->root == NULL) {
            s->root = strdup(root);
            s->ends_by_design = is_runs_directory(r, root) || is_run_source(dir);
        }
    }
    if (depth >= SCAN_MAX_DEPTH)
        return;
    DIR *d = opendir(dir);
    if (d == NULL)
        return;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.' && (e->d_name[1] == '\0' ||
                                    (e->d_name[1] == '.' && e->d_name[2] == '\0')))
            continue;
        char path[4096];
        if ((size_t)snprintf(path, sizeof(path), "%s/%s", dir, e->d_name) >= sizeof(path))
            continue;
        bool is_dir = e->d_type == DT_DIR;
        if (e->d_type == DT_UNKNOWN) {
            struct stat st;
            is_dir = lstat(path, &st) == 0 && S_ISDIR(st.st_mode);
        }
        if (is_dir)
            scan_tree(r, root, path, trusted, depth + 1);
    }
    closedir(d);
}

/* A module under a SystemTap root.  Its trust is decided as for
 * directories (source_trusted_path_ok): a module directory that nobody but
 * root can change, all the way up (/proc/systemtap/M, root's stapbpf
 * FIFOs in /var/tmp/systemtap-root/M), is a SystemTap module: its own
 * data.json, no data-exec or data-path.  Anyone else's (a user's stapbpf
 * writes /var/tmp/systemtap-USER/M, which that user could fill with
 * symbolic links) is read like an untrusted directory under ROOT: confined
 * to ROOT (no link leads the root PMDA elsewhere), commands as nobody.  A
 * module whose ownership changed goes this round and comes back as what
 * it is now. */
static void add_stap_module(relay *r, const char *root, const char *path)
{
    char why[512] = "";
    /* confinement guards root's privilege; a relay that is not root can
     * only read what its own user may (unit tests run so) */
    bool safe = geteuid() != 0 || source_trusted_path_ok(path, why, sizeof(why));
    source *old = find_source(r, path);
    bool fresh = old == NULL || old->state == SRC_VANISHED;
    if (!fresh && old->stap_module != safe)
        return;
    source *s = add_source(r, path, false, safe);
    if (s != NULL)
        s->ends_by_design = true;   /* any user's module: kept when unloaded */
    if (s == NULL || safe)
        return;
    if (s->root == NULL)
        s->root = strdup(root);
    static const char lead[] = "trusted source rejected: ";
    const char *w = strncmp(why, lead, sizeof(lead) - 1) == 0 ? why + sizeof(lead) - 1 : why;
    if (fresh)
        log_msg(&r->log, LOG_LVL_INFO, "source %s: read as an untrusted directory (confined "
                "to %s): %s", path, root, w);
}

/* A SystemTap root holds one directory per loaded module (kernel runtime:
 * /proc/systemtap/MODULE, BPF runtime: /var/tmp/systemtap-USER/MODULE with
 * FIFOs).  Modules come and go with investigations; one that comes back
 * is found again and keeps its PMIDs (they follow its prefix). */
static void scan_stap_dir(relay *r, const char *root)
{
    DIR *d = opendir(root);
    if (d == NULL)
        return;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.')
            continue;
        char path[4096];
        if ((size_t)snprintf(path, sizeof(path), "%s/%s", root, e->d_name) >= sizeof(path))
            continue;
        struct stat st;
        if (lstat(path, &st) == 0 && S_ISDIR(st.st_mode) && has_metadata(path))
            add_stap_module(r, root, path);
    }
    closedir(d);
}

/* A configured root may be a glob(7) pattern: the default
 * /var/tmp/systemtap-* is every user's BPF-runtime FIFO directory
 * (stapbpf makes /var/tmp/systemtap-<user name>).  A match must be a
 * directory itself, not a symbolic link: a user's link could point the
 * root PMDA anywhere. */
static void scan_stap_root(relay *r, const char *root)
{
    if (strpbrk(root, "*?[") == NULL) {
        scan_stap_dir(r, root);
        return;
    }
    glob_t g;
    if (glob(root, GLOB_NOSORT, NULL, &g) != 0)
        return;
    for (size_t i = 0; i < g.gl_pathc; i++) {
        struct stat st;
        if (lstat(g.gl_pathv[i], &st) == 0 && S_ISDIR(st.st_mode))
            scan_stap_dir(r, g.gl_pathv[i]);
    }
    globfree(&g);
}

/* Who owns a contested prefix: trusted directories, then modules loaded
 * by root, then everything any user may write (by path). */
static int source_rank(const source *s)
{
    return s->trusted ? 0 : s->stap_module ? 1 : 2;
}

static int source_order(const void *a, const void *b)
{
    const source *x = *(source *const *)a, *y = *(source *const *)b;
    if (source_rank(x) != source_rank(y))
        return source_rank(x) - source_rank(y);
    return strcmp(x->dir, y->dir);
}

static void bury_source(relay *r, size_t i)
{
    source *s = r->sources[i];
    if (s->state != SRC_VANISHED)
        log_msg(&r->log, LOG_LVL_INFO, "source %s vanished", s->dir);
    defer_free(r, s);
    memmove(&r->sources[i], &r->sources[i + 1], (r->nsources - i - 1) * sizeof(*r->sources));
    r->nsources--;
    r->namespace_dirty = true;
}

static bool prefix_taken(const relay *r, const source *s)
{
    const char *p = source_prefix(s);
    for (size_t i = 0; i < r->nsources; i++) {
        const source *o = r->sources[i];
        const char *q = source_prefix(o);
        if (o != s && o->state != SRC_VANISHED && o->state != SRC_DUPLICATE &&
            o->state != SRC_REJECTED && q != NULL && p != NULL && strcmp(p, q) == 0)
            return true;
    }
    return false;
}

/* Vanished modules are kept while they may come back, but not when a live
 * source now publishes their prefix, and not more than RELAY_VANISHED_KEPT of
 * them (the longest gone go first), so the namespace stays bounded. */
static void forget_vanished(relay *r)
{
    size_t kept = 0;
    for (size_t i = r->nsources; i-- > 0;) {
        source *s = r->sources[i];
        if (s->state != SRC_VANISHED)
            continue;
        if (prefix_taken(r, s)) {
            log_msg(&r->log, LOG_LVL_INFO, "forgetting vanished module %s: its prefix is "
                    "in use again", s->dir);
            bury_source(r, i);
        } else {
            kept++;
        }
    }
    while (kept > RELAY_VANISHED_KEPT) {
        size_t oldest = r->nsources;
        for (size_t i = 0; i < r->nsources; i++)
            if (r->sources[i]->state == SRC_VANISHED &&
                (oldest == r->nsources ||
                 r->sources[i]->vanished_at < r->sources[oldest]->vanished_at))
                oldest = i;
        log_msg(&r->log, LOG_LVL_INFO, "forgetting vanished module %s: more than %d gone",
                r->sources[oldest]->dir, RELAY_VANISHED_KEPT);
        bury_source(r, oldest);
        kept--;
    }
}

static void discover(relay *r)
{
    for (size_t i = 0; i < r->nsources; i++)
        r->sources[i]->seen = false;
    for (size_t i = 0; i < r->cfg->nstap_roots; i++)
        scan_stap_root(r, r->cfg->stap_roots[i]);
    for (size_t i = 0; i < r->cfg->ntrusted_directories; i++)
        scan_tree(r, r->cfg->trusted_directories[i], r->cfg->trusted_directories[i], true, 0);
    for (size_t i = 0; i < r->cfg->ndirectories; i++)
        scan_tree(r, r->cfg->directories[i], r->cfg->directories[i], false, 0);
    for (size_t i = r->nsources; i-- > 0;) {
        source *s = r->sources[i];
        if (s->seen)
            continue;
        /* SystemTap modules and runs end when their investigation does:
         * their names stay (without values) so pmval, pmlogger and grafana
         * carry on, and come back to life when it runs again */
        if (s->ends_by_design && s->meta != NULL && s->state != SRC_DUPLICATE &&
            s->state != SRC_REJECTED) {
            source_vanish(s);   /* keeps its names until it is loaded again */
        } else {
            bury_source(r, i);
        }
    }
    if (r->nsources > 1)   /* sources is NULL while there are none */
        qsort(r->sources, r->nsources, sizeof(*r->sources), source_order);
}

/* The first source (source_order) owns a prefix; later
 * ones wait, visibly, and take over if the owner goes away. */
static void assign_prefixes(relay *r)
{
    for (size_t i = 0; i < r->nsources; i++) {
        source *s = r->sources[i];
        const char *p = source_prefix(s);
        if (p == NULL || s->state == SRC_REJECTED || s->state == SRC_VANISHED)
            continue;   /* a vanished module yields its prefix (forget_vanished) */
        const source *owner = NULL;
        for (size_t j = 0; j < i && owner == NULL; j++) {
            const char *q = source_prefix(r->sources[j]);
            if (q != NULL && r->sources[j]->state != SRC_DUPLICATE &&
                r->sources[j]->state != SRC_REJECTED && r->sources[j]->state != SRC_VANISHED &&
                strcmp(p, q) == 0)
                owner = r->sources[j];
        }
        if (strcmp(p, "control") == 0) {
            if (s->state != SRC_DUPLICATE)
                r->namespace_dirty = true;
            s->state = SRC_DUPLICATE;
            snprintf(s->last_error, sizeof(s->last_error),
                     "prefix \"control\" is reserved for staprelay.control");
        } else if (owner != NULL && s->state != SRC_DUPLICATE) {
            source_forget_data(s);
            s->state = SRC_DUPLICATE;
            snprintf(s->last_error, sizeof(s->last_error),
                     "prefix \"%s\" is already used by %s", p, owner->dir);
            log_msg(&r->log, LOG_LVL_WARNING, "source %s: %s", s->dir, s->last_error);
            r->namespace_dirty = true;
        } else if (owner == NULL && s->state == SRC_DUPLICATE) {
            source_forget_data(s);   /* read afresh under the prefix */
            s->state = SRC_WAITING;
            s->last_error[0] = '\0';
            log_msg(&r->log, LOG_LVL_INFO, "source %s now owns prefix \"%s\"", s->dir, p);
            r->namespace_dirty = true;
        }
    }
}

void relay_settle(relay *r)
{
    if (r->namespace_dirty) {
        r->namespace_dirty = false;
        r->namespace_generation++;
        if (r->hooks.namespace_changed != NULL)
            r->hooks.namespace_changed(r->hooks.arg);
    }
    settle_data(r);
    free_dead_sources(r);
}

void relay_poll(relay *r)
{
    discover(r);
    for (size_t i = 0; i < r->nsources; i++) {
        source *s = r->sources[i];
        if (source_refresh_metadata(s)) {
            r->namespace_dirty = true;
        }
    }
    assign_prefixes(r);
    forget_vanished(r);
    for (size_t i = 0; i < r->nsources; i++)
        source_refresh_data(r->sources[i]);
    relay_settle(r);
}

static void on_poll(struct ev_loop *loop, ev_timer *w, int revents)
{
    (void)loop; (void)revents;
    relay_poll(w->data);
}

void relay_start(relay *r)
{
    relay_poll(r);
    ev_timer_init(&r->poll_w, on_poll, r->cfg->poll_interval, r->cfg->poll_interval);
    r->poll_w.data = r;
    ev_timer_start(r->loop, &r->poll_w);
}
