/* linereader: buffered line input with read-ahead (see linereader.h). */
#include "client/input/linereader.h"

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
    free(lr->line);
    memset(lr, 0, sizeof *lr);
}

static ssize_t read_raw(linereader *lr)
{
    if (lr->eof)
        return -1;
    ssize_t n = getline(&lr->line, &lr->cap, lr->fp);
    if (n < 0) {
        lr->eof = 1;
        return -1;
    }
    if (n > 0 && lr->line[n - 1] == '\n')
        lr->line[--n] = '\0';
    if (n > 0 && lr->line[n - 1] == '\r')
        lr->line[--n] = '\0';
    return n;
}

size_t lr_fill(linereader *lr, size_t max_lines, size_t max_bytes)
{
    size_t bytes = 0;
    for (size_t i = lr->qpos; i < lr->nqueue; i++)
        bytes += lr->queue_len[i];
    while (lr->nqueue - lr->qpos < max_lines && bytes < max_bytes) {
        ssize_t n = read_raw(lr);
        if (n < 0)
            break;
        if (lr->nqueue == lr->qcap) {
            lr->qcap = lr->qcap ? lr->qcap * 2 : 64;
            lr->queue = xrealloc(lr->queue, lr->qcap * sizeof *lr->queue);
            lr->queue_len = xrealloc(lr->queue_len,
                                     lr->qcap * sizeof *lr->queue_len);
        }
        char *copy = xmalloc((size_t)n + 1);
        memcpy(copy, lr->line, (size_t)n + 1);
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
            /* keep the last string alive by moving it into line */
            free(lr->line);
            lr->line = lr->queue[j];
            lr->cap = lr->queue_len[j] + 1;
            for (size_t i = 0; i < j; i++)
                free(lr->queue[i]);
            lr->nqueue = lr->qpos = 0;
        }
        return n;
    }
    ssize_t n = read_raw(lr);
    if (n >= 0)
        *line = lr->line;
    return n;
}
