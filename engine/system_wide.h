/* system_wide.h - attach -a / record -a: every process on the machine.
 *
 * The events are per CPU (pid -1): samples come from processes contend
 * has never heard of.  The first sample of a process reads its maps from
 * /proc (the soft backend decodes its code from them, the report names
 * its data); the session names each thread as it shows up.  The
 * maps of the processes seen are re-read now and then, and a process
 * that has exited is dropped from that list (the symbolizer keeps what it
 * knew, for the report).  contend's own samples, those of every other
 * contend process (this binary, or any named contend: their price probes
 * false-share on purpose), and those of kernel threads (no user space:
 * the events exclude the kernel, so they should not come), are dropped.  Memory grows with the processes sampled, as
 * the line table's does with lines and sites.
 */
#ifndef CONTEND_SYSTEM_WIDE_H
#define CONTEND_SYSTEM_WIDE_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>
#include <sys/stat.h>

#include "common/hashmap.h"

struct symbolizer;

struct system_wide {
	struct hashmap seen;       /* pid -> its live[] index + 1, or dropped */
	struct hashmap named;      /* tid -> 1: seen (named) */
	struct sw_process {        /* seen and not known to have exited */
		pid_t pid;
		bool sampled;      /* since the last refresh */
	} *live;
	size_t n_live, alloc_live;
	uint32_t last_pid, last_tid;   /* the last sample's: most repeat */
	bool last_kept;                /*   and whether it was kept */
	pid_t self;
	const pid_t *only;         /* -p PID,PID,...: these alone; NULL: every one */
	unsigned n_only;
	const char *cgroup;        /* -G: the processes in it (or below) alone; NULL: any */
	struct stat self_exe;      /* to know other contend processes */
	uint64_t processes;        /* distinct processes sampled */
	uint64_t contend_processes;   /* other contends, left out */
};

void system_wide_init(struct system_wide *sw);
/* What -a or -p PID,PID,... samples, for the report's header: "every
 * process (-a)", "processes 12, 34" (caller frees).  Dies if a listed
 * process is gone. */
char *system_wide_label(const pid_t *pids, unsigned n, const char *cgroup);
void system_wide_release(struct system_wide *sw);
/* A sample of pid/tid is about to be decoded: false to drop it.
 * *new_thread: tid is new, to be named (from /proc while it lives). */
bool system_wide_sample(struct system_wide *sw, struct symbolizer *sym,
			uint32_t pid, uint32_t tid, bool *new_thread);
/* Re-read the maps of the processes sampled since the last refresh (a
 * machine runs many that come and go: reading them all would take the
 * session's time from draining its buffers); forget the exited. */
void system_wide_refresh(struct system_wide *sw, struct symbolizer *sym);

#endif
