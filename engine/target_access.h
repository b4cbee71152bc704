/* target_access.h - which process attach samples, and may contend sample
 * or watch it?
 *
 * target_check_access() dies with one line naming the real obstacle if
 * process pid cannot be sampled or watched (verb: "sample", "watch"): a
 * kernel thread, no ptrace read access (not the owner, not dumpable, no
 * CAP_SYS_PTRACE) or a security module's refusal.  It returns if access
 * looks allowed; perf_event_open() has the last word.
 */
#ifndef CONTEND_TARGET_ACCESS_H
#define CONTEND_TARGET_ACCESS_H

#include <sys/types.h>

void target_check_access(pid_t pid, const char *verb);

struct options;

/* attach -p: the process to sample.  -p TID of a thread that is not the
 * main one names its process (as perf does: every thread of it is
 * sampled, or those -t gives).  Dies if there is no such process. */
pid_t target_process(const struct options *opt);

/* attach: the threads to open, -t's or all of the process's; dies if the
 * process has none.  A process with one thread (and no -t) gets a note
 * on stderr: it cannot contend with itself.  Caller frees. */
pid_t *target_threads(const struct options *opt, unsigned *n);

/* attach's watchpoint default: off on a virtual machine, where a
 * watchpoint's trap can kill the process, unless --confirm/--no-confirm
 * was given.  Clears o->confirm then and returns why (for the header);
 * NULL when confirmation stays as asked. */
const char *target_watch_default(struct options *o);

#endif
