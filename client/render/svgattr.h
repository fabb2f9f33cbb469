/* svgattr: flamegraph.pl's per-name extras for a flame-graph SVG,
 * which users script with:
 *   - the consistent palette (--cp): colours remembered by name in a
 *     palette.map file ("NAME->rgb(R,G,B)" lines, sorted), read before
 *     drawing and written back after, so the same function keeps its
 *     colour across graphs;
 *   - name attributes (--nameattr FILE): lines "NAME<TAB>k=v<TAB>k=v",
 *     giving a frame's <g> an id/class, extra attribute text (g_extra),
 *     a link (href, target, a_extra: the frame becomes <a>) or its own
 *     tooltip (title).
 * Names are frame names as they stand in the stacks, marks included. */
#ifndef STAPRELAY_SVGATTR_H
#define STAPRELAY_SVGATTR_H

#include <stdbool.h>
#include <stddef.h>
#include "client/render/palette.h"
#include "common/strbuf.h"

typedef struct palette_map palette_map;

/* Read PATH if it exists (a missing file is an empty map).  NULL with
 * a message in err when it cannot be read. */
palette_map *palette_map_load(const char *path, strbuf *err);
/* The colour of name: the map's, else computed and added. */
rgb palette_map_color(palette_map *m, palette p, bool hash,
                      const char *name, size_t len);
/* Write the map back (sorted by name).  0, or -1 with err. */
int palette_map_save(const palette_map *m, const char *path, strbuf *err);
void palette_map_free(palette_map *m);

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
