/* runs: the on-demand runs staprelay web follows (docs/web.md, "Runs").
 * A run the page started (POST /api/run, accepted) is followed by a
 * thread of its own: pcp_input_read with po->run set, exactly what
 * `staprelay fold -h HOST --run NAME` does -- its state polled from
 * staprelay.control.runs (pcp_runs' parser, through pcp_input's on_run
 * hook), its event metric's records kept only inside the run's window,
 * until the run has ended and a fetch after that brought nothing.
 *
 * Each run's samples go to a store of its own (a selection with
 * run=NAME reads that one instead of the main store), kept after the
 * run ends.  Bounds: at most WEB_RUNS_MAX runs are followed in the life
 * of the server (past that a run is refused a follower, said in a
 * notice: restart the server to follow more); each run's store holds at
 * most WEB_RUN_MAX_SAMPLES samples (store.h's cap: the oldest tenth
 * dropped and counted).  A run's store is never freed before the
 * server ends, so a handler may read it without holding the list.
 *
 * SSE: `run` events, {"name":..,"state":..,"samples":N,"following":B},
 * when the state changes, when its sample count grows (once a round),
 * and when following ends. */
#ifndef STAPRELAY_WEB_RUNS_H
#define STAPRELAY_WEB_RUNS_H

#include <stdbool.h>
#include "client/cmd/options.h"
#include "client/web/httpd.h"
#include "client/web/store.h"
#include "common/strbuf.h"

#define WEB_RUNS_MAX         16
#define WEB_RUN_MAX_SAMPLES  200000

typedef struct web_runs web_runs;

/* o: the command's options (interval, --wait, input options; kept, not
 * copied); h: for SSE (may be NULL). */
web_runs *web_runs_new(const cmd_opts *o, httpd *h);
/* Follow run name on host (a -h spec).  Following it already: 0.
 * Returns 0, or -1 with the reason in err. */
int web_runs_follow(web_runs *w, const char *host, const char *name,
                    strbuf *err);
/* The samples of run name, or NULL when it is not followed. */
web_store *web_runs_store(web_runs *w, const char *name);
/* GET /api/runs: {"runs":[{"name","host","state","window":[lo,hi]|null,
 * "samples","following","error"},..]}.  With follow=NAME[&host=H]: a
 * run started elsewhere (pmstore, `staprelay web` elsewhere) is
 * followed first (the list then has it; a follower that finds no such
 * run ends with its error listed) -- following only reads the PMDA, so a
 * GET may ask it. */
void api_runs(void *arg, const web_request *rq, web_reply *rp);
void web_runs_routes(web_runs *w, httpd *h);
/* End every follower (their last round), join them, free w. */
void web_runs_free(web_runs *w);

#endif
