/* collect: staprelay web's collector thread.  It feeds the store from
 * every input the other commands read, in this order: the files
 * (perf/stap/folded/pprof, input_read_path), then the PCP sources --
 * archives and farms (-a), pmseries (--series), or live pmcds (-h,
 * repeatable) and runs (--run), through pcp_input_read with the same
 * options `fold` gets, so a sample's stack is the one `fold` prints.
 *
 * Live, after each round: the window is pruned, and the SSE clients get
 * `samples` ({"last_ns":N,"samples":N}).  A round some source did not
 * answer opens a gap (pcp_input reconnects by itself: a pmcd restart is
 * a gap, never the end), the next answered one closes it: both are SSE
 * `gap` events and stay listed for /api/info while they overlap the
 * window.  What the collector has to say (a file it could not read,
 * records the PMDA lost, the end of an archive or of -T) is a `notice`
 * event, also kept (the last COLLECT_MAX_NOTICES) for /api/info.
 *
 * Stopping: collect_stop() ends a live collection after its current
 * round (the PCP loop's own stop request, stopsig) and joins the
 * thread. */
#ifndef STAPRELAY_WEB_COLLECT_H
#define STAPRELAY_WEB_COLLECT_H

#include <stdbool.h>
#include <stdint.h>
#include "client/cmd/options.h"
#include "client/stack/live_window.h"
#include "client/web/httpd.h"
#include "client/web/store.h"
#include "common/strbuf.h"

#define COLLECT_MAX_NOTICES 32

typedef struct collector collector;

/* o: the parsed options (kept; not copied); store and h are not owned
 * (h may be NULL: no SSE). */
collector *collect_start(const cmd_opts *o, web_store *store, httpd *h,
                         strbuf *err);
/* Ask the thread to end, wait for it, free c. */
void collect_stop(collector *c);

/* For /api/info: whether the sources are live, whether collection has
 * ended, the rounds, the gaps and the notices so far, as JSON members
 * ("live":..,"collecting":..,"rounds":..,"gaps":[..],"notices":[..])
 * appended to out. */
void collect_info_json(collector *c, strbuf *out);

#endif
