/* flametree: the merged frame tree that renderers draw.
 *
 * Built from a stacktab by feeding stacks in frame order and merging
 * each frame with its parent's *last* child only (flamegraph.pl's
 * flow()): with sorted input that merges every shared prefix; with
 * arrival order (flame charts) it merges only adjacent samples.  Nodes
 * live in one array in creation order, so a parent always has a lower
 * index than its children; no recursion is needed anywhere, whatever
 * the stack depth. */
#ifndef STAPRELAY_FLAMETREE_H
#define STAPRELAY_FLAMETREE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "client/stacktab.h"

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

typedef struct ft_options {
    ft_mode mode;
    bool    reverse;      /* reverse frame order of every stack */
    bool    flamechart;   /* arrival order, merge adjacent only */
    bool    sort_weight;  /* siblings widest first */
} ft_options;

typedef struct flametree {
    ft_node *nodes;
    size_t   n, cap;
    bool     has_delta;
    double   maxdelta;    /* max |delta| over nodes, at least 1 */
    uint32_t maxdepth;
    char    *owned_names; /* frame names, when not the stacktab's */
} flametree;

flametree *flametree_build(const stacktab *tab, const ft_options *opt);
void flametree_free(flametree *t);

/* Low-level pieces, used by flametree_build and tests. */
flametree *flametree_new(void);
/* Add one folded stack (frames root first, ';'-joined).  The text must
 * outlive the tree. */
void flametree_add(flametree *t, const char *stack, size_t len,
                   double value, double delta, bool has_delta);
void flametree_sort_by_weight(flametree *t);
void flametree_layout(flametree *t);    /* fills x */

/* Total of the root. */
static inline double flametree_total(const flametree *t)
{
    return t->n ? t->nodes[0].value : 0;
}

#endif
