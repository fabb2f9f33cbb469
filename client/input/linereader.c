/* linereader: buffered line input with read-ahead (see linereader.h). */
#include "client/input/linereader.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "common/xalloc.h"

void lr_init(linereader *lr, FILE *fp)
{
    memset(lr, 0, sizeof *lr);
    lr->fp = fp;
}

void lr_free(linereader *lr)
{
    for (size_t i = 0; i < lr->nqueue; i++)
        free(lr->queue[i]);
    free(lr->queue);
    free(lr->queue_len);
    free(lr->buf);
    free(lr->held);
    memset(lr, 0, sizeof *lr);
}

/* Strip a trailing CR; returns the new length. */
static size_t strip_cr(char *line, size_t n)
{
    if (n > 0 && line[n - 1] == '\r')
        line[--n] = '\0';
    return n;
}

/* Move the unread part to the front and read more after it (the chunk
 * grows for a line longer than it); false at the end of the stream. */
static bool read_more(linereader *lr)
{
    if (lr->start > 0) {
        memmove(lr->buf, lr->buf + lr->start, lr->end - lr->start);
        lr->end -= lr->start;
        lr->start = 0;
    }
    if (lr->cap - lr->end < LR_CHUNK / 2) {
        lr->cap = lr->cap ? lr->cap * 2 : LR_CHUNK;
        lr->buf = xrealloc(lr->buf, lr->cap);
    }
    /* one byte stays free: the last line's NUL when no newline ends it */
    size_t got = fread(lr->buf + lr->end, 1, lr->cap - lr->end - 1, lr->fp);
    lr->end += got;
    return got > 0;
}

static ssize_t read_raw(linereader *lr, char **line)
{
    for (;;) {
        char *from = lr->buf + lr->start;
        char *nl = lr->end > lr->start ? memchr(from, '\n', lr->end - lr->start) : NULL;
        if (nl != NULL) {
            *nl = '\0';
            lr->start = (size_t)(nl - lr->buf) + 1;
            *line = from;
            return (ssize_t)strip_cr(from, (size_t)(nl - from));
        }
        if (!lr->eof && read_more(lr))
            continue;
        lr->eof = 1;
        if (lr->start == lr->end)
            return -1;
        /* the last line, without a newline */
        from = lr->buf + lr->start;
        size_t n = lr->end - lr->start;
        from[n] = '\0';
        lr->start = lr->end;
        *line = from;
        return (ssize_t)strip_cr(from, n);
    }
}

size_t lr_fill(linereader *lr, size_t max_lines, size_t max_bytes)
{
    size_t bytes = 0;
    for (size_t i = lr->qpos; i < lr->nqueue; i++)
        bytes += lr->queue_len[i];
    while (lr->nqueue - lr->qpos < max_lines && bytes < max_bytes) {
        char *line;
        ssize_t n = read_raw(lr, &line);
        if (n < 0)
            break;
        if (lr->nqueue == lr->qcap) {
            lr->qcap = lr->qcap ? lr->qcap * 2 : 64;
            lr->queue = xrealloc(lr->queue, lr->qcap * sizeof *lr->queue);
            lr->queue_len = xrealloc(lr->queue_len,
                                     lr->qcap * sizeof *lr->queue_len);
        }
        char *copy = xmalloc((size_t)n + 1);
        memcpy(copy, line, (size_t)n + 1);
        lr->queue[lr->nqueue] = copy;
        lr->queue_len[lr->nqueue] = (size_t)n;
        lr->nqueue++;
        bytes += (size_t)n;
    }
    return lr->nqueue - lr->qpos;
}

const char *lr_queued(const linereader *lr, size_t i, size_t *len)
{
    size_t j = lr->qpos + i;
    if (j >= lr->nqueue)
        return NULL;
    *len = lr->queue_len[j];
    return lr->queue[j];
}

ssize_t lr_next(linereader *lr, const char **line)
{
    if (lr->qpos < lr->nqueue) {
        /* hand out the queued copy; it is freed once the queue drains */
        size_t j = lr->qpos++;
        *line = lr->queue[j];
        ssize_t n = (ssize_t)lr->queue_len[j];
        if (lr->qpos == lr->nqueue) {
            /* the last string stays alive (held) until the next call */
            free(lr->held);
            lr->held = lr->queue[j];
            for (size_t i = 0; i < j; i++)
                free(lr->queue[i]);
            lr->nqueue = lr->qpos = 0;
        }
        return n;
    }
    char *l;
    ssize_t n = read_raw(lr, &l);
    if (n >= 0)
        *line = l;
    return n;
}
