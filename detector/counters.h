/* counters.h - counting (not sampling) events for `contend stat`.
 *
 * Three things, in the order a stat session needs them:
 *  - the plan (counter_plan_make): which events count each metric on
 *    this CPU model, from a table of models (Intel Skylake-SP, Ice
 *    Lake-SP, Sapphire Rapids; AMD Zen 2, 3, 4; Arm Neoverse N1, V1, V2),
 *    encoded by libpfm4 for the core PMU hw_host_detect() found
 *    (LIBPFM_FORCE_PMU is honoured), the Arm ones from the architected
 *    PMUv3 event numbers; and why a metric has no event here;
 *  - the groups: the hardware events form one group (cycles leads), so
 *    the kernel schedules them together and their ratios are of the
 *    same instants; the software events (task-clock, context switches,
 *    page faults) another, so that a hardware group the machine refuses
 *    takes nothing else down;
 *  - reading: PERF_FORMAT_GROUP | TOTAL_TIME_ENABLED | TOTAL_TIME_RUNNING,
 *    values scaled by enabled/running when the group was multiplexed.
 *
 * A target is counted twice: once as a process (inherit=1 on its first
 * task: every thread it creates is summed in, however short-lived) and
 * once per thread (inherit=0, opened on each thread as the session finds
 * it: a thread's first tick of life, and threads shorter than a tick, are
 * in the process total only).
 */
#ifndef CONTEND_COUNTERS_H
#define CONTEND_COUNTERS_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>
#include <linux/perf_event.h>

#include "detector/hw_backend.h"

enum counter_metric {
	CM_CYCLES,
	CM_INSTRUCTIONS,
	CM_MO_CLEARS,        /* memory-ordering machine clears */
	CM_HITM,             /* loads that hit a line modified in another core */
	CM_L3_MISS,          /* loads served beyond the last-level cache */
	CM_DTLB_WALK,        /* data TLB misses that walked the page tables */
	CM_TASK_CLOCK,       /* software: ns on a CPU */
	CM_CTX_SWITCHES,
	CM_PAGE_FAULTS,
	CM__COUNT
};
#define CM_FIRST_SOFTWARE CM_TASK_CLOCK

/* "cycles", "hitm", ...: the JSON key; and a phrase for the text output */
const char *counter_metric_id(enum counter_metric m);
const char *counter_metric_name(enum counter_metric m);

#define COUNTER_MAX_GROUP 8

struct counter_event {
	enum counter_metric metric;
	struct perf_event_attr attr;  /* type, config, config1, privilege bits */
	char name[192];               /* "skx::MACHINE_CLEARS:MEMORY_ORDERING" */
};

struct counter_group {
	struct counter_event ev[COUNTER_MAX_GROUP];   /* ev[0] leads */
	unsigned n;
};

struct counter_plan {
	char model[192];              /* "Intel Skylake-SP (libpfm4 skx)" */
	struct counter_group hw, sw;
	/* per metric: why it has no event here (owned), NULL if it has one */
	char *missing[CM__COUNT];
	/* what the metric counts on this model when it is not what its name
	 * says exactly (AMD: fills from another core's cache, not HITM) */
	const char *caveat[CM__COUNT];
	unsigned gp_events;           /* hardware events needing a general counter */
	unsigned gp_counters;         /* general counters per logical CPU, 0: unknown */
	const char *gp_source;        /* where gp_counters comes from */
	struct hw_host host;          /* the machine it was made for */
};

/* The plan for host h; never fails (a model it does not know gets the
 * kernel's generic cycles and instructions, and says so). */
void counter_plan_make(struct counter_plan *p, const struct hw_host *h);
void counter_plan_release(struct counter_plan *p);
/* One line on whether the hardware group fits the general counters:
 * NULL when it fits or nobody knows; caller frees. */
char *counter_plan_fit_note(const struct counter_plan *p);

/* --- counting a target ---------------------------------------------------- */

struct counter_value {
	uint64_t raw, enabled_ns, running_ns;
	double value;                 /* raw scaled by enabled/running */
	bool read;                    /* the event opened and was read */
};

struct counter_reading {
	struct counter_value v[CM__COUNT];
};

struct counter_set;

/* Open the plan's groups on task tid (inherit: the process-wide count of
 * everything it creates).  Enabled at once, or at its exec when
 * enable_on_exec.  A group that does not open leaves its metrics unread
 * with a reason (counter_set_why).  Never NULL. */
struct counter_set *counter_set_open(const struct counter_plan *p, pid_t tid, bool inherit,
				     bool enable_on_exec);
/* Why metric m did not open, or NULL if it did. */
const char *counter_set_why(const struct counter_set *cs, enum counter_metric m);
bool counter_set_any_open(const struct counter_set *cs);
/* Read every group now (the counts keep running until disabled). */
void counter_set_read(struct counter_set *cs, struct counter_reading *out);
void counter_set_disable(struct counter_set *cs);
void counter_set_close(struct counter_set *cs);

/* For tests: the bytes of a PERF_FORMAT_GROUP read (nr, enabled, running,
 * values) into the group's metrics of out, scaled. */
void counter_group_parse(const struct counter_group *g, const uint64_t *buf, unsigned words,
			 struct counter_reading *out);

/* perf_event_open's errno for an event, in words a user can act on
 * ("no PMU exposed to this virtual machine"); caller frees. */
char *counter_open_error(int err, const struct perf_event_attr *attr, const struct hw_host *h);

#endif
