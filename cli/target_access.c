/* target_access.c - may contend sample or watch this process?  See
 * target_access.h. */
#include "cli/target_access.h"

#include <errno.h>
#include <fcntl.h>
#include <pwd.h>
#include <stdio.h>
#include <unistd.h>

#include "common/procfs.h"
#include "common/util.h"

#define CAP_SYS_PTRACE_BIT 19   /* linux/capability.h */

/* perf_event_open() on another task needs ptrace read access to it, the
 * check that guards /proc/PID/environ: try that first, so that a refusal
 * names the real obstacle instead of perf_event_paranoid.  The kernel
 * allows it to the owner of a dumpable process, else to a holder of
 * CAP_SYS_PTRACE; past both, a security module (SELinux, AppArmor, a
 * sandbox's own) has the last word, and "run as root" would not help. */
void target_check_access(pid_t pid, const char *verb)
{
	char path[64];
	uid_t owner;
	struct passwd *pw;
	int fd;

	if (process_is_kernel_thread(pid))
		die("process %d is a kernel thread: it has no user-space code or data to %s",
		    (int)pid, verb);
	snprintf(path, sizeof(path), "/proc/%d/environ", (int)pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd >= 0) {
		close(fd);
		return;
	}
	if (errno != EACCES && errno != EPERM)
		return;   /* let perf_event_open() say what is wrong */
	if (process_has_capability(getpid(), CAP_SYS_PTRACE_BIT))
		die("not permitted to %s process %d: contend has CAP_SYS_PTRACE, so a "
		    "security module or sandbox policy protects that process", verb, (int)pid);
	owner = process_uid(pid);
	if (owner == geteuid())
		die("not permitted to %s process %d: it is not dumpable (setuid, "
		    "PR_SET_DUMPABLE 0) or holds capabilities contend lacks; grant contend "
		    "CAP_SYS_PTRACE", verb, (int)pid);
	pw = getpwuid(owner);
	if (geteuid() == 0)
		die("not permitted to %s process %d of user %s (uid %u): contend runs as "
		    "root without CAP_SYS_PTRACE (dropped by a container?); grant it",
		    verb, (int)pid, pw ? pw->pw_name : "?", (unsigned)owner);
	die("not permitted to %s process %d: it belongs to user %s (uid %u); run contend "
	    "as that user or as root, or grant it CAP_SYS_PTRACE", verb, (int)pid,
	    pw ? pw->pw_name : "?", (unsigned)owner);
}
