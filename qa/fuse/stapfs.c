/* stapfs: a FUSE filesystem that behaves like SystemTap's kernel-runtime
 * procfs (/proc/systemtap/MODULE/{metadata.json,data.json}) so the relay
 * can be tested on machines that cannot load kernel modules.
 *
 *   stapfs [--short=N] [--cap=N] [--busy=EBUSY|EAGAIN|GHOST] [--log=FILE] SCRIPT MOUNTPOINT
 *          [-f] [-s] [fuse options]
 *
 * What it reproduces (systemtap runtime/procfs*.c):
 *   - the root lists one directory per module; each holds metadata.json
 *     and data.json, mode 0400, st_size 0, a fixed mtime (procfs);
 *   - content is generated per open, from a script: each open of
 *     MODULE/FILE serves the queued document SCRIPT/MODULE/FILE.N with the
 *     smallest N, once (it is then renamed FILE.N.served), or, when none
 *     is queued, SCRIPT/MODULE/FILE as it is at that moment.  So a test
 *     rewrites FILE to change what every later reader sees, and queues
 *     FILE.1, FILE.2 ... for consecutive reads (profile-chunked: two
 *     reads that each drain part of the event queue);
 *   - one open at a time per file (the runtime's single-open lock): a
 *     second concurrent open fails with the busy errno.  The kernel makes
 *     a blocking open wait and fails an O_NONBLOCK one (the relay's kind)
 *     with EAGAIN; a FUSE daemon cannot make an open wait (with -s it
 *     would hang the filesystem), so every second open fails.  The errno
 *     is --busy=EBUSY (default) or --busy=EAGAIN, and a file
 *     SCRIPT/MODULE/busy holding "EAGAIN" or "EBUSY" overrides it for
 *     that module.  --busy=GHOST (or "GHOST" in that file) is what
 *     SystemTap 4.8 really does (qa/vm showed it: procfs.txt in the
 *     real-* fixtures): the second open succeeds without holding the file
 *     (_stp_proc_open_file computes -EAGAIN and returns 0), and its reads
 *     return nothing;
 *   - each module directory also lists ".cmd" (mode 0600, size 0: the
 *     runtime's control file; it cannot be opened here);
 *   - files are seekable: pread within one open reads that open's
 *     snapshot, as simple_read_from_buffer does;
 *   - --short=N: no read() returns more than N bytes;
 *   - --cap=N: a document is cut after N bytes (the stock json tapset's
 *     8192-byte buffer);
 *   - a module vanishing mid-read: a file SCRIPT/MODULE/vanish holding
 *     "OFFSET [ERRNO]" makes the first read of data.json at or past OFFSET
 *     remove the module (SCRIPT/MODULE is renamed SCRIPT/.vanished-MODULE
 *     and its vanish file deleted) and fail with ERRNO (default EIO, what
 *     procfs returns once remove_proc_entry() has run); every later read
 *     on that handle fails the same way.  Bytes before OFFSET are served
 *     normally (reads stop short at OFFSET).  Renaming the directory back
 *     brings the module back.
 * Modules are the directories of SCRIPT not starting with '.'; a module
 * directory disappearing from SCRIPT removes it at once (no caching: all
 * FUSE timeouts are 0).  --log=FILE gets one line per open, busy open
 * ("open MODULE/FILE: EBUSY" or "...: EAGAIN"), vanish and close, for
 * tests to see what the reader did. */
#define FUSE_USE_VERSION 31
#include <fuse.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static struct {
    char *script;          /* absolute */
    unsigned short_read;   /* 0: no limit */
    unsigned cap;          /* 0: no limit */
    char *busy;            /* "EBUSY" (NULL) or "EAGAIN" */
    char *log;
} opt;

static const struct fuse_opt stapfs_opts[] = {
    {"--short=%u", offsetof(typeof(opt), short_read), 0},
    {"--cap=%u", offsetof(typeof(opt), cap), 0},
    {"--busy=%s", offsetof(typeof(opt), busy), 0},
    {"--log=%s", offsetof(typeof(opt), log), 0},
    FUSE_OPT_END,
};

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static FILE *logf;
static struct timespec mount_time;

/* Per file state: opens so far, whether one is open now. */
struct fstate {
    struct fstate *next;
    char key[NAME_MAX * 2 + 8];   /* MODULE/FILE */
    unsigned opens;
    int busy;
};
static struct fstate *states;

struct handle {
    struct fstate *fs;
    int ghost;             /* a GHOST second open: reads nothing, holds nothing */
    char module[NAME_MAX + 1];
    char *data;
    size_t len;
    long vanish_at;        /* -1: no vanish control */
    int vanish_errno;
    int failed;            /* errno once the module vanished under us */
    size_t served;         /* bytes returned so far */
    unsigned reads;        /* read() calls that returned data */
    char key[NAME_MAX * 2 + 8];
};

static void logmsg(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void logmsg(const char *fmt, ...)
{
    if (logf == NULL)
        return;
    va_list ap;
    va_start(ap, fmt);
    vfprintf(logf, fmt, ap);
    va_end(ap);
    fputc('\n', logf);
    fflush(logf);
}

static struct fstate *state_of(const char *key)
{
    for (struct fstate *s = states; s != NULL; s = s->next)
        if (strcmp(s->key, key) == 0)
            return s;
    struct fstate *s = calloc(1, sizeof(*s));
    if (s == NULL)
        return NULL;
    snprintf(s->key, sizeof(s->key), "%s", key);
    s->next = states;
    states = s;
    return s;
}

static int served_file(const char *name)
{
    return strcmp(name, "metadata.json") == 0 || strcmp(name, "data.json") == 0;
}

/* Split "/MODULE/FILE" (either part optional); -ENOENT for deeper paths. */
static int split(const char *path, char *mod, char *file)
{
    mod[0] = file[0] = '\0';
    if (path[0] != '/')
        return -ENOENT;
    const char *p = path + 1;
    if (*p == '\0')
        return 0;
    const char *slash = strchr(p, '/');
    size_t n = slash ? (size_t)(slash - p) : strlen(p);
    if (n == 0 || n > NAME_MAX || p[0] == '.')
        return -ENOENT;
    memcpy(mod, p, n);
    mod[n] = '\0';
    if (slash == NULL)
        return 0;
    p = slash + 1;
    if (strchr(p, '/') != NULL || strlen(p) > NAME_MAX || (!served_file(p) && strcmp(p, ".cmd") != 0))
        return -ENOENT;
    strcpy(file, p);
    return 0;
}

static int module_exists(const char *mod)
{
    char path[PATH_MAX];
    struct stat st;
    snprintf(path, sizeof(path), "%s/%s", opt.script, mod);
    return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

/* The smallest N of a queued SCRIPT/MOD/FILE.N (0: none); its path in
 * path (PATH_MAX bytes) when path is not NULL. */
static unsigned long queued(const char *mod, const char *file, char *path)
{
    char dir[PATH_MAX];
    snprintf(dir, sizeof(dir), "%s/%s", opt.script, mod);
    DIR *d = opendir(dir);
    if (d == NULL)
        return 0;
    size_t fl = strlen(file);
    unsigned long best = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (strncmp(e->d_name, file, fl) != 0 || e->d_name[fl] != '.')
            continue;
        const char *num = e->d_name + fl + 1;
        char *end;
        if (*num < '1' || *num > '9')
            continue;
        unsigned long n = strtoul(num, &end, 10);
        if (*end == '\0' && (best == 0 || n < best))
            best = n;
    }
    closedir(d);
    if (best > 0 && path != NULL &&
        snprintf(path, PATH_MAX, "%s/%s.%lu", dir, file, best) >= PATH_MAX)
        return 0;
    return best;
}

static int script_has(const char *mod, const char *file)
{
    char path[PATH_MAX];
    snprintf(path, sizeof(path), "%s/%s/%s", opt.script, mod, file);
    if (access(path, R_OK) == 0)
        return 1;
    return queued(mod, file, NULL) > 0;
}

static void fill_times(struct stat *st)
{
    st->st_atim = st->st_mtim = st->st_ctim = mount_time;
}

static int sf_getattr(const char *path, struct stat *st, struct fuse_file_info *fi)
{
    (void)fi;
    char mod[NAME_MAX + 1], file[NAME_MAX + 1];
    int rc = split(path, mod, file);
    if (rc != 0)
        return rc;
    memset(st, 0, sizeof(*st));
    st->st_uid = 0;
    st->st_gid = 0;
    fill_times(st);
    if (mod[0] == '\0') {
        st->st_mode = S_IFDIR | 0555;
        st->st_nlink = 2;
        return 0;
    }
    if (!module_exists(mod))
        return -ENOENT;
    if (file[0] == '\0') {
        st->st_mode = S_IFDIR | 0555;
        st->st_nlink = 2;
        return 0;
    }
    if (strcmp(file, ".cmd") == 0) {
        st->st_mode = S_IFREG | 0600;
        st->st_nlink = 1;
        return 0;
    }
    if (!script_has(mod, file))
        return -ENOENT;
    st->st_mode = S_IFREG | 0400;
    st->st_nlink = 1;
    st->st_size = 0;   /* procfs: the size is unknown until read */
    return 0;
}

static int sf_readdir(const char *path, void *buf, fuse_fill_dir_t fill, off_t off,
                      struct fuse_file_info *fi, enum fuse_readdir_flags flags)
{
    (void)off; (void)fi; (void)flags;
    char mod[NAME_MAX + 1], file[NAME_MAX + 1];
    int rc = split(path, mod, file);
    if (rc != 0 || file[0] != '\0')
        return rc != 0 ? rc : -ENOTDIR;
    fill(buf, ".", NULL, 0, 0);
    fill(buf, "..", NULL, 0, 0);
    if (mod[0] != '\0') {
        if (!module_exists(mod))
            return -ENOENT;
        fill(buf, ".cmd", NULL, 0, 0);
        if (script_has(mod, "metadata.json"))
            fill(buf, "metadata.json", NULL, 0, 0);
        if (script_has(mod, "data.json"))
            fill(buf, "data.json", NULL, 0, 0);
        return 0;
    }
    DIR *d = opendir(opt.script);
    if (d == NULL)
        return -errno;
    struct dirent *e;
    while ((e = readdir(d)) != NULL)
        if (e->d_name[0] != '.' && module_exists(e->d_name))
            fill(buf, e->d_name, NULL, 0, 0);
    closedir(d);
    return 0;
}

static char *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (f == NULL)
        return NULL;
    size_t cap = 8192, n = 0;
    char *b = malloc(cap);
    while (b != NULL) {
        size_t r = fread(b + n, 1, cap - n, f);
        n += r;
        if (n < cap)
            break;
        char *nb = realloc(b, cap * 2);
        if (nb == NULL) {
            free(b);
            b = NULL;
            break;
        }
        b = nb;
        cap *= 2;
    }
    fclose(f);
    *len = n;
    return b;
}

static void read_vanish(struct handle *h)
{
    char path[PATH_MAX];
    snprintf(path, sizeof(path), "%s/%s/vanish", opt.script, h->module);
    h->vanish_at = -1;
    h->vanish_errno = EIO;
    FILE *f = fopen(path, "r");
    if (f == NULL)
        return;
    long at;
    int e;
    int n = fscanf(f, "%ld %d", &at, &e);
    fclose(f);
    if (n >= 1 && at >= 0)
        h->vanish_at = at;
    if (n == 2 && e > 0)
        h->vanish_errno = e;
}

/* The errno of a second open of one of MOD's files: SCRIPT/MOD/busy
 * ("EAGAIN", "EBUSY" or "GHOST": 0), else --busy, else EBUSY. */
static int busy_errno(const char *mod)
{
    char path[PATH_MAX], word[16] = "";
    snprintf(path, sizeof(path), "%s/%s/busy", opt.script, mod);
    FILE *f = fopen(path, "r");
    if (f != NULL) {
        if (fscanf(f, "%15s", word) != 1)
            word[0] = '\0';
        fclose(f);
    }
    const char *w = word[0] ? word : opt.busy ? opt.busy : "EBUSY";
    return strcmp(w, "EAGAIN") == 0 ? EAGAIN : strcmp(w, "GHOST") == 0 ? 0 : EBUSY;
}

static int sf_open(const char *path, struct fuse_file_info *fi)
{
    char mod[NAME_MAX + 1], file[NAME_MAX + 1], key[sizeof(mod) + sizeof(file) + 1];
    int rc = split(path, mod, file);
    if (rc != 0)
        return rc;
    if (mod[0] == '\0' || file[0] == '\0')
        return -EISDIR;
    if ((fi->flags & O_ACCMODE) != O_RDONLY || strcmp(file, ".cmd") == 0)
        return -EACCES;
    if (!module_exists(mod) || !script_has(mod, file))
        return -ENOENT;
    snprintf(key, sizeof(key), "%s/%s", mod, file);
    pthread_mutex_lock(&lock);
    struct fstate *fs = state_of(key);
    if (fs == NULL) {
        pthread_mutex_unlock(&lock);
        return -ENOMEM;
    }
    if (fs->busy) {
        int e = busy_errno(mod);
        logmsg("open %s: %s", key, e == EAGAIN ? "EAGAIN" : e ? "EBUSY" : "GHOST");
        if (e == 0) {
            struct handle *g = calloc(1, sizeof(*g));
            if (g == NULL) {
                pthread_mutex_unlock(&lock);
                return -ENOMEM;
            }
            g->ghost = 1;
            g->fs = fs;
            g->vanish_at = -1;
            snprintf(g->key, sizeof(g->key), "%s", key);
            pthread_mutex_unlock(&lock);
            fi->fh = (uint64_t)(uintptr_t)g;
            fi->direct_io = 1;
            return 0;
        }
        pthread_mutex_unlock(&lock);
        return -e;
    }
    unsigned n = ++fs->opens;
    char src[PATH_MAX], done[PATH_MAX + 8];
    int from_queue = queued(mod, file, src) > 0;
    if (!from_queue)
        snprintf(src, sizeof(src), "%s/%s/%s", opt.script, mod, file);
    struct handle *h = calloc(1, sizeof(*h));
    if (h != NULL)
        h->data = slurp(src, &h->len);
    if (h != NULL && h->data != NULL && from_queue) {
        snprintf(done, sizeof(done), "%s.served", src);
        rename(src, done);
    }
    if (h == NULL || h->data == NULL) {
        if (h != NULL)
            free(h);
        fs->opens--;
        pthread_mutex_unlock(&lock);
        return -ENOENT;   /* the script changed under us: as if the module went */
    }
    size_t whole = h->len;
    if (opt.cap > 0 && h->len > opt.cap)
        h->len = opt.cap;
    h->fs = fs;
    snprintf(h->key, sizeof(h->key), "%s", key);
    snprintf(h->module, sizeof(h->module), "%s", mod);
    if (strcmp(file, "data.json") == 0)
        read_vanish(h);
    else
        h->vanish_at = -1;
    fs->busy = 1;
    logmsg("open %s #%u: %s, %zu bytes%s", key, n, strrchr(src, '/') + 1, h->len,
           h->len < whole ? " (cut at the cap)" : "");
    pthread_mutex_unlock(&lock);
    fi->fh = (uint64_t)(uintptr_t)h;
    fi->direct_io = 1;     /* every read() reaches us: short reads stay short */
    fi->keep_cache = 0;
    return 0;
}

static void vanish(struct handle *h)
{
    char from[PATH_MAX], to[PATH_MAX], ctl[PATH_MAX + 16];
    snprintf(from, sizeof(from), "%s/%s", opt.script, h->module);
    snprintf(to, sizeof(to), "%s/.vanished-%s", opt.script, h->module);
    snprintf(ctl, sizeof(ctl), "%s/vanish", to);
    if (rename(from, to) != 0)
        logmsg("vanish %s: rename failed: %s", h->module, strerror(errno));
    unlink(ctl);
    /* a module that comes back is a new module: its reads start over */
    char prefix[NAME_MAX + 2];
    snprintf(prefix, sizeof(prefix), "%s/", h->module);
    for (struct fstate *s = states; s != NULL; s = s->next)
        if (strncmp(s->key, prefix, strlen(prefix)) == 0)
            s->opens = 0;
}

static int sf_read(const char *path, char *buf, size_t size, off_t off,
                   struct fuse_file_info *fi)
{
    (void)path;
    struct handle *h = (struct handle *)(uintptr_t)fi->fh;
    if (h->ghost)
        return 0;
    pthread_mutex_lock(&lock);
    if (h->failed) {
        int e = h->failed;
        pthread_mutex_unlock(&lock);
        return -e;
    }
    if (h->vanish_at >= 0 && off >= h->vanish_at) {
        h->failed = h->vanish_errno;
        logmsg("vanish %s at byte %lld: read fails with %s", h->module, (long long)off,
               strerror(h->failed));
        vanish(h);
        pthread_mutex_unlock(&lock);
        return -h->failed;
    }
    size_t n = 0;
    if (off >= 0 && (size_t)off < h->len) {
        n = h->len - (size_t)off;
        if (n > size)
            n = size;
        if (opt.short_read > 0 && n > opt.short_read)
            n = opt.short_read;
        if (h->vanish_at >= 0 && (size_t)off + n > (size_t)h->vanish_at)
            n = (size_t)h->vanish_at - (size_t)off;
        memcpy(buf, h->data + off, n);
        h->served += n;
        h->reads++;
    }
    pthread_mutex_unlock(&lock);
    return (int)n;
}

static int sf_release(const char *path, struct fuse_file_info *fi)
{
    (void)path;
    struct handle *h = (struct handle *)(uintptr_t)fi->fh;
    if (h->ghost) {
        logmsg("close %s: a ghost open", h->key);
        free(h);
        return 0;
    }
    pthread_mutex_lock(&lock);
    h->fs->busy = 0;
    logmsg("close %s: %zu of %zu bytes in %u reads", h->key, h->served, h->len, h->reads);
    pthread_mutex_unlock(&lock);
    free(h->data);
    free(h);
    return 0;
}

static void *sf_init(struct fuse_conn_info *conn, struct fuse_config *cfg)
{
    (void)conn;
    /* nothing cached: content, modules and their absence are live */
    cfg->entry_timeout = 0;
    cfg->attr_timeout = 0;
    cfg->negative_timeout = 0;
    cfg->direct_io = 1;
    cfg->kernel_cache = 0;
    cfg->use_ino = 0;
    return NULL;
}

static const struct fuse_operations ops = {
    .init = sf_init,
    .getattr = sf_getattr,
    .readdir = sf_readdir,
    .open = sf_open,
    .read = sf_read,
    .release = sf_release,
};

int main(int argc, char **argv)
{
    struct fuse_args args = FUSE_ARGS_INIT(argc, argv);
    if (fuse_opt_parse(&args, &opt, stapfs_opts, NULL) != 0)
        return 2;
    /* the first non-option argument is the script directory */
    int at = -1;
    for (int i = 1; i < args.argc; i++)
        if (args.argv[i][0] != '-') {
            at = i;
            break;
        } else if (strcmp(args.argv[i], "-o") == 0) {
            i++;
        }
    if (at < 0) {
        fprintf(stderr, "usage: stapfs [--short=N] [--cap=N] [--busy=EBUSY|EAGAIN|GHOST] [--log=FILE] "
                "SCRIPT MOUNTPOINT [-f] [-s] [fuse options]\n");
        return 2;
    }
    if (opt.busy != NULL && strcmp(opt.busy, "EBUSY") != 0 && strcmp(opt.busy, "EAGAIN") != 0 &&
        strcmp(opt.busy, "GHOST") != 0) {
        fprintf(stderr, "stapfs: --busy must be EBUSY, EAGAIN or GHOST\n");
        return 2;
    }
    opt.script = realpath(args.argv[at], NULL);
    if (opt.script == NULL) {
        perror(args.argv[at]);
        return 2;
    }
    for (int i = at; i + 1 < args.argc; i++)
        args.argv[i] = args.argv[i + 1];
    args.argc--;
    if (opt.log != NULL && (logf = fopen(opt.log, "a")) == NULL) {
        perror(opt.log);
        return 2;
    }
    clock_gettime(CLOCK_REALTIME, &mount_time);
    mount_time.tv_nsec = 0;
    int rc = fuse_main(args.argc, args.argv, &ops, NULL);
    fuse_opt_free_args(&args);
    return rc;
}
