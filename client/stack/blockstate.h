/* blockstate: what an off-CPU thread was waiting for -- the one rule
 * behind --by-state and --only-state (staprelay web takes both with
 * the other PCP options, and its URL's state= filter).
 *
 * An off-CPU record (stap/offcpu.stp, the perf backend's offcpu) carries
 * the task's state at switch-out as the kernel's sched_switch tracepoint
 * prints it (prev_state): "R" or "R+" (preempted: it could still run),
 * "S" (interruptible sleep), "D" (uninterruptible: disk I/O, mostly),
 * "I" (an idle kernel thread's wait), "T", "t", "X", "Z", "P".  Its class:
 *
 *   lock       the blocked stack holds a lock wait of the kernel
 *              (futex_wait*, mutex_lock*, rwsem_down*, rt_mutex*,
 *              down_read*, down_write*, the semaphores' __down*,
 *              percpu_rwsem_wait), whatever the state but R: a pthread
 *              mutex, rwlock or condition variable waits in futex_wait
 *   io         D otherwise (fsync, a page fault's read, a disk queue)
 *   sleep      S or I otherwise (nanosleep, poll, a pipe or socket read)
 *   preempted  R, R+ (time spent runnable, waiting for a CPU)
 *   other      anything else (stopped, traced, dead, parked)
 *
 * A record without a state (counters, files, older scripts) has no
 * class: no state frame, and --only-state drops it. */
#ifndef STAPRELAY_BLOCKSTATE_H
#define STAPRELAY_BLOCKSTATE_H

#include <stdbool.h>
#include <stddef.h>
#include "common/strbuf.h"

typedef enum {
    BLOCK_STATE_NONE = 0,
    BLOCK_STATE_IO,
    BLOCK_STATE_LOCK,
    BLOCK_STATE_SLEEP,
    BLOCK_STATE_PREEMPTED,
    BLOCK_STATE_OTHER,
} block_state;

#define BLOCK_STATE_NAMES "io, lock, sleep, preempted, other"

/* The class of a block: state is the record's state text (n bytes, not
 * NUL-terminated; NULL or empty: none), stack its folded stack (root
 * first, ';' between frames, kernel frames may end in _[k]). */
block_state block_state_of(const char *state, size_t n, const char *stack,
                           size_t len);
/* "io", ...; NULL for BLOCK_STATE_NONE.  A static string. */
const char *block_state_name(block_state s);
/* The class named name, BLOCK_STATE_NONE when it names none. */
block_state block_state_from_name(const char *name);
/* Adds the classes of list, "CLASS[,CLASS...]", to *mask (bit 1 << each
 * class).  False, with why in err (naming the word that is none, or that
 * none was given), when list names anything else or nothing. */
bool block_state_add_list(const char *list, unsigned *mask, strbuf *err);
/* --by-state's root frame, "state:CLASS" and ';', appended to out;
 * nothing for BLOCK_STATE_NONE. */
void block_state_frame(strbuf *out, block_state s);

#endif
