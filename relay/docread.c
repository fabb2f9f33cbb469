/* docread: bounded, non-blocking whole-file reads. */
#include "relay/docread.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

doc_status doc_read(const char *path, size_t max, char **buf, size_t *len,
                    char *err, size_t errlen)
{
    *buf = NULL;
    *len = 0;
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
    if (fd < 0) {
        int e = errno;
        snprintf(err, errlen, "cannot open %s: %s", path, strerror(e));
        return (e == EBUSY || e == EAGAIN) ? DOC_BUSY : DOC_ERROR;
    }
    return doc_read_fd(fd, path, max, buf, len, err, errlen);
}

doc_status doc_read_fd(int fd, const char *path, size_t max, char **buf, size_t *len,
                       char *err, size_t errlen)
{
    *buf = NULL;
    *len = 0;
    struct stat st;
    if (fstat(fd, &st) != 0)
        memset(&st, 0, sizeof(st));
    if (S_ISDIR(st.st_mode)) {
        close(fd);
        snprintf(err, errlen, "%s is a directory", path);
        return DOC_ERROR;
    }
    /* procfs reports size 0, so st_size is only a hint for the first chunk */
    size_t cap = (S_ISREG(st.st_mode) && st.st_size > 0 && (size_t)st.st_size <= max)
                     ? (size_t)st.st_size + 1 : 8192;
    char *data = malloc(cap + 1);
    size_t used = 0;
    doc_status rc = DOC_OK;
    while (data != NULL) {
        if (used == cap) {
            if (cap > max) {
                rc = DOC_TOOBIG;
                break;
            }
            size_t ncap = cap * 2 > max + 1 ? max + 1 : cap * 2;
            char *nd = realloc(data, ncap + 1);
            if (nd == NULL)
                break;
            data = nd;
            cap = ncap;
        }
        ssize_t n = read(fd, data + used, cap - used);
        if (n > 0) {
            used += (size_t)n;
            continue;
        }
        if (n == 0)
            break;
        if (errno == EINTR)
            continue;
        if (errno == EAGAIN || errno == EBUSY) {
            rc = used == 0 ? DOC_BUSY : DOC_OK;
            if (rc == DOC_BUSY)
                snprintf(err, errlen, "%s: busy, will retry", path);
            break;
        }
        snprintf(err, errlen, "cannot read %s: %s", path, strerror(errno));
        rc = DOC_ERROR;
        break;
    }
    close(fd);
    if (data == NULL) {
        snprintf(err, errlen, "out of memory reading %s", path);
        return DOC_ERROR;
    }
    if (rc == DOC_OK && used > max)
        rc = DOC_TOOBIG;
    if (rc == DOC_TOOBIG)
        snprintf(err, errlen, "%s is larger than max_document_size (%zu bytes)", path, max);
    if (rc != DOC_OK) {
        free(data);
        return rc;
    }
    data[used] = '\0';
    *buf = data;
    *len = used;
    return DOC_OK;
}
