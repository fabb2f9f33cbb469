/* stopsig: stop requests by signal (see stopsig.h). */
#include "client/util/stopsig.h"

#include <string.h>

static volatile sig_atomic_t stops;

static void on_stop(int sig)
{
    (void)sig;
    stops++;
}

void stopsig_catch(stopsig_saved *saved, unsigned flags)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_stop;
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = (flags & STOPSIG_SECOND_KILLS) ? SA_RESETHAND : 0;
    stops = 0;
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
    stops++;
}

int stopsig_count(void)
{
    return stops;
}
