/* fuzz_perfdata - libFuzzer target: the perf.data reader (perf_file.h).
 *
 * The input is written to a memory file (the reader wants a regular
 * file's descriptor) and read as `contend report -i perf.data` reads it:
 * the header, attributes and features, then every record of the data
 * section parsed for its event and handed to callbacks that put samples
 * into line tables and mappings into a symbolizer's tables.  No lookups:
 * those would open whatever files a hostile input names.  A refused file
 * must come with a reason.  Build and run: `make fuzz-perfdata` (corpus:
 * tests/fuzz-corpus/perfdata, seeds written by tests/perf_data_synth.py,
 * PEBS-style and SPE-style).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE   /* memfd_create */
#endif
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "common/util.h"
#include "detector/line_table.h"
#include "detector/perf_file.h"
#include "symbolize/symbolizer.h"

struct sink {
	struct line_table *lines;
	struct symbolizer *sym;
};

static void on_sample(void *ctx, const struct perf_sample *ps)
{
	struct sink *s = ctx;
	struct access_sample a;
	volatile uint64_t sum = ps->regs.mask + ps->stack_size;

	(void)sum;
	if (!ps->addr)
		return;
	access_sample_from_perf(&a, ps, ps->ip, ps->addr);
	a.size = 8;
	a.kind = ps->data_src & 4 ? ACCESS_STORE : ACCESS_LOAD;
	a.base_reg = -1;
	line_table_add(s->lines, &a);
}

static void on_mmap(void *ctx, uint32_t pid, uint64_t start, uint64_t len, uint64_t pgoff,
		    uint32_t prot, const char *filename, const struct map_object *obj)
{
	struct sink *s = ctx;
	symbolizer_add_mapping_object(s->sym, (pid_t)pid, start, len, pgoff, prot, filename, obj);
}

static void on_comm(void *ctx, uint32_t pid, uint32_t tid, const char *comm, bool exec)
{
	struct sink *s = ctx;
	volatile size_t n = strlen(comm) + tid;

	(void)n;
	if (exec && pid == tid)
		symbolizer_exec(s->sym, (pid_t)pid);
}

static void on_fork(void *ctx, uint32_t pid, uint32_t ppid, uint32_t tid)
{
	struct sink *s = ctx;
	if (pid == tid && pid != ppid)
		symbolizer_fork(s->sym, (pid_t)ppid, (pid_t)pid);
}

/* an AUX trace's bytes, every one read (the SPE decoder is fuzzed by its
 * own tests' streams; this reaches perf_file's AUXTRACE path) */
static void on_aux(void *ctx, const struct perf_aux *a)
{
	volatile uint64_t sum = a->cpu + a->tid + a->time_mult;

	(void)ctx;
	for (size_t i = 0; i < a->size; i++)
		sum += a->data[i];
}

static void on_itrace_start(void *ctx, uint32_t cpu, uint32_t pid, uint32_t tid)
{
	volatile uint64_t sum = cpu + pid + tid;

	(void)ctx;
	(void)sum;
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	warnings_quiet = true;
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct sink s = { 0 };
	struct perf_callbacks cb = {
		.sample_ctx = &s, .sample = on_sample,
		.ctx = &s, .mmap = on_mmap, .comm = on_comm, .fork = on_fork,
		.aux_ctx = &s, .aux = on_aux, .itrace_start = on_itrace_start,
	};
	struct perf_file_counts counts;
	struct strbuf err = STRBUF_INIT;
	struct perf_file *pf;
	int fd = memfd_create("perfdata", MFD_CLOEXEC);
	FILE *f;

	if (fd < 0)
		return 0;
	if (write(fd, data, size) != (ssize_t)size || !(f = fdopen(fd, "rb"))) {
		close(fd);
		return 0;
	}
	s.lines = line_table_new(64, 2500000);
	s.sym = symbolizer_new();
	symbolizer_set_offline(s.sym);

	if (perf_file_is(f) && (pf = perf_file_open(f, &err))) {
		for (unsigned i = 0; i < perf_file_n_attrs(pf); i++) {
			const char *name = perf_file_event_name(pf, i);
			volatile size_t n = name ? strlen(name) : 0;
			(void)n;
		}
		if (perf_file_command(pf) && !*perf_file_command(pf))
			abort();        /* an empty command is NULL */
		if (perf_file_run(pf, &cb, &counts, &err) < 0 && !err.len)
			abort();        /* a refusal without a reason */
		perf_file_free(pf);
	} else if (perf_file_is(f) && !err.len) {
		abort();
	}

	fclose(f);
	strbuf_release(&err);
	line_table_free(s.lines);
	symbolizer_free(s.sym);
	return 0;
}
