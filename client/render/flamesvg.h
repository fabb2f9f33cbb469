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
#include "common/strbuf.h"

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
    /* flamegraph.pl's options users script with */
    double      factor;       /* --factor: counts shown times this (1) */
    const char *bgcolors;     /* --bgcolors yellow|blue|green|grey|#rrggbb,
                               * NULL: by palette */
    const char *encoding;     /* --encoding: the XML declaration's */
    bool        cp;           /* --cp: consistent palette (palette_file) */
    const char *palette_file; /* "palette.map" */
    const char *nameattr_file;/* --nameattr FILE */
    /* loaded by flamesvg_prepare */
    struct palette_map *pmap;
    struct name_attrs  *attrs;
} svg_options;

void svg_options_default(svg_options *o);

/* True when s is a --bgcolors value flamegraph.pl takes. */
bool flamesvg_bgcolors_ok(const char *s);

/* Load what the options name (--nameattr's file, --cp's palette.map)
 * before writing; 0, or -1 with a message in err. */
int flamesvg_prepare(svg_options *o, strbuf *err);
/* After writing: save --cp's palette.map (with the colours the graph
 * added) and free what prepare loaded; 0, or -1 with err. */
int flamesvg_finish(svg_options *o, strbuf *err);

/* Tell the tree builder which frames this SVG will not draw (narrower
 * than minwidth), so it need not build them. */
void flamesvg_tree_options(const svg_options *o, ft_options *fo);

/* Write the SVG.  Returns 0, or -1 on an output error. */
int flamesvg_write(FILE *out, const flametree *t, const svg_options *o);

/* A differential's subtitle: subtitle (or none), then what the scaling
 * did (diff's rule, stacktab_normalize; unit: the count name), into
 * buf.  `staprelay diff` and web's /api/diff.svg say it the same way. */
void flamesvg_diff_note(char *buf, size_t size, const char *subtitle,
                        const char *unit, bool scaled, bool absolute,
                        double before, double after);

/* For pages that draw flame graphs themselves (the heat-map page): the
 * very <svg> start, style and texts a flame graph file has, up to its
 * frames, with FLAMESVG_TOKEN_H for the height and FLAMESVG_TOKEN_HD
 * for the details line's y (H - (2 fontsize + 10) / 2); no script. */
#define FLAMESVG_TOKEN_H "@H@"
#define FLAMESVG_TOKEN_HD "@HD@"
void flamesvg_page_head(strbuf *sb, const svg_options *o, const char *title);
/* The settings variables and the zoom/search script of a flame graph
 * file (client/render/flame.js), for the page to run once. */
void flamesvg_script(strbuf *sb, const svg_options *o);

/* Building blocks, exposed for tests: what sprintf("%.1f" or "%.2f")
 * (digits 1 or 2) and Perl's default "%.15g" write, without printf. */
#include "common/strbuf.h"
void flamesvg_fixed(strbuf *sb, double v, int digits);
void flamesvg_perl_num(strbuf *sb, double v);

#endif
