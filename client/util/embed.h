/* embed: files of the repository built into the client (the web page's
 * HTML/JS/CSS, the scripts the flame graph SVG and the heat map page
 * carry).  They are kept as real .js/.css/.html files; at build time
 * scripts/embed.sh writes them into build/gen as a table of
 * embedded_file (one way for every embedded file: nothing generated is
 * committed).  Each data array ends with a NUL that len does not count,
 * so a text file can be used as a C string. */
#ifndef STAPRELAY_EMBED_H
#define STAPRELAY_EMBED_H

#include <stddef.h>

typedef struct embedded_file {
    const char          *name;   /* its path below the embedded folder */
    const unsigned char *data;   /* len bytes, then a NUL */
    size_t               len;
} embedded_file;

/* The file called name in a table of n, or NULL. */
const embedded_file *embedded_find(const embedded_file *files, size_t n,
                                   const char *name);

#endif
