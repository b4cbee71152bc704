/* hw_backend.c - hardware memory sampling: encodings, probing, samples.
 *
 * Encodings come from libpfm4 when it knows the core PMU (the names below
 * are the ones perf mem and perf c2c use), else from the kernel's sysfs
 * event aliases, whose terms are placed into config/config1/config2 by the
 * PMU's format files.  Nothing here knows about sessions: backend.c picks
 * a backend and opens its events on a target.
 */
#include "detector/hw_backend.h"
#include "detector/backend.h"   /* backend_name() */

#include <dirent.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <unistd.h>
#include <perfmon/pfmlib_perf_event.h>

#include "detector/data_src.h"
#include "detector/perf_event.h"
#include "symbolize/decode.h"
#include "common/util.h"
#include "symbolize/symbolizer.h"

#define EVENT_SOURCE "/sys/bus/event_source/devices"

/* Every hardware sample carries the data address, its source and latency;
 * the user registers let the decoder name the base register (type
 * attribution of heap data, as for the soft backend). */
#define HW_SAMPLE_TYPE (PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | \
			PERF_SAMPLE_ADDR | PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD | \
			PERF_SAMPLE_REGS_USER | PERF_SAMPLE_WEIGHT | PERF_SAMPLE_DATA_SRC)

/* Cores whose load-latency event must be grouped under mem-loads-aux,
 * as libpfm4 names them (the kernel says the same with the sysfs alias). */
static const char *const aux_pmus[] = { "spr", "emr", "gnr", "adl_glc", "mtl_rwc", "lnl_lnc", NULL };
#define MEM_LOADS_AUX_CONFIG 0x8203     /* event 0x03, umask 0x82 */

/* Arm SPE format bits, used when sysfs has no format file for them. */
#define SPE_TS_ENABLE		(1ULL << 0)
#define SPE_LOAD_FILTER		(1ULL << 33)
#define SPE_STORE_FILTER	(1ULL << 34)
#define SPE_PERIOD		4096

/* --- the host ----------------------------------------------------------- */

static FILE *host_open(const struct hw_host *h, const char *path)
{
	char full[4096];

	snprintf(full, sizeof(full), "%s%s", h->root, path);
	return fopen(full, "r");
}

/* The first line of a small file under the host root, without newline. */
static bool host_read_line(const struct hw_host *h, const char *path, char *buf, size_t len)
{
	FILE *f = host_open(h, path);
	bool ok;

	if (!f)
		return false;
	ok = fgets(buf, (int)len, f) != NULL;
	fclose(f);
	if (ok)
		buf[strcspn(buf, "\n")] = '\0';
	return ok;
}

static bool pmu_file(const struct hw_host *h, const char *pmu, const char *file,
		     char *buf, size_t len)
{
	char path[512];

	snprintf(path, sizeof(path), EVENT_SOURCE "/%s/%s", pmu, file);
	return host_read_line(h, path, buf, len);
}

/* The perf type of a sysfs PMU, -1 if it has none. */
static int pmu_type(const struct hw_host *h, const char *pmu)
{
	char buf[32], *end;
	long v;

	if (!pmu_file(h, pmu, "type", buf, sizeof(buf)))
		return -1;
	v = strtol(buf, &end, 10);
	return end != buf && v >= 0 && v < 0x7fffffff ? (int)v : -1;
}

static bool has_word(const char *line, const char *word)
{
	size_t n = strlen(word);

	for (const char *p = strstr(line, word); p; p = strstr(p + 1, word))
		if ((p == line || p[-1] == ' ' || p[-1] == '\t') &&
		    (p[n] == '\0' || p[n] == ' ' || p[n] == '\n'))
			return true;
	return false;
}

/* The vendor from vendor_id (libpfm4 may correct it, read_pfm_pmu), and
 * the name a user knows the CPU by, its model name ("AMD EPYC"), else
 * the vendor_id. */
static void read_cpuinfo(struct hw_host *h)
{
	FILE *f = host_open(h, "/proc/cpuinfo");
	char line[4096], model[sizeof(h->vendor_name)] = "";

	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		char *colon = strchr(line, ':');
		const char *value = colon ? colon + 1 + strspn(colon + 1, " \t") : "";

		if (!strncmp(line, "model name", 10) && !model[0])
			snprintf(model, sizeof(model), "%.*s", (int)strcspn(value, "\n"), value);
		if (!strncmp(line, "vendor_id", 9) && !h->vendor_name[0]) {
			snprintf(h->vendor_name, sizeof(h->vendor_name), "%.*s",
				 (int)strcspn(value, "\n"), value);
			if (!strncmp(value, "GenuineIntel", 12))
				h->vendor = VENDOR_INTEL;
			else if (!strncmp(value, "AuthenticAMD", 12) ||
				 !strncmp(value, "HygonGenuine", 12))
				h->vendor = VENDOR_AMD;
		} else if (!strncmp(line, "CPU implementer", 15) && !h->vendor_name[0]) {
			snprintf(h->vendor_name, sizeof(h->vendor_name), "Arm");
			h->vendor = VENDOR_ARM;
		} else if (!strncmp(line, "flags", 5) && has_word(value, "hypervisor")) {
			h->hypervisor = true;
		}
	}
	fclose(f);
	if (model[0])
		memcpy(h->vendor_name, model, sizeof(model));
}

static void read_kernel_release(struct hw_host *h)
{
	char rel[128] = "";
	struct utsname u;

	if (!host_read_line(h, "/proc/sys/kernel/osrelease", rel, sizeof(rel)) &&
	    !h->root[0] && uname(&u) == 0)
		snprintf(rel, sizeof(rel), "%s", u.release);
	if (sscanf(rel, "%u.%u", &h->kernel_major, &h->kernel_minor) != 2)
		h->kernel_major = h->kernel_minor = 0;
}

/*
 * libpfm4's core PMU for this host (LIBPFM_FORCE_PMU wins, which is how
 * the tests pretend to be another CPU); its description names the vendor
 * more reliably than cpuinfo under emulation.
 */
static void read_pfm_pmu(struct hw_host *h)
{
	if (pfm_initialize() != PFM_SUCCESS)
		return;
	for (int p = 0; p < PFM_PMU_MAX; p++) {
		pfm_pmu_info_t info;

		memset(&info, 0, sizeof(info));
		info.size = sizeof(info);
		if (pfm_get_pmu_info(p, &info) != PFM_SUCCESS || !info.is_present ||
		    info.type != PFM_PMU_TYPE_CORE)
			continue;
		snprintf(h->pfm_pmu, sizeof(h->pfm_pmu), "%s", info.name);
		snprintf(h->vendor_name, sizeof(h->vendor_name), "%s", info.desc);
		if (!strncmp(info.desc, "Intel", 5))
			h->vendor = VENDOR_INTEL;
		else if (!strncmp(info.desc, "AMD", 3))
			h->vendor = VENDOR_AMD;
		else if (!strncasecmp(info.desc, "ARM", 3))
			h->vendor = VENDOR_ARM;
		return;
	}
}

/* The first sysfs PMU whose name begins with one of prefixes (NULL
 * ends them), its name copied to out when out is not NULL and it fits. */
static bool find_pmu(const struct hw_host *h, const char *const *prefixes, char *out,
		     size_t len)
{
	char path[4096];
	struct dirent *de;
	bool found = false;
	DIR *d;

	snprintf(path, sizeof(path), "%s" EVENT_SOURCE, h->root);
	if (!(d = opendir(path)))
		return false;
	while (!found && (de = readdir(d)))
		for (const char *const *p = prefixes; *p && !found; p++)
			found = !strncmp(de->d_name, *p, strlen(*p)) &&
				(!out || strlen(de->d_name) < len);
	if (found && out)
		memcpy(out, de->d_name, strlen(de->d_name) + 1);
	closedir(d);
	return found;
}

void hw_host_detect(struct hw_host *h, const char *root)
{
	static const char *const core_pmus[] = { "cpu", "cpu_core" };

	memset(h, 0, sizeof(*h));
	h->root = root ? root : "";
	read_cpuinfo(h);
	read_kernel_release(h);
	for (size_t i = 0; i < ARRAY_SIZE(core_pmus); i++) {
		if (pmu_type(h, core_pmus[i]) >= 0) {
			snprintf(h->core_pmu, sizeof(h->core_pmu), "%s", core_pmus[i]);
			break;
		}
	}
	/* a PMU of the CPU itself (x86's cpu, cpu_core, cpu_atom; Arm's
	 * armv8_* and arm_*; s390's cpum_*): a VM given none has only
	 * software, tracepoint, breakpoint, uprobe and msr, and no event
	 * libpfm4 could encode will open there */
	h->cpu_pmu = find_pmu(h, (const char *const[]){ "cpu", "arm", NULL }, NULL, 0);
	/* pfm_initialize() costs 1.5 ms of CPUID traps on a VM: a run's
	 * start pays it only where it can matter */
	if (h->cpu_pmu || getenv("LIBPFM_FORCE_PMU"))
		read_pfm_pmu(h);
}

static struct hw_host here;
static pthread_once_t here_once = PTHREAD_ONCE_INIT;

static void detect_here(void)
{
	hw_host_detect(&here, "");
}

const struct hw_host *hw_host_here(void)
{
	pthread_once(&here_once, detect_here);
	return &here;
}

void hw_host_name_cpu(struct hw_host *h)
{
	if (!h->pfm_pmu[0])
		read_pfm_pmu(h);
}

static const char *vendor_word(enum cpu_vendor v)
{
	switch (v) {
	case VENDOR_INTEL: return "an Intel";
	case VENDOR_AMD: return "an AMD";
	case VENDOR_ARM: return "an Arm";
	case VENDOR_OTHER: break;
	}
	return "a";
}

static char *not_this_vendor(const struct hw_host *h, enum cpu_vendor want)
{
	return xasprintf("not %s CPU (this is %s)", vendor_word(want),
			 h->vendor_name[0] ? h->vendor_name : "unknown");
}

/* Why a PMU directory is missing, in the words a user can act on. */
static char *no_pmu(const struct hw_host *h, const char *what, const char *pmu)
{
	if (h->hypervisor)
		return xasprintf("no %s exposed to this virtual machine (no %s in %s)",
				 what, pmu, EVENT_SOURCE);
	return xasprintf("the kernel exposes no %s (no %s in %s)", what, pmu, EVENT_SOURCE);
}

/* --- sysfs aliases ---------------------------------------------------------- */

/*
 * Put value into attr where the PMU's format file says term goes:
 * "config:0-7", "config1:0-15", "config:0-7,32-35" (low bits first).
 */
static bool place_term(const struct hw_host *h, const char *pmu, const char *term,
		       uint64_t value, struct perf_event_attr *attr)
{
	char file[160], fmt[128], *ranges, *save = NULL;
	uint64_t *field;

	snprintf(file, sizeof(file), "format/%s", term);
	if (!pmu_file(h, pmu, file, fmt, sizeof(fmt)) || !(ranges = strchr(fmt, ':')))
		return false;
	*ranges++ = '\0';
	if (!strcmp(fmt, "config"))
		field = (uint64_t *)&attr->config;
	else if (!strcmp(fmt, "config1"))
		field = (uint64_t *)&attr->config1;
	else if (!strcmp(fmt, "config2"))
		field = (uint64_t *)&attr->config2;
	else
		return false;
	for (char *r = strtok_r(ranges, ",", &save); r; r = strtok_r(NULL, ",", &save)) {
		unsigned lo, hi;
		int n = sscanf(r, "%u-%u", &lo, &hi);
		uint64_t mask;

		if (n == 1)
			hi = lo;
		if (n < 1 || hi < lo || hi > 63)
			return false;
		mask = hi - lo == 63 ? ~0ULL : (1ULL << (hi - lo + 1)) - 1;
		*field |= (value & mask) << lo;
		value = hi - lo == 63 ? 0 : value >> (hi - lo + 1);
	}
	return true;
}

/*
 * The kernel's alias pmu/events/name ("event=0xcd,umask=0x1,ldlat=3")
 * into attr; a term "ldlat" takes the configured threshold instead.
 */
static bool encode_alias(const struct hw_host *h, const char *pmu, const char *name,
			 unsigned ldlat, struct perf_event_attr *attr)
{
	char file[160], alias[256], *save = NULL;
	int type = pmu_type(h, pmu);

	snprintf(file, sizeof(file), "events/%s", name);
	if (type < 0 || !pmu_file(h, pmu, file, alias, sizeof(alias)))
		return false;
	attr->type = (uint32_t)type;
	for (char *t = strtok_r(alias, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
		char *eq = strchr(t, '=');
		uint64_t value = 1;

		t += strspn(t, " ");
		if (eq) {
			*eq = '\0';
			value = strtoull(eq + 1, NULL, 0);
		}
		if (!strcmp(t, "ldlat"))
			value = ldlat;
		if (!place_term(h, pmu, t, value, attr))
			return false;
	}
	return true;
}

/* --- encodings ---------------------------------------------------------------- */

static void hw_attr_defaults(struct perf_event_attr *attr, unsigned freq)
{
	attr->size = sizeof(*attr);
	attr->sample_type = HW_SAMPLE_TYPE;
	attr->sample_regs_user = decode_native_regs_mask();
	attr->freq = 1;
	attr->sample_freq = freq ? freq : 1;
	attr->disabled = 1;
	attr->inherit = 1;
	attr->exclude_kernel = 1;
	attr->exclude_hv = 1;
	attr->sample_id_all = 1;
	attr->watermark = 1;
	attr->wakeup_watermark = 64 * 1024;
}

/* libpfm4's encoding of "pmu::event" for user level; false if unknown. */
static bool encode_pfm(const struct hw_host *h, const char *event,
		       struct perf_event_attr *attr, char *name, size_t name_len)
{
	pfm_perf_encode_arg_t arg;
	struct perf_event_attr pattr;
	char full[sizeof(((struct hw_event *)0)->name)];

	if (!h->pfm_pmu[0] ||
	    snprintf(full, sizeof(full), "%s::%s", h->pfm_pmu, event) >= (int)sizeof(full))
		return false;
	memset(&pattr, 0, sizeof(pattr));
	memset(&arg, 0, sizeof(arg));
	arg.attr = &pattr;
	arg.size = sizeof(arg);
	if (pfm_get_os_event_encoding(full, PFM_PLM3, PFM_OS_PERF_EVENT_EXT, &arg) != PFM_SUCCESS)
		return false;
	attr->type = pattr.type;
	attr->config = pattr.config;
	attr->config1 = pattr.config1;
	attr->config2 = pattr.config2;
	snprintf(name, name_len, "%s", full);
	return true;
}

/* A hybrid CPU's P-core PMU has a type of its own: raw configs go there. */
static void retarget_hybrid(const struct hw_host *h, struct perf_event_attr *attr)
{
	int type;

	if (attr->type == PERF_TYPE_RAW && strcmp(h->core_pmu, "cpu") &&
	    (type = pmu_type(h, h->core_pmu)) >= 0)
		attr->type = (uint32_t)type;
}

/* One PEBS event: libpfm4's first known name, else the kernel alias. */
static bool encode_pebs_event(const struct hw_host *h, const char *const *pfm_names,
			      const char *alias, unsigned ldlat, struct hw_event *ev)
{
	for (; *pfm_names; pfm_names++) {
		char event[96];

		snprintf(event, sizeof(event), *pfm_names, ldlat);
		if (encode_pfm(h, event, &ev->attr, ev->name, sizeof(ev->name))) {
			retarget_hybrid(h, &ev->attr);
			return true;
		}
	}
	if (!h->core_pmu[0] || !encode_alias(h, h->core_pmu, alias, ldlat, &ev->attr))
		return false;
	snprintf(ev->name, sizeof(ev->name), "%s/%s/", h->core_pmu, alias);
	return true;
}

static bool needs_loads_aux(const struct hw_host *h)
{
	char buf[128];

	if (h->core_pmu[0] && pmu_file(h, h->core_pmu, "events/mem-loads-aux", buf, sizeof(buf)))
		return true;
	for (const char *const *p = aux_pmus; *p; p++)
		if (!strcmp(h->pfm_pmu, *p))
			return true;
	return false;
}

/* The counting leader the load-latency event must follow on newer cores. */
static void encode_loads_aux(const struct hw_host *h, struct hw_event *ev)
{
	memset(ev, 0, sizeof(*ev));
	ev->leader = true;
	if (h->core_pmu[0] && encode_alias(h, h->core_pmu, "mem-loads-aux", 0, &ev->attr)) {
		snprintf(ev->name, sizeof(ev->name), "%s/mem-loads-aux/", h->core_pmu);
	} else {
		ev->attr.type = PERF_TYPE_RAW;
		ev->attr.config = MEM_LOADS_AUX_CONFIG;
		retarget_hybrid(h, &ev->attr);
		snprintf(ev->name, sizeof(ev->name), "mem-loads-aux (raw 0x%x)", MEM_LOADS_AUX_CONFIG);
	}
	ev->attr.size = sizeof(ev->attr);
	ev->attr.disabled = 1;
	ev->attr.inherit = 1;
	ev->attr.exclude_kernel = 1;
	ev->attr.exclude_hv = 1;
}

static unsigned encode_pebs(const struct hw_host *h, const struct hw_config *cfg,
			    struct hw_event *ev, char **why)
{
	static const char *const loads[] = { "MEM_TRANS_RETIRED:LOAD_LATENCY:ldlat=%u", NULL };
	static const char *const stores[] = { "MEM_INST_RETIRED:ALL_STORES",
					      "MEM_UOPS_RETIRED:ALL_STORES", NULL };
	unsigned n = 0;

	if (h->vendor != VENDOR_INTEL) {
		*why = not_this_vendor(h, VENDOR_INTEL);
		return 0;
	}
	if (!h->core_pmu[0]) {
		*why = no_pmu(h, "PMU", "cpu");
		return 0;
	}
	if (needs_loads_aux(h))
		encode_loads_aux(h, &ev[n++]);
	hw_attr_defaults(&ev[n].attr, cfg->freq);
	if (!encode_pebs_event(h, loads, "mem-loads", cfg->ldlat, &ev[n])) {
		*why = xasprintf("libpfm4 does not know this CPU (%s) and the kernel has no "
				 "%s/events/mem-loads alias", h->vendor_name, h->core_pmu);
		return 0;
	}
	ev[n++].attr.precise_ip = 3;
	/* Stores are optional: loads alone still show the HITM traffic. */
	hw_attr_defaults(&ev[n].attr, cfg->freq);
	if (encode_pebs_event(h, stores, "mem-stores", cfg->ldlat, &ev[n]))
		ev[n++].attr.precise_ip = 3;
	else
		memset(&ev[n], 0, sizeof(ev[n]));
	return n;
}

static unsigned encode_ibs(const struct hw_host *h, const struct hw_config *cfg,
			   struct hw_event *ev, char **why)
{
	int type;

	if (h->vendor != VENDOR_AMD) {
		*why = not_this_vendor(h, VENDOR_AMD);
		return 0;
	}
	if ((type = pmu_type(h, "ibs_op")) < 0) {
		*why = no_pmu(h, "IBS", "ibs_op");
		return 0;
	}
	if (h->kernel_major && (h->kernel_major < 6 || (h->kernel_major == 6 && h->kernel_minor < 2))) {
		*why = xasprintf("kernel %u.%u cannot sample one process with IBS (needs 6.2)",
				 h->kernel_major, h->kernel_minor);
		return 0;
	}
	hw_attr_defaults(&ev->attr, cfg->freq);
	ev->attr.type = (uint32_t)type;
	ev->attr.config = 0;            /* count cycles, as perf mem does */
	/* IBS has no privilege filter (PERF_PMU_CAP_NO_EXCLUDE) */
	ev->attr.exclude_kernel = 0;
	ev->attr.exclude_hv = 0;
	snprintf(ev->name, sizeof(ev->name), "ibs_op//");
	return 1;
}

/* The SPE instance: arm_spe_0 on most machines, one per SPE type. */
static bool find_spe(const struct hw_host *h, char *pmu, size_t len)
{
	return find_pmu(h, (const char *const[]){ "arm_spe", NULL }, pmu, len);
}

static void spe_bit(const struct hw_host *h, const char *pmu, const char *term,
		    uint64_t fallback, uint64_t value, struct perf_event_attr *attr)
{
	if (!place_term(h, pmu, term, value, attr))
		attr->config |= value ? fallback : 0;
}

static unsigned encode_spe(const struct hw_host *h, const struct hw_config *cfg,
			   struct hw_event *ev, char **why)
{
	char pmu[64];
	int type;

	if (h->vendor != VENDOR_ARM) {
		*why = not_this_vendor(h, VENDOR_ARM);
		return 0;
	}
	if (!find_spe(h, pmu, sizeof(pmu)) || (type = pmu_type(h, pmu)) < 0) {
		*why = no_pmu(h, "SPE", "arm_spe_0");
		return 0;
	}
	hw_attr_defaults(&ev->attr, cfg->freq);
	ev->attr.type = (uint32_t)type;
	ev->attr.freq = 0;
	ev->attr.sample_period = SPE_PERIOD;
	ev->attr.sample_regs_user = 0;
	ev->attr.sample_type &= ~PERF_SAMPLE_REGS_USER;
	spe_bit(h, pmu, "ts_enable", SPE_TS_ENABLE, 1, &ev->attr);
	spe_bit(h, pmu, "load_filter", SPE_LOAD_FILTER, 1, &ev->attr);
	spe_bit(h, pmu, "store_filter", SPE_STORE_FILTER, 1, &ev->attr);
	/* the same latency threshold as PEBS: only slow loads are recorded */
	if (!place_term(h, pmu, "min_latency", cfg->ldlat, &ev->attr))
		ev->attr.config2 = cfg->ldlat & 0xfff;
	snprintf(ev->name, sizeof(ev->name), "%.32s/ts_enable=1,load_filter=1,store_filter=1,"
		 "min_latency=%u/", pmu, cfg->ldlat);
	return 1;
}

unsigned hw_encode(enum backend_id id, const struct hw_host *h,
		   const struct hw_config *cfg, struct hw_event *ev, char **why)
{
	*why = NULL;
	memset(ev, 0, HW_MAX_EVENTS * sizeof(*ev));
	switch (id) {
	case BACKEND_PEBS: return encode_pebs(h, cfg, ev, why);
	case BACKEND_IBS: return encode_ibs(h, cfg, ev, why);
	case BACKEND_SPE: return encode_spe(h, cfg, ev, why);
	case BACKEND_SOFT:
	case BACKEND__COUNT: break;
	}
	*why = xasprintf("%s is not a hardware backend", backend_name(id));
	return 0;
}

/* --- probing ------------------------------------------------------------------ */

/* Open one event on this process, lowering precise_ip until the kernel
 * takes it.  Returns the fd or -errno (of the most precise attempt). */
static int open_precise(struct perf_event_attr *attr, int group_fd)
{
	int first_err = 0;

	for (;;) {
		int fd = perf_event_open_fd(attr, 0, -1, group_fd);

		if (fd >= 0)
			return fd;
		if (!first_err)
			first_err = -fd;
		if (!attr->precise_ip || (fd != -EOPNOTSUPP && fd != -EINVAL))
			return -first_err;
		attr->precise_ip--;
	}
}

static char *open_failure(enum backend_id id, const struct hw_host *h,
			  const struct hw_event *ev, int err)
{
	if (id == BACKEND_IBS && (err == EACCES || err == EPERM))
		return xasprintf("IBS cannot leave out kernel samples, so it needs CAP_PERFMON "
				 "or kernel.perf_event_paranoid <= 1 (%s)", perf_open_hint(err));
	if (err == EACCES || err == EPERM)
		return xasprintf("%s: %s", ev->name, perf_open_hint(err));
	if (err == ENODATA)
		return xasprintf("%s needs the mem-loads-aux group leader, which the kernel did "
				 "not accept", ev->name);
	if (h->hypervisor && (err == ENOENT || err == EOPNOTSUPP || err == EINVAL))
		return xasprintf("the kernel refused %s (%s): the hypervisor does not pass "
				 "precise memory sampling through", ev->name, strerror(err));
	return xasprintf("the kernel refused %s: %s", ev->name, perf_open_hint(err));
}

unsigned hw_probe(enum backend_id id, const struct hw_host *h,
		  const struct hw_config *cfg, struct hw_event *ev, char **why)
{
	unsigned n = hw_encode(id, h, cfg, ev, why);
	int fds[HW_MAX_EVENTS], n_fds = 0, leader = -1;

	if (!n)
		return 0;
	/* a fake host (tests) has nothing to open */
	if (h->root[0])
		return n;
	for (unsigned i = 0; i < n; i++) {
		int fd = open_precise(&ev[i].attr, ev[i].leader ? -1 : leader);

		if (fd < 0) {
			*why = open_failure(id, h, &ev[i], -fd);
			n = 0;
			break;
		}
		fds[n_fds++] = fd;
		leader = ev[i].leader ? fd : -1;
	}
	while (n_fds)
		close(fds[--n_fds]);
	return n;
}

/* --- samples -------------------------------------------------------------------- */

enum hw_drop {
	DROP_NO_ADDRESS,       /* the sample has no data address */
	DROP_KERNEL,           /* kernel code or data (IBS cannot exclude it) */
	DROP__COUNT
};

struct hw_backend {
	struct symbolizer *sym;
	struct decoder *dec;
	uint64_t seen, decoded;
	uint64_t drops[DROP__COUNT];
};

struct hw_backend *hw_backend_new(struct symbolizer *sym)
{
	struct hw_backend *hb = xcalloc(1, sizeof(*hb));

	hb->sym = sym;
	if (sym)
		hb->dec = decoder_new_native();   /* NULL elsewhere: sizes stay unknown */
	return hb;
}

void hw_backend_free(struct hw_backend *hb)
{
	if (!hb)
		return;
	decoder_free(hb->dec);
	free(hb);
}

static uint8_t kind_from_data_src(uint64_t raw)
{
	struct data_src ds;

	if (!data_src_decode(raw, &ds))
		return ACCESS_LOAD;
	if (ds.lock == MEM_LOCKED)
		return ACCESS_ATOMIC;
	return ds.op & DS_OP_STORE ? ACCESS_STORE : ACCESS_LOAD;
}

/*
 * The instruction at the exact IP gives what the hardware leaves out: the
 * size, whether a load is half of a read-modify-write, and the base
 * register.  The sampled registers are those after the instruction (PEBS)
 * or a little later (IBS): the base register is kept only when they give
 * back the address the hardware reported.
 */
static void refine_from_code(struct hw_backend *hb, const struct perf_sample *ps,
			     struct access_sample *a)
{
	static const struct regs any = { .mask = ~0ULL };
	uint8_t code[DECODE_MAX_INSN];
	struct decoded_access acc;
	size_t n;

	if (!hb->dec || !(n = symbolizer_read(hb->sym, ps->pid, ps->ip, code, sizeof(code))))
		return;
	if (ps->regs.mask &&
	    decoder_access(hb->dec, code, n, ps->ip, &ps->regs, true, &acc) == DECODE_OK &&
	    acc.addr == ps->addr) {
		a->base_reg = acc.base_reg;
		a->base_off = acc.base_off;
	} else if (decoder_access(hb->dec, code, n, ps->ip, &any, false, &acc) != DECODE_OK) {
		return;
	}
	a->size = acc.size ? acc.size : 1;
	if (acc.kind == ACCESS_RMW || acc.kind == ACCESS_ATOMIC)
		a->kind = acc.kind;
	else if (!ps->data_src)
		a->kind = acc.kind;
}

bool hw_backend_access(struct hw_backend *hb, const struct perf_sample *ps,
		       struct access_sample *out)
{
	hb->seen++;
	if (!ps->addr) {
		hb->drops[DROP_NO_ADDRESS]++;
		return false;
	}
	if (!user_address(ps->addr) || !user_address(ps->ip)) {
		hb->drops[DROP_KERNEL]++;
		return false;
	}
	access_sample_from_perf(out, ps, ps->ip, ps->addr);
	out->size = 1;
	out->kind = kind_from_data_src(ps->data_src);
	out->base_reg = -1;
	out->weight = ps->weight > UINT32_MAX ? UINT32_MAX : (uint32_t)ps->weight;
	out->data_src = ps->data_src;
	refine_from_code(hb, ps, out);
	hb->decoded++;
	return true;
}

uint64_t hw_backend_samples_seen(const struct hw_backend *hb) { return hb->seen; }
uint64_t hw_backend_samples_decoded(const struct hw_backend *hb) { return hb->decoded; }

static const char *drop_name(unsigned i)
{
	static const char *const names[DROP__COUNT] = {
		[DROP_NO_ADDRESS] = "no data address",
		[DROP_KERNEL] = "kernel address",
	};
	return names[i];
}

unsigned hw_backend_drop_counts(const struct hw_backend *hb, struct named_count **out)
{
	return named_counts_collect(hb->drops, DROP__COUNT, drop_name, out);
}
