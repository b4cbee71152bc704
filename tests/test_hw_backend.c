/* test_hw_backend.c - hardware backend encodings and probing, on any machine.
 *
 * libpfm4 reads LIBPFM_FORCE_PMU once, in pfm_initialize(): each PMU is
 * tested in a process of its own, this program run again with the
 * variable set ("--pmu NAME ROOT").  ROOT is a fake /proc and /sys that
 * stands in for the machine (cpuinfo, kernel release, PMU types, formats,
 * event aliases); hw_probe() opens nothing on a fake root.
 */
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "detector/backend.h"
#include "detector/hw_backend.h"
#include "tap.h"

static const struct hw_config cfg30 = { .ldlat = 30, .freq = 4000 };

#define MEM_SAMPLE (PERF_SAMPLE_ADDR | PERF_SAMPLE_DATA_SRC | PERF_SAMPLE_WEIGHT)

/* --- a fake machine ----------------------------------------------------- */

static void write_file(const char *root, const char *path, const char *fmt, ...)
{
	char full[PATH_MAX], *slash;
	va_list ap;
	FILE *f;

	snprintf(full, sizeof(full), "%s/%s", root, path);
	for (slash = strchr(full + 1, '/'); slash; slash = strchr(slash + 1, '/')) {
		*slash = '\0';
		mkdir(full, 0755);
		*slash = '/';
	}
	f = fopen(full, "w");
	if (!f) {
		fprintf(stderr, "cannot write %s: %s\n", full, strerror(errno));
		exit(99);
	}
	va_start(ap, fmt);
	vfprintf(f, fmt, ap);
	va_end(ap);
	fclose(f);
}

#define DEV "sys/bus/event_source/devices/"

static void intel_formats(const char *root, const char *pmu)
{
	char p[128];

	snprintf(p, sizeof(p), DEV "%s/format/event", pmu);
	write_file(root, p, "config:0-7\n");
	snprintf(p, sizeof(p), DEV "%s/format/umask", pmu);
	write_file(root, p, "config:8-15\n");
	snprintf(p, sizeof(p), DEV "%s/format/ldlat", pmu);
	write_file(root, p, "config1:0-15\n");
}

/* A machine with a core PMU ("cpu", type 4) and IBS (type 11), no aliases. */
static void make_pmu_root(const char *root)
{
	write_file(root, "proc/cpuinfo", "processor\t: 0\nvendor_id\t: GenuineIntel\nflags\t\t: fpu sse\n");
	write_file(root, "proc/sys/kernel/osrelease", "6.8.0-test\n");
	write_file(root, DEV "cpu/type", "4\n");
	intel_formats(root, "cpu");
	write_file(root, DEV "ibs_op/type", "11\n");
}

/* A hybrid Intel core libpfm4 does not know: everything from sysfs. */
static void make_hybrid_root(const char *root)
{
	write_file(root, "proc/cpuinfo", "vendor_id\t: GenuineIntel\nflags\t\t: fpu\n");
	write_file(root, "proc/sys/kernel/osrelease", "6.6.1\n");
	write_file(root, DEV "cpu_core/type", "8\n");
	intel_formats(root, "cpu_core");
	write_file(root, DEV "cpu_core/events/mem-loads", "event=0xcd,umask=0x1,ldlat=3\n");
	write_file(root, DEV "cpu_core/events/mem-stores", "event=0xcd,umask=0x2\n");
	write_file(root, DEV "cpu_core/events/mem-loads-aux", "event=0x03,umask=0x82\n");
}

static void make_spe_root(const char *root)
{
	write_file(root, "proc/cpuinfo", "processor\t: 0\nCPU implementer\t: 0x41\n");
	write_file(root, "proc/sys/kernel/osrelease", "6.1.0\n");
	write_file(root, DEV "arm_spe_0/type", "12\n");
	write_file(root, DEV "arm_spe_0/format/ts_enable", "config:0\n");
	write_file(root, DEV "arm_spe_0/format/load_filter", "config:33\n");
	write_file(root, DEV "arm_spe_0/format/store_filter", "config:34\n");
	write_file(root, DEV "arm_spe_0/format/min_latency", "config2:0-11\n");
}

/* A virtual machine with no PMU at all (like the one this was written on). */
static void make_vm_root(const char *root)
{
	write_file(root, "proc/cpuinfo", "vendor_id\t: GenuineIntel\nmodel name\t: Intel Xeon "
		   "Processor (Icelake)\nflags\t\t: fpu hypervisor sse\n");
	write_file(root, "proc/sys/kernel/osrelease", "6.1.0\n");
	write_file(root, DEV "software/type", "1\n");
	write_file(root, DEV "msr/type", "9\n");
	write_file(root, DEV "breakpoint/type", "5\n");
}

/* --- checks ------------------------------------------------------------------ */

static bool contains(const char *s, const char *part)
{
	return s && strstr(s, part);
}

static void check_sampling(const struct hw_event *ev, const char *what, bool user_only)
{
	CHECK((ev->attr.sample_type & MEM_SAMPLE) == MEM_SAMPLE,
	      "%s: sample_type 0x%llx lacks ADDR|DATA_SRC|WEIGHT", what,
	      (unsigned long long)ev->attr.sample_type);
	CHECK(ev->attr.freq && ev->attr.sample_freq == cfg30.freq, "%s: freq %u/%llu", what,
	      (unsigned)ev->attr.freq, (unsigned long long)ev->attr.sample_freq);
	CHECK_EQ_U64(ev->attr.exclude_kernel, user_only, what);
	CHECK(!ev->leader && ev->attr.disabled && ev->attr.inherit, "%s: flags", what);
}

static void check_no_events(enum backend_id id, const struct hw_host *h, const char *reason)
{
	struct hw_event ev[HW_MAX_EVENTS];
	char *why = NULL;
	unsigned n = hw_encode(id, h, &cfg30, ev, &why);

	CHECK(n == 0 && contains(why, reason), "%s: %u events, why \"%s\", want \"%s\"",
	      backend_name(id), n, why ? why : "(null)", reason);
	free(why);
}

/* skx, icx: loads 0x1cd with ldlat in config1, stores 0x82d0 (PLATFORM-NOTES);
 * hsw names its stores MEM_UOPS_RETIRED, the same 0x82d0 */
static void check_pebs_plain(const struct hw_host *h, const char *pmu)
{
	struct hw_event ev[HW_MAX_EVENTS];
	struct hw_config cfg50 = { .ldlat = 50, .freq = 4000 };
	char *why = NULL, name[96];
	unsigned n = hw_encode(BACKEND_PEBS, h, &cfg30, ev, &why);

	CHECK(n == 2, "%s: %u pebs events (%s)", pmu, n, why ? why : "");
	if (n != 2)
		return;
	CHECK_EQ_U64(ev[0].attr.type, PERF_TYPE_RAW, "loads type");
	CHECK_EQ_U64(ev[0].attr.config, 0x1cd, "loads config");
	CHECK_EQ_U64(ev[0].attr.config1, 0x1e, "loads config1 = ldlat 30");
	CHECK_EQ_U64(ev[0].attr.precise_ip, 3, "loads precise_ip");
	snprintf(name, sizeof(name), "%s::MEM_TRANS_RETIRED:LOAD_LATENCY:ldlat=30", pmu);
	CHECK_STR(ev[0].name, name, "loads name");
	check_sampling(&ev[0], "loads", true);
	CHECK_EQ_U64(ev[1].attr.type, PERF_TYPE_RAW, "stores type");
	CHECK_EQ_U64(ev[1].attr.config, 0x82d0, "stores config");
	CHECK_EQ_U64(ev[1].attr.config1, 0, "stores config1");
	snprintf(name, sizeof(name), "%s::%s_RETIRED:ALL_STORES", pmu,
		 strcmp(pmu, "hsw") ? "MEM_INST" : "MEM_UOPS");
	CHECK_STR(ev[1].name, name, "stores name");
	check_sampling(&ev[1], "stores", true);

	n = hw_encode(BACKEND_PEBS, h, &cfg50, ev, &why);
	CHECK(n == 2 && ev[0].attr.config1 == 50, "%s: --ldlat 50: config1 0x%llx", pmu,
	      (unsigned long long)ev[0].attr.config1);
}

/* spr: the mem-loads-aux leader first (raw 0x8203), counting only */
static void check_pebs_aux(const struct hw_host *h)
{
	struct hw_event ev[HW_MAX_EVENTS];
	struct backend_request req = { .name = "auto", .hw = cfg30, .freq = 1000 };
	struct backend_choice c;
	char *why = NULL;
	unsigned n = hw_encode(BACKEND_PEBS, h, &cfg30, ev, &why);

	CHECK(n == 3, "spr: %u pebs events (%s)", n, why ? why : "");
	if (n != 3)
		return;
	CHECK(ev[0].leader, "spr: aux is the group leader");
	CHECK_EQ_U64(ev[0].attr.type, PERF_TYPE_RAW, "aux type");
	CHECK_EQ_U64(ev[0].attr.config, 0x8203, "aux config");
	CHECK(!ev[0].attr.sample_type && !ev[0].attr.freq && !ev[0].attr.sample_period,
	      "aux counts, never samples");
	CHECK_EQ_U64(ev[1].attr.config, 0x1cd, "spr loads config");
	CHECK_EQ_U64(ev[1].attr.config1, 0x1e, "spr loads ldlat");
	CHECK(!ev[1].leader, "spr loads follow");
	CHECK_EQ_U64(ev[2].attr.config, 0x82d0, "spr stores config");

	backend_choose(&req, h, &c);
	CHECK_EQ_U64(c.id, BACKEND_PEBS, "spr auto");
	CHECK(c.n_events == 3 && c.events[0].leader, "spr choice keeps the leader");
	backend_choice_release(&c);
}

static void check_ibs(const struct hw_host *h)
{
	struct hw_event ev[HW_MAX_EVENTS];
	struct hw_host old = *h;
	char *why = NULL;
	unsigned n = hw_encode(BACKEND_IBS, h, &cfg30, ev, &why);

	CHECK(n == 1, "ibs: %u events (%s)", n, why ? why : "");
	if (n != 1)
		return;
	CHECK_EQ_U64(ev[0].attr.type, 11, "ibs type from sysfs");
	CHECK_EQ_U64(ev[0].attr.config, 0, "ibs config");
	CHECK_STR(ev[0].name, "ibs_op//", "ibs name");
	/* IBS cannot exclude the kernel: asking would get EINVAL */
	check_sampling(&ev[0], "ibs", false);
	CHECK_EQ_U64(ev[0].attr.exclude_hv, 0, "ibs exclude_hv");

	old.kernel_major = 6;
	old.kernel_minor = 1;
	check_no_events(BACKEND_IBS, &old, "needs 6.2");
}

static void check_choice(const struct hw_host *h, const char *name, bool ok,
			 enum backend_id want, const char *why_part)
{
	struct backend_request req = { .name = name, .hw = cfg30, .freq = 1000 };
	struct backend_choice c;
	bool got = backend_choose(&req, h, &c);

	CHECK(got == ok && c.id == want, "--backend %s: ok %d id %s, want %d %s", name, got,
	      backend_name(c.id), ok, backend_name(want));
	if (why_part) {
		char *note = backend_note(&c);

		CHECK(contains(note, why_part), "--backend %s: note \"%s\" lacks \"%s\"", name,
		      note, why_part);
		free(note);
	}
	backend_choice_release(&c);
}

/* The child: one forced libpfm4 PMU on the fake machine. */
static int child(const char *pmu, const char *root)
{
	struct hw_host h;

	hw_host_detect(&h, root);
	CHECK_STR(h.pfm_pmu, pmu, "libpfm4 PMU");
	CHECK_STR(h.core_pmu, "cpu", "core PMU");
	CHECK(h.kernel_major == 6 && h.kernel_minor == 8, "kernel %u.%u", h.kernel_major,
	      h.kernel_minor);
	if (!strcmp(pmu, "hsw") || !strcmp(pmu, "skx") || !strcmp(pmu, "icx")) {
		CHECK_EQ_U64(h.vendor, VENDOR_INTEL, "vendor");
		check_pebs_plain(&h, pmu);
		check_no_events(BACKEND_IBS, &h, "not an AMD CPU");
		check_no_events(BACKEND_SPE, &h, "not an Arm CPU");
		check_choice(&h, "auto", true, BACKEND_PEBS, "auto chose pebs: ");
		check_choice(&h, "auto", true, BACKEND_PEBS, "; ibs: not an AMD CPU");
		check_choice(&h, "ibs", false, BACKEND_IBS, "ibs: not an AMD CPU");
		check_choice(&h, "soft", true, BACKEND_SOFT, "--backend soft: cpu-clock");
	} else if (!strcmp(pmu, "spr")) {
		CHECK_EQ_U64(h.vendor, VENDOR_INTEL, "vendor");
		check_pebs_aux(&h);
	} else {
		CHECK_EQ_U64(h.vendor, VENDOR_AMD, "vendor");
		check_no_events(BACKEND_PEBS, &h, "not an Intel CPU (this is AMD64 Fam19h Zen");
		check_ibs(&h);
		check_choice(&h, "auto", true, BACKEND_IBS, "auto chose ibs: ibs_op//; pebs: not an Intel");
		check_choice(&h, "pebs", false, BACKEND_PEBS, "pebs: not an Intel CPU");
	}
	return test_done();
}

static void run_child(const char *pmu, const char *root)
{
	pid_t pid = fork();
	int status = 0;

	if (pid == 0) {
		setenv("LIBPFM_FORCE_PMU", pmu, 1);
		execl("/proc/self/exe", "test_hw_backend", "--pmu", pmu, root, (char *)NULL);
		_exit(99);
	}
	waitpid(pid, &status, 0);
	CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0,
	      "LIBPFM_FORCE_PMU=%s: child status 0x%x", pmu, status);
}

/* --- in this process: no libpfm4 knowledge, sysfs only -------------------- */

static void test_hybrid_aliases(const char *root)
{
	struct hw_event ev[HW_MAX_EVENTS];
	struct hw_host h;
	char *why = NULL;
	unsigned n;

	hw_host_detect(&h, root);
	h.vendor = VENDOR_INTEL;
	h.pfm_pmu[0] = '\0';         /* libpfm4 does not know this CPU */
	CHECK_STR(h.core_pmu, "cpu_core", "hybrid core PMU");
	CHECK(h.cpu_pmu, "hybrid: cpu_core is a CPU PMU: libpfm4 is asked");
	n = hw_encode(BACKEND_PEBS, &h, &cfg30, ev, &why);
	CHECK(n == 3, "hybrid: %u events (%s)", n, why ? why : "");
	if (n != 3)
		return;
	CHECK(ev[0].leader && ev[0].attr.type == 8 && ev[0].attr.config == 0x8203,
	      "aux from alias: leader %d type %u config 0x%llx", ev[0].leader, ev[0].attr.type,
	      (unsigned long long)ev[0].attr.config);
	CHECK_STR(ev[0].name, "cpu_core/mem-loads-aux/", "aux name");
	CHECK_EQ_U64(ev[1].attr.type, 8, "alias loads type");
	CHECK_EQ_U64(ev[1].attr.config, 0x1cd, "alias loads config");
	CHECK_EQ_U64(ev[1].attr.config1, 30, "alias ldlat replaced by --ldlat");
	CHECK_STR(ev[1].name, "cpu_core/mem-loads/", "loads name");
	CHECK_EQ_U64(ev[2].attr.config, 0x2cd, "alias stores config");
	check_sampling(&ev[1], "alias loads", true);
	check_sampling(&ev[2], "alias stores", true);
}

static void test_no_alias(const char *root)
{
	struct hw_host h;

	hw_host_detect(&h, root);
	h.vendor = VENDOR_INTEL;
	h.pfm_pmu[0] = '\0';
	check_no_events(BACKEND_PEBS, &h, "no cpu/events/mem-loads alias");
}

static void test_spe(const char *root)
{
	struct hw_event ev[HW_MAX_EVENTS];
	struct hw_host h;
	char *why = NULL;
	unsigned n;

	hw_host_detect(&h, root);
	CHECK(h.cpu_pmu, "spe: arm_spe_0 is a CPU PMU: libpfm4 is asked");
	h.vendor = VENDOR_ARM;       /* libpfm4 names this machine's CPU otherwise */
	h.pfm_pmu[0] = '\0';
	n = hw_encode(BACKEND_SPE, &h, &cfg30, ev, &why);
	CHECK(n == 1, "spe: %u events (%s)", n, why ? why : "");
	if (n == 1) {
		CHECK_EQ_U64(ev[0].attr.type, 12, "spe type");
		CHECK_EQ_U64(ev[0].attr.config, 1 | 1ULL << 33 | 1ULL << 34,
			     "spe ts_enable, load_filter, store_filter");
		CHECK_EQ_U64(ev[0].attr.config2, 30, "spe min_latency = ldlat");
		CHECK(!ev[0].attr.freq && ev[0].attr.sample_period, "spe period");
	}
	/* a fake host opens nothing: the probe takes the encoding */
	n = hw_probe(BACKEND_SPE, &h, &cfg30, ev, &why);
	CHECK(n == 1 && !why, "spe probe: %u, %s", n, why ? why : "");
	free(why);
	/* asked for by name it runs; auto passes over what never ran on hardware */
	check_choice(&h, "spe", true, BACKEND_SPE, "--backend spe: arm_spe_0/ts_enable=1");
	check_choice(&h, "spe", true, BACKEND_SPE,
		     "min_latency=30/ (never run on hardware before: check its samples)");
	check_choice(&h, "auto", true, BACKEND_SOFT,
		     "spe: its decoding has never run on hardware, only on synthetic records: "
		     "ask for it with --backend spe");
}

static void test_vm(const char *root)
{
	struct hw_host h;

	hw_host_detect(&h, root);
	CHECK(h.hypervisor && !h.core_pmu[0], "vm: hypervisor %d core PMU \"%s\"", h.hypervisor,
	      h.core_pmu);
	/* no CPU PMU: libpfm4, 2 ms of CPUID traps, is not asked for a run */
	CHECK(!h.cpu_pmu && !h.pfm_pmu[0], "vm: CPU PMU %d, libpfm4 PMU \"%s\"", h.cpu_pmu,
	      h.pfm_pmu);
	CHECK_STR(h.vendor_name, "Intel Xeon Processor (Icelake)", "vm: the CPU's model name");
	CHECK_EQ_U64(h.vendor, VENDOR_INTEL, "vm: vendor from vendor_id");
	h.vendor = VENDOR_INTEL;
	check_no_events(BACKEND_PEBS, &h, "no PMU exposed to this virtual machine");
	h.vendor = VENDOR_AMD;
	check_no_events(BACKEND_IBS, &h, "no IBS exposed to this virtual machine (no ibs_op");
	h.hypervisor = false;
	check_no_events(BACKEND_IBS, &h, "the kernel exposes no IBS");
	h.vendor = VENDOR_INTEL;
	h.hypervisor = true;
	check_choice(&h, "auto", true, BACKEND_SOFT,
		     "auto chose soft: cpu-clock samples + instruction decoding; pebs: no PMU "
		     "exposed to this virtual machine");
	check_choice(&h, "pebs", false, BACKEND_PEBS, "pebs: no PMU exposed");
}

/* The machine this runs on: whatever it has, every verdict has a reason. */
static void test_this_host(void)
{
	struct backend_request req = { .name = "auto", .hw = cfg30, .freq = 1000 };
	struct backend_choice c;
	struct hw_host h;

	hw_host_detect(&h, "");
	CHECK(backend_choose(&req, &h, &c), "auto always chooses");
	for (int id = 0; id < BACKEND__COUNT; id++)
		CHECK((id == (int)c.id) == !c.why_not[id], "%s: chosen %d, reason %s",
		      backend_name(id), id == (int)c.id, c.why_not[id] ? c.why_not[id] : "none");
	if (!h.core_pmu[0] && h.hypervisor && h.vendor == VENDOR_INTEL)
		CHECK(contains(c.why_not[BACKEND_PEBS], "no PMU exposed to this virtual machine"),
		      "pebs here: %s", c.why_not[BACKEND_PEBS]);
	backend_choice_release(&c);

	/* the kept detection is this machine's, the same at every call */
	const struct hw_host *here = hw_host_here();
	CHECK(here == hw_host_here(), "hw_host_here keeps one detection");
	CHECK(here->vendor == h.vendor && here->hypervisor == h.hypervisor &&
	      here->cpu_pmu == h.cpu_pmu && !strcmp(here->vendor_name, h.vendor_name) &&
	      !strcmp(here->core_pmu, h.core_pmu) && !strcmp(here->root, ""),
	      "hw_host_here is this machine's detection: %s, %s", here->vendor_name,
	      h.vendor_name);
}

static void remove_tree(const char *root)
{
	char cmd[PATH_MAX + 16];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	if (system(cmd) != 0)
		fprintf(stderr, "cannot remove %s\n", root);
}

int main(int argc, char **argv)
{
	static const char *const pmus[] = {
		"hsw", "skx", "icx", "spr", "amd64_fam19h_zen3", "amd64_fam19h_zen4",
	};
	char tmpl[] = "/tmp/test_hw_backend.XXXXXX", root[PATH_MAX];
	const char *dir;

	if (argc == 4 && !strcmp(argv[1], "--pmu"))
		return child(argv[2], argv[3]);
	if (!(dir = mkdtemp(tmpl)))
		return test_skip("cannot make a temporary directory");

	snprintf(root, sizeof(root), "%s/pmu", dir);
	make_pmu_root(root);
	for (size_t i = 0; i < sizeof(pmus) / sizeof(pmus[0]); i++)
		run_child(pmus[i], root);
	test_no_alias(root);

	snprintf(root, sizeof(root), "%s/hybrid", dir);
	make_hybrid_root(root);
	test_hybrid_aliases(root);

	snprintf(root, sizeof(root), "%s/spe", dir);
	make_spe_root(root);
	test_spe(root);

	snprintf(root, sizeof(root), "%s/vm", dir);
	make_vm_root(root);
	test_vm(root);

	test_this_host();
	remove_tree(dir);
	return test_done();
}
