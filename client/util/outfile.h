/* outfile: write a file so that readers only ever see it whole.
 *
 * outfile_open() creates DIR/.NAME.tmpXXXXXX (mkstemp, mode 0644 less
 * the umask) and returns it as a stdio stream; outfile_commit() flushes,
 * fsyncs and closes it and renames it over DIR/NAME; outfile_abort()
 * closes and removes it.  Between open and commit/abort, SIGINT,
 * SIGTERM, SIGHUP and SIGQUIT are held back (a Ctrl-C takes effect once
 * the file is renamed or removed), so no temp file is left behind by
 * them either.  DIR must exist: nothing but the temp file and NAME is
 * ever created in it.
 *
 * Used by --output-dir (flame, heatmap, diff) and by staprelay live. */
#ifndef STAPRELAY_OUTFILE_H
#define STAPRELAY_OUTFILE_H

#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include "common/strbuf.h"

typedef struct outfile {
    FILE    *fp;        /* NULL when not open */
    char    *tmp;       /* DIR/.NAME.tmpXXXXXX */
    char    *dst;       /* DIR/NAME */
    sigset_t saved;     /* signal mask before outfile_open */
} outfile;

/* Returns the stream, or NULL with a message in err. */
FILE *outfile_open(outfile *of, const char *dir, const char *name,
                   strbuf *err);
/* Returns 0 (DIR/NAME is the new file), or -1 with a message in err
 * (the temp file is gone, DIR/NAME is as it was). */
int outfile_commit(outfile *of, strbuf *err);
/* Drop the temp file; DIR/NAME is left as it was.  Safe when not open. */
void outfile_abort(outfile *of);

/* True when s may be the first part of a file name written into an
 * output directory: 1 to 200 bytes of [A-Za-z0-9._+-], not starting
 * with '.' or '-' (no hidden files, no options, no path). */
bool outfile_stem_ok(const char *s);

#endif
