/* exit_hold.h - keep a launched JVM's memory readable through its exit.
 *
 * A JVM's contended data is named by reading its memory (HotSpot's tables,
 * Klass names, Java objects: reports/jvm_names.h), which `contend run`
 * could not do: the report is built after the target exits, when its
 * memory is gone.  So while a launched JVM runs, one of its threads is
 * traced with PTRACE_SEIZE and PTRACE_O_TRACEEXIT: no stop, no signal,
 * until the process exits, when the kernel stops that thread before it
 * lets go of the address space.  The session builds the report then, and
 * releases the thread.
 *
 * Contract:
 *  - The held thread is one that blocks SIGQUIT and is not the main
 *    thread: process-directed signals (SIGQUIT for the attach mechanism,
 *    SIGTERM) then go to other threads, never through contend.  Of those,
 *    the one that has used the least CPU: it is waiting, not running Java
 *    code that takes signals.  A signal sent to it anyway is passed on at
 *    once (exit_hold_poll(), woken by SIGCHLD); a group stop is listened
 *    through; a thread that exits alone is let go and another is chosen.
 *  - Nothing is held if the kernel refuses (no ptrace rights): the report
 *    then names what it can, as before.
 *  - exit_hold_release() (or contend's own exit) lets the thread finish
 *    exiting; the exit status the process would have had is unchanged.
 */
#ifndef CONTEND_EXIT_HOLD_H
#define CONTEND_EXIT_HOLD_H

#include <stdbool.h>
#include <sys/types.h>

struct exit_hold {
	pid_t pid;              /* the process */
	pid_t tid;              /* the thread held; 0: none now */
	bool at_exit;           /* the process is exiting, held */
	int exit_status;        /* then: its wait status */
	bool refused;           /* PTRACE_SEIZE failed: do not try again */
};

/* Hold a thread of pid if none is held yet (call again later if the
 * process has no thread to hold yet).  False if none is held. */
bool exit_hold_start(struct exit_hold *h, pid_t pid);

/* Handle the held thread's stops; true once the process is exiting and
 * held (h->exit_status set).  Cheap when nothing happened. */
bool exit_hold_poll(struct exit_hold *h);

/* Let the held thread go (and the process finish exiting). */
void exit_hold_release(struct exit_hold *h);

#endif
