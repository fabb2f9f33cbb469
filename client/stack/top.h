/* top: the heaviest frames of a profile.  A frame's self weight is the
 * weight of stacks that end in it; its total weight is the weight of
 * stacks that contain it at least once (recursion is not counted
 * twice).  Frames are identified by name. */
#ifndef STAPRELAY_TOP_H
#define STAPRELAY_TOP_H

#include <stdbool.h>
#include <stdio.h>
#include "client/stack/stacktab.h"

typedef struct top_row {
    const char *name;   /* owned by the result */
    size_t      len;
    double      self;
    double      total;
} top_row;

typedef struct top_result {
    top_row  *rows;
    size_t    n;
    double    grand_total;
    stacktab *names;    /* storage for the row names */
} top_result;

top_result *top_compute(const stacktab *tab, int col);
void top_free(top_result *r);
/* Order rows by self (or total) weight, heaviest first, then name. */
void top_sort(top_result *r, bool by_total);
/* Aligned table of the first limit rows (0 = all). */
int top_write_table(FILE *out, const top_result *r, size_t limit,
                    const char *countname);
int top_write_json(FILE *out, const top_result *r, size_t limit,
                   const char *countname, const char *by);

#endif
