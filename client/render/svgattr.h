/* svgattr: flamegraph.pl's per-name attributes for a flame-graph SVG,
 * which users script with --nameattr FILE: lines "NAME<TAB>k=v<TAB>k=v",
 * giving a frame's <g> an id/class, extra attribute text (g_extra), a
 * link (href, target, a_extra: the frame becomes <a>) or its own tooltip
 * (title).  Names are frame names as they stand in the stacks, marks
 * included.  (The consistent palette, --cp, is palette.h's palette_map.) */
#ifndef STAPRELAY_SVGATTR_H
#define STAPRELAY_SVGATTR_H

#include <stdbool.h>
#include <stddef.h>
#include "common/strbuf.h"

typedef struct name_attrs name_attrs;

typedef struct name_attr {
    const char *id, *class_, *g_extra, *href, *target, *a_extra, *title;
} name_attr;

/* Read a --nameattr file.  NULL with a message in err on a bad line
 * (flamegraph.pl dies on one) or an unreadable file. */
name_attrs *name_attrs_load(const char *path, strbuf *err);
/* The attributes of name, or NULL. */
const name_attr *name_attrs_find(const name_attrs *na, const char *name,
                                 size_t len);
void name_attrs_free(name_attrs *na);

#endif
