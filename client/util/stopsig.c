/* stopsig: stop requests by signal (see stopsig.h). */
#include "client/util/stopsig.h"

#include <stdatomic.h>
#include <string.h>

/* Written by the handler and by stopsig_request() from any thread, read
 * by every thread (staprelay web's collector, followers and server): a
 * lock-free atomic is both async-signal-safe and free of data races,
 * which a volatile sig_atomic_t shared by threads is not. */
_Static_assert(ATOMIC_INT_LOCK_FREE == 2, "stopsig needs a lock-free int");
static atomic_int stops;

static void on_stop(int sig)
{
    (void)sig;
    atomic_fetch_add(&stops, 1);
}

void stopsig_catch(stopsig_saved *saved, unsigned flags)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_stop;
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = (flags & STOPSIG_SECOND_KILLS) ? SA_RESETHAND : 0;
    atomic_store(&stops, 0);
    if (saved != NULL)
        saved->flags = flags;
    sigaction(SIGINT, &sa, saved ? &saved->intr : NULL);
    sigaction(SIGTERM, &sa, saved ? &saved->term : NULL);
    if (flags & STOPSIG_HUP)
        sigaction(SIGHUP, &sa, saved ? &saved->hup : NULL);
}

void stopsig_restore(const stopsig_saved *saved)
{
    sigaction(SIGINT, &saved->intr, NULL);
    sigaction(SIGTERM, &saved->term, NULL);
    if (saved->flags & STOPSIG_HUP)
        sigaction(SIGHUP, &saved->hup, NULL);
}

void stopsig_request(void)
{
    atomic_fetch_add(&stops, 1);
}

int stopsig_count(void)
{
    return atomic_load(&stops);
}
