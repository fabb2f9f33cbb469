/* relay: the loop's context.  Owns the configuration, every source, the
 * poll timer and the logging sink.  Discovery walks the configured
 * directories each poll; sources appear, change and vanish there.  The
 * host (pmdastaprelay) is told through hooks when the namespace changed;
 * everything runs on the one libev loop the host also uses. */
#ifndef STAPRELAY_RELAY_H
#define STAPRELAY_RELAY_H

#include "relay/config.h"
#include "relay/log.h"
#include "relay/source.h"

#include <ev.h>
#include <stdint.h>
#include <sys/types.h>

/* Unloaded SystemTap modules whose names (without values) are kept for
 * when they are loaded again; beyond this many, the longest gone go. */
#define RELAY_VANISHED_KEPT 64

typedef struct relay_hooks {
    /* Sources appeared or vanished, metadata changed or prefix ownership
     * moved.  Called at the end of a poll, before replaced objects are
     * freed, so the host can rebuild its tables from r->sources. */
    void (*namespace_changed)(void *arg);
    /* Values, instances or stack tables changed (after the namespace hook,
     * in the loop): the host refreshes its instance tables here. */
    void (*data_changed)(void *arg);
    void *arg;
} relay_hooks;

typedef struct relay {
    struct ev_loop *loop;
    relay_config *cfg;
    log_sink log;
    relay_hooks hooks;
    source **sources;        /* sorted: trusted first, then by path */
    size_t nsources;
    ev_timer poll_w;
    bool namespace_dirty;
    bool data_dirty;
    uint64_t namespace_generation;
    uid_t exec_uid;          /* for untrusted data-exec */
    gid_t exec_gid;
    bool exec_user_ok;
    /* sources that vanished during a poll: the host's tables may point
     * at them until the namespace hook has run */
    source **dead_sources;
    size_t ndead_sources;
    size_t mem_total;        /* bytes held by every source (source_account) */
    size_t mem_untrusted;    /* of which by sources any user may write */
} relay;

/* Takes ownership of cfg.  log and hooks may be NULL. */
relay *relay_new(struct ev_loop *loop, relay_config *cfg, const log_sink *log,
                 const relay_hooks *hooks);
/* First scan, first reads, then the poll timer. */
void relay_start(relay *r);
/* One full pass: discovery, metadata, data.  Public for tests. */
void relay_poll(relay *r);
void relay_free(relay *r);

void relay_mark_namespace_dirty(relay *r);
/* Run the namespace and data hooks if needed, then free vanished sources. */
void relay_settle(relay *r);

/* Number of sources that publish metrics (valid metadata, own prefix). */
size_t relay_active_sources(const relay *r);

#endif
