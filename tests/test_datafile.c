/* test_datafile - contend.data: every field survives a round trip, and the
 * reader turns away truncated, corrupt and hostile files with a clear
 * reason instead of crashing or allocating what the file cannot back.
 *
 * `test_datafile --write-corpus DIR` writes the fuzzer's seed files.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "tap.h"
#include "common/util.h"
#include "detector/datafile.h"
#include "detector/instruments.h"
#include "reports/report.h"

/* --- what the reader handed out ---------------------------------------- */

struct got {
	struct access_sample samples[8];
	unsigned n_samples;
	struct datafile_mmap mmaps[4];
	char names[4][DATAFILE_PATH_MAX + 1];
	unsigned n_mmaps;
	struct { uint32_t pid, tid; char comm[16]; bool exec; } comms[4];
	unsigned n_comms;
	uint32_t chain_id;
	uint64_t chain[DATAFILE_CHAIN_MAX];
	unsigned chain_n;
	unsigned calls;                 /* in order: 1 sample, 2 mmap, 3 comm, 4 chain */
	unsigned order[16];
};

static void got_access(void *ctx, const struct access_sample *a)
{
	struct got *g = ctx;
	if (g->calls < ARRAY_SIZE(g->order))
		g->order[g->calls++] = 1;
	if (g->n_samples < ARRAY_SIZE(g->samples))
		g->samples[g->n_samples++] = *a;
}

static void got_mmap(void *ctx, const struct datafile_mmap *m)
{
	struct got *g = ctx;
	if (g->calls < ARRAY_SIZE(g->order))
		g->order[g->calls++] = 2;
	if (g->n_mmaps < ARRAY_SIZE(g->mmaps)) {
		snprintf(g->names[g->n_mmaps], sizeof(g->names[0]), "%s", m->filename);
		g->mmaps[g->n_mmaps] = *m;
		g->mmaps[g->n_mmaps].filename = g->names[g->n_mmaps];
		g->n_mmaps++;
	}
}

static void got_comm(void *ctx, uint32_t pid, uint32_t tid, const char *comm, bool exec)
{
	struct got *g = ctx;
	if (g->calls < ARRAY_SIZE(g->order))
		g->order[g->calls++] = 3;
	if (g->n_comms < ARRAY_SIZE(g->comms)) {
		g->comms[g->n_comms].pid = pid;
		g->comms[g->n_comms].tid = tid;
		g->comms[g->n_comms].exec = exec;
		snprintf(g->comms[g->n_comms].comm, 16, "%s", comm);
		g->n_comms++;
	}
}

static void got_chain(void *ctx, uint32_t id, const uint64_t *pcs, unsigned n)
{
	struct got *g = ctx;
	if (g->calls < ARRAY_SIZE(g->order))
		g->order[g->calls++] = 4;
	g->chain_id = id;
	g->chain_n = n;
	memcpy(g->chain, pcs, n * sizeof(*pcs));
}

/* --- a small valid file -------------------------------------------------- */

static const struct access_sample sample1 = {
	.time = 0x1122334455667788ULL, .pid = 4242, .tid = 4243, .cpu = 1,
	.ip = 0x55d0c0a01234ULL, .addr = 0x55d0c0a04048ULL, .size = 8,
	.kind = ACCESS_RMW, .base_reg = -1, .weight = 77, .base_off = -0x40,
	.data_src = 0x68100142ULL, .chain_id = 1,
};

static const struct access_sample sample2 = {
	.time = 1000, .pid = 4242, .tid = 4244, .cpu = 0,
	.ip = 0xffffffffffffffffULL, .addr = 0x7f0000000000ULL, .size = 64,
	.kind = ACCESS_ATOMIC, .base_reg = 7, .weight = 0,
	.base_off = 0x7fffffffffffffffLL, .data_src = 0, .chain_id = 0,
};

static const uint64_t chain1[] = { 0x55d0c0a01100ULL, 0x7f0000001234ULL, 1 };

static struct datafile_mmap mmap1(void)
{
	struct datafile_mmap m = {
		.pid = 4242, .prot = PROT_READ | PROT_EXEC, .start = 0x55d0c0a00000ULL,
		.len = 0x3000, .pgoff = 0x1000, .flags = DATAFILE_MMAP_RESET,
		.filename = "/src/testcases/false_sharing_counters", .build_id_len = 20,
	};
	for (unsigned i = 0; i < 20; i++)
		m.build_id[i] = (uint8_t)(0xa0 + i);
	return m;
}

static const struct named_count drops[] = {
	{ (char *)"no memory operand", 120 },
	{ (char *)"stack", 80 },
};

/* an AMD guest's: breakpoints dead, uprobes refused to a user */
static const struct instruments instruments1 = { .t = {
	[INSTRUMENT_WATCHPOINTS] = { .state = INSTRUMENT_DEAD, .expected = 200 },
	[INSTRUMENT_EXEC_BREAKPOINTS] = { .state = INSTRUMENT_DEAD, .expected = 100 },
	[INSTRUMENT_UPROBES] = { .state = INSTRUMENT_REFUSED, .err = 13 },
	[INSTRUMENT_TIMER] = { .state = INSTRUMENT_WORKS, .expected = 1000, .counted = 997 },
} };

static const struct run_facts summary1 = {
	.command = "testcases/false_sharing_counters -t 2",
	.backend = "soft",
	.backend_note = "cpu-clock samples + instruction decoding",
	.freq = 999,            /* ignored: the file header has the rate */
	.duration = 1.875,
	.target = TARGET_ATTACHED_EXITED,
	.target_status = -9,
	.samples = 3850, .decoded = 3600,
	.dropped = drops, .n_dropped = 2,
	.mem_info = true,
	.price = { .locked = 2.875, .store = 2.5, .runs = 5 },
	.instruments = &instruments1,
	.overlap = 0.375, .cpu_pressure = 0.75, .load = 6.5,   /* a busy machine */
};

/* Writes the small file; *len gets its size.  Caller frees. */
static char *write_small(size_t *len, bool with_summary)
{
	char *buf = NULL;
	FILE *f = open_memstream(&buf, len);
	struct datafile_writer *w = datafile_writer_new(f, 1000);
	struct datafile_mmap m = mmap1();
	struct datafile_mmap anon = { .pid = 4242, .prot = PROT_READ | PROT_WRITE,
				      .start = 0x560000000000ULL, .len = 0x21000,
				      .filename = "[heap]" };

	datafile_write_comm(w, 4242, 4242, "false_sharing_counters", true);
	datafile_write_mmap(w, &m);
	datafile_write_mmap(w, &anon);
	datafile_write_chain(w, 1, chain1, ARRAY_SIZE(chain1));
	datafile_write_sample(w, &sample1);
	datafile_write_comm(w, 4242, 4243, "worker", false);
	datafile_write_sample(w, &sample2);
	CHECK_EQ_U64(datafile_writer_samples(w), 2, "samples written");
	if (with_summary)
		CHECK(datafile_writer_finish(w, &summary1) == 0, "finish: %s", strerror(errno));
	else
		datafile_writer_finish(w, &summary1);
	fclose(f);
	return buf;
}

static FILE *open_bytes(const void *p, size_t len)
{
	/* fmemopen refuses a zero size on some libcs */
	return len ? fmemopen((void *)p, len, "r") : fopen("/dev/null", "r");
}

/* Reads the bytes; returns 0 or -1 with the reason in err. */
static int read_bytes(const void *p, size_t len, struct got *g, struct strbuf *err,
		      struct run_facts *summary)
{
	FILE *f = open_bytes(p, len);
	struct datafile_callbacks cb = { g, got_access, got_mmap, got_comm, got_chain };
	struct datafile_reader *r;
	int ret = -1;

	memset(g, 0, sizeof(*g));
	strbuf_reset(err);
	r = datafile_reader_open(f, err);
	if (r && datafile_reader_run(r, &cb, err) == 0) {
		ret = 0;
		if (summary)
			*summary = *datafile_reader_summary(r);
	}
	datafile_reader_free(r);
	fclose(f);
	return ret;
}

static void check_sample(const struct access_sample *a, const struct access_sample *b,
			 const char *what)
{
	CHECK(a->time == b->time && a->pid == b->pid && a->tid == b->tid &&
	      a->cpu == b->cpu && a->ip == b->ip && a->addr == b->addr &&
	      a->size == b->size && a->kind == b->kind && a->base_reg == b->base_reg &&
	      a->weight == b->weight && a->base_off == b->base_off &&
	      a->data_src == b->data_src && a->chain_id == b->chain_id,
	      "%s differs", what);
	CHECK_EQ_U64(a->time, b->time, what);
	CHECK_EQ_U64((uint64_t)a->base_off, (uint64_t)b->base_off, what);
	CHECK_EQ_U64((uint64_t)(int64_t)a->base_reg, (uint64_t)(int64_t)b->base_reg, what);
}

static void test_round_trip(void)
{
	size_t len;
	char *buf = write_small(&len, true);
	struct strbuf err = STRBUF_INIT;
	struct run_facts s;
	struct got g;
	static const unsigned order[] = { 3, 2, 2, 4, 1, 3, 1 };
	struct datafile_mmap m = mmap1();
	FILE *f;
	struct datafile_reader *r;

	CHECK(read_bytes(buf, len, &g, &err, NULL) == 0, "read: %s", strbuf_str(&err));
	CHECK(!memcmp(buf, "CONTEND", 8), "magic with its NUL");
	CHECK_EQ_U64(buf[8], DATAFILE_VERSION, "version byte");

	CHECK_EQ_U64(g.calls, ARRAY_SIZE(order), "records delivered");
	CHECK(!memcmp(g.order, order, sizeof(order)), "records out of order");
	CHECK_EQ_U64(g.n_samples, 2, "samples");
	check_sample(&g.samples[0], &sample1, "sample 1");
	check_sample(&g.samples[1], &sample2, "sample 2");

	CHECK_EQ_U64(g.n_mmaps, 2, "mmaps");
	CHECK_EQ_U64(g.mmaps[0].pid, m.pid, "mmap pid");
	CHECK_EQ_U64(g.mmaps[0].prot, m.prot, "mmap prot");
	CHECK_EQ_U64(g.mmaps[0].start, m.start, "mmap start");
	CHECK_EQ_U64(g.mmaps[0].len, m.len, "mmap len");
	CHECK_EQ_U64(g.mmaps[0].pgoff, m.pgoff, "mmap pgoff");
	CHECK_EQ_U64(g.mmaps[0].flags, DATAFILE_MMAP_RESET, "mmap flags");
	CHECK_STR(g.mmaps[0].filename, m.filename, "mmap filename");
	CHECK_EQ_U64(g.mmaps[0].build_id_len, 20, "build-id length");
	CHECK(!memcmp(g.mmaps[0].build_id, m.build_id, 20), "build-id bytes");
	CHECK_STR(g.mmaps[1].filename, "[heap]", "anonymous mapping name");
	CHECK_EQ_U64(g.mmaps[1].build_id_len, 0, "no build-id");
	CHECK_EQ_U64(g.mmaps[1].flags, 0, "no flags");

	CHECK_EQ_U64(g.chain_id, 1, "chain id");
	CHECK_EQ_U64(g.chain_n, 3, "chain frames");
	CHECK(!memcmp(g.chain, chain1, sizeof(chain1)), "chain frames");

	CHECK_EQ_U64(g.n_comms, 2, "comms");
	CHECK_STR(g.comms[0].comm, "false_sharing_c", "comm cut to 15 bytes like the kernel's");
	CHECK(g.comms[0].exec && !g.comms[1].exec, "exec flags");
	CHECK_EQ_U64(g.comms[1].tid, 4243, "comm tid");
	CHECK_EQ_U64(g.comms[1].pid, 4242, "comm pid");
	CHECK_STR(g.comms[1].comm, "worker", "comm");

	/* summary: strings live with the reader, so check before freeing it */
	f = open_bytes(buf, len);
	strbuf_reset(&err);
	r = datafile_reader_open(f, &err);
	CHECK(r && datafile_reader_freq(r) == 1000, "freq from the header");
	CHECK(r && !datafile_reader_summary(r), "no summary before the run");
	if (r && datafile_reader_run(r, &(struct datafile_callbacks){ 0 }, &err) == 0) {
		s = *datafile_reader_summary(r);
		CHECK_STR(s.command, summary1.command, "command");
		CHECK_STR(s.backend, "soft", "backend");
		CHECK_STR(s.backend_note, summary1.backend_note, "backend note");
		CHECK_EQ_U64(s.freq, 1000, "summary freq is the header's");
		CHECK(s.duration == 1.875, "duration %g", s.duration);
		CHECK_EQ_U64((uint64_t)(int64_t)s.target_status, (uint64_t)(int64_t)-9, "target status");
		CHECK_EQ_U64(s.samples, 3850, "samples seen");
		CHECK_EQ_U64(s.decoded, 3600, "decoded");
		CHECK(s.mem_info, "memory info flag");
		CHECK(s.target == TARGET_ATTACHED_EXITED, "attached, exited: %d", (int)s.target);
		CHECK(s.price.locked == 2.875 && s.price.store == 2.5 && s.price.runs == 5 &&
		      !s.price_note, "transfer prices %g %g from %u runs", s.price.locked,
		      s.price.store, s.price.runs);
		for (int i = 0; i < INSTRUMENT__COUNT; i++) {
			const struct instrument_test *a = s.instruments ? &s.instruments->t[i] : NULL;
			const struct instrument_test *b = &instruments1.t[i];

			CHECK(a && a->state == b->state && a->expected == b->expected &&
			      a->counted == b->counted && a->err == b->err,
			      "%s's self-test as recorded", instrument_name((enum instrument)i));
		}
		CHECK(s.overlap == 0.375 && s.cpu_pressure == 0.75 && s.load == 6.5,
		      "the machine's business: overlap %g, pressure %g, load %g", s.overlap,
		      s.cpu_pressure, s.load);
		CHECK_EQ_U64(s.n_dropped, 2, "drop reasons");
		if (s.n_dropped == 2) {
			CHECK_STR(s.dropped[0].what, "no memory operand", "drop reason");
			CHECK_EQ_U64(s.dropped[0].n, 120, "drop count");
			CHECK_STR(s.dropped[1].what, "stack", "drop reason 2");
			CHECK_EQ_U64(s.dropped[1].n, 80, "drop count 2");
		}
	} else {
		CHECK(0, "read: %s", strbuf_str(&err));
	}
	datafile_reader_free(r);
	fclose(f);
	strbuf_release(&err);
	free(buf);
}

/* Heap blocks (type 6): fields and the freed flag round trip; a block
 * that is a free, or an unknown flag, is refused. */
static struct alloc_record got_alloc_rec;
static unsigned got_allocs;

static void got_alloc(void *ctx, const struct alloc_record *a)
{
	(void)ctx;
	got_alloc_rec = *a;
	got_allocs++;
}

static int read_with(const char *buf, size_t len, const struct datafile_callbacks *cb,
		     struct strbuf *err)
{
	FILE *f = open_bytes(buf, len);
	struct datafile_reader *r = datafile_reader_open(f, err);
	int ret = r ? datafile_reader_run(r, cb, err) : -1;

	datafile_reader_free(r);
	fclose(f);
	return ret;
}

static int read_allocs(const char *buf, size_t len, struct strbuf *err)
{
	return read_with(buf, len, &(struct datafile_callbacks){ .alloc = got_alloc }, err);
}

static void test_alloc_records(void)
{
	struct alloc_record a = {
		.time = 77, .addr = 0x5581a0e2a2a0ULL, .size = 6144, .arg = 2,
		.frames = { 0x5581a0c014c2ULL, 0x7f0000001234ULL }, .pid = 4242, .tid = 4242,
		.call = ALLOC_CALLOC, .flags = ALLOC_FLAG_FREED,
	};
	struct strbuf err = STRBUF_INIT;
	char *buf = NULL;
	size_t len;
	FILE *f = open_memstream(&buf, &len);
	struct datafile_writer *w = datafile_writer_new(f, 1000);
	const size_t payload = 104 + 8;    /* file header (with the target), record header */

	datafile_write_alloc(w, &a);
	datafile_writer_finish(w, &summary1);
	fclose(f);
	got_allocs = 0;
	CHECK(read_allocs(buf, len, &err) == 0, "read: %s", strbuf_str(&err));
	CHECK_EQ_U64(got_allocs, 1, "one block");
	CHECK(!memcmp(&got_alloc_rec, &a, sizeof(a)), "the block as written");
	buf[8] = 1;                        /* version 1 knew no blocks */
	CHECK(read_allocs(buf, len, &err) < 0 &&
	      strstr(strbuf_str(&err), "alloc record in a version 1 file"),
	      "version 1 with a block refused: %s", strbuf_str(&err));
	buf[8] = DATAFILE_VERSION;
	strbuf_reset(&err);
	buf[payload + 76] = 2;             /* flags */
	CHECK(read_allocs(buf, len, &err) < 0 && strstr(strbuf_str(&err), "unknown flags 0x2"),
	      "unknown flag refused: %s", strbuf_str(&err));
	buf[payload + 76] = 1;
	buf[payload + 72] = ALLOC_FREE;    /* call */
	strbuf_reset(&err);
	CHECK(read_allocs(buf, len, &err) < 0 && strstr(strbuf_str(&err), "allocation call 9"),
	      "a free is no block: %s", strbuf_str(&err));
	strbuf_release(&err);
	free(buf);
}

/* Blocks record -p found in the heap (type 7): round trip; refused in a
 * version 2 file, with an unknown arena, or empty. */
static struct glibc_heap_block got_block;
static uint32_t got_block_pid;

static void got_heap_block(void *ctx, uint32_t pid, const struct glibc_heap_block *b)
{
	(void)ctx;
	got_block_pid = pid;
	got_block = *b;
}

static int read_heap_blocks(const char *buf, size_t len, struct strbuf *err)
{
	return read_with(buf, len, &(struct datafile_callbacks){ .heap_block = got_heap_block },
			 err);
}


static void test_heap_block_records(void)
{
	struct glibc_heap_block b = {
		.start = 0x5581a0e2a2a0ULL, .usable = 6152, .arena = GLIBC_HEAP_THREAD,
	};
	struct strbuf err = STRBUF_INIT;
	char *buf = NULL;
	size_t len;
	FILE *f = open_memstream(&buf, &len);
	struct datafile_writer *w = datafile_writer_new(f, 1000);
	const size_t payload = 104 + 8;    /* file header (with the target), record header */

	datafile_write_heap_block(w, 4242, &b);
	datafile_writer_finish(w, &summary1);
	fclose(f);
	got_block_pid = 0;
	CHECK(read_heap_blocks(buf, len, &err) == 0, "read: %s", strbuf_str(&err));
	CHECK(got_block_pid == 4242 && got_block.start == b.start && got_block.usable == 6152 &&
	      got_block.arena == GLIBC_HEAP_THREAD, "the block as written");
	buf[8] = 2;                        /* version 2 knew no heap blocks */
	CHECK(read_heap_blocks(buf, len, &err) < 0 &&
	      strstr(strbuf_str(&err), "heap block record in a version 2 file"),
	      "version 2 with a heap block refused: %s", strbuf_str(&err));
	buf[8] = DATAFILE_VERSION;
	strbuf_reset(&err);
	buf[payload + 4] = 9;              /* arena */
	CHECK(read_heap_blocks(buf, len, &err) < 0 && strstr(strbuf_str(&err), "arena 9"),
	      "unknown arena refused: %s", strbuf_str(&err));
	buf[payload + 4] = GLIBC_HEAP_MAIN;
	memset(buf + payload + 16, 0, 8);  /* usable */
	strbuf_reset(&err);
	CHECK(read_heap_blocks(buf, len, &err) < 0 && strstr(strbuf_str(&err), "of 0 bytes"),
	      "an empty block refused: %s", strbuf_str(&err));
	strbuf_release(&err);
	free(buf);
}

/* A file that ends anywhere before its end is refused, with a reason. */
static void test_truncated_everywhere(void)
{
	size_t len;
	char *buf = write_small(&len, true);
	struct strbuf err = STRBUF_INIT;
	struct got g;
	unsigned refused = 0, said_truncated = 0;

	for (size_t n = 0; n < len; n++) {
		if (read_bytes(buf, n, &g, &err, NULL) != 0 && err.len)
			refused++;
		else
			CHECK(0, "prefix of %zu/%zu bytes accepted", n, len);
		if (n == 0 ? strstr(strbuf_str(&err), "empty file")
			   : strstr(strbuf_str(&err), "truncated"))
			said_truncated++;
		else
			CHECK(0, "prefix of %zu bytes: \"%s\"", n, strbuf_str(&err));
	}
	CHECK_EQ_U64(refused, len, "prefixes refused");
	CHECK_EQ_U64(said_truncated, len, "prefixes called truncated");

	/* the last record (the summary) is what says the file is complete */
	free(buf);
	buf = write_small(&len, true);
	read_bytes(buf, len - 1, &g, &err, NULL);
	CHECK(strstr(strbuf_str(&err), "ends inside a summary record"), "%s", strbuf_str(&err));
	strbuf_release(&err);
	free(buf);
}

/* --- hand-made files ------------------------------------------------------ */

struct bytes {
	unsigned char b[8192];
	size_t len;
};

static void le(struct bytes *f, uint64_t v, unsigned size)
{
	for (unsigned i = 0; i < size; i++)
		f->b[f->len++] = (unsigned char)(v >> (8 * i));
}

static void zeros(struct bytes *f, size_t n)
{
	memset(f->b + f->len, 0, n);
	f->len += n;
}

static void raw(struct bytes *f, const void *p, size_t n)
{
	memcpy(f->b + f->len, p, n);
	f->len += n;
}

static void header(struct bytes *f, uint32_t version, uint32_t header_size, uint32_t freq)
{
	f->len = 0;
	raw(f, "CONTEND", 8);
	le(f, version, 4);
	le(f, header_size, 4);
	le(f, freq, 4);
	le(f, 0, 4);
}

static void record(struct bytes *f, uint32_t type, uint32_t size)
{
	le(f, type, 4);
	le(f, size, 4);
}

/* a summary's fields up to its drop reasons (none): 49 bytes */
static void summary_fields(struct bytes *f)
{
	le(f, 0x3ff0000000000000ULL, 8);        /* 1.0 */
	le(f, 0, 4);
	le(f, 0, 4);
	le(f, 10, 8);
	le(f, 5, 8);
	le(f, 0, 4);
	le(f, 3, 2); raw(f, "cmd", 3);
	le(f, 4, 2); raw(f, "soft", 4);
	le(f, 0, 2);
}

static void summary_record(struct bytes *f)
{
	record(f, 4, 36 + 2 + 3 + 2 + 4 + 2);
	summary_fields(f);
}

/* summary_record's, with version 5's transfer prices (f64 bits), runs, note */
static void price_summary(struct bytes *f, uint64_t locked_bits, uint64_t store_bits,
			  uint32_t runs, const char *note)
{
	uint16_t n = (uint16_t)strlen(note);

	record(f, 4, 36 + 2 + 3 + 2 + 4 + 2 + 16 + 4 + 2 + n);
	summary_fields(f);
	le(f, locked_bits, 8);
	le(f, store_bits, 8);
	le(f, runs, 4);
	le(f, n, 2); raw(f, note, n);
}

static void sample_record(struct bytes *f, uint8_t size, uint8_t kind)
{
	record(f, 1, 64);
	zeros(f, 60);
	le(f, size, 1);
	le(f, kind, 1);
	le(f, 0xff, 1);
	le(f, 0, 1);
}

static void mmap_record(struct bytes *f, unsigned id_len, unsigned name_len,
			uint64_t start, uint64_t len, uint32_t size)
{
	record(f, 2, size);
	le(f, 1, 4);
	le(f, 5, 4);
	le(f, start, 8);
	le(f, len, 8);
	le(f, 0, 8);
	le(f, 0, 2);
	le(f, id_len, 1);
	le(f, 0, 1);
	le(f, name_len, 2);
}

static void expect_refused(struct bytes *f, const char *want, const char *what)
{
	struct strbuf err = STRBUF_INIT;
	struct got g;

	CHECK(read_bytes(f->b, f->len, &g, &err, NULL) != 0, "%s: accepted", what);
	CHECK(strstr(strbuf_str(&err), want), "%s: error \"%s\" lacks \"%s\"",
	      what, strbuf_str(&err), want);
	strbuf_release(&err);
}

static void test_minimal_and_header(void)
{
	struct bytes f;
	struct strbuf err = STRBUF_INIT;
	struct run_facts s;
	struct got g;

	header(&f, 1, 24, 1000);
	summary_record(&f);
	CHECK(read_bytes(f.b, f.len, &g, &err, &s) == 0, "minimal file: %s", strbuf_str(&err));
	CHECK_EQ_U64(g.calls, 0, "no records");
	strbuf_release(&err);

	/* a longer header (a later minor revision) is skipped */
	header(&f, 1, 32, 1000);
	le(&f, 0xdeadbeef, 8);
	summary_record(&f);
	CHECK(read_bytes(f.b, f.len, &g, &err, &s) == 0, "longer header: %s", strbuf_str(&err));
	strbuf_release(&err);

	header(&f, 1, 24, 1000);
	f.b[3] = 'X';
	summary_record(&f);
	expect_refused(&f, "not a contend data file", "bad magic");

	f.len = 0;
	raw(&f, "#!/bin/sh\necho\n", 15);
	expect_refused(&f, "not a contend data file", "short non-data file");

	header(&f, DATAFILE_VERSION + 1, 24, 1000);
	summary_record(&f);
	{
		char *want = xasprintf("data file version %d; this contend reads versions 1..%d",
				       DATAFILE_VERSION + 1, DATAFILE_VERSION);
		expect_refused(&f, want, "version");
		free(want);
	}

	header(&f, 0x01000000, 24, 1000);
	summary_record(&f);
	expect_refused(&f, "version 16777216", "big-endian version");

	header(&f, 1, 16, 1000);
	expect_refused(&f, "header size 16", "header size too small");
	header(&f, 1, 0xffffffff, 1000);
	expect_refused(&f, "header size 4294967295", "header size huge");
	header(&f, 1, 4000, 1000);
	summary_record(&f);
	expect_refused(&f, "truncated", "header size beyond the file");

	header(&f, 1, 24, 0);
	summary_record(&f);
	expect_refused(&f, "sampling rate 0 Hz", "freq 0");

	header(&f, 1, 24, 1000);
	f.b[20] = 1;
	summary_record(&f);
	expect_refused(&f, "unknown flags", "header flags");
}

static void test_hostile_records(void)
{
	struct bytes f;
	struct strbuf err = STRBUF_INIT;
	struct run_facts s;
	struct got g;

	header(&f, 1, 24, 1000);
	record(&f, 1, 0xffffffff);
	expect_refused(&f, "sample record of 4294967295 bytes (at most 1048576)", "huge record");

	header(&f, 1, 24, 1000);
	record(&f, 2, 1000000);
	le(&f, 0, 8);
	expect_refused(&f, "truncated at byte 24: the file ends inside a mmap record of 1000000 bytes",
		       "record larger than the file");

	header(&f, 1, 24, 1000);
	record(&f, 77, 0);
	summary_record(&f);
	expect_refused(&f, "unknown record type 77", "unknown type");

	header(&f, 1, 24, 1000);
	record(&f, 0, 0);
	expect_refused(&f, "unknown record type 0", "type 0");

	header(&f, 1, 24, 1000);
	record(&f, 1, 8);
	le(&f, 0, 8);
	summary_record(&f);
	expect_refused(&f, "corrupt sample record at byte 24: size 8, want 64 or 88", "short sample");

	header(&f, 1, 24, 1000);
	record(&f, 1, 88);
	le(&f, 0, 8); le(&f, 0, 8); le(&f, 0, 8); le(&f, 0, 8);
	le(&f, 0, 8); le(&f, 0, 8); le(&f, 0, 8); le(&f, 0x01ff000100000000ULL, 8);
	le(&f, 1, 8); le(&f, 0, 8); le(&f, 0, 8);
	summary_record(&f);
	expect_refused(&f, "shared memory of inode 0", "shared sample of inode 0");

	header(&f, 1, 24, 1000);
	record(&f, 1, 88);
	for (int i = 0; i < 11; i++)
		le(&f, i == 7 ? 0x00ff000800000000ULL : 1, 8);
	summary_record(&f);
	expect_refused(&f, "size 88 does not match its flags 0x0", "88 bytes without the flag");

	header(&f, 1, 24, 1000);
	sample_record(&f, 0, 0);
	summary_record(&f);
	expect_refused(&f, "access size 0", "sample size 0");

	header(&f, 1, 24, 1000);
	sample_record(&f, 65, 0);
	summary_record(&f);
	expect_refused(&f, "access size 65", "sample size 65");

	header(&f, 1, 24, 1000);
	sample_record(&f, 8, 4);
	summary_record(&f);
	expect_refused(&f, "access kind 4", "sample kind");

	header(&f, 1, 24, 1000);
	mmap_record(&f, 0, 60000, 0x1000, 0x1000, 38);
	summary_record(&f);
	expect_refused(&f, "file name of 60000 bytes (at most 4096)", "long file name");

	header(&f, 1, 24, 1000);
	mmap_record(&f, 200, 0, 0x1000, 0x1000, 38);
	summary_record(&f);
	expect_refused(&f, "build-id of 200 bytes (at most 64)", "long build-id");

	header(&f, 1, 24, 1000);
	mmap_record(&f, 0, 10, 0x1000, 0x1000, 38);
	summary_record(&f);
	expect_refused(&f, "size 38, but its build-id and file name make 48", "name beyond the record");

	header(&f, 1, 24, 1000);
	mmap_record(&f, 0, 0, 0xfffffffffffff000ULL, 0x2000, 38);
	summary_record(&f);
	expect_refused(&f, "wraps around", "wrapping mapping");

	header(&f, 1, 24, 1000);
	mmap_record(&f, 0, 0, 0x1000, 0, 38);
	summary_record(&f);
	expect_refused(&f, "is empty", "empty mapping");

	header(&f, 1, 24, 1000);
	mmap_record(&f, 0, 3, 0x1000, 0x1000, 41);
	raw(&f, "a\0b", 3);
	summary_record(&f);
	expect_refused(&f, "file name contains a NUL byte", "NUL in a name");

	header(&f, 1, 24, 1000);
	record(&f, 2, 20);
	zeros(&f, 20);
	summary_record(&f);
	expect_refused(&f, "less than its 38 fixed bytes", "short mmap");

	header(&f, 1, 24, 1000);
	record(&f, 3, 10 + 200);
	le(&f, 1, 4);
	le(&f, 1, 4);
	le(&f, 0, 1);
	le(&f, 200, 1);
	for (int i = 0; i < 200; i++)
		le(&f, 'a', 1);
	summary_record(&f);
	expect_refused(&f, "name of 200 bytes (at most 15)", "long comm");

	header(&f, 1, 24, 1000);
	record(&f, 5, 8);
	le(&f, 1, 4);
	le(&f, 1000000, 4);
	summary_record(&f);
	expect_refused(&f, "1000000 frames (want 1..64)", "deep chain");

	header(&f, 1, 24, 1000);
	record(&f, 5, 16);
	le(&f, 0, 4);
	le(&f, 1, 4);
	le(&f, 0x401000, 8);
	summary_record(&f);
	expect_refused(&f, "chain id 0 out of sequence (want 1)", "chain id 0");

	header(&f, 1, 24, 1000);
	record(&f, 5, 16);
	le(&f, 7, 4);
	le(&f, 1, 4);
	le(&f, 0x401000, 8);
	summary_record(&f);
	expect_refused(&f, "chain id 7 out of sequence (want 1)", "chain id out of sequence");

	header(&f, 1, 24, 1000);
	record(&f, 1, 64);
	zeros(&f, 20);
	le(&f, 3, 4);                   /* chain id 3, never defined */
	zeros(&f, 36);
	le(&f, 8, 1);
	zeros(&f, 3);
	summary_record(&f);
	expect_refused(&f, "call chain 3 before its chain record", "undefined chain");

	header(&f, 1, 24, 1000);
	record(&f, 5, 16);
	le(&f, 1, 4);
	le(&f, 2, 4);
	le(&f, 0x401000, 8);
	summary_record(&f);
	expect_refused(&f, "size 16, but 2 frames make 24", "chain frames beyond the record");

	/* summary: a count beyond any bound, lengths beyond the record */
	header(&f, 1, 24, 1000);
	record(&f, 4, 36);
	le(&f, 0, 8);
	le(&f, 0, 4);
	le(&f, 0xffffffff, 4);
	zeros(&f, 20);
	expect_refused(&f, "4294967295 drop reasons (at most 64)", "drop count");

	header(&f, 1, 24, 1000);
	record(&f, 4, 38);
	zeros(&f, 36);
	le(&f, 65535, 2);
	expect_refused(&f, "the record ends inside its command", "command length");

	header(&f, 1, 24, 1000);
	record(&f, 4, 36);
	le(&f, 0x7ff8000000000000ULL, 8);       /* NaN */
	zeros(&f, 28);
	expect_refused(&f, "duration nan s", "NaN duration");

	header(&f, 1, 24, 1000);
	record(&f, 4, 36);
	le(&f, 0, 8);
	le(&f, 0, 8);
	le(&f, 1, 8);
	le(&f, 2, 8);
	le(&f, 0, 4);
	expect_refused(&f, "2 decoded accesses of 1 samples", "decoded > samples");

	header(&f, 1, 24, 1000);
	record(&f, 4, 36);
	zeros(&f, 32);
	le(&f, 0x80, 4);
	expect_refused(&f, "corrupt summary record at byte 24: unknown flags 0x80", "summary flags");

	header(&f, 1, 24, 1000);
	record(&f, 4, 36);
	zeros(&f, 32);
	le(&f, 4, 4);
	expect_refused(&f, "corrupt summary record at byte 24: flags 0x4: exited without attached",
		       "exited without attached");

	header(&f, 1, 24, 1000);
	record(&f, 4, 32);
	zeros(&f, 32);
	expect_refused(&f, "size 32, less than its 36 fixed bytes", "short summary");

	header(&f, 1, 24, 1000);
	summary_record(&f);
	summary_record(&f);
	expect_refused(&f, "data after the summary record", "two summaries");

	/* version 5: the transfer prices after the drop reasons */
	header(&f, 5, 24, 1000);
	price_summary(&f, 0x4007000000000000ULL, 0x4004000000000000ULL, 3, "");  /* 2.875, 2.5 */
	CHECK(read_bytes(f.b, f.len, &g, &err, &s) == 0 && s.price.locked == 2.875 &&
	      s.price.store == 2.5 && s.price.runs == 3, "a price: %s", strbuf_str(&err));
	strbuf_release(&err);
	header(&f, 5, 24, 1000);
	price_summary(&f, 0, 0, 0, "busy");
	{       /* the note lives with the reader */
		FILE *in = open_bytes(f.b, f.len);
		struct datafile_reader *r = datafile_reader_open(in, &err);
		const struct run_facts *rs;

		CHECK(r && datafile_reader_run(r, &(struct datafile_callbacks){ 0 }, &err) == 0 &&
		      (rs = datafile_reader_summary(r)) && !rs->price.locked && rs->price_note &&
		      !strcmp(rs->price_note, "busy"), "no price, and why: %s", strbuf_str(&err));
		datafile_reader_free(r);
		fclose(in);
		strbuf_release(&err);
	}
	header(&f, 5, 24, 1000);
	price_summary(&f, 0x3fe0000000000000ULL, 0x4004000000000000ULL, 3, "");   /* 0.5 */
	expect_refused(&f, "transfer prices 0.5 and 2.5 from 3 runs", "a contended loop faster");
	header(&f, 5, 24, 1000);
	price_summary(&f, 0x4007000000000000ULL, 0x7ff0000000000000ULL, 3, "");   /* inf */
	expect_refused(&f, "transfer prices 2.875 and inf from 3 runs", "an infinite price");
	header(&f, 5, 24, 1000);
	price_summary(&f, 0x4007000000000000ULL, 0, 3, "");
	expect_refused(&f, "transfer prices 2.875 and 0 from 3 runs", "one price without the other");
	header(&f, 5, 24, 1000);
	price_summary(&f, 0x4007000000000000ULL, 0x4004000000000000ULL, 0, "");
	expect_refused(&f, "transfer prices 2.875 and 2.5 from 0 runs", "a price no run measured");
	header(&f, 5, 24, 1000);
	price_summary(&f, 0x4007000000000000ULL, 0x4004000000000000ULL, 1000, "");
	expect_refused(&f, "from 1000 runs", "more runs than tried");
	header(&f, 5, 24, 1000);
	summary_record(&f);                       /* version 4's summary */
	expect_refused(&f, "cut short in its transfer price", "a version 5 summary without it");

	header(&f, 1, 24, 1000);
	record(&f, 1, 64);
	expect_refused(&f, "truncated at byte 24", "record without payload");
}

static void test_build_id(void)
{
	uint8_t id[DATAFILE_BUILD_ID_MAX];
	unsigned n = datafile_build_id("/proc/self/exe", id);
	char *hex;

	/* Debian's gcc links with --build-id (sha1) */
	CHECK_EQ_U64(n, 20, "build-id of this test");
	hex = build_id_hex(id, n);
	CHECK_EQ_U64(strlen(hex), 40, "hex length");
	free(hex);
	hex = build_id_hex((const uint8_t *)"\x01\xab", 2);
	CHECK_STR(hex, "01ab", "hex");
	free(hex);
	CHECK_EQ_U64(datafile_build_id("/etc/passwd", id), 0, "not ELF");
	CHECK_EQ_U64(datafile_build_id("/no/such/file", id), 0, "missing");
	CHECK_EQ_U64(datafile_build_id("/dev/null", id), 0, "not a regular file");
}

/* --- fuzzer seeds ---------------------------------------------------------- */

static int write_file(const char *dir, const char *name, const void *p, size_t len)
{
	char *path = xasprintf("%s/%s", dir, name);
	FILE *f = fopen(path, "wb");
	int ret = 0;

	if (!f || fwrite(p, 1, len, f) != len || fclose(f) != 0)
		ret = error("cannot write %s: %s", path, strerror(errno));
	free(path);
	return ret;
}

static int write_corpus(const char *dir)
{
	size_t len;
	char *buf = write_small(&len, true);
	struct bytes f;
	int ret = 0;

	ret |= write_file(dir, "small.data", buf, len);
	ret |= write_file(dir, "truncated.data", buf, len / 2);
	free(buf);
	header(&f, 1, 24, 1000);
	summary_record(&f);
	ret |= write_file(dir, "minimal.data", f.b, f.len);
	header(&f, 1, 24, 1000);
	sample_record(&f, 8, 1);
	mmap_record(&f, 0, 6, 0x1000, 0x1000, 44);
	raw(&f, "[heap]", 6);
	summary_record(&f);
	ret |= write_file(dir, "sample_heap.data", f.b, f.len);
	return ret ? 1 : 0;
}

/* A sample in shared memory carries its object (device, inode, offset):
 * 88 bytes, flag 1; a private one stays 64 bytes.  Flags and size must
 * agree. */
/* A file of a chain, samples a and b and a summary; caller frees. */
static char *write_two_samples(const struct access_sample *a, const struct access_sample *b,
			       size_t *len)
{
	char *buf = NULL;
	FILE *f = open_memstream(&buf, len);
	struct datafile_writer *w = datafile_writer_new(f, 1000);

	datafile_write_chain(w, 1, chain1, ARRAY_SIZE(chain1));
	datafile_write_sample(w, a);
	datafile_write_sample(w, b);
	datafile_writer_finish(w, &summary1);
	fclose(f);
	return buf;
}

static void test_shared_sample(void)
{
	struct access_sample shared = sample1, priv = sample2;
	struct strbuf err = STRBUF_INIT;
	char *buf;
	size_t len;
	struct got g;

	shared.obj_dev = 0x801;
	shared.obj_ino = 123456789;
	shared.obj_off = 0x2048;
	buf = write_two_samples(&shared, &priv, &len);
	CHECK(read_bytes(buf, len, &g, &err, NULL) == 0, "shared: read: %s", strbuf_str(&err));
	CHECK_EQ_U64(g.n_samples, 2, "shared: samples");
	check_sample(&g.samples[0], &shared, "shared sample");
	CHECK_EQ_U64(g.samples[0].obj_dev, 0x801, "its device");
	CHECK_EQ_U64(g.samples[0].obj_ino, 123456789, "its inode");
	CHECK_EQ_U64(g.samples[0].obj_off, 0x2048, "its offset");
	CHECK_EQ_U64(g.samples[1].obj_ino, 0, "a private sample has no object");
	free(buf);

	/* a fenced store keeps its flag (version 8); a plain one has none */
	priv.flags = ACCESS_SAMPLE_FENCED;
	buf = write_two_samples(&priv, &sample2, &len);
	CHECK(read_bytes(buf, len, &g, &err, NULL) == 0, "fenced: read: %s", strbuf_str(&err));
	CHECK(g.n_samples == 2 && g.samples[0].flags == ACCESS_SAMPLE_FENCED &&
	      g.samples[1].flags == 0, "fenced: the flag round-trips, and only it");
	free(buf);
	strbuf_release(&err);
}

/* The target's credentials in the header: what `report` reads sources as.
 * Written at finish (over the zeros datafile_writer_new left), read back;
 * unknown when never set and in 24-byte headers of older files; refused
 * when malformed. */
static const struct proc_creds *read_target_of(const void *p, size_t len,
					       struct proc_creds *copy, gid_t *groups,
					       struct strbuf *err)
{
	FILE *f = open_bytes(p, len);
	struct datafile_reader *r;
	const struct proc_creds *c = NULL;

	strbuf_reset(err);
	r = datafile_reader_open(f, err);
	if (r && datafile_reader_target(r)) {
		*copy = *datafile_reader_target(r);
		memcpy(groups, copy->groups, copy->ngroups * sizeof(*groups));
		copy->groups = groups;
		c = copy;
	}
	datafile_reader_free(r);
	fclose(f);
	return c;
}

static void test_target_creds(void)
{
	gid_t many[20], got_groups[20];
	struct proc_creds nobody = { .uid = 65534, .gid = 65533, .groups = many, .ngroups = 2 };
	struct proc_creds got;
	struct strbuf err = STRBUF_INIT;
	struct bytes f;
	char *buf = NULL;
	size_t len;
	FILE *out;
	struct datafile_writer *w;

	for (unsigned i = 0; i < ARRAY_SIZE(many); i++)
		many[i] = 100 + i;
	out = open_memstream(&buf, &len);
	w = datafile_writer_new(out, 1000);
	datafile_write_sample(w, &sample1);
	datafile_writer_set_target(w, &nobody);
	CHECK(datafile_writer_finish(w, &summary1) == 0, "finish");
	fclose(out);
	CHECK(read_target_of(buf, len, &got, got_groups, &err) &&
	      got.uid == 65534 && got.gid == 65533 && got.ngroups == 2 &&
	      got.groups[0] == 100 && got.groups[1] == 101,
	      "target read back: uid %u gid %u, %u groups (%s)", (unsigned)got.uid,
	      (unsigned)got.gid, got.ngroups, strbuf_str(&err));
	free(buf);

	/* more groups than the header holds: the first 16, never more */
	nobody.ngroups = ARRAY_SIZE(many);
	out = open_memstream(&buf, &len);
	w = datafile_writer_new(out, 1000);
	datafile_writer_set_target(w, &nobody);
	datafile_writer_finish(w, &summary1);
	fclose(out);
	CHECK(read_target_of(buf, len, &got, got_groups, &err) && got.ngroups == 16 &&
	      got.groups[15] == 115, "groups cut to 16: %u", got.ngroups);
	free(buf);

	buf = write_small(&len, true);
	CHECK(!read_target_of(buf, len, &got, got_groups, &err) && !err.len,
	      "never set: unknown (%s)", strbuf_str(&err));
	free(buf);

	header(&f, 2, 24, 1000);
	summary_record(&f);
	CHECK(!read_target_of(f.b, f.len, &got, got_groups, &err) && !err.len,
	      "a 24-byte header (older contend): unknown, still read (%s)", strbuf_str(&err));

	header(&f, 2, 104, 1000);
	le(&f, 2, 4);
	zeros(&f, 76);
	summary_record(&f);
	expect_refused(&f, "target credentials", "target flag 2");
	header(&f, 2, 104, 1000);
	le(&f, 1, 4);
	le(&f, 0, 8);
	le(&f, 17, 4);
	zeros(&f, 64);
	summary_record(&f);
	expect_refused(&f, "17 groups", "17 groups");
	strbuf_release(&err);
}

int main(int argc, char **argv)
{
	if (argc == 3 && !strcmp(argv[1], "--write-corpus"))
		return write_corpus(argv[2]);
	test_round_trip();
	test_shared_sample();
	test_alloc_records();
	test_heap_block_records();
	test_truncated_everywhere();
	test_minimal_and_header();
	test_target_creds();
	test_hostile_records();
	test_build_id();
	return test_done();
}
