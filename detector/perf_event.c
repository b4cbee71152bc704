/* perf_event.c - the one door to perf_event_open(2) (perf_event.h). */
#include "detector/perf_event.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

/* CONTEND_SIMULATE, read once at start, before any thread: the
 * instruments' self-test opens events on a thread of its own.  (contend
 * no longer edits its environment at all, common/env.h; reading it once
 * also keeps a getenv() off every event opened.) */
static char simulate[256];

__attribute__((constructor)) static void simulate_read(void)
{
	const char *list = getenv("CONTEND_SIMULATE");

	if (list)
		snprintf(simulate, sizeof(simulate), "%s", list);
}

bool perf_simulating(const char *what)
{
	size_t n = strlen(what);

	for (const char *p = simulate; *p;) {
		size_t len = strcspn(p, ",");

		if (len == n && !strncmp(p, what, n))
			return true;
		p += len + (p[len] == ',');
	}
	return false;
}

int perf_event_open_fd(struct perf_event_attr *attr, pid_t pid, int cpu, int group_fd)
{
	int fd;

	if (attr->type == PERF_TYPE_BREAKPOINT && perf_simulating("dead-breakpoints")) {
		/* opens, enables, counts nothing: a dummy software event
		 * with the same sampling and flags */
		attr->type = PERF_TYPE_SOFTWARE;
		attr->config = PERF_COUNT_SW_DUMMY;
		attr->bp_type = 0;
		attr->bp_addr = 0;
		attr->bp_len = 0;
	}
	fd = (int)syscall(SYS_perf_event_open, attr, pid, cpu, group_fd, PERF_FLAG_FD_CLOEXEC);
	return fd < 0 ? -errno : fd;
}

int perf_event_paranoid(int def)
{
	FILE *f = fopen("/proc/sys/kernel/perf_event_paranoid", "re");
	int v = def;

	if (f) {
		if (fscanf(f, "%d", &v) != 1)
			v = def;
		fclose(f);
	}
	return v;
}

int perf_pmu_type(const char *pmu)
{
	char path[256];
	FILE *f;
	int type = -1;

	snprintf(path, sizeof(path), "/sys/bus/event_source/devices/%s/type", pmu);
	f = fopen(path, "re");
	if (!f)
		return -1;
	if (fscanf(f, "%d", &type) != 1 || type < 0)
		type = -1;
	fclose(f);
	return type;
}

const char *perf_open_hint(int err)
{
	static char hint[300];

	switch (err) {
	case EACCES:
	case EPERM:
		snprintf(hint, sizeof(hint),
			 "permission denied: kernel.perf_event_paranoid is %d; run as root, "
			 "grant CAP_PERFMON, or 'sysctl kernel.perf_event_paranoid=2' "
			 "(another user's process also needs CAP_SYS_PTRACE)",
			 perf_event_paranoid(-100));
		return hint;
	case ESRCH:
		return "the target process does not exist (it exited?)";
	case ENOENT:
	case EOPNOTSUPP:
		return "this event is not supported by the kernel or the (virtual) CPU";
	case EMFILE:
		return "too many open files: raise 'ulimit -n'";
	case ENOMEM:
		return "cannot lock the ring buffer memory: raise kernel.perf_event_mlock_kb or run as root";
	case ENOSYS:
		return "perf_event_open is not available (kernel built without perf events, or blocked by seccomp)";
	case ENOSPC:
		return "no free debug register (a debugger or another watcher holds them)";
	}
	return strerror(err);
}
