/* counters.c - the events `contend stat` counts, per CPU model; groups;
 * reading and scaling.
 *
 * Which event counts what, per model (libpfm4 4.13 names; the raw configs
 * they encode to are asserted in tests/test_counters.c with
 * LIBPFM_FORCE_PMU; none of them has been counted on real hardware by
 * this project, see docs/hardware-backends.md):
 *
 *  Intel (skx, icx, spr): cycles and instructions in the fixed counters;
 *   MACHINE_CLEARS:MEMORY_ORDERING; loads that hit in L3 on a line another
 *   core held modified, MEM_LOAD_L3_HIT_RETIRED:XSNP_HITM (Sapphire
 *   Rapids renamed it XSNP_FWD) - the event Intel's top-down
 *   tma_contested_accesses metric and perf c2c's HITM column are built
 *   on; MEM_LOAD_RETIRED:L3_MISS; DTLB_LOAD_MISSES:WALK_COMPLETED.
 *  AMD Zen 2-4: no HITM event; the nearest is demand fills from another
 *   core's cache (Zen 2 cannot tell them from L3 hits in its own CCX), and
 *   no memory-ordering clear event in libpfm4's tables: said so.  L3
 *   misses are demand fills from DRAM; dTLB walks are L1 dTLB misses that
 *   also missed the L2 TLB.
 *  Arm Neoverse N1, V1, V2: the architected PMUv3 event numbers (Arm ARM,
 *   "common event numbers"; the same in libpfm4's Neoverse tables):
 *   CPU_CYCLES 0x11, INST_RETIRED 0x08, LL_CACHE_MISS_RD 0x37, DTLB_WALK
 *   0x34.  The common set has no snoop-hit-modified and no memory-ordering
 *   clear event, so an Arm verdict comes from the sampler.  They are raw
 *   numbers, not libpfm4 encodings: Debian's x86 build of libpfm4 has no
 *   Arm tables to force.  libpfm4 names the cores arm_n1, arm_n2, arm_v1
 *   (lib/pfmlib_arm_armv8.c, armv9.c) and, by its 4.13 README, knows V2
 *   (arm_v2 assumed, not seen in its source here); any other Arm core
 *   gets the same architected numbers and the output says so.
 */
#include "detector/counters.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <perfmon/pfmlib_perf_event.h>

#include "common/util.h"
#include "detector/perf_event.h"

#define N_HW CM_FIRST_SOFTWARE

struct model_row {
	const char *pfm[4];           /* libpfm4 core PMU names of the model */
	enum cpu_vendor vendor;       /* Arm rows match the vendor, whatever libpfm4 says */
	const char *label;
	const char *event[N_HW];      /* libpfm4 event, NULL: see raw[] or why_none[] */
	uint64_t raw[N_HW];           /* Arm: architected event number */
	const char *why_none[N_HW];
	const char *caveat[N_HW];
	unsigned fixed;               /* 1 << metric: counted in a dedicated counter */
	unsigned gp_counters;
	const char *gp_source;
};

#define INTEL_COMMON_EVENTS \
	[CM_CYCLES] = "UNHALTED_CORE_CYCLES", [CM_INSTRUCTIONS] = "INSTRUCTION_RETIRED", \
	[CM_MO_CLEARS] = "MACHINE_CLEARS:MEMORY_ORDERING", \
	[CM_L3_MISS] = "MEM_LOAD_RETIRED:L3_MISS", \
	[CM_DTLB_WALK] = "DTLB_LOAD_MISSES:WALK_COMPLETED"

/* IA32_FIXED_CTR0 and 1 */
#define INTEL_FIXED (1u << CM_CYCLES | 1u << CM_INSTRUCTIONS)

#define AMD_NO_CLEARS \
	.why_none = { [CM_MO_CLEARS] = "libpfm4 4.13 has no memory-ordering machine clear event for this AMD core" }
#define AMD_COMMON_EVENTS \
	[CM_CYCLES] = "CYCLES_NOT_IN_HALT", [CM_INSTRUCTIONS] = "RETIRED_INSTRUCTIONS", \
	[CM_DTLB_WALK] = "L1_DTLB_MISS:TLB_RELOAD_4K_L2_MISS:TLB_RELOAD_2M_L2_MISS:" \
			 "TLB_RELOAD_1G_L2_MISS:TLB_RELOAD_COALESCED_PAGE_MISS"
#define AMD_GP 6, "AMD PPR: six core performance counters (PERF_CTL0-5)"

#define ARM_ROW(pmu, name) { \
	.pfm = { pmu }, .vendor = VENDOR_ARM, .label = name, \
	.raw = { [CM_CYCLES] = 0x11, [CM_INSTRUCTIONS] = 0x08, [CM_L3_MISS] = 0x37, \
		 [CM_DTLB_WALK] = 0x34 }, \
	.why_none = { \
		[CM_MO_CLEARS] = "the Arm PMUv3 common events have no memory-ordering clear event", \
		[CM_HITM] = "the Arm PMUv3 common events have no snoop-hit-modified event" }, \
	.caveat = { [CM_L3_MISS] = "LL_CACHE_MISS_RD: counted only where the system cache reports it" }, \
	.fixed = 1u << CM_CYCLES, /* PMCCNTR */ \
	.gp_counters = 6, .gp_source = "libpfm4's Neoverse tables: num_cntrs 6, the cycle counter apart" }

static const struct model_row models[] = {
	{ .pfm = { "skx" }, .vendor = VENDOR_INTEL, .label = "Intel Skylake-SP",
	  .event = { INTEL_COMMON_EVENTS, [CM_HITM] = "MEM_LOAD_L3_HIT_RETIRED:XSNP_HITM" },
	  .fixed = INTEL_FIXED,
	  .gp_counters = 4, .gp_source = "Intel SDM vol. 3B: four per logical processor with Hyper-Threading on" },
	{ .pfm = { "icx" }, .vendor = VENDOR_INTEL, .label = "Intel Ice Lake-SP",
	  .event = { INTEL_COMMON_EVENTS, [CM_HITM] = "MEM_LOAD_L3_HIT_RETIRED:XSNP_HITM" },
	  .fixed = INTEL_FIXED,
	  .gp_counters = 8, .gp_source = "Intel SDM vol. 3B: eight per logical processor from Ice Lake on" },
	{ .pfm = { "spr", "emr" }, .vendor = VENDOR_INTEL, .label = "Intel Sapphire Rapids",
	  .event = { INTEL_COMMON_EVENTS, [CM_HITM] = "MEM_LOAD_L3_HIT_RETIRED:XSNP_FWD" },
	  .fixed = INTEL_FIXED,
	  .gp_counters = 8, .gp_source = "Intel SDM vol. 3B: eight per logical processor from Ice Lake on" },
	{ .pfm = { "amd64_fam17h_zen2" }, .vendor = VENDOR_AMD, .label = "AMD Zen 2",
	  .event = { AMD_COMMON_EVENTS,
		     [CM_HITM] = "DATA_CACHE_REFILLS_FROM_SYSTEM:LS_MABRESP_LCL_CACHE:LS_MABRESP_RMT_CACHE",
		     [CM_L3_MISS] = "DATA_CACHE_REFILLS_FROM_SYSTEM:LS_MABRESP_LCL_DRAM:LS_MABRESP_RMT_DRAM" },
	  .caveat = { [CM_HITM] = "fills from another core's cache or this CCX's L3: Zen 2 counts no HITM",
		      [CM_L3_MISS] = "demand fills from DRAM" },
	  AMD_NO_CLEARS, .gp_counters = AMD_GP },
	{ .pfm = { "amd64_fam19h_zen3" }, .vendor = VENDOR_AMD, .label = "AMD Zen 3",
	  .event = { AMD_COMMON_EVENTS,
		     [CM_HITM] = "DEMAND_DATA_CACHE_FILLS_FROM_SYSTEM:EXT_CACHE_LCL:EXT_CACHE_RMT",
		     [CM_L3_MISS] = "DEMAND_DATA_CACHE_FILLS_FROM_SYSTEM:MEM_IO_LCL:MEM_IO_RMT" },
	  .caveat = { [CM_HITM] = "demand fills from another CCX's cache, modified or not: Zen 3 counts no HITM",
		      [CM_L3_MISS] = "demand fills from DRAM" },
	  AMD_NO_CLEARS, .gp_counters = AMD_GP },
	{ .pfm = { "amd64_fam19h_zen4" }, .vendor = VENDOR_AMD, .label = "AMD Zen 4",
	  .event = { AMD_COMMON_EVENTS,
		     [CM_HITM] = "DEMAND_DATA_CACHE_FILLS_FROM_SYSTEM:NEAR_CACHE_NEAR_FAR:FAR_CACHE_NEAR_FAR",
		     [CM_L3_MISS] = "DEMAND_DATA_CACHE_FILLS_FROM_SYSTEM:DRAM_IO_NEAR:DRAM_IO_FAR" },
	  .caveat = { [CM_HITM] = "demand fills from another CCX's cache, modified or not: Zen 4 counts no HITM",
		      [CM_L3_MISS] = "demand fills from DRAM" },
	  AMD_NO_CLEARS, .gp_counters = AMD_GP },
	ARM_ROW("arm_n1", "Arm Neoverse N1"),
	ARM_ROW("arm_v1", "Arm Neoverse V1"),
	ARM_ROW("arm_v2", "Arm Neoverse V2"),
	ARM_ROW("arm_n2", "Arm Neoverse N2"),
};

/* Another Intel core libpfm4 knows (this VM says "icl"): the Ice Lake-SP
 * names are tried, and what does not encode is said. */
static const struct model_row *intel_fallback = &models[1];

static const char *const metric_ids[CM__COUNT] = {
	"cycles", "instructions", "mo_clears", "hitm", "l3_misses", "dtlb_walks",
	"task_clock_ns", "context_switches", "page_faults",
};
static const char *const metric_names[CM__COUNT] = {
	"cycles", "instructions", "memory-ordering machine clears", "HITM loads",
	"L3 misses", "dTLB walks", "task-clock", "context switches", "page faults",
};

const char *counter_metric_id(enum counter_metric m)
{
	return m < CM__COUNT ? metric_ids[m] : "?";
}

const char *counter_metric_name(enum counter_metric m)
{
	return m < CM__COUNT ? metric_names[m] : "?";
}

/* --- the plan -------------------------------------------------------------- */

static const struct model_row *find_model(const struct hw_host *h)
{
	for (size_t i = 0; i < ARRAY_SIZE(models); i++) {
		for (size_t k = 0; k < ARRAY_SIZE(models[i].pfm) && models[i].pfm[k]; k++)
			if (!strcmp(h->pfm_pmu, models[i].pfm[k]))
				return &models[i];
	}
	if (h->vendor == VENDOR_ARM) {
		for (size_t i = 0; i < ARRAY_SIZE(models); i++)
			if (models[i].vendor == VENDOR_ARM)
				return &models[i];     /* the architected numbers are the same */
	}
	if (h->vendor == VENDOR_INTEL && h->pfm_pmu[0])
		return intel_fallback;
	return NULL;
}

static void event_defaults(struct counter_event *e, enum counter_metric m)
{
	memset(e, 0, sizeof(*e));
	e->metric = m;
	e->attr.size = sizeof(e->attr);
	e->attr.exclude_kernel = 1;      /* the target's own code, as the samplers */
	e->attr.exclude_hv = 1;
	e->attr.read_format = PERF_FORMAT_GROUP | PERF_FORMAT_TOTAL_TIME_ENABLED |
			      PERF_FORMAT_TOTAL_TIME_RUNNING;
}

/* libpfm4's encoding of "pmu::event" at user level; false if unknown. */
static bool encode_pfm(const char *pmu, const char *event, struct counter_event *e)
{
	struct perf_event_attr pattr;
	pfm_perf_encode_arg_t arg;

	if (snprintf(e->name, sizeof(e->name), "%s::%s", pmu, event) >= (int)sizeof(e->name))
		return false;
	memset(&pattr, 0, sizeof(pattr));
	memset(&arg, 0, sizeof(arg));
	arg.attr = &pattr;
	arg.size = sizeof(arg);
	if (pfm_initialize() != PFM_SUCCESS ||
	    pfm_get_os_event_encoding(e->name, PFM_PLM3, PFM_OS_PERF_EVENT_EXT, &arg) != PFM_SUCCESS)
		return false;
	e->attr.type = pattr.type;
	e->attr.config = pattr.config;
	e->attr.config1 = pattr.config1;
	e->attr.config2 = pattr.config2;
	return true;
}

static void add_generic(struct counter_plan *p, enum counter_metric m, uint64_t config,
			const char *name)
{
	struct counter_event *e = &p->hw.ev[p->hw.n++];

	event_defaults(e, m);
	e->attr.type = PERF_TYPE_HARDWARE;
	e->attr.config = config;
	snprintf(e->name, sizeof(e->name), "%s", name);
}

static void plan_hardware(struct counter_plan *p, const struct hw_host *h,
			  const struct model_row *row)
{
	for (enum counter_metric m = 0; m < N_HW; m++) {
		struct counter_event *e = &p->hw.ev[p->hw.n];

		event_defaults(e, m);
		if (row->event[m] && encode_pfm(h->pfm_pmu, row->event[m], e)) {
			p->hw.n++;
		} else if (row->raw[m]) {
			e->attr.type = PERF_TYPE_RAW;
			e->attr.config = row->raw[m];
			snprintf(e->name, sizeof(e->name), "raw 0x%llx (Arm PMUv3)",
				 (unsigned long long)row->raw[m]);
			p->hw.n++;
		} else if (row->event[m]) {
			p->missing[m] = xasprintf("libpfm4 cannot encode %s::%s", h->pfm_pmu,
						  row->event[m]);
		} else {
			p->missing[m] = xstrdup(row->why_none[m] ? row->why_none[m] : "no event");
		}
		if (!p->missing[m]) {
			p->caveat[m] = row->caveat[m];
			if (!(row->fixed & 1u << m))
				p->gp_events++;
		}
	}
	p->gp_counters = row->gp_counters;
	p->gp_source = row->gp_source;
}

static void plan_software(struct counter_plan *p)
{
	static const struct { enum counter_metric m; uint64_t config; const char *name; } sw[] = {
		{ CM_TASK_CLOCK, PERF_COUNT_SW_TASK_CLOCK, "task-clock" },
		{ CM_CTX_SWITCHES, PERF_COUNT_SW_CONTEXT_SWITCHES, "context-switches" },
		{ CM_PAGE_FAULTS, PERF_COUNT_SW_PAGE_FAULTS, "page-faults" },
	};

	for (size_t i = 0; i < ARRAY_SIZE(sw); i++) {
		struct counter_event *e = &p->sw.ev[p->sw.n++];

		event_defaults(e, sw[i].m);
		e->attr.type = PERF_TYPE_SOFTWARE;
		e->attr.config = sw[i].config;
		/* a context switch is the kernel's doing: counted at user
		 * level it is always 0, so it asks for the kernel, which an
		 * unprivileged user is refused at perf_event_paranoid 2; it
		 * is a member, so the refusal takes nothing else with it.
		 * task-clock counts time and page faults are counted at the
		 * user instruction that faulted: user level suffices. */
		e->attr.exclude_kernel = sw[i].m != CM_CTX_SWITCHES;
		snprintf(e->name, sizeof(e->name), "%s", sw[i].name);
	}
}

void counter_plan_make(struct counter_plan *p, const struct hw_host *h)
{
	const struct model_row *row = find_model(h);

	memset(p, 0, sizeof(*p));
	p->host = *h;
	if (row && row->vendor == VENDOR_ARM && strcmp(h->pfm_pmu, row->pfm[0]))
		snprintf(p->model, sizeof(p->model), "%s (libpfm4 %s; not in contend's table: "
			 "architected PMUv3 events)", h->vendor_name[0] ? h->vendor_name : "Arm",
			 h->pfm_pmu[0] ? h->pfm_pmu : "does not name the core");
	else if (row && row == intel_fallback && strcmp(h->pfm_pmu, "icx"))
		snprintf(p->model, sizeof(p->model), "%s (libpfm4 %s; not in contend's table: "
			 "Ice Lake-SP events tried)", h->vendor_name, h->pfm_pmu);
	else if (row)
		snprintf(p->model, sizeof(p->model), "%s (libpfm4 %s)", row->label, h->pfm_pmu);
	else
		snprintf(p->model, sizeof(p->model), "%s (not in contend's table)",
			 h->vendor_name[0] ? h->vendor_name : "unknown CPU");
	if (row) {
		plan_hardware(p, h, row);
	} else {
		add_generic(p, CM_CYCLES, PERF_COUNT_HW_CPU_CYCLES, "cycles");
		add_generic(p, CM_INSTRUCTIONS, PERF_COUNT_HW_INSTRUCTIONS, "instructions");
		for (enum counter_metric m = CM_MO_CLEARS; m < N_HW; m++)
			p->missing[m] = xasprintf("no event for this CPU in contend's table (libpfm4 "
						  "PMU: %s)", h->pfm_pmu[0] ? h->pfm_pmu : "none");
		p->gp_events = 2;
	}
	plan_software(p);
}

void counter_plan_release(struct counter_plan *p)
{
	for (unsigned m = 0; m < CM__COUNT; m++)
		free(p->missing[m]);
	memset(p, 0, sizeof(*p));
}

char *counter_plan_fit_note(const struct counter_plan *p)
{
	if (!p->gp_counters || p->gp_events <= p->gp_counters)
		return NULL;
	return xasprintf("the group needs %u general-purpose counters and this core has %u (%s): "
			 "the kernel will never schedule it whole; counts may be missing",
			 p->gp_events, p->gp_counters, p->gp_source);
}

/* --- counting -------------------------------------------------------------- */

struct open_group {
	const struct counter_group *g;
	int fd[COUNTER_MAX_GROUP];
	unsigned n_open;          /* 0: the leader did not open */
};

struct counter_set {
	struct open_group hw, sw;
	char *why[CM__COUNT];
};

char *counter_open_error(int err, const struct perf_event_attr *attr, const struct hw_host *h)
{
	bool hw = attr->type != PERF_TYPE_SOFTWARE;

	switch (err) {
	case ENOENT:
	case ENODEV:
	case EOPNOTSUPP:
		if (hw && h && h->hypervisor && !h->core_pmu[0])
			return xasprintf("no PMU exposed to this virtual machine (perf_event_open: %s)",
					 strerror(err));
		if (hw && h && !h->core_pmu[0])
			return xasprintf("the kernel exposes no CPU PMU (perf_event_open: %s)",
					 strerror(err));
		return xasprintf("the kernel does not support this event (perf_event_open: %s)",
				 strerror(err));
	case EACCES:
	case EPERM:
		if (!attr->exclude_kernel)
			return xasprintf("counted in the kernel, which perf_event_paranoid %d does not "
					 "permit this user (needs 1 or less, or CAP_PERFMON)",
					 perf_event_paranoid(2));
		return xasprintf("not permitted (perf_event_open: %s; perf_event_paranoid %d, "
				 "CAP_PERFMON)", strerror(err), perf_event_paranoid(2));
	case EINVAL:
		return xstrdup("the kernel refused the encoding (perf_event_open: Invalid argument)");
	case ESRCH:
		return xstrdup("the task exited before its counters opened");
	default:
		return xasprintf("perf_event_open: %s", strerror(err));
	}
}

static void open_group(struct counter_set *cs, struct open_group *og, const struct counter_group *g,
		       pid_t tid, bool inherit, bool enable_on_exec, const struct hw_host *h)
{
	og->g = g;
	for (unsigned i = 0; i < g->n; i++) {
		struct perf_event_attr attr = g->ev[i].attr;
		int fd;

		attr.inherit = inherit;
		attr.disabled = i == 0 && enable_on_exec;
		attr.enable_on_exec = i == 0 && enable_on_exec;
		fd = perf_event_open_fd(&attr, tid, -1, i ? og->fd[0] : -1);
		if (fd < 0) {
			/* a member the kernel refuses is left out; the leader
			 * takes the whole group with it */
			unsigned last = i ? i : g->n - 1;
			char *why = counter_open_error(-fd, &attr, h);

			for (unsigned k = i; k <= last; k++)
				if (!cs->why[g->ev[k].metric])
					cs->why[g->ev[k].metric] = xstrdup(why);
			free(why);
			if (!i)
				return;
			og->fd[i] = -1;
			continue;
		}
		og->fd[i] = fd;
		og->n_open = i + 1;
	}
}

struct counter_set *counter_set_open(const struct counter_plan *p, pid_t tid, bool inherit,
				     bool enable_on_exec)
{
	struct counter_set *cs = xcalloc(1, sizeof(*cs));

	if (p->hw.n)
		open_group(cs, &cs->hw, &p->hw, tid, inherit, enable_on_exec, &p->host);
	open_group(cs, &cs->sw, &p->sw, tid, inherit, enable_on_exec, &p->host);
	return cs;
}

const char *counter_set_why(const struct counter_set *cs, enum counter_metric m)
{
	return m < CM__COUNT ? cs->why[m] : NULL;
}

bool counter_set_any_open(const struct counter_set *cs)
{
	return cs->hw.n_open || cs->sw.n_open;
}

void counter_group_parse(const struct counter_group *g, const uint64_t *buf, unsigned words,
			 struct counter_reading *out)
{
	uint64_t nr, enabled, running;
	double scale;

	if (words < 3)
		return;
	nr = buf[0];
	enabled = buf[1];
	running = buf[2];
	/* never ran: nothing to scale from (the group did not fit, or the
	 * task never ran) - read, with 0 running for the caller to say so */
	scale = running ? (double)enabled / (double)running : 0.0;
	for (unsigned i = 0; i < nr && i < g->n && 3 + i < words; i++) {
		struct counter_value *v = &out->v[g->ev[i].metric];

		v->raw = buf[3 + i];
		v->enabled_ns = enabled;
		v->running_ns = running;
		v->value = (double)v->raw * scale;
		v->read = true;
	}
}

static void read_group(const struct open_group *og, struct counter_reading *out)
{
	uint64_t buf[3 + COUNTER_MAX_GROUP];
	struct counter_group opened = { .n = 0 };
	ssize_t n;

	if (!og->n_open)
		return;
	/* members the kernel refused are not in the group's read */
	for (unsigned i = 0; i < og->n_open; i++)
		if (og->fd[i] >= 0)
			opened.ev[opened.n++] = og->g->ev[i];
	n = read(og->fd[0], buf, sizeof(buf));
	if (n >= (ssize_t)(3 * sizeof(uint64_t)))
		counter_group_parse(&opened, buf, (unsigned)(n / (ssize_t)sizeof(uint64_t)), out);
}

void counter_set_read(struct counter_set *cs, struct counter_reading *out)
{
	memset(out, 0, sizeof(*out));
	read_group(&cs->hw, out);
	read_group(&cs->sw, out);
}

static void group_ioctl(struct open_group *og, unsigned long req)
{
	if (og->n_open)
		ioctl(og->fd[0], req, PERF_IOC_FLAG_GROUP);
}

void counter_set_disable(struct counter_set *cs)
{
	group_ioctl(&cs->hw, PERF_EVENT_IOC_DISABLE);
	group_ioctl(&cs->sw, PERF_EVENT_IOC_DISABLE);
}

static void close_group(struct open_group *og)
{
	for (unsigned i = 0; i < og->n_open; i++)
		if (og->fd[i] >= 0)
			close(og->fd[i]);
	og->n_open = 0;
}

void counter_set_close(struct counter_set *cs)
{
	if (!cs)
		return;
	close_group(&cs->hw);
	close_group(&cs->sw);
	for (unsigned m = 0; m < CM__COUNT; m++)
		free(cs->why[m]);
	free(cs);
}
