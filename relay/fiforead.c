/* fiforead: asynchronous whole-document reads from named pipes. */
#include "relay/fiforead.h"

#include <errno.h>
#include <stdbool.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct fiforead {
    struct ev_loop *loop;
    ev_io io_w;
    ev_timer timer_w;
    int fd;
    char *buf;
    size_t len, cap, max;
    char path[1024];
    double timeout;
    /* where the first JSON value ends: a writer may serve the document
     * again while we still hold the pipe, so we stop after one */
    size_t scanned;
    int depth;
    bool in_string, escaped, started;
    bool bad_start;   /* something before the first '{' or '[' */
    fiforead_done_fn done;
    void *arg;
};

static void release(fiforead *fr)
{
    ev_io_stop(fr->loop, &fr->io_w);
    ev_timer_stop(fr->loop, &fr->timer_w);
    if (fr->fd >= 0)
        close(fr->fd);
    free(fr->buf);
    free(fr);
}

static void finish(fiforead *fr, doc_status st, const char *err)
{
    /* close first: the writer must never wait on us */
    ev_io_stop(fr->loop, &fr->io_w);
    close(fr->fd);
    fr->fd = -1;
    if (st == DOC_OK)
        fr->buf[fr->len] = '\0';
    fr->done(fr->arg, st, st == DOC_OK ? fr->buf : NULL, fr->len, err);
    release(fr);
}

/* Scan new bytes; returns the length of the first complete top-level
 * JSON object or array, or 0 while it is incomplete.  Bytes other than
 * blanks before it set bad_start: a reader that gave up mid-document
 * leaves the rest in the pipe for the next one (the writer still had
 * it), and that tail must not be read as a document of its own. */
static size_t document_end(fiforead *fr)
{
    for (; fr->scanned < fr->len; fr->scanned++) {
        char c = fr->buf[fr->scanned];
        if (!fr->started && c != '{' && c != '[') {
            if (c != ' ' && c != '\t' && c != '\n' && c != '\r') {
                fr->bad_start = true;
                return 0;
            }
            continue;
        }
        if (fr->in_string) {
            if (fr->escaped)
                fr->escaped = false;
            else if (c == '\\')
                fr->escaped = true;
            else if (c == '"')
                fr->in_string = false;
        } else if (c == '"') {
            fr->in_string = true;
        } else if (c == '{' || c == '[') {
            fr->depth++;
            fr->started = true;
        } else if (c == '}' || c == ']') {
            if (--fr->depth == 0 && fr->started)
                return ++fr->scanned;
        }
    }
    return 0;
}

static void on_readable(struct ev_loop *loop, ev_io *w, int revents)
{
    (void)loop; (void)revents;
    fiforead *fr = w->data;
    char err[1200];
    for (;;) {
        if (fr->cap - fr->len < 4096) {
            if (fr->cap > fr->max) {
                snprintf(err, sizeof(err), "%s is larger than max_document_size (%zu bytes)",
                         fr->path, fr->max);
                finish(fr, DOC_TOOBIG, err);
                return;
            }
            char *nb = realloc(fr->buf, fr->cap * 2 + 1);
            if (nb == NULL) {
                finish(fr, DOC_ERROR, "out of memory");
                return;
            }
            fr->buf = nb;
            fr->cap *= 2;
        }
        ssize_t n = read(fr->fd, fr->buf + fr->len, fr->cap - fr->len);
        if (n > 0) {
            fr->len += (size_t)n;
            size_t end = document_end(fr);
            if (fr->bad_start) {
                /* an error, not a retry: a writer that never sends JSON
                 * must be seen (a metadata pipe would otherwise wait
                 * forever without a word) */
                snprintf(err, sizeof(err), "%s does not begin with a JSON object or array (the "
                         "rest of a document an earlier read gave up on?)", fr->path);
                finish(fr, DOC_ERROR, err);
                return;
            }
            if (end > 0) {
                fr->len = end;
                finish(fr, DOC_OK, NULL);
                return;
            }
            continue;
        }
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0 && errno == EAGAIN)
            return;   /* the writer is still producing */
        if (n < 0) {
            snprintf(err, sizeof(err), "cannot read %s: %s", fr->path, strerror(errno));
            finish(fr, DOC_ERROR, err);
            return;
        }
        /* EOF: the writer closed.  Nothing at all means it went away
         * without writing (a module stopping): try again next poll. */
        if (fr->len == 0) {
            snprintf(err, sizeof(err), "%s: writer closed without data, will retry", fr->path);
            finish(fr, DOC_BUSY, err);
        } else {
            finish(fr, DOC_OK, NULL);
        }
        return;
    }
}

static void on_timeout(struct ev_loop *loop, ev_timer *w, int revents)
{
    (void)loop; (void)revents;
    fiforead *fr = w->data;
    char err[1200];
    snprintf(err, sizeof(err), "%s: no complete document within %.3gs, will retry", fr->path,
             fr->timeout);
    finish(fr, fr->len > 0 ? DOC_ERROR : DOC_BUSY, err);
}

fiforead *fiforead_start(struct ev_loop *loop, const char *path, size_t max, double timeout,
                         fiforead_done_fn done, void *arg, char *err, size_t errlen)
{
    /* O_NONBLOCK: opening a FIFO for reading never waits for a writer;
     * readiness comes once the writer has connected and written. */
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
    if (fd < 0) {
        snprintf(err, errlen, "cannot open %s: %s", path, strerror(errno));
        return NULL;
    }
    return fiforead_start_fd(loop, fd, path, max, timeout, done, arg, err, errlen);
}

fiforead *fiforead_start_fd(struct ev_loop *loop, int fd, const char *path, size_t max,
                            double timeout, fiforead_done_fn done, void *arg, char *err,
                            size_t errlen)
{
    fiforead *fr = calloc(1, sizeof(*fr));
    if (fr != NULL) {
        fr->cap = 8192;
        fr->buf = malloc(fr->cap + 1);
    }
    if (fr == NULL || fr->buf == NULL) {
        snprintf(err, errlen, "out of memory");
        close(fd);
        free(fr);
        return NULL;
    }
    fr->fd = fd;
    fr->loop = loop;
    fr->max = max;
    fr->done = done;
    fr->arg = arg;
    snprintf(fr->path, sizeof(fr->path), "%s", path);
    ev_io_init(&fr->io_w, on_readable, fr->fd, EV_READ);
    ev_timer_init(&fr->timer_w, on_timeout, timeout, 0.);
    fr->timeout = timeout;
    fr->io_w.data = fr->timer_w.data = fr;
    ev_io_start(loop, &fr->io_w);
    ev_timer_start(loop, &fr->timer_w);
    return fr;
}

void fiforead_cancel(fiforead *fr)
{
    if (fr != NULL)
        release(fr);
}
