/* embed: looking a file up in a generated table (embed.h). */
#include "client/util/embed.h"

#include <string.h>

const embedded_file *embedded_find(const embedded_file *files, size_t n,
                                   const char *name)
{
    for (size_t i = 0; i < n; i++)
        if (strcmp(files[i].name, name) == 0)
            return &files[i];
    return NULL;
}
