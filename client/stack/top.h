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

/* How frames' shares changed across n >= 2 profiles (staprelay diff
 * --format table), pprof's -diff_base -top for more than two: the
 * profiles' top_results joined by frame name.  A row's value in profile
 * i is its self (or total, by_total) weight as a percentage of profile
 * i's grand total, or with absolute the weight itself; its change is
 * the last profile's value minus the first's (percentage points, or
 * weight).  Rows are ranked by the largest absolute change, then by the
 * last value, then by name; rows that are 0 in every profile (by self:
 * frames never a leaf) are left out. */
typedef struct top_change_row {
    const char   *name;     /* owned by the result */
    size_t        len;
    const double *value;    /* one per profile */
    double        change;
    double        last;     /* the last profile's value (ranks ties) */
} top_change_row;

typedef struct top_changes {
    top_change_row *rows;
    size_t          nrows;
    size_t          n;          /* profiles */
    double         *totals;     /* each profile's grand total */
    bool            by_total, absolute;
    double         *values;     /* nrows * n, row-major */
    stacktab       *names;      /* storage for the row names */
} top_changes;

top_changes *top_changes_compute(top_result *const *profiles, size_t n,
                                 bool by_total, bool absolute);
void top_changes_free(top_changes *c);
/* Aligned table: a legend (each profile's number, total and label),
 * then the first limit rows (0 = all), one a frame: its value in each
 * profile and the change, top's number style. */
int top_write_changes(FILE *out, const top_changes *c, size_t limit,
                      const char *countname, const char *const *labels);

#endif
