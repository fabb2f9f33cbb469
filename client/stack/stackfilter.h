/* stackfilter: pprof's sample filters, the one rule `staprelay web`'s
 * selections and `fold`/`flame`/`top`/... (--focus, --ignore, --hide,
 * --show, --only-pid, --only-tid, --only-comm, --only-host,
 * --only-state) share.  A filter is compiled
 * once from its spec and applied to each sample as an input delivers it
 * (a folded stack, root first, ';' between frames, with what the input
 * knows of the sample: stacksink.h's stack_context).
 *
 * The rules, in order (pprof's, on frames of the folded stack):
 *   1. pid/tid/comm/host lists and the block states: a sample whose context does not match
 *      every non-empty list is dropped (unknown: no match);
 *   2. focus: kept only when some frame matches the regex;
 *   3. ignore: dropped when some frame matches;
 *   4. hide: matching frames are removed from the stack;
 *   5. show: only matching frames are kept (a root frame staprelay adds,
 *      the host or process one, is a frame like any other);
 *   a stack left without frames is dropped.
 * Regexes are POSIX extended (regcomp REG_EXTENDED|REG_NOSUB), matched
 * against a frame name's text anywhere (unanchored, as pprof; '^' and
 * '$' are the frame's own ends), byte by byte (the client runs in the C
 * locale: a UTF-8 character in a pattern matches itself, '.' is one
 * byte).  An empty pattern is none (an empty form field).
 *
 * Hostile patterns: glibc's regexec is exponential with back-references
 * and regcomp expands bounded repetitions multiplied through nesting, so
 * a pattern is refused (stackfilter_new's error) when it is longer than
 * STACKFILTER_MAX_PATTERN bytes, has a back-reference (\1..\9: RE2,
 * pprof's syntax, has none either) or repeats more than
 * STACKFILTER_MAX_REPEAT times through nesting ("(a{100}){100}").  What
 * is left matches in time polynomial in the frame's and the pattern's
 * lengths (the frames are bounded by the inputs' stack limits).
 *
 * Context lists (pid, tid, comm, host, state) match exactly; a sample whose
 * input does not know the field (folded text knows no pid, no input but
 * PCP knows the host) does not match: with such a list, it is dropped. */
#ifndef STAPRELAY_STACKFILTER_H
#define STAPRELAY_STACKFILTER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "client/stack/stacksink.h"
#include "common/strbuf.h"

#define STACKFILTER_MAX_IDS     32     /* values per context list */
#define STACKFILTER_MAX_PATTERN 1024   /* bytes of one regex */
#define STACKFILTER_MAX_REPEAT  1000   /* {n,m} counts multiplied */

typedef struct stackfilter_spec {
    const char *focus, *ignore, *hide, *show;   /* NULL: none */
    int64_t     pids[STACKFILTER_MAX_IDS];  int npids;
    int64_t     tids[STACKFILTER_MAX_IDS];  int ntids;
    const char *comms[STACKFILTER_MAX_IDS]; int ncomms;
    const char *hosts[STACKFILTER_MAX_IDS]; int nhosts;
    unsigned    states;     /* bit 1 << block_state of each class kept;
                             * 0: any (blockstate.h) */
} stackfilter_spec;

typedef struct stackfilter stackfilter;

/* Compile spec (its strings are copied).  NULL with the reason in err
 * ("--focus: bad regex: ..."). */
stackfilter *stackfilter_new(const stackfilter_spec *spec, strbuf *err);
void         stackfilter_free(stackfilter *f);
/* True when the spec filters nothing (every sample passes unchanged). */
bool         stackfilter_empty(const stackfilter *f);
/* True when f keeps only some block states (--only-state): an input
 * that knows no state would drop every sample. */
bool         stackfilter_wants_state(const stackfilter *f);
/* Apply f to one sample: false when it is dropped; true with the stack
 * to keep in out (replaced, not appended). */
bool stackfilter_apply(const stackfilter *f, const char *stack, size_t len,
                       const stack_context *ctx, strbuf *out);

#endif
