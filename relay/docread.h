/* docread: read one whole document (metadata.json, data.json, a procfs
 * file) with a size cap, without ever blocking the loop: files are opened
 * non-blocking and closed before returning, so a FIFO or a procfs file is
 * never held open between polls. */
#ifndef STAPRELAY_DOCREAD_H
#define STAPRELAY_DOCREAD_H

#include <stddef.h>

typedef enum {
    DOC_OK = 0,
    DOC_ERROR,     /* cannot open/read: err says why */
    DOC_TOOBIG,    /* more than max bytes */
    DOC_BUSY,      /* nothing to read right now (EAGAIN, EBUSY): retry later */
} doc_status;

/* On DOC_OK *buf is malloc'd (NUL-terminated, owned by the caller). */
doc_status doc_read(const char *path, size_t max, char **buf, size_t *len,
                    char *err, size_t errlen);
/* The same from a descriptor opened for reading (non-blocking); fd is
 * closed before returning.  path names it in messages. */
doc_status doc_read_fd(int fd, const char *path, size_t max, char **buf, size_t *len,
                       char *err, size_t errlen);

#endif
