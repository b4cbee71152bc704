/* hw_backend.h - hardware memory sampling: PEBS, IBS, SPE.
 *
 * Three things, in the order a session needs them:
 *  - what the machine offers (hw_host_detect): CPU vendor, the core PMU as
 *    libpfm4 names it (LIBPFM_FORCE_PMU is honoured), whether we run under
 *    a hypervisor, the kernel release, and the perf PMUs in sysfs;
 *  - the perf events of each backend (hw_encode) and whether this kernel
 *    and CPU will open them for one process (hw_probe), with a one-line
 *    reason when not;
 *  - turning a sample of those events (PERF_SAMPLE_ADDR | DATA_SRC |
 *    WEIGHT) into an access sample (hw_backend_access).
 *
 * pebs: loads through the load-latency event (ldlat threshold in cycles)
 *   and stores through the precise-stores event, encoded by libpfm4 for
 *   the detected PMU, else from the kernel's sysfs aliases (cpu/events/
 *   mem-loads, mem-stores).  Cores whose load-latency event must follow
 *   mem-loads-aux in a group (Sapphire Rapids, Alder Lake P-cores) get the
 *   aux event first, marked as the group leader.
 * ibs: the ibs_op PMU (type from sysfs), per process on kernels >= 6.2.
 *   IBS cannot exclude the kernel, so it needs CAP_PERFMON (or
 *   kernel.perf_event_paranoid <= 1); kernel samples are dropped here.
 * spe: arm_spe, probed like the others; its samples arrive as packets in
 *   the AUX area, decoded by spe.h into the same perf samples.  That has
 *   never run on hardware, so auto passes it over (backend.c) and only
 *   --backend spe runs it (docs/hardware-backends.md).
 */
#ifndef CONTEND_HW_BACKEND_H
#define CONTEND_HW_BACKEND_H

#include <stdbool.h>
#include <stdint.h>
#include <linux/perf_event.h>
#include "detector/perf_session.h"
#include "detector/sample.h"

enum backend_id {
	BACKEND_PEBS,
	BACKEND_IBS,
	BACKEND_SPE,
	BACKEND_SOFT,
	BACKEND__COUNT
};
/* names, and the table of backends: backend.h */

enum cpu_vendor { VENDOR_OTHER, VENDOR_INTEL, VENDOR_AMD, VENDOR_ARM };

struct hw_host {
	const char *root;         /* "" for the real machine; tests use a fake tree */
	enum cpu_vendor vendor;
	char vendor_name[48];     /* "AMD EPYC", "AMD64 Fam19h Zen3", "GenuineIntel" */
	char pfm_pmu[48];         /* libpfm4's core PMU ("skx"), "" if unknown */
	bool hypervisor;          /* cpuinfo has the hypervisor flag */
	unsigned kernel_major, kernel_minor;
	char core_pmu[16];        /* sysfs PMU for PEBS: "cpu", "cpu_core", "" */
	bool cpu_pmu;             /* sysfs has a PMU of the CPU's own (cpu*, arm*) */
};

/* Reads root/proc/cpuinfo, root/sys/bus/event_source/devices, uname, and
 * libpfm4 where sysfs has a CPU PMU or LIBPFM_FORCE_PMU is set (its
 * pfm_initialize() is 1.5 ms of CPUID traps on a VM, in every run's start).
 * hw_host_name_cpu() asks libpfm4 anyway, for output that names the model
 * (stat, backends).  Neither fails: what cannot be read stays unknown. */
void hw_host_detect(struct hw_host *h, const char *root);
void hw_host_name_cpu(struct hw_host *h);
/* This machine, detected at the first call and kept: a run asks in
 * several places (the backend, the triage, attach's defaults), and each
 * detection reads /proc/cpuinfo and sysfs again (and libpfm4, where it
 * is asked).  Thread-safe. */
const struct hw_host *hw_host_here(void);

#define HW_MAX_EVENTS 3

struct hw_event {
	struct perf_event_attr attr;
	char name[128];           /* "skx::MEM_TRANS_RETIRED:LOAD_LATENCY:ldlat=30" */
	bool leader;              /* counting leader of the next event's group */
};

struct hw_config {
	unsigned ldlat;           /* PEBS load latency threshold, cycles */
	unsigned freq;            /* samples per second per event */
};

/*
 * The events of a hardware backend on host h, sampling leaders and
 * members, in the order they must be opened.  Returns how many (<=
 * HW_MAX_EVENTS), or 0 and a reason in *why (caller frees).
 */
unsigned hw_encode(enum backend_id id, const struct hw_host *h,
		   const struct hw_config *cfg, struct hw_event *ev, char **why);

/* hw_encode(), then open the events on this process for a moment (the
 * most precise precise_ip the kernel takes is kept).  Returns the number
 * of events, 0 with *why if the backend cannot run here. */
unsigned hw_probe(enum backend_id id, const struct hw_host *h,
		  const struct hw_config *cfg, struct hw_event *ev, char **why);

/* --- samples ------------------------------------------------------------ */

struct symbolizer;
struct named_count;
struct hw_backend;

/* sym may be NULL: then the access size and kind come from the data source
 * alone (size 1, no base register). */
struct hw_backend *hw_backend_new(struct symbolizer *sym);
void hw_backend_free(struct hw_backend *hb);

/*
 * One sample of a hardware event in, at most one access out: ip, addr,
 * weight and the raw data source from the sample; the kind from the data
 * source (load, store; locked = atomic); the size, a read-modify-write
 * and the base register from decoding the instruction at ip when its code
 * is readable.
 */
bool hw_backend_access(struct hw_backend *hb, const struct perf_sample *ps,
		       struct access_sample *out);
uint64_t hw_backend_samples_seen(const struct hw_backend *hb);
uint64_t hw_backend_samples_decoded(const struct hw_backend *hb);
/* Reasons samples were dropped; caller frees with named_counts_free(). */
unsigned hw_backend_drop_counts(const struct hw_backend *hb, struct named_count **out);

#endif
