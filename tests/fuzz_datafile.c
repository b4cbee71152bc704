/* fuzz_datafile - libFuzzer target: the contend.data reader.
 *
 * The input is read as a data file, and what the reader hands out goes
 * where `contend report` sends it: line tables (64- and 128-byte lines),
 * thread names, a symbolizer's mapping tables.  No lookups: those would
 * open whatever files a hostile input names.  A refused file must come
 * with a reason.  Build and run: `make fuzz-datafile` (corpus:
 * tests/fuzz-corpus/datafile,
 * seeds written by `tests/test_datafile --write-corpus DIR`; watch.data by
 * `tests/test_datafile_watch --write-seed FILE`).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/util.h"
#include "detector/datafile.h"
#include "detector/line_table.h"
#include "detector/thread_names.h"
#include "reports/report.h"
#include "symbolize/symbolizer.h"

struct sink {
	struct line_table *lines[2];
	struct thread_names names;
	struct symbolizer *sym;
};

static void on_access(void *ctx, const struct access_sample *a)
{
	struct sink *s = ctx;
	line_table_add(s->lines[0], a);
	line_table_add(s->lines[1], a);
}

static void on_mmap(void *ctx, const struct datafile_mmap *m)
{
	struct sink *s = ctx;
	if (m->flags & DATAFILE_MMAP_RESET)
		symbolizer_exec(s->sym, (pid_t)m->pid);
	symbolizer_add_mapping(s->sym, (pid_t)m->pid, m->start, m->len, m->pgoff, m->prot,
			       m->filename);
}

static void on_comm(void *ctx, uint32_t pid, uint32_t tid, const char *comm, bool exec)
{
	struct sink *s = ctx;
	thread_names_set(&s->names, tid, comm);
	if (exec && pid == tid)
		symbolizer_exec(s->sym, (pid_t)pid);
}

static void on_chain(void *ctx, uint32_t id, const uint64_t *pcs, unsigned n)
{
	volatile uint64_t sum = 0;
	for (unsigned i = 0; i < n; i++)
		sum += pcs[i];
}

/* Every count a watch record hands out is read, as the report would. */
static void on_watch_word(void *ctx, const struct watch_word_result *r)
{
	volatile uint64_t sum = r->reads + r->writes;
	(void)ctx;
	for (unsigned i = 0; i < r->n_threads; i++)
		sum += r->threads[i].tid + r->threads[i].concurrent;
	for (unsigned i = 0; i < r->n_sites; i++)
		sum += r->sites[i].ip + r->sites[i].reads;
}

static void on_watch_session(void *ctx, const struct datafile_watch_session *s)
{
	volatile size_t n = s->note ? strlen(s->note) : 0;
	(void)ctx;
	(void)n;
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	warnings_quiet = true;
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct sink s = { 0 };
	struct datafile_callbacks cb = {
		.ctx = &s, .access = on_access, .mmap = on_mmap, .comm = on_comm,
		.chain = on_chain, .watch_word = on_watch_word,
		.watch_session = on_watch_session,
	};
	struct strbuf err = STRBUF_INIT;
	struct datafile_reader *r;
	int ok = -1;
	FILE *f;

	if (!size)
		return 0;
	f = fmemopen((void *)data, size, "r");
	if (!f)
		return 0;
	s.lines[0] = line_table_new(64, 2500000);
	s.lines[1] = line_table_new(128, 2500000);
	s.sym = symbolizer_new();

	r = datafile_reader_open(f, &err);
	if (r)
		ok = datafile_reader_run(r, &cb, &err);
	if (ok == 0) {
		const struct run_facts *h = datafile_reader_summary(r);
		size_t n = strlen(h->command) + strlen(h->backend);
		for (unsigned i = 0; i < h->n_dropped; i++)
			n += strlen(h->dropped[i].what);
		if (h->backend_note)
			n += strlen(h->backend_note);
		if (h->price_note)
			n += strlen(h->price_note);
		if (!transfer_price_holds(&h->price))
			abort();        /* a price the reader should have refused */
		(void)n;
	} else if (!err.len) {
		abort();        /* a refusal without a reason */
	}

	datafile_reader_free(r);
	fclose(f);
	strbuf_release(&err);
	line_table_free(s.lines[0]);
	line_table_free(s.lines[1]);
	thread_names_release(&s.names);
	symbolizer_free(s.sym);
	return 0;
}
