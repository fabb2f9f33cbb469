/* outfile: atomic file replacement (see outfile.h). */
#include "client/util/outfile.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static void hold_signals(sigset_t *saved)
{
    sigset_t s;
    sigemptyset(&s);
    sigaddset(&s, SIGINT);
    sigaddset(&s, SIGTERM);
    sigaddset(&s, SIGHUP);
    sigaddset(&s, SIGQUIT);
    sigprocmask(SIG_BLOCK, &s, saved);
}

static void release(outfile *of)
{
    free(of->tmp);
    free(of->dst);
    of->tmp = of->dst = NULL;
    of->fp = NULL;
    sigprocmask(SIG_SETMASK, &of->saved, NULL);    /* held signals arrive */
}

FILE *outfile_open(outfile *of, const char *dir, const char *name,
                   strbuf *err)
{
    memset(of, 0, sizeof *of);
    strbuf tmp = STRBUF_INIT, dst = STRBUF_INIT;
    sb_printf(&tmp, "%s/.%s.tmpXXXXXX", dir, name);
    sb_printf(&dst, "%s/%s", dir, name);
    hold_signals(&of->saved);
    of->tmp = sb_steal(&tmp);
    of->dst = sb_steal(&dst);
    int fd = mkstemp(of->tmp);
    if (fd < 0) {
        sb_printf(err, "%s: cannot create a temp file: %s", dir,
                  strerror(errno));
        release(of);
        return NULL;
    }
    mode_t um = umask(0);
    umask(um);
    if (fchmod(fd, 0644 & ~um) < 0 || (of->fp = fdopen(fd, "w")) == NULL) {
        sb_printf(err, "%s: %s", of->tmp, strerror(errno));
        close(fd);
        unlink(of->tmp);
        release(of);
        return NULL;
    }
    return of->fp;
}

int outfile_commit(outfile *of, strbuf *err)
{
    if (of->fp == NULL) {
        sb_adds(err, "no output file open");
        return -1;
    }
    int e = 0;              /* first error; -1: one without an errno */
    if (ferror(of->fp))
        e = -1;
    if (e == 0 && fflush(of->fp) != 0)
        e = errno;
    /* the data is on disk before the name points at it */
    if (e == 0 && fsync(fileno(of->fp)) != 0 && errno != EINVAL
        && errno != EROFS)
        e = errno;
    if (fclose(of->fp) != 0 && e == 0)
        e = errno;
    of->fp = NULL;
    int rc = 0;
    if (e != 0) {
        sb_printf(err, "%s: write error%s%s", of->dst, e > 0 ? ": " : "",
                  e > 0 ? strerror(e) : "");
        unlink(of->tmp);
        rc = -1;
    } else if (rename(of->tmp, of->dst) < 0) {
        sb_printf(err, "%s: %s", of->dst, strerror(errno));
        unlink(of->tmp);
        rc = -1;
    }
    release(of);
    return rc;
}

void outfile_abort(outfile *of)
{
    if (of->tmp == NULL)
        return;
    if (of->fp)
        fclose(of->fp);
    unlink(of->tmp);
    release(of);
}

bool outfile_stem_ok(const char *s)
{
    size_t n = s ? strlen(s) : 0;
    if (n == 0 || n > 200 || s[0] == '.' || s[0] == '-')
        return false;
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')
              || (c >= '0' && c <= '9') || c == '.' || c == '_' || c == '+'
              || c == '-'))
            return false;
    }
    return true;
}
