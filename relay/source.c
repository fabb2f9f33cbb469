/* source: metadata and data of one source, read without blocking. */
#include "relay/source.h"
#include "common/hash.h"
#include "relay/confine.h"
#include "relay/docread.h"
#include "relay/fiforead.h"
#include "relay/jsondoc.h"
#include "relay/relay.h"
#include "common/strmap.h"

#include <errno.h>
#include <limits.h>
#include <libgen.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static const char *state_names[] = {
    [SRC_WAITING] = "waiting",
    [SRC_OK] = "ok",
    [SRC_ERROR] = "error",
    [SRC_BAD_METADATA] = "bad-metadata",
    [SRC_DUPLICATE] = "duplicate-prefix",
    [SRC_REJECTED] = "rejected",
    [SRC_VANISHED] = "vanished",
};

/* Polls a FIFO may go without a writer before its values count as stale. */
#define FIFO_STALE_POLLS 3

/* How often the same problem may be logged again for one source. */
#define ERROR_LOG_INTERVAL 300

const char *source_state_name(source_state st)
{
    return st <= SRC_VANISHED ? state_names[st] : "unknown";
}

const char *source_prefix(const source *s)
{
    return s->meta != NULL ? s->meta->prefix : NULL;
}

static char *path_join(const char *dir, const char *name)
{
    size_t n = strlen(dir) + strlen(name) + 2;
    char *p = malloc(n);
    if (p != NULL)
        snprintf(p, n, "%s/%s", dir, name);
    return p;
}

source *source_new(struct relay *r, const char *dir, bool trusted, bool stap_module)
{
    source *s = calloc(1, sizeof(*s));
    if (s == NULL)
        return NULL;
    s->relay = r;
    s->dir = strdup(dir);
    char *copy = strdup(dir);
    if (s->dir == NULL || copy == NULL) {
        free(copy);
        free(s->dir);
        free(s);
        return NULL;
    }
    s->default_prefix = strdup(basename(copy));
    free(copy);
    s->trusted = trusted;
    s->stap_module = stap_module;
    s->state = SRC_WAITING;
    return s;
}

static void free_streams(source *s);

static void stop_watch(source *s)
{
    if (s->watching) {
        ev_stat_stop(s->relay->loop, &s->data_watch);
        s->watching = false;
    }
}

static void drop_snapshot(source *s)
{
    if (s->snap != NULL) {
        snapshot_free(s->snap);
        s->snap = NULL;
        s->generation++;
        s->relay->data_dirty = true;
        source_account(s);
    }
}

/* Whether the source reads data now: it has metadata and owns its
 * prefix, and its module is loaded.  A read that finishes later (a FIFO's
 * writer, a data-exec command) asks again before its document is
 * applied: the source may have lost its metadata or its prefix since. */
static bool reads_data(const source *s)
{
    return s->meta != NULL && s->state != SRC_DUPLICATE && s->state != SRC_REJECTED &&
           s->state != SRC_VANISHED;
}

/* Stop the data reads in flight (their results would be dropped). */
static void cancel_data_reads(source *s)
{
    exec_cancel(s->job);
    s->job = NULL;
    fiforead_cancel(s->data_fifo);
    s->data_fifo = NULL;
}

/* Stop every read in flight and the watch that starts new ones. */
static void stop_reading(source *s)
{
    stop_watch(s);
    cancel_data_reads(s);
    fiforead_cancel(s->meta_fifo);
    s->meta_fifo = NULL;
}

void source_free(source *s)
{
    if (s == NULL)
        return;
    stop_reading(s);
    free_streams(s);
    snapshot_free(s->snap);
    metadata_free(s->meta);
    s->snap = NULL;
    s->meta = NULL;
    source_account(s);   /* nothing held: the relay's totals drop */
    free(s->data_file);
    free(s->problem_hash);
    free(s->array_hash);
    free(s->default_prefix);
    free(s->root);
    free(s->dir);
    free(s);
}

void source_forget_data(source *s)
{
    cancel_data_reads(s);
    drop_snapshot(s);
    s->data_st_valid = false;
}

void source_vanish(source *s)
{
    if (s->state == SRC_VANISHED)
        return;
    stop_reading(s);
    drop_snapshot(s);
    s->data_st_valid = false;
    s->state = SRC_VANISHED;
    s->vanished_at = ev_now(s->relay->loop);
    snprintf(s->last_error, sizeof(s->last_error),
             "module unloaded: its metrics stay, without values, until it is loaded again");
    log_msg(&s->relay->log, LOG_LVL_INFO, "source %s vanished (SystemTap module unloaded); "
            "its names are kept without values", s->dir);
}

/* Set the source-level error: shown in control metrics, logged unless the
 * same text was logged recently. */
static void set_error(source *s, source_state st, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void set_error(source *s, source_state st, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(s->last_error, sizeof(s->last_error), fmt, ap);
    va_end(ap);
    s->state = st;
    if (ratelimit_allow(&s->error_rl, s->last_error, time(NULL), ERROR_LOG_INTERVAL))
        log_msg(&s->relay->log, LOG_LVL_WARNING, "source %s: %s", s->dir, s->last_error);
}

void source_report(source *s, const char *fmt, ...)
{
    char buf[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof(buf), fmt, ap);
    va_end(ap);
    s->stats.metadata_errors++;
    snprintf(s->meta_error, sizeof(s->meta_error), "%s", buf);
    snprintf(s->last_error, sizeof(s->last_error), "%s", buf);
    log_msg(&s->relay->log, LOG_LVL_WARNING, "source %s: %s", s->dir, buf);
}

/* ---- metadata ---------------------------------------------------------- */

static bool generated_file(const char *path, const struct stat *st);

static bool same_stat(const struct stat *a, const struct stat *b)
{
    return a->st_ino == b->st_ino && a->st_dev == b->st_dev && a->st_size == b->st_size &&
           a->st_mtim.tv_sec == b->st_mtim.tv_sec && a->st_mtim.tv_nsec == b->st_mtim.tv_nsec &&
           a->st_ctim.tv_sec == b->st_ctim.tv_sec && a->st_ctim.tv_nsec == b->st_ctim.tv_nsec;
}

/* Trusted directories.  A trusted source's data-exec command runs as
 * root, so whoever can change its metadata.json, or what its path leads
 * to, can run anything as root.  pmdajson only checked the directory and
 * metadata.json; a trusted source is used here only when nobody but root
 * can change anything its path goes through:
 *   - the path is walked one component at a time, from /, the way the
 *     kernel resolves it; every symbolic link met on the way must be owned
 *     by root, and its target is walked the same way (so a link whose
 *     target lies in a writable place fails at that place, and a link
 *     that someone else could re-point fails at the link);
 *   - every directory passed through must be owned by root and not
 *     writable by group or others, except a sticky one (/tmp, mode 1777):
 *     there only an entry's owner may rename or delete it, and the entry
 *     below must itself be root's, so nobody else can swap it;
 *   - the source directory and its metadata.json themselves must be owned
 *     by root and not writable by group or others, sticky or not (anyone
 *     could add files to a sticky source directory).
 * The command a trusted metadata.json names is root's own business and is
 * not checked.  The check runs when metadata is read and again before
 * every command run, so a tree made unsafe later stops the commands. */

/* Longest chain of symbolic links followed, as the kernel's ELOOP. */
#define TRUST_MAX_LINKS 40

static bool trust_mode_ok(const struct stat *st, bool final)
{
    if (st->st_uid != 0)
        return false;
    if (S_ISLNK(st->st_mode))
        return true;   /* a link's own mode means nothing */
    if (!(st->st_mode & (S_IWGRP | S_IWOTH)))
        return true;
    return !final && S_ISDIR(st->st_mode) && (st->st_mode & S_ISVTX);
}

bool source_trusted_path_ok(const char *path, char *why, size_t whylen)
{
    /* done: the symlink-free path walked so far ("" is /); todo: what is
     * left, with link targets spliced in front of it */
    char done[PATH_MAX + 1] = "", todo[2 * PATH_MAX + 2], link[PATH_MAX + 1], cur[PATH_MAX + 1];
    struct stat st;
    int links = 0;
    if (path[0] == '/') {
        snprintf(todo, sizeof(todo), "%s", path);
    } else {
        if (getcwd(cur, sizeof(cur)) == NULL) {
            snprintf(why, whylen, "trusted source rejected: %s: cannot resolve a relative path", path);
            return false;
        }
        snprintf(todo, sizeof(todo), "%s/%s", cur, path);
    }
    if (lstat("/", &st) != 0 || !trust_mode_ok(&st, false)) {
        snprintf(why, whylen, "trusted source rejected: / must be owned by root and not group "
                 "or world writable");
        return false;
    }
    for (;;) {
        char *p = todo;
        while (*p == '/')
            p++;
        if (*p == '\0')
            break;
        size_t n = strcspn(p, "/");
        char comp[NAME_MAX + 1];
        if (n > NAME_MAX) {
            snprintf(why, whylen, "trusted source rejected: %s: name too long", path);
            return false;
        }
        memcpy(comp, p, n);
        comp[n] = '\0';
        memmove(todo, p + n, strlen(p + n) + 1);
        if (strcmp(comp, ".") == 0)
            continue;
        if (strcmp(comp, "..") == 0) {
            char *slash = strrchr(done, '/');
            if (slash != NULL)
                *slash = '\0';
            continue;
        }
        if ((size_t)snprintf(cur, sizeof(cur), "%s/%s", done, comp) >= sizeof(cur)) {
            snprintf(why, whylen, "trusted source rejected: %s: path too long", path);
            return false;
        }
        if (lstat(cur, &st) != 0) {
            snprintf(why, whylen, "trusted source rejected: cannot stat %s: %s", cur,
                     strerror(errno));
            return false;
        }
        /* the last component is checked below, without the sticky exception */
        bool last = todo[strspn(todo, "/")] == '\0';
        if ((!last || S_ISLNK(st.st_mode)) && !trust_mode_ok(&st, false)) {
            if (S_ISLNK(st.st_mode))
                snprintf(why, whylen, "trusted source rejected: symbolic link %s, on the way "
                         "to %s, must be owned by root", cur, path);
            else
                snprintf(why, whylen, "trusted source rejected: %s, on the way to %s, must be "
                         "owned by root and not group or world writable (unless sticky)",
                         cur, path);
            return false;
        }
        if (S_ISLNK(st.st_mode)) {
            ssize_t ln = readlink(cur, link, sizeof(link) - 1);
            if (ln < 0 || ++links > TRUST_MAX_LINKS) {
                snprintf(why, whylen, "trusted source rejected: %s: %s", cur,
                         ln < 0 ? strerror(errno) : "too many levels of symbolic links");
                return false;
            }
            link[ln] = '\0';
            if (strlen(link) + strlen(todo) + 2 > sizeof(todo)) {
                snprintf(why, whylen, "trusted source rejected: %s: path too long", path);
                return false;
            }
            size_t tl = strlen(todo);
            memmove(todo + ln + 1, todo, tl + 1);
            memcpy(todo, link, (size_t)ln);
            todo[ln] = '/';
            if (link[0] == '/')
                done[0] = '\0';
            continue;
        }
        if (!S_ISDIR(st.st_mode) && !last) {
            snprintf(why, whylen, "trusted source rejected: %s is not a directory", cur);
            return false;
        }
        snprintf(done, sizeof(done), "%s", cur);
    }
    /* the object itself: no sticky exception */
    const char *final = done[0] != '\0' ? done : "/";
    if (lstat(final, &st) != 0 || !trust_mode_ok(&st, true)) {
        if (strcmp(final, path) == 0)
            snprintf(why, whylen, "trusted source rejected: %s must be owned by root and not "
                     "group or world writable", path);
        else
            snprintf(why, whylen, "trusted source rejected: %s (%s) must be owned by root and "
                     "not group or world writable", path, final);
        return false;
    }
    return true;
}

static int trusted_ok(const source *s, char *why, size_t whylen)
{
    char *meta = path_join(s->dir, "metadata.json");
    bool ok = meta != NULL && source_trusted_path_ok(s->dir, why, whylen) &&
              source_trusted_path_ok(meta, why, whylen);
    if (meta == NULL)
        snprintf(why, whylen, "out of memory");
    free(meta);
    return ok;
}

static void resolve_data_file(source *s)
{
    free(s->data_file);
    s->data_file = NULL;
    if (s->meta == NULL)
        return;
    if (s->stap_module) {
        /* a module's data is its own procfs file, whatever its metadata
         * says: a script never gets to run commands or read elsewhere */
        s->data_file = path_join(s->dir, "data.json");
        return;
    }
    if (s->meta->data_exec != NULL)
        return;
    const char *p = s->meta->data_path;
    if (p == NULL)
        s->data_file = path_join(s->dir, "data.json");
    else if (p[0] == '/')
        s->data_file = strdup(p);
    else
        s->data_file = path_join(s->dir, p);   /* relative to the source, not our cwd */
}

static void log_meta_problems(source *s)
{
    for (size_t i = 0; i < s->meta->nproblems; i++) {
        s->stats.metadata_errors++;
        log_msg(&s->relay->log, LOG_LVL_WARNING, "source %s: metadata: %s", s->dir,
                s->meta->problems[i]);
    }
    if (s->meta->nproblems > 0) {
        snprintf(s->meta_error, sizeof(s->meta_error), "metadata: %s",
                 s->meta->problems[s->meta->nproblems - 1]);
        snprintf(s->last_error, sizeof(s->last_error), "%s", s->meta_error);
    }
}

static void free_streams(source *s)
{
    if (s->streams != NULL && s->meta != NULL)
        for (size_t i = 0; i < s->meta->nevents; i++)
            event_stream_free(s->streams[i]);
    free(s->streams);
    s->streams = NULL;
}

/* Queues start empty with new metadata: a stream's fields may differ. */
static void make_streams(source *s)
{
    const relay_config *cfg = s->relay->cfg;
    event_limits lim = {cfg->event_queue_size, cfg->max_record_size, cfg->max_stacks,
                        cfg->stack_expiry, cfg->stacks_refresh,
                        config_subsecond_delay(cfg)};
    if (s->meta == NULL || s->meta->nevents == 0)
        return;
    s->streams = calloc(s->meta->nevents, sizeof(event_stream *));
    if (s->streams == NULL)
        return;
    for (size_t i = 0; i < s->meta->nevents; i++)
        s->streams[i] = event_stream_new(&s->meta->events[i], &lim);
}

/* The whole text's hash (NUL bytes included) and length. */
static text_print fingerprint(const char *text, size_t len)
{
    return (text_print){true, len, fnv1a64(text, len)};
}

static bool same_print(const text_print *a, const text_print *b)
{
    return a->known && b->known && a->len == b->len && a->hash == b->hash;
}

static void install_meta(source *s, source_meta *m, text_print print)
{
    /* Nothing to read with: a read in flight is dropped.  New metadata
     * keeps it: a module's metadata grows as it sees new keys (syslat's
     * syscalls, iolat's disks), often every poll, and cancelling would
     * leave it without values for as long as it grows. */
    if (m == NULL)
        cancel_data_reads(s);
    drop_snapshot(s);
    free_streams(s);
    stop_watch(s);
    metadata_free(s->meta);
    s->meta = m;
    s->meta_print = print;
    free(s->problem_hash);
    free(s->array_hash);
    s->problem_hash = m != NULL ? calloc(m->nmetrics ? m->nmetrics : 1, sizeof(uint64_t)) : NULL;
    s->array_hash = m != NULL ? calloc(m->narrays ? m->narrays : 1, sizeof(uint64_t)) : NULL;
    s->meta_error[0] = '\0';
    s->metric_problems = 0;
    s->data_st_valid = false;
    make_streams(s);
    resolve_data_file(s);
    source_account(s);
}

/* An untrusted directory is writable by anyone (pmdajson's shared
 * directory is mode 1777) while the PMDA runs as root: a data-path, or a
 * data.json that is a symbolic link (or a hard link, or anything swapped
 * in between a check and an open), could otherwise publish any file on
 * the system (/etc/shadow) as metric values.  So an untrusted source's
 * files are opened through confine_open: inside its configured directory
 * and with the permissions of its directory's owner, checked on what is
 * opened, not on a path.  Trusted sources and root's SystemTap modules
 * open plainly (nobody but root can change what their paths lead to). */
static int open_source_file(const source *s, const char *path, struct stat *st, char *err,
                            size_t errlen)
{
    const relay *r = s->relay;
    const char *root = s->trusted || s->stap_module ? NULL : s->root;
    confine_reader fallback = {r->exec_user_ok, r->exec_uid, r->exec_gid};
    return confine_open(root, s->dir, path, &fallback, st, err, errlen);
}

static doc_status open_status(int e)
{
    return e == EBUSY || e == EAGAIN ? DOC_BUSY : DOC_ERROR;
}

/* Install metadata text that was just read (ds says how the read went);
 * text is freed here.  Returns true when the namespace this source
 * contributes may change. */
static bool apply_metadata(source *s, doc_status ds, char *text, size_t len, const char *rerr)
{
    char err[512];
    if (ds == DOC_BUSY) {
        free(text);
        return false;
    }
    if (ds == DOC_ERROR && s->stap_module && s->meta != NULL) {
        /* SystemTap's procfs fails a read whose read probe did not run
         * (EIO: the module is being unloaded, or another reader holds the
         * file; seen in a real kernel, stap/README.md "Reads").  Keep
         * what the module published: its names must not go and come back
         * with a transient failure (and stay, without values, once it is
         * unloaded).  Counted and logged; the next poll reads again. */
        free(text);
        s->stats.metadata_errors++;
        set_error(s, s->state, "metadata: %s (keeping the last metadata)", rerr);
        return false;
    }
    if (ds != DOC_OK) {
        bool had = s->meta != NULL;
        free(text);
        install_meta(s, NULL, fingerprint("", 0));
        s->stats.metadata_errors++;
        set_error(s, SRC_BAD_METADATA, "metadata: %s", rerr);
        return had;
    }
    text_print print = fingerprint(text, len);
    if (same_print(&print, &s->meta_print) && s->state != SRC_REJECTED) {
        free(text);
        return false;
    }
    if (s->trusted && !trusted_ok(s, err, sizeof(err))) {
        bool had = s->meta != NULL;
        free(text);
        install_meta(s, NULL, print);
        set_error(s, SRC_REJECTED, "%s", err);
        return had;
    }
    s->stats.metadata_loads++;
    source_meta *m = metadata_parse_limited(text, len, s->default_prefix,
                                            s->relay->cfg->max_document_memory, err,
                                            sizeof(err));
    free(text);
    size_t room = source_allowance(s);
    if (m != NULL && m->bytes > room) {
        snprintf(err, sizeof(err), "metadata: its model needs %zu bytes, more than this source "
                 "may hold now (%zu: max_source_memory %zu, max_total_memory %zu)", m->bytes,
                 room, s->relay->cfg->max_source_memory, s->relay->cfg->max_total_memory);
        metadata_free(m);
        m = NULL;
        s->stats.memory_refusals++;
    }
    install_meta(s, m, print);
    if (m == NULL) {
        s->stats.metadata_errors++;
        set_error(s, SRC_BAD_METADATA, "%s", err);
        return true;
    }
    s->state = SRC_WAITING;
    s->last_error[0] = '\0';
    if (s->stap_module && (m->data_exec != NULL || m->data_path != NULL))
        source_report(s, "SystemTap module metadata may not name data-exec or data-path; "
                      "reading the module's own data.json");
    log_meta_problems(s);
    if (m->nmetrics == 0 && m->nevents == 0)
        log_msg(&s->relay->log, LOG_LVL_WARNING, "source %s: metadata defines no usable metrics",
                s->dir);
    return true;
}

/* A seconds budget for one FIFO read: well inside a poll interval. */
static double fifo_timeout(const source *s)
{
    double t = s->relay->cfg->poll_interval * 0.8;
    return t < 0.1 ? 0.1 : t > 5 ? 5 : t;
}

static void on_meta_fifo(void *arg, doc_status st, const char *buf, size_t len, const char *err)
{
    source *s = arg;
    s->meta_fifo = NULL;
    char *text = st == DOC_OK ? strdup(buf) : NULL;
    if (st == DOC_OK && text == NULL)
        st = DOC_ERROR;
    if (apply_metadata(s, st, text, len, err ? err : "out of memory")) {
        /* outside a poll: settle now so the host sees the new metrics */
        relay_mark_namespace_dirty(s->relay);
        relay_settle(s->relay);
    }
}

bool source_refresh_metadata(source *s)
{
    if (s->state == SRC_VANISHED || s->meta_fifo != NULL)
        return false;    /* a FIFO read in flight answers through the loop */
    char *path = path_join(s->dir, "metadata.json");
    struct stat st;
    if (path == NULL || stat(path, &st) != 0) {
        free(path);
        return false;    /* vanished: discovery will notice */
    }
    /* procfs files report size 0 and a fixed mtime: always re-read them */
    bool generated = s->stap_module || generated_file(path, &st);
    /* a rejected trusted source is checked again every poll: what failed
     * may be a directory above it, which metadata.json's stat never shows */
    if (!generated && s->meta_print.known && s->meta_st_valid && same_stat(&st, &s->meta_st) &&
        s->state != SRC_REJECTED) {
        free(path);
        return false;
    }
    char err[512];
    /* what is read is what was opened (confined for untrusted sources): a
     * link to a FIFO elsewhere is refused before it is opened */
    struct stat ost;
    int fd = open_source_file(s, path, &ost, err, sizeof(err));
    /* Remember the identity of what was opened, not of what the path
     * showed a moment before: a directory swapped between the two (a race
     * an untrusted owner can run) must not leave the file's own identity
     * recorded as read, or its metadata would never be read again.  A
     * failed open remembers nothing, so the next poll tries again. */
    s->meta_st_valid = fd >= 0;
    if (fd < 0) {
        doc_status ds = open_status(errno);
        free(path);
        return apply_metadata(s, ds, NULL, 0, err);
    }
    s->meta_st = ost;
    if (S_ISFIFO(ost.st_mode)) {
        s->meta_fifo = fiforead_start_fd(s->relay->loop, fd, path,
                                         s->relay->cfg->max_document_size, fifo_timeout(s),
                                         on_meta_fifo, s, err, sizeof(err));
        free(path);
        return s->meta_fifo == NULL ? apply_metadata(s, DOC_ERROR, NULL, 0, err) : false;
    }
    char *text = NULL;
    size_t len = 0;
    doc_status ds = doc_read_fd(fd, path, s->relay->cfg->max_document_size, &text, &len,
                                err, sizeof(err));
    free(path);
    return apply_metadata(s, ds, text, len, err);
}

/* ---- data ---------------------------------------------------------------- */

/* Log each metric's data problem once, when it appears or changes; the
 * first current problem (else the metadata's) is the source's last error. */
static void note_metric_problems(source *s)
{
    char buf[400];
    s->metric_problems = 0;
    snprintf(s->last_error, sizeof(s->last_error), "%s", s->meta_error);
    for (size_t a = 0; a < s->meta->narrays; a++) {
        unsigned skipped = s->snap->arrays[a].skipped;
        uint64_t h = skipped ? (uint64_t)skipped | 1 : 0;
        if (h != s->array_hash[a] && skipped)
            log_msg(&s->relay->log, LOG_LVL_WARNING, "source %s: %s.%s: %u element%s dropped "
                    "(duplicate or unusable %s)", s->dir, s->meta->prefix, s->meta->arrays[a].name,
                    skipped, skipped == 1 ? "" : "s",
                    s->meta->arrays[a].histogram ? "bucket bounds" : "index");
        s->array_hash[a] = h;
    }
    bool first = true;
    for (size_t m = 0; m < s->meta->nmetrics; m++) {
        const char *why = snapshot_problem(s->snap, s->meta, m, buf, sizeof(buf));
        uint64_t h = why != NULL ? strmap_hash(why) | 1 : 0;
        if (why != NULL) {
            s->metric_problems++;
            if (first)
                snprintf(s->last_error, sizeof(s->last_error), "metric %s: %s",
                         s->meta->metrics[m].name, why);
            first = false;
        }
        if (h != s->problem_hash[m] && why != NULL)
            log_msg(&s->relay->log, LOG_LVL_WARNING, "source %s: metric %s.%s: %s", s->dir,
                    s->meta->prefix, s->meta->metrics[m].name, why);
        s->problem_hash[m] = h;
    }
    /* no current problem: a stream's sequence reset is the latest one (it
     * changed how its records are counted, so it stays to be seen) */
    for (size_t i = 0; first && s->last_error[0] == '\0' && s->streams != NULL &&
                       i < s->meta->nevents; i++)
        if (s->streams[i] != NULL && s->streams[i]->last_seq_reset[0] != '\0')
            snprintf(s->last_error, sizeof(s->last_error), "event %s: %s",
                     s->meta->events[i].name, s->streams[i]->last_seq_reset);
}

/* ---- memory budget ------------------------------------------------------ */

bool source_untrusted(const source *s)
{
    return !s->trusted && !s->stap_module;
}

static size_t streams_bytes(const source *s)
{
    size_t n = 0;
    for (size_t i = 0; s->streams != NULL && s->meta != NULL && i < s->meta->nevents; i++) {
        const event_stream *es = s->streams[i];
        if (es == NULL)
            continue;
        evqueue_stats st;
        evqueue_get_stats(es->queue, &st);
        n += (size_t)st.bytes + (es->stacks != NULL ? stackcount_bytes(es->stacks) : 0);
    }
    return n;
}

static size_t held_now(const source *s)
{
    return (s->meta != NULL ? s->meta->bytes : 0) + (s->snap != NULL ? s->snap->bytes : 0) +
           streams_bytes(s);
}

static size_t room_left(size_t limit, size_t used)
{
    return limit > used ? limit - used : 0;
}

size_t source_allowance(const source *s)
{
    const relay *r = s->relay;
    const relay_config *cfg = r->cfg;
    size_t room = cfg->max_source_memory;
    size_t total = room_left(cfg->max_total_memory, r->mem_total - s->mem_held);
    if (total < room)
        room = total;
    if (source_untrusted(s)) {
        size_t half = room_left(cfg->max_total_memory / 2, r->mem_untrusted - s->mem_held);
        if (half < room)
            room = half;
    }
    return room;
}

/* Each event stream's share of what the values and metadata leave: a
 * quarter for its stack table, the rest (up to event_queue_size) for
 * its queue.  Shrinking evicts the oldest records and coldest stacks. */
static void share_among_streams(source *s)
{
    if (s->streams == NULL || s->meta == NULL || s->meta->nevents == 0)
        return;
    size_t fixed = s->meta->bytes + (s->snap != NULL ? s->snap->bytes : 0);
    size_t share = room_left(source_allowance(s), fixed) / s->meta->nevents;
    size_t queue = share - share / 4;
    if (queue > s->relay->cfg->event_queue_size)
        queue = s->relay->cfg->event_queue_size;
    for (size_t i = 0; i < s->meta->nevents; i++) {
        event_stream *es = s->streams[i];
        if (es == NULL)
            continue;
        evqueue_set_max_bytes(es->queue, queue);
        if (es->stacks != NULL)
            stackcount_set_max_bytes(es->stacks, share / 4);
    }
}

void source_account(source *s)
{
    relay *r = s->relay;
    share_among_streams(s);
    size_t now = held_now(s);
    r->mem_total = r->mem_total - s->mem_held + now;
    if (source_untrusted(s))
        r->mem_untrusted = r->mem_untrusted - s->mem_held + now;
    s->mem_held = now;
}

/* Why values could not be kept: the budget that ran out (the document's
 * parse, or what the source may hold). */
static void refuse_for_memory(source *s, const char *what, bool holding)
{
    const relay_config *cfg = s->relay->cfg;
    s->stats.memory_refusals++;
    drop_snapshot(s);
    if (!holding)
        set_error(s, SRC_ERROR, "data: %s", what);
    else
        set_error(s, SRC_ERROR, "data: %s: this source may hold %zu bytes now "
                  "(max_source_memory %zu; max_total_memory %zu, %zu held by all sources, "
                  "%zu by untrusted ones, which may hold half)", what, source_allowance(s),
                  cfg->max_source_memory, cfg->max_total_memory, s->relay->mem_total,
                  s->relay->mem_untrusted);
}

/* Run the refreshes of the streams' stacks counters that are due, and
 * close the subsecond columns that are over.  Called every poll and right
 * after a read took records: a stream's first stacks are due as soon as
 * they arrive, so they show with the records that brought them rather
 * than a poll later (a client that saw events.received move and then read
 * .stacks found only [other]: qa 101 on a fast machine). */
static void tick_streams(source *s)
{
    if (s->streams == NULL || s->meta == NULL)
        return;
    double now = ev_time();
    for (size_t i = 0; i < s->meta->nevents; i++)
        if (s->streams[i] != NULL && s->streams[i]->stacks != NULL) {
            uint64_t g = stackcount_generation(s->streams[i]->stacks);
            stackcount_tick(s->streams[i]->stacks, now);
            subsecond_close(s->streams[i]->subsec, now);
            if (stackcount_generation(s->streams[i]->stacks) != g)
                s->relay->data_dirty = true;
        }
}

/* Parse a document and install it as the new snapshot.  The document
 * itself is released here: only what the metrics read stays. */
static void accept_document(source *s, const char *text, size_t len)
{
    json_error_t jerr;
    char why[400];
    jsondoc_arena arena = JSONDOC_ARENA_INIT;
    json_t *doc = jsondoc_parse_arena(text, len, s->relay->cfg->max_document_memory, &arena,
                                      &jerr, why, sizeof(why));
    if (doc == NULL && jerr.line == 0 && jerr.text[0] == '\0') {
        refuse_for_memory(s, why, false);   /* refused before parsing: its shape costs too much */
        return;
    }
    if (doc == NULL) {
        s->stats.parse_errors++;
        drop_snapshot(s);
        /* a document that ends mid-value at a power-of-two size was most
         * likely cut by a producer's size cap (the json tapset's 8192) */
        char hint[160] = "";
        if (len >= 1024 && (size_t)jerr.position >= len && (len & (len - 1)) == 0)
            snprintf(hint, sizeof(hint), " (the document stops at exactly %zu bytes: cut by "
                     "the producer's size cap?)", len);
        set_error(s, SRC_ERROR, "data: %s%s", why, hint);
        return;
    }
    /* the values come first: the queues give way to them */
    size_t room = room_left(source_allowance(s), s->meta->bytes);
    snapshot *snap = snapshot_build_limited(s->meta, doc, room, why, sizeof(why));
    if (snap == NULL) {
        jsondoc_arena_release(&arena);
        if (strcmp(why, "out of memory") == 0) {
            drop_snapshot(s);
            set_error(s, SRC_ERROR, "data: out of memory");
        } else {
            refuse_for_memory(s, why, true);
        }
        source_account(s);
        return;
    }
    drop_snapshot(s);
    s->snap = snap;
    source_account(s);   /* the streams' share follows the new values */
    if (s->streams != NULL) {
        int64_t now_ns = (int64_t)(ev_time() * 1e9);
        for (size_t i = 0; i < s->meta->nevents; i++)
            if (s->streams[i] != NULL)
                event_stream_ingest(s->streams[i], doc, now_ns, &s->relay->log, s->dir);
        tick_streams(s);
    }
    jsondoc_arena_release(&arena);
    source_account(s);
    s->generation++;
    s->relay->data_dirty = true;
    s->last_ok = ev_now(s->relay->loop);
    s->state = SRC_OK;
    note_metric_problems(s);
}

/* An unchanged regular file need not be parsed again; generated files
 * (procfs reports size 0) and FIFOs always are. */
static bool generated_file(const char *path, const struct stat *st)
{
    return !S_ISREG(st->st_mode) || strncmp(path, "/proc/", 6) == 0;
}

static bool file_unchanged(source *s)
{
    struct stat st;
    /* a module's files are generated per read wherever its root is mounted */
    if (stat(s->data_file, &st) != 0 || s->stap_module || generated_file(s->data_file, &st)) {
        s->data_st_valid = false;
        return false;
    }
    /* a broken file that has not changed stays broken: parsing it again
     * would only count the same error twice */
    bool same = s->data_st_valid && same_stat(&st, &s->data_st);
    s->data_st = st;
    s->data_st_valid = true;
    if (same && s->snap != NULL)
        s->last_ok = ev_now(s->relay->loop);   /* checked: still current */
    return same;
}

static void data_fifo_result(void *arg, doc_status st, const char *buf, size_t len, const char *err)
{
    source *s = arg;
    s->data_fifo = NULL;
    if (!reads_data(s))
        return;   /* it lost its metadata or its prefix meanwhile */
    if (st == DOC_BUSY) {
        /* No writer this time; the next poll retries.  stapbpf may miss a
         * read while busy, but values older than a few polls are stale:
         * then the source has no values until a writer answers again. */
        double age = ev_now(s->relay->loop) - s->last_ok;
        if (s->snap != NULL && age > FIFO_STALE_POLLS * s->relay->cfg->poll_interval) {
            s->stats.read_errors++;
            drop_snapshot(s);
            set_error(s, SRC_ERROR, "data: no document from the FIFO for %.1f s (%s): no values "
                      "until a writer answers", age, err);
        }
        return;
    }
    if (st != DOC_OK) {
        s->stats.read_errors++;
        drop_snapshot(s);
        set_error(s, SRC_ERROR, "data: %s", err);
        return;
    }
    accept_document(s, buf, len);
}

/* Results that arrive outside a poll settle at once, so the host's
 * instance tables follow the data in the loop, not on a fetch. */
static void on_data_fifo(void *arg, doc_status st, const char *buf, size_t len, const char *err)
{
    data_fifo_result(arg, st, buf, len, err);
    relay_settle(((source *)arg)->relay);
}

/* The source directory is being removed (rm -rf unlinks the files first,
 * then the directory): a missing file then is the next discovery's
 * business, not a read error to log and count. */
static bool source_vanishing(const source *s)
{
    char path[PATH_MAX];
    struct stat st;
    snprintf(path, sizeof(path), "%s/metadata.json", s->dir);
    return stat(path, &st) != 0 && errno == ENOENT;
}

static void read_file(source *s)
{
    char *text, err[512];
    size_t len;
    if (s->data_fifo != NULL)
        return;   /* the previous read is still waiting for its writer */
    if (file_unchanged(s))
        return;
    s->stats.reads++;
    /* confined for untrusted sources: a link to a FIFO elsewhere is
     * refused before it is opened */
    struct stat st;
    int fd = open_source_file(s, s->data_file, &st, err, sizeof(err));
    if (fd < 0) {
        if (open_status(errno) == DOC_BUSY)
            return;   /* another reader holds it; the next poll retries */
        s->data_st_valid = false;
        if (!s->stap_module && errno == ENOENT && source_vanishing(s)) {
            drop_snapshot(s);
            return;
        }
        s->stats.read_errors++;
        drop_snapshot(s);
        set_error(s, SRC_ERROR, "data: %s", err);
        return;
    }
    if (S_ISFIFO(st.st_mode)) {
        s->data_fifo = fiforead_start_fd(s->relay->loop, fd, s->data_file,
                                         s->relay->cfg->max_document_size, fifo_timeout(s),
                                         on_data_fifo, s, err, sizeof(err));
        if (s->data_fifo == NULL) {
            s->stats.read_errors++;
            drop_snapshot(s);
            set_error(s, SRC_ERROR, "data: %s", err);
        }
        return;
    }
    /* the identity of what is parsed, not of what the path showed */
    if (s->data_st_valid)
        s->data_st = st;
    doc_status ds = doc_read_fd(fd, s->data_file, s->relay->cfg->max_document_size, &text, &len,
                                err, sizeof(err));
    if (ds == DOC_BUSY)
        return;   /* another reader holds it; the next poll retries */
    if (ds != DOC_OK && !s->stap_module && source_vanishing(s)) {
        drop_snapshot(s);
        return;
    }
    if (ds != DOC_OK) {
        s->stats.read_errors++;
        drop_snapshot(s);
        set_error(s, SRC_ERROR, "data: %s", err);
        return;
    }
    accept_document(s, text, len);
    free(text);
}

static void on_data_changed(struct ev_loop *loop, ev_stat *w, int revents)
{
    (void)loop; (void)revents;
    source *s = w->data;
    /* A vanished file is the poll's business: the whole source may be
     * going away, which the next discovery sees without a spurious error. */
    if (w->attr.st_nlink == 0)
        return;
    if (reads_data(s) && s->data_file != NULL) {
        read_file(s);
        relay_settle(s->relay);
    }
}

static void exec_result_apply(void *arg, exec_result *res)
{
    source *s = arg;
    s->job = NULL;
    if (!reads_data(s))
        return;   /* it lost its metadata or its prefix meanwhile */
    char why[400];
    bool failed = res->timed_out || res->too_big || !WIFEXITED(res->wait_status) ||
                  WEXITSTATUS(res->wait_status) != 0;
    if (res->timed_out)
        s->stats.exec_timeouts++;
    if (failed) {
        s->stats.read_errors++;
        drop_snapshot(s);
        exec_describe(res, s->relay->cfg->exec_timeout, why, sizeof(why));
        set_error(s, SRC_ERROR, "%s", why);
        return;
    }
    accept_document(s, res->out, res->len);
}

static void on_exec_done(void *arg, exec_result *res)
{
    exec_result_apply(arg, res);
    relay_settle(((source *)arg)->relay);
}

static void start_exec(source *s)
{
    if (s->job != NULL)
        return;   /* still running: its own time-out bounds it */
    relay *r = s->relay;
    exec_opts o = {
        .cwd = s->dir,
        .drop_privileges = !s->trusted,
        .uid = r->exec_uid,
        .gid = r->exec_gid,
        .timeout = r->cfg->exec_timeout,
        .max_output = r->cfg->max_document_size,
        /* nothing it starts outlives it, nor the PMDA */
        .containment = r->cfg->exec_reaper_only ? EXEC_CONTAIN_REAPER : EXEC_CONTAIN,
        .parent_death_signal = SIGKILL,
        .max_processes = r->cfg->exec_max_processes,
    };
    char err[512];
    if (s->trusted && !trusted_ok(s, err, sizeof(err))) {
        /* the tree became unsafe since the metadata was accepted: run
         * nothing, and drop the metrics until it is safe again */
        install_meta(s, NULL, s->meta_print);
        set_error(s, SRC_REJECTED, "%s", err);
        relay_mark_namespace_dirty(r);
        return;
    }
    if (!s->trusted && !r->exec_user_ok) {
        s->stats.read_errors++;
        set_error(s, SRC_ERROR, "data-exec: user \"%s\" not found; untrusted commands "
                  "are never run as root", r->cfg->exec_user);
        return;
    }
    s->stats.reads++;
    s->job = exec_start(r->loop, s->meta->data_exec, &o, on_exec_done, s, err, sizeof(err));
    if (s->job == NULL) {
        s->stats.read_errors++;
        drop_snapshot(s);
        set_error(s, SRC_ERROR, "data-exec: %s", err);
    }
}

static void ensure_watch(source *s)
{
    /* inotify cannot see procfs changes; those sources are polled */
    if (s->watching || s->data_file == NULL || s->stap_module ||
        strncmp(s->data_file, "/proc/", 6) == 0)
        return;
    ev_stat_init(&s->data_watch, on_data_changed, s->data_file, s->relay->cfg->poll_interval);
    s->data_watch.data = s;
    ev_stat_start(s->relay->loop, &s->data_watch);
    s->watching = true;
}

void source_refresh_data(source *s)
{
    source_account(s);   /* queues shrink as clients read: start from what is held now */
    if (s->meta == NULL || s->state == SRC_DUPLICATE || s->state == SRC_REJECTED)
        return;
    tick_streams(s);
    if (s->state == SRC_VANISHED)
        return;   /* its stacks counter still refreshes */
    if (s->meta->data_exec != NULL && !s->stap_module) {
        start_exec(s);
        return;
    }
    ensure_watch(s);
    read_file(s);
}
