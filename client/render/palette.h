/* palette: flame-graph frame colours, reproducing flamegraph.pl's.
 * The default colour of a name is deterministic: Perl's rand() (drand48)
 * seeded with the sum of the name's code points; --hash uses
 * flamegraph.pl's namehash instead.  Differential colours scale red
 * (grew) and blue (shrank) by |delta| / maxdelta. */
#ifndef STAPRELAY_PALETTE_H
#define STAPRELAY_PALETTE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef enum {
    PAL_HOT, PAL_MEM, PAL_IO, PAL_WAKEUP, PAL_CHAIN, PAL_JAVA, PAL_JS,
    PAL_PERL, PAL_RED, PAL_GREEN, PAL_BLUE, PAL_AQUA, PAL_YELLOW,
    PAL_PURPLE, PAL_ORANGE,
} palette;

typedef struct rgb { int r, g, b; } rgb;

bool        palette_parse(const char *name, palette *out);
const char *palette_name(palette p);

/* Colour of a frame name (full name, annotation suffix included). */
rgb palette_color(palette p, bool use_hash, const char *name, size_t len);
/* Differential colour. */
rgb palette_diff_color(double delta, double maxdelta, bool negate);
/* Background gradient stops. */
void palette_background(palette p, const char **top, const char **bottom);

/* Building blocks, exposed for tests. */
double perl_srand_rand(uint32_t seed);      /* srand(seed); rand(1) */
uint32_t name_codepoint_sum(const char *s, size_t n);
double flame_namehash(const char *s, size_t n);

#endif
