/* target_access.h - may contend sample or watch this process?
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

#endif
