/* confine: open a file of an untrusted source, so that what is opened
 * lies inside the source's configured directory (its root) and may be
 * read by the owner of the source's directory, however the file is
 * reached (symbolic link, hard link, bind mount) and whatever the
 * directory's writers swap in meanwhile.
 *
 * The PMDA runs as root and an untrusted root (pmdajson's mode 1777
 * directory, a user's /var/tmp/systemtap-USER) is writable by others, so
 * checking a path and then opening it again is a race the writer wins.
 * Here the open itself is the check:
 *   - the source directory is reached from the root one component at a
 *     time without following any symbolic link, and its owner read from
 *     the descriptor (not from a path someone may re-point);
 *   - the file is opened with the file-system uid and gid of that owner
 *     (or of the fallback reader, normally exec_user, when root owns the
 *     directory: an untrusted source never reads with root's privilege)
 *     and no supplementary groups, so the kernel refuses whatever the
 *     owner could not read themselves;
 *   - the kernel resolves the path beneath the root (openat2
 *     RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS); a path it refuses (an
 *     absolute link, or a kernel without openat2) is opened normally and
 *     the descriptor's own path (/proc/self/fd) must then lie inside the
 *     root;
 *   - only a regular file or a named pipe is accepted.
 * A relay that is not root cannot switch identities and has no privilege
 * to guard: it reads as itself, still confined to the root. */
#ifndef STAPRELAY_CONFINE_H
#define STAPRELAY_CONFINE_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/stat.h>
#include <sys/types.h>

/* Who reads a root-owned untrusted directory (normally exec_user). */
typedef struct confine_reader {
    bool ok;             /* false: no such user, root-owned directories are refused */
    uid_t uid;
    gid_t gid;
} confine_reader;

/* Open PATH for reading (non-blocking, close-on-exec): a file of the
 * source whose directory DIR was found under ROOT.  ROOT NULL means no
 * confinement (a trusted source, root's SystemTap module): a plain open.
 * Returns the descriptor, its fstat in *st; or -1 with errno set (EXDEV:
 * outside the root; EACCES: the reader may not read it; EBUSY/EAGAIN: a
 * busy procfs file, retry later; others as open(2)) and a reason in err. */
int confine_open(const char *root, const char *dir, const char *path,
                 const confine_reader *fallback, struct stat *st, char *err, size_t errlen);

/* As confine_open, but never through openat2: the path is opened
 * normally and checked through /proc/self/fd.  For tests of the fallback
 * taken on kernels without openat2. */
int confine_open_checked(const char *root, const char *dir, const char *path,
                         const confine_reader *fallback, struct stat *st, char *err,
                         size_t errlen);

#endif
