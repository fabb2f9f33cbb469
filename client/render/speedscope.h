/* speedscope: export a stacktab as speedscope's JSON file format
 * (https://www.speedscope.app/file-format-schema.json): one "sampled"
 * profile whose samples are stacks of indices into shared.frames, root
 * first, with their weights. */
#ifndef STAPRELAY_SPEEDSCOPE_H
#define STAPRELAY_SPEEDSCOPE_H

#include <stdio.h>
#include "client/stack/stacktab.h"

/* Column col of tab; name is the profile name; unit is speedscope's
 * ValueUnit ("none", "nanoseconds", ...).  Returns 0 or -1. */
int speedscope_write(FILE *out, const stacktab *tab, int col,
                     const char *name, const char *unit);

#endif
