/* run_facts.h - what a sampling run knows about itself, besides its lines.
 *
 * The session fills one (command, backend, rate, duration, how the target
 * ended, samples taken and dropped); the data file stores it; report_build()
 * copies it into the report's header.  Strings and arrays are borrowed.
 */
#ifndef CONTEND_RUN_FACTS_H
#define CONTEND_RUN_FACTS_H

#include <stdbool.h>
#include <stdint.h>

#include "common/util.h"
#include "detector/transfer_price.h"

struct callchains;
struct alloc_table;
struct glibc_heap;
struct instruments;
struct cpu_nodes;

enum target_state {
	TARGET_LAUNCHED = 0,
	TARGET_ATTACHED_RUNNING,     /* left running at detach */
	TARGET_ATTACHED_EXITED,      /* exited while sampled */
	TARGET_PERF_FILE,            /* sampled by perf: its perf.data (perf_file.h) */
};

struct run_facts {
	const char *command;
	const char *backend;
	const char *backend_note;
	const char *jit_note;        /* a JVM: where JIT code names came from, or NULL */
	const char *watch_note;      /* why no watchpoints confirmed, or NULL */
	/* the self-test of the instruments (instruments.h), or NULL: none */
	const struct instruments *instruments;
	/* what a transfer costs here (0: not measured, and why in
	 * price_note, or NULL if no one tried: the gain model's reference) */
	struct transfer_price price;
	const char *price_note;
	bool mem_info;               /* hardware data sources: print HITM, latency */
	/* Was the machine busy (overlap.h)?  The share of sampled time two
	 * of the target's threads ran at once; the share of the session some
	 * task waited for a CPU (/proc/pressure/cpu); the load average at
	 * the end.  Each -1 where unknown (a file from before version 6,
	 * attach -a, a kernel without PSI). */
	double overlap, cpu_pressure, load;
	unsigned freq;
	double duration;
	enum target_state target;
	int target_status;           /* TARGET_LAUNCHED only */
	uint64_t samples, decoded;
	const struct named_count *dropped;
	unsigned n_dropped;
	const struct callchains *chains;   /* the ids in the line table, or NULL */
	struct alloc_table *allocs;        /* heap blocks and their sites, or NULL */
	/* attach: the live target's heap, to read blocks from where allocs
	 * is NULL (detector/glibc_heap.h), or NULL */
	struct glibc_heap *heap;
	/* the NUMA node of each CPU (common/cpu_nodes.h), or NULL: unknown */
	const struct cpu_nodes *cpu_nodes;
};

#endif
