/* palette: flame-graph frame colours, reproducing flamegraph.pl's.
 * The default colour of a name is deterministic: Perl's rand() (drand48)
 * seeded with the sum of the name's code points; --hash uses
 * flamegraph.pl's namehash instead.  Differential colours scale red
 * (grew) and blue (shrank) by |delta| / maxdelta.
 *
 * The consistent palette (--cp, palette_map): colours remembered by name
 * in a palette.map file ("NAME->rgb(R,G,B)" lines, sorted), read before
 * drawing and written back after, so the same function keeps its colour
 * across graphs. */
#ifndef STAPRELAY_PALETTE_H
#define STAPRELAY_PALETTE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "common/strbuf.h"

typedef enum {
    PAL_HOT, PAL_MEM, PAL_IO, PAL_WAKEUP, PAL_CHAIN, PAL_JAVA, PAL_JS,
    PAL_PERL, PAL_RED, PAL_GREEN, PAL_BLUE, PAL_AQUA, PAL_YELLOW,
    PAL_PURPLE, PAL_ORANGE,
    PAL_HOTCOLD,    /* hot/cold (stack/hotcold.h): frames under the
                     * "offcpu" root frame blue, the rest hot */
} palette;

typedef struct rgb { int r, g, b; } rgb;

bool        palette_parse(const char *name, palette *out);
const char *palette_name(palette p);

/* The flat palette of a frame in palette p: for PAL_HOTCOLD, blue when
 * the frame's root frame (the first below "all") is named "offcpu",
 * else hot; any other palette is its own. */
palette palette_of_part(palette p, const char *root, size_t root_len);

/* Colour of a frame name (full name, annotation suffix included). */
rgb palette_color(palette p, bool use_hash, const char *name, size_t len);
/* Differential colour. */
rgb palette_diff_color(double delta, double maxdelta, bool negate);
/* Background gradient stops. */
void palette_background(palette p, const char **top, const char **bottom);

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

/* Building blocks, exposed for tests. */
double perl_srand_rand(uint32_t seed);      /* srand(seed); rand(1) */
uint32_t name_codepoint_sum(const char *s, size_t n);
double flame_namehash(const char *s, size_t n);

#endif
