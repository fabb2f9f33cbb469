/* farm: -a arguments as PCP archive contexts.  An -a names
 *   - an archive (its base name, or a comma-separated list of one host's
 *     archives): one context, as PCP opens it;
 *   - a directory holding archives (*.meta, compressed or not): one
 *     context, PCP's multi-archive context of one host (pmlogger's
 *     directory for a host, PCP_ARCHIVE_DIR/HOST);
 *   - a farm directory, whose sub-directories hold archives and no
 *     archive of its own (pmlogger_farm's PCP_ARCHIVE_DIR, or the
 *     collector of a fleet): one context per sub-directory, in name order.
 * Each context remembers which -a it came from (diff's sides). */
#ifndef STAPRELAY_FARM_H
#define STAPRELAY_FARM_H

#include <stddef.h>
#include "common/strbuf.h"

typedef struct farm_list {
    char  **specs;     /* archive context names (owned) */
    int    *origin;    /* index of the -a each came from */
    size_t  n;
} farm_list;

/* Returns 0, or 1 with a message in err (a directory without archives). */
int farm_expand(const char *const *args, int nargs, farm_list *out,
                strbuf *err);
void farm_free(farm_list *f);

/* Whether the directory holds an archive's metadata file itself. */
int farm_dir_has_archive(const char *dir);

#endif
