/* perf_event.h - the one door to perf_event_open(2).
 *
 * Every instrument contend opens (the sampling backends, the counters,
 * watchpoints, execute breakpoints, uprobes, the self-tests) goes through
 * perf_event_open_fd(): close-on-exec always, -errno instead of errno, and
 * one place to say what an error means (perf_open_hint()).
 *
 * Simulated machines.  CONTEND_SIMULATE, a comma-separated list read once
 * as contend starts, makes this machine behave as another kind does, so
 * that the paths taken there are tested here:
 *   dead-breakpoints  every PERF_TYPE_BREAKPOINT event opens and enables
 *                     and never fires (an AMD EPYC family 26 guest, kernel
 *                     6.18: W, RW and X counted 0 of 1000);
 *   dead-uprobes      uprobes are refused (EACCES), as for a user who may
 *                     not write tracefs (uprobe_event.h).
 * The instruments' self-test (instruments.h) then finds them dead, as it
 * would there; nothing else knows.
 */
#ifndef CONTEND_PERF_EVENT_H
#define CONTEND_PERF_EVENT_H

#include <stdbool.h>
#include <sys/types.h>
#include <linux/perf_event.h>

/* The fd, or -errno.  attr may be changed by a simulation (above). */
int perf_event_open_fd(struct perf_event_attr *attr, pid_t pid, int cpu, int group_fd);

/* Explain a perf_event_open errno for the user (static string): which
 * sysctl or capability, when that is the cause. */
const char *perf_open_hint(int err);

/* kernel.perf_event_paranoid, or def if it cannot be read. */
int perf_event_paranoid(int def);

/* The type number of a dynamic PMU (uprobe, ibs_op, arm_spe_0) from
 * sysfs, or -1 when the kernel has none. */
int perf_pmu_type(const char *pmu);

/* Is the named simulation (above) on? */
bool perf_simulating(const char *what);

#endif
