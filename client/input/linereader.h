/* linereader: reads a stream line by line (newline and a trailing CR
 * stripped), with a read-ahead queue so input detection can look at the
 * first lines and then hand them, unconsumed, to the chosen parser.
 * Only the queue and a chunk of the stream are held in memory.
 *
 * The stream is read in chunks (LR_CHUNK bytes, fread) and lines are
 * handed out where they lie in the chunk, NUL written over the newline:
 * no copy a line (getline's copy and locking were a tenth of folding a
 * profile).  A chunk read waits for the whole chunk or the end of the
 * stream, which suits every reader here: files and stdin, read to
 * their end before anything is written. */
#ifndef STAPRELAY_LINEREADER_H
#define STAPRELAY_LINEREADER_H

#include <stdio.h>
#include <stddef.h>
#include <sys/types.h>

#define LR_CHUNK (256 * 1024)

typedef struct linereader {
    FILE   *fp;           /* not owned */
    char   *buf;          /* the chunk: unread lines in [start, end) */
    size_t  cap, start, end;
    char   *held;         /* the last queued line handed out (owned) */
    char  **queue;        /* read-ahead lines (owned) */
    size_t *queue_len;
    size_t  nqueue, qpos, qcap;
    int     eof;
} linereader;

void lr_init(linereader *lr, FILE *fp);
void lr_free(linereader *lr);
/* Next line; returns its length (>= 0) or -1 at end of input.  The
 * pointer stays valid until the next call. */
ssize_t lr_next(linereader *lr, const char **line);
/* Read ahead until max_lines are queued or max_bytes read or EOF.
 * Returns the number of queued lines. */
size_t lr_fill(linereader *lr, size_t max_lines, size_t max_bytes);
/* Queued line i (0-based, among those not yet consumed). */
const char *lr_queued(const linereader *lr, size_t i, size_t *len);

#endif
