/* confine: race-free confined opens for untrusted sources. */
#include "relay/confine.h"

#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <limits.h>
#include <linux/openat2.h>
#include <pwd.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/fsuid.h>
#include <sys/syscall.h>
#include <unistd.h>

#define READ_FLAGS (O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY)

/* The group of a uid with no passwd entry: the kernel's overflow gid,
 * "nogroup" on Debian, which owns nothing. */
#define NO_GROUP ((gid_t)65534)

/* PATH below ROOT, lexically: "" for ROOT itself, NULL when not below. */
static const char *below(const char *root, const char *path)
{
    size_t n = strlen(root);
    while (n > 1 && root[n - 1] == '/')
        n--;
    const char *p;
    if (n == 1 && root[0] == '/') {
        p = path;
    } else {
        if (strncmp(path, root, n) != 0 || (path[n] != '/' && path[n] != '\0'))
            return NULL;
        p = path + n;
    }
    if (*p != '/' && *p != '\0')
        return NULL;
    while (*p == '/')
        p++;
    return p;
}

/* The source directory, reached from the root without following any
 * symbolic link (discovery never follows one below a root either). */
static int open_dir_nofollow(int rootfd, const char *rel)
{
    int fd = fcntl(rootfd, F_DUPFD_CLOEXEC, 0);
    const char *p = rel;
    while (fd >= 0 && *p != '\0') {
        size_t n = strcspn(p, "/");
        char comp[NAME_MAX + 1];
        if (n > NAME_MAX) {
            close(fd);
            errno = ENAMETOOLONG;
            return -1;
        }
        memcpy(comp, p, n);
        comp[n] = '\0';
        p += n;
        while (*p == '/')
            p++;
        if (strcmp(comp, ".") == 0)
            continue;
        if (strcmp(comp, "..") == 0) {
            close(fd);
            errno = EXDEV;
            return -1;
        }
        int next = openat(fd, comp, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        int e = errno;
        close(fd);
        fd = next;
        errno = e;
    }
    return fd;
}

typedef struct reader {
    uid_t uid;
    gid_t gid;
    bool fallback;       /* the directory is root's: read as exec_user */
} reader;

static int choose_reader(int dirfd, const confine_reader *fb, reader *rd)
{
    struct stat st;
    if (fstat(dirfd, &st) != 0)
        return -1;
    if (!S_ISDIR(st.st_mode)) {
        errno = ENOTDIR;
        return -1;
    }
    if (st.st_uid == 0) {
        if (fb == NULL || !fb->ok) {
            errno = EACCES;
            return -1;
        }
        *rd = (reader){fb->uid, fb->gid, true};
        return 0;
    }
    /* the owner's primary group, not the directory's: a directory made
     * inside a setgid directory inherits a group its owner is not in */
    struct passwd pw, *res = NULL;
    char buf[4096];
    gid_t gid = fb != NULL && fb->ok ? fb->gid : NO_GROUP;
    if (getpwuid_r(st.st_uid, &pw, buf, sizeof(buf), &res) == 0 && res != NULL)
        gid = pw.pw_gid;
    *rd = (reader){st.st_uid, gid, false};
    return 0;
}

typedef struct saved_ids {
    gid_t *groups;
    int ngroups;
    bool active;
} saved_ids;

/* File-system uid and gid of the reader and no supplementary groups: the
 * kernel's permission checks are then the reader's.  (setfsuid away from
 * 0 also clears CAP_DAC_OVERRIDE and CAP_DAC_READ_SEARCH until it is set
 * back.)  The loop is single-threaded: nothing else runs meanwhile. */
static int become_reader(const reader *rd, saved_ids *sv)
{
    memset(sv, 0, sizeof(*sv));
    if (geteuid() != 0)
        return 0;   /* no privilege to drop: reads as itself */
    int n = getgroups(0, NULL);
    if (n < 0)
        return -1;
    sv->groups = malloc((size_t)(n > 0 ? n : 1) * sizeof(gid_t));
    if (sv->groups == NULL)
        return -1;
    n = getgroups(n, sv->groups);
    if (n < 0 || setgroups(0, NULL) != 0) {
        free(sv->groups);
        return -1;
    }
    sv->ngroups = n;
    sv->active = true;
    setfsgid(rd->gid);
    setfsuid(rd->uid);
    /* both calls return the previous value: ask again to see it took */
    if ((uid_t)setfsuid((uid_t)-1) != rd->uid || (gid_t)setfsgid((gid_t)-1) != rd->gid) {
        errno = EPERM;
        return -1;
    }
    return 0;
}

static void become_root_again(saved_ids *sv)
{
    if (!sv->active)
        return;
    setfsuid(geteuid());
    setfsgid(getegid());
    if (setgroups((size_t)sv->ngroups, sv->groups) != 0) {
        /* cannot fail as root; fewer groups would only mean less access */
    }
    free(sv->groups);
    sv->active = false;
}

static bool fd_path(int fd, char *buf, size_t buflen)
{
    char link[64];
    snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
    ssize_t n = readlink(link, buf, buflen - 1);
    if (n < 0 || (size_t)n >= buflen - 1)
        return false;
    buf[n] = '\0';
    return true;
}

/* Does what fd refers to lie inside the directory rootfd refers to? */
static bool fd_inside(int fd, int rootfd)
{
    char fpath[PATH_MAX + 1], rpath[PATH_MAX + 1];
    if (!fd_path(fd, fpath, sizeof(fpath)) || !fd_path(rootfd, rpath, sizeof(rpath)) ||
        fpath[0] != '/')
        return false;
    size_t n = strlen(rpath);
    if (n == 1)
        return true;   /* the root is / */
    return strncmp(fpath, rpath, n) == 0 && fpath[n] == '/';
}

/* Open what the path leads to as a path only (no I/O: a FIFO outside is
 * not opened, its writer not woken), check where it is, then open it for
 * reading through the descriptor, with the same permission checks. */
static int open_then_check(int rootfd, const char *rel)
{
    int pfd = openat(rootfd, rel, O_PATH | O_CLOEXEC);
    if (pfd < 0)
        return -1;
    if (!fd_inside(pfd, rootfd)) {
        close(pfd);
        errno = EXDEV;
        return -1;
    }
    char link[64];
    snprintf(link, sizeof(link), "/proc/self/fd/%d", pfd);
    int fd = open(link, READ_FLAGS);
    int e = errno;
    close(pfd);
    errno = e;
    return fd;
}

static int open_beneath(int rootfd, const char *rel)
{
    struct open_how how = {
        .flags = READ_FLAGS,
        .resolve = RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS,
    };
    return (int)syscall(SYS_openat2, rootfd, rel, &how, sizeof(how));
}

static void describe_reader(const reader *rd, char *buf, size_t buflen)
{
    if (rd->fallback)
        snprintf(buf, buflen, "exec_user (uid %u), as the directory is root's",
                 (unsigned)rd->uid);
    else
        snprintf(buf, buflen, "uid %u, the source directory's owner", (unsigned)rd->uid);
}

static int plain_open(const char *path, struct stat *st, char *err, size_t errlen)
{
    int fd = open(path, READ_FLAGS);
    if (fd < 0) {
        int e = errno;
        snprintf(err, errlen, "cannot open %s: %s", path, strerror(e));
        errno = e;
        return -1;
    }
    if (fstat(fd, st) != 0 || S_ISDIR(st->st_mode)) {
        close(fd);
        snprintf(err, errlen, "%s is a directory", path);
        errno = EISDIR;
        return -1;
    }
    return fd;
}

static int fail(int e, char *err, size_t errlen, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static int fail(int e, char *err, size_t errlen, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, errlen, fmt, ap);
    va_end(ap);
    errno = e;
    return -1;
}

#define OUTSIDE "%s leads outside %s: untrusted sources may not read files elsewhere"

static int confined_open(const char *root, const char *dir, const char *path,
                         const confine_reader *fb, bool use_openat2, struct stat *st,
                         char *err, size_t errlen)
{
    const char *reldir = below(root, dir), *rel = below(root, path);
    if (reldir == NULL || rel == NULL || *rel == '\0')
        return fail(EXDEV, err, errlen, OUTSIDE, path, root);
    int rootfd = open(root, O_PATH | O_DIRECTORY | O_CLOEXEC);
    if (rootfd < 0)
        return fail(errno, err, errlen, "cannot open %s: %s", root, strerror(errno));
    int dirfd = open_dir_nofollow(rootfd, reldir);
    reader rd;
    if (dirfd < 0 || choose_reader(dirfd, fb, &rd) != 0) {
        int e = errno;
        if (dirfd >= 0)
            close(dirfd);
        close(rootfd);
        if (e == EACCES)
            return fail(e, err, errlen, "%s: the source directory is root's and exec_user does "
                        "not exist, so nobody may read it", dir);
        if (e == ENOTDIR || e == ELOOP || e == EXDEV)
            return fail(EXDEV, err, errlen, "%s: something other than a directory (a symbolic "
                        "link?) on the way from %s: untrusted sources may not read files "
                        "elsewhere", dir, root);
        return fail(e, err, errlen, "cannot open %s: %s", dir, strerror(e));
    }
    close(dirfd);
    saved_ids sv;
    int fd = -1, e = 0;
    if (become_reader(&rd, &sv) != 0) {
        e = errno;
        become_root_again(&sv);
        close(rootfd);
        return fail(e, err, errlen, "cannot take the reader's identity for %s: %s", path,
                    strerror(e));
    }
    if (use_openat2) {
        fd = open_beneath(rootfd, rel);
        e = errno;
    }
    /* openat2 refuses an absolute link even to a file inside, and older
     * kernels lack it: open, then look at what was opened */
    if (!use_openat2 || (fd < 0 && (e == EXDEV || e == ENOSYS))) {
        fd = open_then_check(rootfd, rel);
        e = errno;
    }
    become_root_again(&sv);
    close(rootfd);
    if (fd < 0) {
        char who[128];
        describe_reader(&rd, who, sizeof(who));
        if (e == EXDEV)
            return fail(e, err, errlen, OUTSIDE, path, root);
        if (e == EACCES || e == EPERM)
            return fail(e, err, errlen, "cannot open %s: permission denied to %s: an untrusted "
                        "source reads only what its directory's owner may read", path, who);
        return fail(e, err, errlen, "cannot open %s: %s", path, strerror(e));
    }
    if (fstat(fd, st) != 0)
        memset(st, 0, sizeof(*st));
    if (!(S_ISREG(st->st_mode) || S_ISFIFO(st->st_mode))) {
        bool isdir = S_ISDIR(st->st_mode);
        close(fd);
        return fail(isdir ? EISDIR : EINVAL, err, errlen, "%s %s", path,
                    isdir ? "is a directory" : "is neither a regular file nor a named pipe");
    }
    return fd;
}

int confine_open(const char *root, const char *dir, const char *path,
                 const confine_reader *fallback, struct stat *st, char *err, size_t errlen)
{
    if (root == NULL)
        return plain_open(path, st, err, errlen);
    return confined_open(root, dir, path, fallback, true, st, err, errlen);
}

int confine_open_checked(const char *root, const char *dir, const char *path,
                         const confine_reader *fallback, struct stat *st, char *err,
                         size_t errlen)
{
    if (root == NULL)
        return plain_open(path, st, err, errlen);
    return confined_open(root, dir, path, fallback, false, st, err, errlen);
}
