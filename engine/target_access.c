/* target_access.c - may contend sample or watch this process?  See
 * target_access.h. */
#include "engine/target_access.h"

#include <errno.h>
#include <fcntl.h>
#include <pwd.h>
#include <stdio.h>
#include <unistd.h>

#include "engine/options.h"
#include "detector/hw_backend.h"
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
	pid_t task = process_memory_task(pid);
	int fd;

	if (process_is_kernel_thread(pid))
		die("process %d is a kernel thread: it has no user-space code or data to %s",
		    (int)pid, verb);
	/* a zombie main thread has no memory, and its environ no check */
	snprintf(path, sizeof(path), "/proc/%d/environ", (int)(task ? task : pid));
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

/* -p TID of a thread that is not the main one: the process it belongs to
 * (as perf does, every thread of it is sampled; samples and mappings
 * are the process's).  Dies if there is no such process. */
pid_t target_process(const struct options *opt)
{
	pid_t tgid = process_tgid(opt->pid);

	if (!process_alive(opt->pid) || !tgid)
		die("no such process: %d (find the PID with pidof or ps)", (int)opt->pid);
	if (tgid != opt->pid && !opt->quiet)
		fprintf(stderr, "contend: %d is a thread of process %d: sampling the process%s\n",
			(int)opt->pid, (int)tgid,
			opt->n_tids ? "'s threads given by -t" : " (-t TID: that thread alone)");
	return tgid;
}

/* A watchpoint's trap can reach a virtual machine's guest with an empty
 * DR6, which the kernel delivers to the process as SIGTRAP: it dies
 * (bench/watch-safety.sh: 2 of 400 watched runs, about once in 10^7
 * trapped accesses).  run's target is the user's own test; attach's may
 * be a production service: there, confirmation is opt-in.  Says why in
 * the header, or returns NULL when confirmation stays as asked. */
const char *target_watch_default(struct options *o)
{
	if (!o->confirm || o->confirm_set)
		return NULL;
	if (!hw_host_here()->hypervisor)
		return NULL;
	o->confirm = false;
	return "off: attaching on a virtual machine, where a watchpoint's trap can reach "
	       "the process as a spurious SIGTRAP and kill it (a hypervisor fault: about "
	       "once in 10^7 watched accesses); --confirm to watch anyway";
}

pid_t *target_threads(const struct options *opt, unsigned *n)
{
	pid_t *tids;

	if (opt->n_tids) {
		tids = xmalloc(opt->n_tids * sizeof(*tids));
		copy_bytes(tids, opt->tids, opt->n_tids * sizeof(*tids));
		*n = opt->n_tids;
	} else {
		tids = process_tasks(opt->pid, n);
	}
	if (!*n)
		die("no such process: %d", (int)opt->pid);
	if (*n == 1 && !opt->n_tids && !opt->quiet)
		fprintf(stderr, "contend: process %d has one thread: it cannot contend with itself "
			"unless it starts more; sharing with other processes (shared memory) "
			"needs -a, or several -p\n", (int)opt->pid);
	return tids;
}
