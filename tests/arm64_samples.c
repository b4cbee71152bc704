/* arm64_samples.c - a synthetic AArch64 soft-backend recording.
 *
 * usage: arm64_samples BINARY OUT.data
 *
 * BINARY is testcases/false_sharing_counters.c cross-compiled for AArch64
 * (-O2 -g; tests/e2e_arm64.sh builds it).  Its PT_LOAD segments are
 * "mapped" at a made-up base in a made-up pid, as the loader would, and
 * timer samples are made as an Arm machine would deliver them to the soft
 * backend: two threads, each sampled just after increment()'s load and
 * store of its counter (the instruction after them, as a timer lands),
 * with x0 = &counters[thread].  The samples go through soft_access() (the
 * AArch64 decoder, the predecessor rule) into a contend data file, which
 * `contend report -i` turns into the report the test reads.
 *
 * Nothing here ran on Arm: the registers are what the code says they hold.
 */
#include <fcntl.h>
#include <gelf.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "common/util.h"
#include "detector/datafile.h"
#include "detector/run_facts.h"
#include "detector/soft.h"
#include "symbolize/decode.h"
#include "symbolize/symbolizer.h"

#define PID 4242
#define BASE 0xaaaab0000000ULL     /* where arm64 Linux puts a PIE */
#define PAGE 4096ULL
#define SAMPLES_PER_SITE 200
#define FREQ 1000

struct recording {
	struct symbolizer *sym;
	struct datafile_writer *w;
	struct soft *soft;
	uint64_t time;
};

static void map_segments(struct recording *rec, const char *path)
{
	int fd = open(path, O_RDONLY);
	Elf *elf;
	size_t n;

	elf_version(EV_CURRENT);
	if (fd < 0 || !(elf = elf_begin(fd, ELF_C_READ, NULL)) || elf_getphdrnum(elf, &n))
		die("%s: not an ELF file", path);
	for (size_t i = 0; i < n; i++) {
		GElf_Phdr ph;
		uint64_t start, end;
		uint32_t prot;
		struct datafile_mmap m = { .pid = PID, .filename = path };

		if (!gelf_getphdr(elf, (int)i, &ph) || ph.p_type != PT_LOAD)
			continue;
		start = (BASE + ph.p_vaddr) & ~(PAGE - 1);
		end = (BASE + ph.p_vaddr + ph.p_filesz + PAGE - 1) & ~(PAGE - 1);
		prot = (ph.p_flags & PF_R ? PROT_READ : 0) | (ph.p_flags & PF_W ? PROT_WRITE : 0) |
		       (ph.p_flags & PF_X ? PROT_EXEC : 0);
		m.start = start;
		m.len = end - start;
		m.pgoff = ph.p_offset & ~(PAGE - 1);
		m.prot = prot;
		m.build_id_len = datafile_build_id(path, m.build_id);
		symbolizer_add_mapping(rec->sym, PID, m.start, m.len, m.pgoff, prot, path);
		datafile_write_mmap(rec->w, &m);
	}
	elf_end(elf);
	close(fd);
}

/* The code addresses in increment() just after its load and its store
 * through x0 (the counter): where a timer sample lands when they stall. */
static void hot_sites(struct recording *rec, uint64_t *after_load, uint64_t *after_store)
{
	struct decoder *d = decoder_new_for_machine(EM_AARCH64);
	struct data_symbol fn;
	uint8_t code[256];
	size_t len;

	*after_load = *after_store = 0;
	if (!d || !symbolizer_find_symbol(rec->sym, PID, "increment", &fn))
		die("no AArch64 decoder, or no increment() in the binary");
	len = symbolizer_read(rec->sym, PID, fn.start, code,
			      fn.size < sizeof(code) ? fn.size : sizeof(code));
	for (size_t off = 0; off + 4 <= len; off += 4) {
		struct insn_mem m;

		if (!decoder_memory(d, code + off, 4, fn.start + off, &m) || !m.access ||
		    m.base != 0 || m.size != 8)
			continue;
		if (m.writes && !*after_store)
			*after_store = fn.start + off + 4;
		else if (!m.writes && !*after_load)
			*after_load = fn.start + off + 4;
	}
	decoder_free(d);
	if (!*after_load || !*after_store)
		die("increment(): no load and store through x0");
}

static void sample(struct recording *rec, uint32_t tid, uint64_t ip, uint64_t counter)
{
	struct perf_sample ps = {
		.ip = ip, .pid = PID, .tid = tid, .time = rec->time += 50000,
		.cpu = tid % 2, .period = 1000000000ULL / FREQ,
		.regs_abi = PERF_SAMPLE_REGS_ABI_64,
	};
	struct access_sample a;

	for (int r = 0; r <= 30; r++)
		ps.regs.val[r] = 0x1000 + (uint64_t)r;            /* loop counters... */
	ps.regs.val[0] = counter;                                 /* the counter */
	ps.regs.val[1] = 0xfffff7fe0000ULL + tid * 0x100000ULL;  /* &item, a stack */
	ps.regs.val[31] = ps.regs.val[1] - 0x40;
	ps.regs.val[32] = ip;
	ps.regs.mask = 0x1ffffffffULL;
	if (soft_access(rec->soft, &ps, &a))
		datafile_write_sample(rec->w, &a);
}

int main(int argc, char **argv)
{
	struct recording rec = { 0 };
	struct data_symbol counters;
	uint64_t after_load, after_store;
	struct named_count *drops = NULL;
	struct run_facts summary = {
		.command = "false_sharing_counters (AArch64, synthetic timer samples)",
		.backend = "soft", .freq = FREQ, .duration = 0.1,
	};
	FILE *out;

	if (argc != 3)
		die("usage: arm64_samples BINARY OUT.data");
	if (!(out = fopen(argv[2], "wb")))
		die("%s: cannot create", argv[2]);
	rec.sym = symbolizer_new();
	rec.w = datafile_writer_new(out, FREQ);
	rec.soft = soft_new(rec.sym);
	datafile_write_comm(rec.w, PID, PID, "fsc", true);    /* exec, then its mappings */
	map_segments(&rec, argv[1]);
	datafile_write_comm(rec.w, PID, PID + 1, "fsc", false);
	datafile_write_comm(rec.w, PID, PID + 2, "fsc", false);
	if (!symbolizer_find_symbol(rec.sym, PID, "counters", &counters))
		die("%s: no symbol counters", argv[1]);
	/* the decoders are chosen by this, not by the machine we run on */
	if (symbolizer_machine(rec.sym, PID, counters.start) != EM_AARCH64)
		die("%s: the symbolizer does not see an AArch64 file", argv[1]);
	if (symbolizer_machine(rec.sym, PID, 0x1000) != EM_NONE)
		die("unmapped memory has a machine");
	hot_sites(&rec, &after_load, &after_store);
	for (int i = 0; i < SAMPLES_PER_SITE; i++)
		for (uint32_t t = 0; t < 2; t++) {
			sample(&rec, PID + 1 + t, after_load, counters.start + 8 * t);
			sample(&rec, PID + 1 + t, after_store, counters.start + 8 * t);
		}
	summary.samples = soft_samples_seen(rec.soft);
	summary.decoded = soft_samples_decoded(rec.soft);
	summary.n_dropped = soft_drop_counts(rec.soft, &drops);
	summary.dropped = drops;
	if (datafile_writer_finish(rec.w, &summary) || fclose(out))
		die("%s: write failed", argv[2]);
	printf("%" PRIu64 " samples, %" PRIu64 " decoded\n", summary.samples, summary.decoded);
	for (unsigned i = 0; i < summary.n_dropped; i++)
		printf("dropped %" PRIu64 ": %s\n", drops[i].n, drops[i].what);
	named_counts_free(drops, summary.n_dropped);
	soft_free(rec.soft);
	symbolizer_free(rec.sym);
	return summary.decoded == summary.samples ? 0 : 1;
}
