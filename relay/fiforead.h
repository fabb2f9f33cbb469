/* fiforead: read one document from a FIFO without blocking the loop.
 *
 * SystemTap's BPF runtime serves procfs probes as named pipes: stapbpf
 * runs the read probe when a reader opens the pipe, writes the document
 * and closes its end.  We open non-blocking, collect what arrives through
 * libev until the writer closes (EOF), and give up after a time-out; the
 * pipe is closed as soon as we are done, because stapbpf spins while a
 * reader holds it open.  The callback fires exactly once unless cancelled. */
#ifndef STAPRELAY_FIFOREAD_H
#define STAPRELAY_FIFOREAD_H

#include "relay/docread.h"

#include <ev.h>
#include <stddef.h>

/* status: DOC_OK (buf/len valid, NUL-terminated, freed by the library
 * after the callback returns: the first whole JSON object or array), DOC_TOOBIG,
 * DOC_BUSY (no writer within the time-out: retry later), DOC_ERROR (a
 * document begun but not finished in time; what came does not begin with
 * '{' or '[', as the rest of a document an earlier reader gave up on; a
 * read error: err says why).  A tail is never read as a document. */
typedef void (*fiforead_done_fn)(void *arg, doc_status status, const char *buf, size_t len,
                                 const char *err);
typedef struct fiforead fiforead;

fiforead *fiforead_start(struct ev_loop *loop, const char *path, size_t max, double timeout,
                         fiforead_done_fn done, void *arg, char *err, size_t errlen);
/* The same on a FIFO already opened for reading, non-blocking (the read
 * owns fd from here, also when it fails).  path names it in messages. */
fiforead *fiforead_start_fd(struct ev_loop *loop, int fd, const char *path, size_t max,
                            double timeout, fiforead_done_fn done, void *arg, char *err,
                            size_t errlen);
void fiforead_cancel(fiforead *fr);

#endif
