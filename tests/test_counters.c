/* test_counters.c - `contend stat`'s events, groups, scaling and verdict.
 *
 * libpfm4 reads LIBPFM_FORCE_PMU once, in pfm_initialize(): each x86 model
 * is checked in a child of its own, this program run again with
 * "--pmu NAME" and the variable set.  The expected raw configs are the
 * event/umask pairs of the vendors' event lists, as libpfm4 4.13 encodes
 * them; nothing here has counted on that hardware.  Arm Neoverse is
 * checked in this process: its events are architected numbers, and
 * Debian's x86 libpfm4 has no Arm tables to force.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "detector/counters.h"
#include "reports/stat_report.h"
#include "tap.h"

#define GROUP_READ (PERF_FORMAT_GROUP | PERF_FORMAT_TOTAL_TIME_ENABLED | \
		    PERF_FORMAT_TOTAL_TIME_RUNNING)

struct expect {
	const char *pmu;
	const char *label;
	uint64_t config[CM_FIRST_SOFTWARE];   /* 0: no event, a reason instead */
	const char *missing_word[CM_FIRST_SOFTWARE];
	unsigned gp_events;
};

static const struct expect expected[] = {
	{ "skx", "Intel Skylake-SP", { 0x3c, 0xc0, 0x2c3, 0x4d2, 0x20d1, 0xe08 }, { 0 }, 4 },
	{ "icx", "Intel Ice Lake-SP", { 0x3c, 0xc0, 0x2c3, 0x4d2, 0x20d1, 0xe08 }, { 0 }, 4 },
	/* Sapphire Rapids: XSNP_FWD is the old XSNP_HITM; dTLB walks 0x12 */
	{ "spr", "Intel Sapphire Rapids", { 0x3c, 0xc0, 0x2c3, 0x4d2, 0x20d1, 0xe12 }, { 0 }, 4 },
	{ "amd64_fam17h_zen2", "AMD Zen 2", { 0x76, 0xc0, 0, 0x1243, 0x4843, 0xf045 },
	  { [CM_MO_CLEARS] = "no memory-ordering machine clear event" }, 5 },
	{ "amd64_fam19h_zen3", "AMD Zen 3", { 0x76, 0xc0, 0, 0x1443, 0x4843, 0xf045 },
	  { [CM_MO_CLEARS] = "no memory-ordering machine clear event" }, 5 },
	{ "amd64_fam19h_zen4", "AMD Zen 4", { 0x76, 0xc0, 0, 0x1443, 0x4843, 0xf045 },
	  { [CM_MO_CLEARS] = "no memory-ordering machine clear event" }, 5 },
};

static const struct counter_event *event_of(const struct counter_plan *p, enum counter_metric m,
					    unsigned *index)
{
	for (unsigned i = 0; i < p->hw.n; i++) {
		if (p->hw.ev[i].metric == m) {
			*index = i;
			return &p->hw.ev[i];
		}
	}
	return NULL;
}

/* The plan against e: configs, privilege, group order (cycles leads),
 * what is missing and why, the counter budget; and the software group. */
static void check_plan(const struct counter_plan *p, const struct expect *e, uint32_t type)
{
	unsigned n_expected = 0;

	CHECK(strstr(p->model, e->label) != NULL, "%s: model '%s'", e->pmu, p->model);
	for (enum counter_metric m = 0; m < CM_FIRST_SOFTWARE; m++) {
		unsigned at = 99;
		const struct counter_event *ev = event_of(p, m, &at);

		if (!e->config[m]) {
			CHECK(!ev, "%s: %s has an event", e->pmu, counter_metric_id(m));
			CHECK(p->missing[m] && strstr(p->missing[m], e->missing_word[m]),
			      "%s: %s missing: %s", e->pmu, counter_metric_id(m),
			      p->missing[m] ? p->missing[m] : "(no reason)");
			continue;
		}
		n_expected++;
		CHECK(ev != NULL, "%s: no event for %s (%s)", e->pmu, counter_metric_id(m),
		      p->missing[m] ? p->missing[m] : "");
		if (!ev)
			continue;
		CHECK_EQ_U64(ev->attr.type, type, counter_metric_id(m));
		CHECK(ev->attr.config == e->config[m], "%s: %s config 0x%llx, want 0x%llx",
		      e->pmu, counter_metric_id(m), (unsigned long long)ev->attr.config,
		      (unsigned long long)e->config[m]);
		CHECK(ev->attr.exclude_kernel && ev->attr.read_format == GROUP_READ,
		      "%s: %s user-level, group read", e->pmu, counter_metric_id(m));
		CHECK(!p->missing[m], "%s: %s has an event and a reason", e->pmu,
		      counter_metric_id(m));
	}
	/* one group, in metric order: cycles leads, all scheduled together */
	CHECK_EQ_U64(p->hw.n, n_expected, "hardware group size");
	CHECK(p->hw.n && p->hw.ev[0].metric == CM_CYCLES, "%s: cycles leads the group", e->pmu);
	for (unsigned i = 1; i < p->hw.n; i++)
		CHECK(p->hw.ev[i].metric > p->hw.ev[i - 1].metric, "%s: group order at %u", e->pmu, i);
	CHECK_EQ_U64(p->gp_events, e->gp_events, "general-purpose counters needed");
	CHECK(counter_plan_fit_note(p) == NULL, "%s: the group does not fit", e->pmu);
	CHECK_EQ_U64(p->sw.n, 3, "software group size");
	CHECK(p->sw.ev[0].metric == CM_TASK_CLOCK && p->sw.ev[0].attr.type == PERF_TYPE_SOFTWARE &&
	      p->sw.ev[0].attr.config == PERF_COUNT_SW_TASK_CLOCK, "task-clock leads software");
	CHECK(p->sw.ev[1].attr.config == PERF_COUNT_SW_CONTEXT_SWITCHES &&
	      p->sw.ev[2].attr.config == PERF_COUNT_SW_PAGE_FAULTS, "ctx switches, page faults");
	/* a context switch happens in the kernel: at user level it counts 0 */
	CHECK(p->sw.ev[0].attr.exclude_kernel && !p->sw.ev[1].attr.exclude_kernel &&
	      p->sw.ev[2].attr.exclude_kernel, "only context switches count in the kernel");
}

static int child_main(const char *pmu)
{
	struct counter_plan p;
	struct hw_host h;

	hw_host_detect(&h, "/nonexistent-root");   /* libpfm4 alone names the CPU */
	CHECK_STR(h.pfm_pmu, pmu, "forced PMU");
	counter_plan_make(&p, &h);
	for (size_t i = 0; i < sizeof(expected) / sizeof(expected[0]); i++)
		if (!strcmp(expected[i].pmu, pmu))
			check_plan(&p, &expected[i], PERF_TYPE_RAW);
	/* the names are libpfm4's, with the PMU */
	CHECK(!strncmp(p.hw.ev[0].name, pmu, strlen(pmu)) && strstr(p.hw.ev[0].name, "::"),
	      "event name %s", p.hw.ev[0].name);
	counter_plan_release(&p);
	return test_done();
}

static void run_child(const char *pmu)
{
	pid_t pid = fork();
	int status = 0;

	if (pid == 0) {
		setenv("LIBPFM_FORCE_PMU", pmu, 1);
		execl("/proc/self/exe", "test_counters", "--pmu", pmu, (char *)NULL);
		_exit(99);
	}
	waitpid(pid, &status, 0);
	CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0,
	      "LIBPFM_FORCE_PMU=%s: child status 0x%x", pmu, status);
}

/* --- in this process ------------------------------------------------------ */

static void test_arm(void)
{
	static const char *const pmus[][2] = {
		{ "arm_n1", "Arm Neoverse N1" }, { "arm_v1", "Arm Neoverse V1" },
		{ "arm_v2", "Arm Neoverse V2" }, { "", "architected PMUv3 events" },
	};

	for (size_t i = 0; i < sizeof(pmus) / sizeof(pmus[0]); i++) {
		struct expect e = {
			pmus[i][0], pmus[i][1], { 0x11, 0x08, 0, 0, 0x37, 0x34 },
			{ [CM_MO_CLEARS] = "no memory-ordering clear event",
			  [CM_HITM] = "no snoop-hit-modified event" }, 3 };
		struct counter_plan p;
		struct hw_host h;

		memset(&h, 0, sizeof(h));
		h.root = "";
		h.vendor = VENDOR_ARM;
		snprintf(h.pfm_pmu, sizeof(h.pfm_pmu), "%s", pmus[i][0]);
		counter_plan_make(&p, &h);
		check_plan(&p, &e, PERF_TYPE_RAW);
		counter_plan_release(&p);
	}
}

static void test_unknown_cpu(void)
{
	struct counter_plan p;
	struct hw_host h;

	memset(&h, 0, sizeof(h));
	h.root = "";
	snprintf(h.vendor_name, sizeof(h.vendor_name), "RISC-V");
	counter_plan_make(&p, &h);
	CHECK(strstr(p.model, "not in contend's table") != NULL, "unknown model: %s", p.model);
	CHECK(p.hw.n == 2 && p.hw.ev[0].attr.type == PERF_TYPE_HARDWARE &&
	      p.hw.ev[0].attr.config == PERF_COUNT_HW_CPU_CYCLES &&
	      p.hw.ev[1].attr.config == PERF_COUNT_HW_INSTRUCTIONS, "generic cycles, instructions");
	CHECK(p.missing[CM_HITM] && strstr(p.missing[CM_HITM], "no event for this CPU"),
	      "unknown: HITM missing: %s", p.missing[CM_HITM] ? p.missing[CM_HITM] : "");
	counter_plan_release(&p);
}

static void test_open_errors(void)
{
	struct perf_event_attr hw = { .type = PERF_TYPE_RAW, .exclude_kernel = 1 };
	struct perf_event_attr cs = { .type = PERF_TYPE_SOFTWARE, .exclude_kernel = 0 };
	struct hw_host vm, host;
	char *why;

	memset(&vm, 0, sizeof(vm));
	vm.hypervisor = true;
	host = vm;
	host.hypervisor = false;
	why = counter_open_error(ENOENT, &hw, &vm);
	CHECK(!strcmp(why, "no PMU exposed to this virtual machine (perf_event_open: No such "
		      "file or directory)"), "VM: %s", why);
	free(why);
	why = counter_open_error(ENOENT, &hw, &host);
	CHECK(!strncmp(why, "the kernel exposes no CPU PMU", 29), "bare metal: %s", why);
	free(why);
	why = counter_open_error(EACCES, &cs, &host);
	CHECK(!strncmp(why, "counted in the kernel, which perf_event_paranoid", 48), "EACCES: %s", why);
	free(why);
	why = counter_open_error(EINVAL, &hw, &host);
	CHECK(strstr(why, "refused the encoding") != NULL, "EINVAL: %s", why);
	free(why);
}

static void test_fit_note(void)
{
	struct counter_plan p = { .gp_events = 5, .gp_counters = 4, .gp_source = "a manual" };
	char *note = counter_plan_fit_note(&p);

	CHECK(note && strstr(note, "needs 5 general-purpose counters and this core has 4"),
	      "fit note: %s", note ? note : "(none)");
	free(note);
}

static void test_scaling(void)
{
	struct counter_group g = { .n = 2 };
	struct counter_reading r;
	uint64_t half[] = { 2, 1000, 500, 10, 20 };
	uint64_t never[] = { 2, 1000, 0, 0, 0 };

	g.ev[0].metric = CM_CYCLES;
	g.ev[1].metric = CM_HITM;
	memset(&r, 0, sizeof(r));
	counter_group_parse(&g, half, 5, &r);
	CHECK(r.v[CM_CYCLES].read && r.v[CM_CYCLES].value == 20.0 && r.v[CM_HITM].value == 40.0,
	      "scaled by enabled/running: %g %g", r.v[CM_CYCLES].value, r.v[CM_HITM].value);
	CHECK_EQ_U64(r.v[CM_HITM].raw, 20, "raw kept");
	CHECK(!r.v[CM_MO_CLEARS].read, "a metric not in the group is unread");
	memset(&r, 0, sizeof(r));
	counter_group_parse(&g, never, 5, &r);
	CHECK(r.v[CM_CYCLES].read && r.v[CM_CYCLES].running_ns == 0, "never scheduled: read, 0 running");
}

static void set(struct counter_reading *c, enum counter_metric m, double v)
{
	c->v[m] = (struct counter_value){ (uint64_t)v, 1000, 1000, v, true };
}

static struct stat_report *judged(double cycles, double ins, double hitm, double clears)
{
	struct stat_report *r = calloc(1, sizeof(*r));

	if (cycles)
		set(&r->process.c, CM_CYCLES, cycles);
	if (ins)
		set(&r->process.c, CM_INSTRUCTIONS, ins);
	if (hitm >= 0)
		set(&r->process.c, CM_HITM, hitm);
	if (clears >= 0)
		set(&r->process.c, CM_MO_CLEARS, clears);
	stat_report_finish(r);
	return r;
}

static void test_verdicts(void)
{
	struct stat_report *r;
	char *line;

	/* 1 HITM per 1k instructions at CPI 1: 60 cycles each = 6% >= 5% */
	r = judged(1e9, 1e9, 1e6, 1e5);
	CHECK(r->likely && r->counters_judged, "6%% contested cycles: likely");
	CHECK(r->verdict && !strcmp(r->verdict, "contention likely: 0.10 machine clears and 1.00 HITM "
				    "per 1k instructions (about 6.0% of cycles on contested "
				    "accesses); run `contend run` to find the lines"),
	      "verdict: %s", r->verdict);
	CHECK(fabs(r->process.cpi - 1.0) < 1e-9, "CPI %g", r->process.cpi);
	CHECK(r->n_thresholds == 2 && strstr(r->thresholds[0].source, "tma_contested_accesses"),
	      "thresholds cite TMA");
	stat_report_free(r);
	/* 0.6% contested, 0.5 clears per 1k: unlikely */
	r = judged(1e9, 1e9, 1e5, 5e5);
	CHECK(!r->likely && r->verdict && !strncmp(r->verdict, "contention unlikely: 0.50 machine", 33),
	      "unlikely: %s", r->verdict);
	stat_report_free(r);
	/* clears alone: 2 per 1k */
	r = judged(1e9, 1e9, 0, 2e6);
	CHECK(r->likely, "2 clears per 1k: likely (%s)", r->verdict);
	CHECK(strstr(r->thresholds[1].source, "own choice") != NULL, "clears threshold is ours");
	stat_report_free(r);
	/* AMD: no clears counted; the phrase names HITM only */
	r = judged(2e9, 1e9, 1e6, -1);
	CHECK(r->verdict && strstr(r->verdict, ": 1.00 HITM per 1k") && !r->likely,
	      "3%% contested at CPI 2: unlikely (%s)", r->verdict);
	stat_report_free(r);
	/* no PMU: from the samples */
	r = calloc(1, sizeof(*r));
	r->process.samples = 100;
	r->process.on_contended = 38;
	r->contended_lines = 1;
	stat_report_finish(r);
	CHECK(r->likely && !r->counters_judged && r->verdict &&
	      !strcmp(r->verdict, "contention likely: 38% of sampled accesses on 1 contended line; "
		      "run `contend run` to find the lines"), "samples: %s", r->verdict);
	r->process.on_contended = 4;
	free(r->verdict);
	r->n_thresholds = 0;
	stat_report_finish(r);
	CHECK(!r->likely && strstr(r->verdict, "unlikely: 4.0% of sampled accesses on 1"),
	      "4%%: %s", r->verdict);
	stat_report_free(r);
	/* the run/attach header */
	{
		struct counter_reading c;

		memset(&c, 0, sizeof(c));
		CHECK(stat_triage_line(&c) == NULL, "no counters: no triage line");
		set(&c, CM_CYCLES, 2e9);     /* 2 x 60 / 2000 = 6% */
		set(&c, CM_INSTRUCTIONS, 1e9);
		set(&c, CM_HITM, 2e6);
		line = stat_triage_line(&c);
		CHECK(line && !strncmp(line, "CPI 2.00; contention likely: 2.00 HITM", 38),
		      "triage line: %s", line ? line : "(none)");
		free(line);
	}
}

static void spin(double seconds)
{
	struct timespec t0, t;
	volatile unsigned long n = 0;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t0);
	do {
		for (int i = 0; i < 100000; i++)
			n++;
		clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
	} while (t.tv_sec - t0.tv_sec + (t.tv_nsec - t0.tv_nsec) / 1e9 < seconds);
}

/* The software group counts on any machine; the hardware one opens, or
 * says why not (on a VM without a PMU: the errno in words). */
static void test_live(void)
{
	struct counter_plan p;
	struct counter_reading r;
	struct counter_set *cs;
	struct hw_host h;

	hw_host_detect(&h, "");
	counter_plan_make(&p, &h);
	cs = counter_set_open(&p, 0, false, false);
	if (!counter_set_any_open(cs)) {
		counter_set_close(cs);
		counter_plan_release(&p);
		printf("# perf_event_open refused everything (perf_event_paranoid?)\n");
		return;
	}
	spin(0.05);
	counter_set_read(cs, &r);
	CHECK(r.v[CM_TASK_CLOCK].read && r.v[CM_TASK_CLOCK].value >= 40e6,
	      "task-clock %g ns after 50 ms of CPU", r.v[CM_TASK_CLOCK].value);
	if (!r.v[CM_CYCLES].read) {
		const char *why = counter_set_why(cs, CM_CYCLES);

		CHECK(why && why[0], "cycles unread, and a reason");
		if (why && h.hypervisor && !h.core_pmu[0])
			CHECK(strstr(why, "no PMU exposed to this virtual machine") != NULL,
			      "reason on this VM: %s", why);
		printf("# hardware counters here: %s\n", why ? why : "?");
	}
	counter_set_close(cs);
	counter_plan_release(&p);
}

int main(int argc, char **argv)
{
	if (argc == 3 && !strcmp(argv[1], "--pmu"))
		return child_main(argv[2]);
	for (size_t i = 0; i < sizeof(expected) / sizeof(expected[0]); i++)
		run_child(expected[i].pmu);
	test_arm();
	test_unknown_cpu();
	test_fit_note();
	test_open_errors();
	test_scaling();
	test_verdicts();
	test_live();
	return test_done();
}
