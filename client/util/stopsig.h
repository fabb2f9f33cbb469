/* stopsig: SIGINT, SIGTERM (and SIGHUP) taken as requests to stop, the
 * client's one handler for them: `staprelay run` (its backends stop
 * their children in order; a second request escalates) and the PCP
 * collection loop (a request ends collection with one last fetch).
 * The count of requests is the one piece of global state: a signal
 * handler has nowhere else to put it. */
#ifndef STAPRELAY_STOPSIG_H
#define STAPRELAY_STOPSIG_H

#include <signal.h>
#include <stdbool.h>

enum {
    STOPSIG_HUP = 1,          /* SIGHUP stops too (run: the terminal went) */
    STOPSIG_SECOND_KILLS = 2, /* a second request gets the default action */
};

typedef struct stopsig_saved {
    struct sigaction intr, term, hup;
    unsigned flags;
} stopsig_saved;

/* Count stop requests from now (the count starts at 0); the handlers
 * they replace go to saved (NULL: for the rest of the process).  No
 * SA_RESTART: a request interrupts poll(), waitpid() and nanosleep(). */
void stopsig_catch(stopsig_saved *saved, unsigned flags);
/* Put the saved handlers back. */
void stopsig_restore(const stopsig_saved *saved);
/* A request made by the program itself, as a signal would (staprelay
 * web's main thread takes the signals and passes them on so). */
void stopsig_request(void);
/* Requests since stopsig_catch(). */
int stopsig_count(void);

#endif
