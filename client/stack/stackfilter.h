/* stackfilter: pprof's sample filters, the one rule `staprelay web`'s
 * selections and `fold`/`flame`/`top`/... (--focus, --ignore, --hide,
 * --show, --pid, --tid, --comm, --host) share.  A filter is compiled
 * once from its spec and applied to each sample as an input delivers it
 * (a folded stack, root first, ';' between frames, with what the input
 * knows of the sample: stacksink.h's stack_context).
 *
 * The rules, in order (pprof's, on frames of the folded stack):
 *   1. pid/tid/comm/host lists: a sample whose context does not match
 *      every non-empty list is dropped (unknown: no match);
 *   2. focus: kept only when some frame matches the regex;
 *   3. ignore: dropped when some frame matches;
 *   4. hide: matching frames are removed from the stack;
 *   5. show: only matching frames are kept (a root frame staprelay adds,
 *      the host or process one, is a frame like any other);
 *   a stack left without frames is dropped.
 * Regexes are POSIX extended (regcomp REG_EXTENDED|REG_NOSUB), matched
 * against a whole frame name's text anywhere (unanchored, as pprof). */
#ifndef STAPRELAY_STACKFILTER_H
#define STAPRELAY_STACKFILTER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "client/stack/stacksink.h"
#include "common/strbuf.h"

#define STACKFILTER_MAX_IDS 32

typedef struct stackfilter_spec {
    const char *focus, *ignore, *hide, *show;   /* NULL: none */
    int64_t     pids[STACKFILTER_MAX_IDS];  int npids;
    int64_t     tids[STACKFILTER_MAX_IDS];  int ntids;
    const char *comms[STACKFILTER_MAX_IDS]; int ncomms;
    const char *hosts[STACKFILTER_MAX_IDS]; int nhosts;
} stackfilter_spec;

typedef struct stackfilter stackfilter;

/* Compile spec (its strings are copied).  NULL with the reason in err
 * ("--focus: bad regex: ..."). */
stackfilter *stackfilter_new(const stackfilter_spec *spec, strbuf *err);
void         stackfilter_free(stackfilter *f);
/* True when the spec filters nothing (every sample passes unchanged). */
bool         stackfilter_empty(const stackfilter *f);
/* Apply f to one sample: false when it is dropped; true with the stack
 * to keep in out (replaced, not appended). */
bool stackfilter_apply(const stackfilter *f, const char *stack, size_t len,
                       const stack_context *ctx, strbuf *out);

#endif
