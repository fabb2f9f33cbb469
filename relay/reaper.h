/* reaper: a command's process that outlives none of its descendants.
 *
 * A data-exec command may start a daemon in a new session (setsid ... &),
 * double-fork, or ignore signals: killing its process group misses all
 * of those.  So a small process of ours sits between the PMDA and every
 * command.  Where the kernel allows, it is the first process of a PID
 * namespace of its own (exec.c): when it exits or is killed, the kernel
 * kills every other process of the namespace, the command's descendants
 * included.  Where it does not (no CAP_SYS_ADMIN, a restricted
 * container), it is marked as the child subreaper, so every orphan among
 * the command's descendants becomes its child instead of init's.  It
 * keeps the PMDA's user and its parent-death signal (a process whose
 * credentials change loses that signal: the command, switched to
 * nobody, cannot hold it).  When the
 * command ends, or the reaper is told to stop (SIGTERM: the time-out, the
 * PMDA exiting, or the PMDA's death through PR_SET_PDEATHSIG), it kills
 * its children again and again until none is left, then exits with the
 * command's status.  Being root's, the command (nobody) cannot kill it.  The PMDA itself is never a subreaper: it
 * adopts nothing, so libev's child watchers only ever see its own. */
#ifndef STAPRELAY_REAPER_H
#define STAPRELAY_REAPER_H

#include <sys/types.h>

/* Become the reaper of the command that start_command(arg) starts in a
 * child (start_command runs in that child and never returns); parent is
 * the PMDA's pid (the reaper stops when it goes).  Never returns: exits
 * with the command's exit status, or as it was killed. */
void reaper_run(void (*start_command)(void *arg), void *arg, pid_t parent)
    __attribute__((noreturn));

/* Kill every child of the calling process, again and again, until it
 * has none (a subreaper's children include the orphans it adopted). */
void reaper_kill_all_children(void);

#endif
