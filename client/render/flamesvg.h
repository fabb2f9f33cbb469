/* flamesvg: writes a flametree as a standalone interactive SVG that
 * follows flamegraph.pl's Gen-3 conventions (element ids, <g><title>
 * <rect><text> per frame, title text "FUNC (N samples, P%)", geometry,
 * colours) and additionally carries exact weights as inferno-style
 * fg:x / fg:w attributes on each <rect>, so the file can be read back. */
#ifndef STAPRELAY_FLAMESVG_H
#define STAPRELAY_FLAMESVG_H

#include <stdbool.h>
#include <stdio.h>
#include "client/stack/flametree.h"
#include "client/render/palette.h"

typedef struct svg_options {
    const char *title;        /* NULL: by layout */
    const char *subtitle;     /* NULL: none */
    const char *countname;    /* "samples" */
    const char *nametype;     /* "Function:" */
    const char *fonttype;     /* "Verdana" */
    const char *notes;        /* NULL: none */
    double      width;        /* 1200 */
    double      frameheight;  /* 16 */
    double      fontsize;     /* 12 */
    double      fontwidth;    /* 0.59 */
    double      minwidth;     /* pixels, or percent when minwidth_pct */
    bool        minwidth_pct;
    palette     colors;
    bool        hash;
    bool        inverted;
    bool        flamechart;
    bool        negate;       /* differential: swap red/blue */
} svg_options;

void svg_options_default(svg_options *o);

/* Tell the tree builder which frames this SVG will not draw (narrower
 * than minwidth), so it need not build them. */
void flamesvg_tree_options(const svg_options *o, ft_options *fo);

/* Write the SVG.  Returns 0, or -1 on an output error. */
int flamesvg_write(FILE *out, const flametree *t, const svg_options *o);

/* Building blocks, exposed for tests: what sprintf("%.1f" or "%.2f")
 * (digits 1 or 2) and Perl's default "%.15g" write, without printf. */
#include "common/strbuf.h"
void flamesvg_fixed(strbuf *sb, double v, int digits);
void flamesvg_perl_num(strbuf *sb, double v);

#endif
