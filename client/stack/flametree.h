/* flametree: the merged frame tree that renderers draw.
 *
 * The tree is what flamegraph.pl's flow() makes of the stacks sorted
 * frame by frame: every shared prefix merged, siblings in name order.
 * Nodes live in one array in that order (depth first, a parent before
 * its children, siblings by name); no recursion is needed anywhere,
 * whatever the stack depth.
 *
 * Two builders produce it:
 *   - by levels (the usual case): frames are merged one depth at a time
 *     through a hash of (parent, name), with no global sort of the
 *     stacks, and -- when ft_options.prune is set -- a frame narrower
 *     than the renderer's minwidth is dropped together with everything
 *     above it as soon as its width is known, so a million distinct
 *     stacks cost memory for the few thousand frames that are drawn.
 *     Used when every weight is an integer (and the total below 2^53),
 *     where sums are exact in any order;
 *   - by flow (flame charts, fractional weights): stacks fed in sorted
 *     (or arrival) order, each frame merged with its parent's *last*
 *     child only, exactly as flow() does, so sums happen in the same
 *     order as flamegraph.pl's.  With arrival order (flame charts) only
 *     adjacent samples merge. */
#ifndef STAPRELAY_FLAMETREE_H
#define STAPRELAY_FLAMETREE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "client/stack/stacktab.h"

#define FT_NONE UINT32_MAX

typedef struct ft_node {
    const char *name;        /* points into the stacktab's keys */
    uint32_t    name_len;
    uint32_t    parent, first_child, last_child, next_sibling;
    uint32_t    depth;       /* root "all" is 0 */
    double      value;       /* width: weight of this frame and below */
    double      delta;       /* differential: after - before, for
                              * stacks that end exactly here */
    double      x;           /* left offset in weight units (layout) */
} ft_node;

typedef enum {
    FT_SINGLE,     /* width = column 0 */
    FT_DIFF,       /* width = column 1, delta = col1 - col0 */
    FT_ELIDED,     /* only stacks absent on one side: width = the
                    * present side, delta = col1 - col0 */
} ft_mode;

/* Frames a renderer will not draw: narrower than minwidth pixels of an
 * image width pixels wide (or minwidth percent of the total).  Must give
 * the very same threshold as the renderer (see ft_min_weight). */
typedef struct ft_prune {
    bool   enabled;
    bool   pct;           /* minwidth is a percentage of the total */
    double minwidth;
    double width;         /* image width in pixels */
} ft_prune;

#define FT_XPAD 10.0      /* left and right padding of the frames, px */

/* The weight below which a frame is not drawn (flamegraph.pl's
 * minwidth_time): total*pct/100, or minwidth / (pixels per weight). */
static inline double ft_min_weight(double total, double width,
                                   double minwidth, bool pct)
{
    if (pct)
        return total * minwidth / 100;
    double wpt = total > 0 ? (width - 2 * FT_XPAD) / total : 0;
    return wpt > 0 ? minwidth / wpt : 0;
}

typedef struct ft_options {
    ft_mode  mode;
    bool     reverse;     /* reverse frame order of every stack */
    bool     flamechart;  /* arrival order, merge adjacent only */
    bool     sort_weight; /* siblings widest first */
    ft_prune prune;       /* optional: leave out frames that would not
                           * be drawn (value 0, or below the minimum
                           * weight) and all their descendants.  Kept
                           * frames keep the x of the full tree, so
                           * layout must not be recomputed. */
} ft_options;

typedef struct flametree {
    ft_node *nodes;
    size_t   n, cap;
    bool     has_delta;
    double   maxdelta;    /* max |delta| over nodes, at least 1 */
    uint32_t maxdepth;    /* of the nodes in the tree */
    char    *owned_names; /* frame names, when not the stacktab's */
} flametree;

/* Names point into tab's keys: tab must outlive the tree. */
flametree *flametree_build(const stacktab *tab, const ft_options *opt);
void flametree_free(flametree *t);

/* Total of the root. */
static inline double flametree_total(const flametree *t)
{
    return t->n ? t->nodes[0].value : 0;
}

#endif
