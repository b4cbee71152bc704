/* test_spe_pipeline.c - Arm SPE records into samples, and through the
 * whole pipeline to the same report as the equivalent PEBS records.
 *
 *  - the data source of every Neoverse value and of the events alone,
 *    the timer -> perf time conversion, whose the record is;
 *  - PERF_RECORD_AUX / ITRACE_START parsing and the AUX area's wrap;
 *  - one workload twice: as PEBS ring-buffer records (perf_parse_sample)
 *    and as SPE packets in an AUX area (perf_parse_aux, spe_aux_feed),
 *    both through hw_backend_access, the line table and report_build on
 *    tests/fixture_globals: the two reports must name the same lines,
 *    kinds, members and threads, and print the same text and JSON.
 *
 * No Arm machine has run this: the streams are built by hand from the
 * packet format (docs/hardware-backends.md).
 */
#include <limits.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tap.h"
#include "elf_fixture.h"
#include "common/util.h"
#include "detector/backend.h"
#include "detector/data_src.h"
#include "detector/hw_backend.h"
#include "detector/line_table.h"
#include "detector/spe.h"
#include "printers/printers.h"
#include "reports/report.h"
#include "reports/report_finish.h"
#include "symbolize/data_types.h"
#include "symbolize/symbolizer.h"

#define S(a, s) PERF_MEM_S(a, s)
#define PID 100
#define T1 101
#define T2 102
#define LOAD_BASE 0x555555554000ULL

/* --- SPE byte streams ------------------------------------------------------------ */

struct bytes {
	uint8_t *b;
	size_t n, alloc;
};

static void put(struct bytes *s, uint8_t v)
{
	ALLOC_GROW(s->b, s->n + 1, s->alloc);
	s->b[s->n++] = v;
}

static void put_le(struct bytes *s, uint64_t v, unsigned n)
{
	for (unsigned i = 0; i < n; i++)
		put(s, (uint8_t)(v >> (8 * i)));
}

/* What one sampled operation was, in the terms both backends share. */
struct op {
	uint32_t tid;
	uint64_t ip, addr;
	uint16_t latency;
	uint8_t spe_op;             /* operation type payload (class LDST) */
	uint16_t source;            /* Neoverse data source */
	uint64_t pebs_src;          /* what PEBS would say for the same access */
};

static void spe_record(struct bytes *s, const struct op *o, uint64_t ticks, bool context)
{
	put(s, 0xb0);                                   /* PC, EL0, NS */
	put_le(s, o->ip | 1ULL << 63, 8);
	put(s, 0xb2);                                   /* data VA, tagged */
	put_le(s, o->addr | 0x2aULL << 56, 8);
	put(s, 0x98);                                   /* total latency */
	put_le(s, o->latency, 2);
	put(s, 0x99);                                   /* issue latency */
	put_le(s, 4, 2);
	if (context) {
		put(s, 0x64);                           /* CONTEXTIDR_EL1 */
		put_le(s, o->tid, 4);
	}
	put(s, 0x49);
	put(s, o->spe_op);
	put(s, 0x52);                                   /* events, 2 bytes */
	put_le(s, SPE_EV_RETIRED | SPE_EV_L1D_ACCESS | SPE_EV_TLB_ACCESS |
	       (o->source ? SPE_EV_L1D_REFILL : 0), 2);
	if (!(o->spe_op & 1)) {
		put(s, 0x53);                           /* data source, loads only */
		put_le(s, o->source, 2);
	}
	put(s, 0x71);
	put_le(s, ticks, 8);
}

static void spe_branch(struct bytes *s, uint64_t ip, uint64_t ticks)
{
	put(s, 0xb0);
	put_le(s, ip, 8);
	put(s, 0xb1);
	put_le(s, ip + 0x40, 8);
	put(s, 0x4a);
	put(s, 0x01);
	put(s, 0x71);
	put_le(s, ticks, 8);
}

/* --- the data source, time and context ------------------------------------------- */

static struct spe_record load_with_source(uint16_t source, uint64_t events)
{
	struct spe_record r = { .has = SPE_HAS_OP | SPE_HAS_VADDR | SPE_HAS_SOURCE | SPE_HAS_EVENTS,
				.op_class = SPE_OP_CLASS_LDST, .vaddr = 0x601000,
				.source = source, .events = events };
	return r;
}

static void test_data_source(void)
{
	static const struct {
		uint16_t source;
		enum mem_level level;
		enum coherence coherence;
		bool remote;
		const char *describe;
	} nv[] = {
		{ SPE_NV_L1D, MEM_LEVEL_L1, COHERENCE_NONE, false, "load, L1 hit, snoop none, TLB hit|L1" },
		{ SPE_NV_L2, MEM_LEVEL_L2, COHERENCE_NONE, false, "load, L2 hit, snoop none, TLB hit|L1" },
		{ SPE_NV_PEER_CORE, MEM_LEVEL_L2, COHERENCE_PEER, false, "load, L2 hit, peer, TLB hit|L1" },
		{ SPE_NV_LOCAL_CLUSTER, MEM_LEVEL_L3, COHERENCE_PEER, false, "load, L3 hit, peer, TLB hit|L1" },
		{ SPE_NV_SYS_CACHE, MEM_LEVEL_L3, COHERENCE_NONE, false, "load, L3 hit, snoop hit, TLB hit|L1" },
		{ SPE_NV_PEER_CLUSTER, MEM_LEVEL_L3, COHERENCE_PEER, false, "load, L3 hit, peer, TLB hit|L1" },
		{ SPE_NV_REMOTE, MEM_LEVEL_ANY_CACHE, COHERENCE_PEER, true,
		  "load, any cache (remote), peer, TLB hit|L1" },
		{ SPE_NV_DRAM, MEM_LEVEL_RAM, COHERENCE_NONE, false, "load, RAM hit, snoop none, TLB hit|L1" },
	};
	struct spe_record r;
	struct data_src d;
	char text[160];
	uint64_t raw;

	for (size_t i = 0; i < ARRAY_SIZE(nv); i++) {
		r = load_with_source(nv[i].source, SPE_EV_TLB_ACCESS);
		raw = spe_data_src(&r, SPE_SOURCE_NEOVERSE);
		CHECK(data_src_decode(raw, &d), "source 0x%x decodes", nv[i].source);
		CHECK(d.op == DS_OP_LOAD && d.level == nv[i].level && d.remote == nv[i].remote &&
		      data_src_coherence(raw) == nv[i].coherence,
		      "source 0x%x: op %u level %s remote %d coherence %d", nv[i].source, d.op,
		      mem_level_name(d.level), d.remote, data_src_coherence(raw));
		data_src_describe(raw, text, sizeof(text));
		CHECK_STR(text, nv[i].describe, "describe");
	}
	/* the peer-core value is the one tests/test_data_src knows for SPE */
	r = load_with_source(SPE_NV_PEER_CORE, 0);
	raw = spe_data_src(&r, SPE_SOURCE_NEOVERSE);
	CHECK_EQ_U64(raw & ~(uint64_t)(S(LOCK, NA) | S(TLB, NA)),
		     S(OP, LOAD) | S(LVL, L2) | S(LVL, HIT) | S(LVLNUM, L2) | S(SNOOPX, PEER),
		     "peer core = perf's encoding");

	/* an unknown CPU: the same value means nothing, the events speak */
	r = load_with_source(SPE_NV_PEER_CORE, SPE_EV_L1D_ACCESS | SPE_EV_L1D_REFILL |
			     SPE_EV_LLC_ACCESS | SPE_EV_LLC_MISS);
	raw = spe_data_src(&r, SPE_SOURCE_UNKNOWN);
	data_src_decode(raw, &d);
	CHECK(d.level == MEM_LEVEL_RAM && data_src_coherence(raw) == COHERENCE_NONE,
	      "unknown format: LLC miss is RAM, got %s", mem_level_name(d.level));
	r.events = SPE_EV_REMOTE_ACCESS | SPE_EV_LLC_MISS;
	raw = spe_data_src(&r, SPE_SOURCE_UNKNOWN);
	data_src_decode(raw, &d);
	CHECK(d.remote, "remote access event: remote");
	r.events = SPE_EV_L1D_ACCESS | SPE_EV_TLB_ACCESS | SPE_EV_TLB_WALK;
	raw = spe_data_src(&r, SPE_SOURCE_UNKNOWN);
	data_src_decode(raw, &d);
	CHECK(d.level == MEM_LEVEL_L1 && d.hit == MEM_HIT && (d.tlb & DS_TLB_MISS) &&
	      (d.tlb & DS_TLB_WALKER), "L1 hit after a TLB walk");

	/* stores say nothing of the level; atomics are locked */
	r = load_with_source(SPE_NV_PEER_CORE, 0);
	r.store = true;
	r.atomic = true;
	raw = spe_data_src(&r, SPE_SOURCE_NEOVERSE);
	data_src_decode(raw, &d);
	CHECK(d.op == DS_OP_STORE && d.level == MEM_LEVEL_NA && d.lock == MEM_LOCKED,
	      "atomic store: op %u level %s lock %u", d.op, mem_level_name(d.level), d.lock);
	r.op_class = SPE_OP_CLASS_BRANCH;
	CHECK_EQ_U64(spe_data_src(&r, SPE_SOURCE_NEOVERSE), 0, "a branch has no data source");

	CHECK(spe_source_format_of(0x41, 0xd0c) == SPE_SOURCE_NEOVERSE, "Neoverse N1");
	CHECK(spe_source_format_of(0x41, 0xd4f) == SPE_SOURCE_NEOVERSE, "Neoverse V2");
	CHECK(spe_source_format_of(0x41, 0xd08) == SPE_SOURCE_UNKNOWN, "Cortex-A72");
	CHECK(spe_source_format_of(0xc0, 0xac3) == SPE_SOURCE_UNKNOWN, "Ampere");
}

static void test_clock_and_context(void)
{
	/* a 25 MHz timer: 40 ns a tick, as mult/2^shift */
	struct spe_clock clk = { .valid = true, .shift = 10, .mult = 40 << 10, .zero = 5000 };
	struct spe_clock big = { .valid = true, .shift = 31, .mult = 0x80000000u, .zero = 7 };
	struct spe_clock none = { 0 };
	struct spe_context ctx = { .pid = PID, .tid = T1, .cpu = 3, .time = 999 };
	struct spe_record r = load_with_source(SPE_NV_L1D, 0);
	struct perf_sample ps;

	CHECK_EQ_U64(spe_clock_to_perf(&clk, 1000000), 5000 + 40000000ULL, "40 ns ticks");
	/* mult/2^shift = 1 with a shift that would overflow ticks * mult */
	CHECK_EQ_U64(spe_clock_to_perf(&big, 0x123456789abcdefULL), 7 + 0x123456789abcdefULL,
		     "no overflow");
	CHECK_EQ_U64(spe_clock_to_perf(&none, 5), 0, "no clock");
	/* a 56-bit counter: the page's last cycles value anchors the reading */
	clk.short_counter = true;
	clk.cycles = 0x00fffffffffffff0ULL;
	clk.mask = (1ULL << 56) - 1;
	CHECK_EQ_U64(spe_clock_to_perf(&clk, 0x00fffffffffffff8ULL),
		     5000 + 0x00fffffffffffff8ULL * 40, "short counter, before the wrap");
	CHECK_EQ_U64(spe_clock_to_perf(&clk, 0x10), 5000 + 0x0100000000000010ULL * 40,
		     "short counter, wrapped: the ticks go on");
	clk.short_counter = false;

	r.has |= SPE_HAS_PC | SPE_HAS_TIMESTAMP | SPE_HAS_TOTAL_LAT | SPE_HAS_CONTEXT;
	r.pc = 0x401000;
	r.timestamp = 10;
	r.total_lat = 77;
	r.context = T2;
	r.context_el = 1;
	CHECK(spe_record_sample(&r, &ctx, &clk, SPE_SOURCE_NEOVERSE, &ps), "a load is a sample");
	CHECK(ps.ip == 0x401000 && ps.addr == 0x601000 && ps.weight == 77 && ps.cpu == 3,
	      "ip 0x%" PRIx64 " addr 0x%" PRIx64 " weight %" PRIu64, ps.ip, ps.addr, ps.weight);
	CHECK(ps.pid == PID && ps.tid == T2, "CONTEXTIDR names the thread: %u", ps.tid);
	CHECK_EQ_U64(ps.time, 5400, "the record's own time");
	r.context_el = 2;               /* CONTEXTIDR_EL2 is no Linux thread id */
	spe_record_sample(&r, &ctx, NULL, SPE_SOURCE_NEOVERSE, &ps);
	CHECK(ps.tid == T1 && ps.time == 999, "side band: tid %u time %" PRIu64, ps.tid, ps.time);
	r.has &= ~(unsigned)SPE_HAS_VADDR;
	CHECK(!spe_record_sample(&r, &ctx, &clk, SPE_SOURCE_NEOVERSE, &ps), "no address: none");
}

/* --- perf records around the AUX area ---------------------------------------------- */

/* PERF_RECORD_AUX with sample_id (tid, time, cpu) for a sample_type. */
static size_t aux_record(uint8_t *buf, uint64_t offset, uint64_t size, uint64_t flags,
			 uint32_t pid, uint32_t tid, uint64_t time)
{
	struct perf_event_header h = { .type = PERF_RECORD_AUX };
	uint64_t body[3] = { offset, size, flags };
	uint32_t ids[2] = { pid, tid };
	uint64_t cpu = 2;
	size_t n = sizeof(h);

	memcpy(buf + n, body, sizeof(body));
	n += sizeof(body);
	memcpy(buf + n, ids, 8);
	memcpy(buf + n + 8, &time, 8);
	memcpy(buf + n + 16, &cpu, 8);
	n += 24;
	h.size = (uint16_t)n;
	memcpy(buf, &h, sizeof(h));
	return n;
}

static void test_aux_records(const struct perf_event_attr *attr)
{
	uint8_t rec[128], area[64], out[64];
	struct perf_event_header h = { .type = PERF_RECORD_ITRACE_START, .size = 16 };
	uint32_t ids[2] = { PID, T2 }, pid = 0, tid = 0;
	struct perf_aux a;
	size_t n = aux_record(rec, 0x1038, 24, PERF_AUX_FLAG_TRUNCATED, PID, T1, 123456);

	CHECK(perf_parse_aux(attr, rec, n, &a), "AUX record parses");
	CHECK(a.offset == 0x1038 && a.size == 24 && a.flags == PERF_AUX_FLAG_TRUNCATED &&
	      a.pid == PID && a.tid == T1 && a.time == 123456,
	      "aux: offset 0x%" PRIx64 " size %zu pid %u tid %u time %" PRIu64, a.offset,
	      a.size, a.pid, a.tid, a.time);
	CHECK(!perf_parse_aux(attr, rec, n - 1, &a), "short AUX record refused");
	memcpy(rec, &h, sizeof(h));
	memcpy(rec + sizeof(h), ids, sizeof(ids));
	CHECK(perf_parse_itrace_start(rec, 16, &pid, &tid) && pid == PID && tid == T2,
	      "ITRACE_START: %u/%u", pid, tid);
	CHECK(!perf_parse_itrace_start(rec, 12, &pid, &tid), "short ITRACE_START refused");

	/* 24 bytes at 0x1038 of a 64-byte area: 8 at its end, 16 from its start */
	for (unsigned i = 0; i < sizeof(area); i++)
		area[i] = (uint8_t)i;
	CHECK(perf_aux_copy(area, sizeof(area), 0x1038, 24, out), "wrapped copy");
	CHECK(out[0] == 56 && out[7] == 63 && out[8] == 0 && out[23] == 15, "wrap undone: %u %u %u %u",
	      out[0], out[7], out[8], out[23]);
	CHECK(!perf_aux_copy(area, sizeof(area), 0, 65, out), "more than the area refused");
	CHECK(!perf_aux_copy(area, 48, 0, 8, out), "an area not a power of two refused");
}

/* --- the same workload, PEBS and SPE ---------------------------------------------------- */

struct workload {
	struct op *ops;
	uint64_t *times;
	size_t n, alloc;
};

static void add_op(struct workload *w, const struct op *o, uint64_t time)
{
	ALLOC_GROW(w->ops, w->n + 1, w->alloc);
	w->times = xrealloc(w->times, w->alloc * sizeof(*w->times));
	w->ops[w->n] = *o;
	w->times[w->n++] = time;
}

#define CLK_ZERO 10000
#define CLK_NS_PER_TICK 40

/*
 * counters[e] and counters[e + 1] (one line) updated by T1 and T2 with
 * atomics (LDADD: an atomic load/store; PEBS sees a locked load), each
 * finding the line in the other's core; plain stores now and then; a
 * private word read by T1 alone; and a load in kernel code, dropped by
 * both.
 */
static void build_workload(struct workload *w, uint64_t counters, uint64_t priv, uint64_t ip)
{
	const uint64_t pebs_peer = S(OP, LOAD) | S(LVL, L2) | S(LVL, HIT) | S(SNOOPX, PEER) |
				   S(LOCK, LOCKED);
	const uint64_t pebs_l1 = S(OP, LOAD) | S(LVL, L1) | S(LVL, HIT);
	const uint64_t pebs_store = S(OP, STORE) | S(LVL, L1) | S(LVL, MISS);
	const struct op t1_atomic = { T1, ip, counters, 200, 0x06, SPE_NV_PEER_CORE, pebs_peer };
	const struct op t2_atomic = { T2, ip, counters + 8, 300, 0x06, SPE_NV_PEER_CORE, pebs_peer };
	const struct op t1_store = { T1, ip, counters, 0, 0x01, 0, pebs_store };
	const struct op t2_store = { T2, ip, counters + 8, 0, 0x01, 0, pebs_store };
	const struct op t1_priv = { T1, ip, priv, 5, 0x00, SPE_NV_L1D, pebs_l1 };
	const struct op kernel = { T2, 0xffff800010001000ULL, counters, 9, 0x00, SPE_NV_L1D, pebs_l1 };
	uint64_t t = CLK_ZERO;

	for (int i = 0; i < 40; i++) {
		add_op(w, &t1_atomic, t += 50000);
		add_op(w, &t2_atomic, t += 50000);
		if (i % 4 == 0) {
			add_op(w, &t1_store, t += 50000);
			add_op(w, &t2_store, t += 50000);
		}
		if (i % 10 == 0)
			add_op(w, &kernel, t += 50000);
	}
	for (int i = 0; i < 20; i++)
		add_op(w, &t1_priv, t += 50000);
}

/* PEBS: one PERF_RECORD_SAMPLE per op, laid out for attr, parsed back. */
static void run_pebs(const struct workload *w, const struct perf_event_attr *attr,
		     struct hw_backend *hb, struct line_table *lines)
{
	for (size_t i = 0; i < w->n; i++) {
		const struct op *o = &w->ops[i];
		uint64_t rec[32];
		struct perf_event_header h = { .type = PERF_RECORD_SAMPLE, .misc = PERF_RECORD_MISC_USER };
		size_t n = 1;   /* the header's 8 bytes */
		uint64_t st = attr->sample_type;
		struct perf_sample ps;
		struct access_sample a;

		if (st & PERF_SAMPLE_IP)
			rec[n++] = o->ip;
		if (st & PERF_SAMPLE_TID)
			rec[n++] = (uint64_t)o->tid << 32 | PID;
		if (st & PERF_SAMPLE_TIME)
			rec[n++] = w->times[i];
		if (st & PERF_SAMPLE_ADDR)
			rec[n++] = o->addr;
		if (st & PERF_SAMPLE_CPU)
			rec[n++] = 2;
		if (st & PERF_SAMPLE_PERIOD)
			rec[n++] = 1;
		if (st & PERF_SAMPLE_REGS_USER)
			rec[n++] = PERF_SAMPLE_REGS_ABI_NONE;
		if (st & PERF_SAMPLE_WEIGHT)
			rec[n++] = o->latency;
		if (st & PERF_SAMPLE_DATA_SRC)
			rec[n++] = o->pebs_src;
		h.size = (uint16_t)(n * 8);
		memcpy(rec, &h, sizeof(h));
		CHECK(perf_parse_sample(attr, rec, n * 8, &ps), "PEBS record %zu parses", i);
		if (hw_backend_access(hb, &ps, &a))
			line_table_add(lines, &a);
	}
}

struct spe_sink {
	struct hw_backend *hb;
	struct line_table *lines;
};

static void spe_sample(void *ctx, const struct perf_sample *ps)
{
	struct spe_sink *sink = ctx;
	struct access_sample a;

	if (hw_backend_access(sink->hb, ps, &a))
		line_table_add(sink->lines, &a);
}

/*
 * SPE: the same ops as records in a small AUX area (it wraps), three ops
 * to a PERF_RECORD_AUX and padding after them, as the driver pads the
 * buffer; a branch now and then.  The pid/tid come from ITRACE_START (the
 * AUX records carry none, as when the event has no sample_id); T2's
 * records name their thread by CONTEXTIDR, T1's leave it to the side band.
 */
static void feed_chunk(struct spe_aux *sa, struct spe_sink *sink,
		       const struct perf_event_attr *attr, uint8_t *area, size_t area_size,
		       uint64_t *head, const struct bytes *chunk)
{
	uint8_t rec[128], *copy = xcalloc(1, chunk->n);
	struct perf_aux a;
	size_t n;

	/* the kernel writes the bytes at head, wrapping */
	for (size_t k = 0; k < chunk->n; k++)
		area[(*head + k) % area_size] = chunk->b[k];
	n = aux_record(rec, *head, chunk->n, 0, 0, 0, 0);
	CHECK(perf_parse_aux(attr, rec, n, &a), "AUX record at %" PRIu64, *head);
	CHECK(perf_aux_copy(area, area_size, a.offset, a.size, copy), "AUX bytes");
	a.data = copy;
	a.cpu = 2;
	a.time_zero_valid = true;
	a.time_shift = 8;
	a.time_mult = CLK_NS_PER_TICK << 8;
	a.time_zero = CLK_ZERO;
	spe_aux_feed(sa, &a, spe_sample, sink);
	*head += chunk->n;
	free(copy);
}

static void run_spe(const struct workload *w, const struct perf_event_attr *attr,
		    struct hw_backend *hb, struct line_table *lines)
{
	struct spe_sink sink = { hb, lines };
	struct spe_aux *sa = spe_aux_new(SPE_SOURCE_NEOVERSE);
	struct bytes chunk = { 0 };
	uint8_t area[1024];
	uint64_t head = 0, chunks = 0;

	spe_aux_itrace_start(sa, 2, PID, T1);
	for (size_t i = 0; i < w->n; i++) {
		spe_record(&chunk, &w->ops[i], (w->times[i] - CLK_ZERO) / CLK_NS_PER_TICK,
			   w->ops[i].tid == T2);
		if (i % 7 == 3)
			spe_branch(&chunk, w->ops[i].ip, 1);
		if (i % 3 == 2 || i + 1 == w->n) {
			while (chunk.n % 64)
				put(&chunk, 0x00);
			feed_chunk(sa, &sink, attr, area, sizeof(area), &head, &chunk);
			chunk.n = 0;
			chunks++;
		}
	}
	CHECK(head > sizeof(area), "the AUX area wrapped");
	CHECK(spe_aux_counts(sa)->bad == 0 && spe_aux_counts(sa)->truncated == 0,
	      "no bad or truncated records");
	CHECK_EQ_U64(spe_aux_counts(sa)->chunks, chunks, "chunks");
	CHECK_EQ_U64(spe_aux_counts(sa)->records, w->n + (w->n + 3) / 7, "records");
	CHECK_EQ_U64(spe_aux_counts(sa)->other_ops, (w->n + 3) / 7, "the branches");
	free(chunk.b);
	spe_aux_free(sa);
}

/* --- the spe row: its state, its decoder, its counts ------------------------------------- */

struct row_sink {
	const struct backend_row *row;
	void *state;
	struct access_sample got[8];
	unsigned n;
};

static void row_sample(void *ctx, const struct perf_sample *ps)
{
	struct row_sink *sink = ctx;
	struct access_sample a;

	if (sink->row->access(sink->state, ps, &a) && sink->n < ARRAY_SIZE(sink->got))
		sink->got[sink->n++] = a;
}

/*
 * What a session does with the spe row (whose data-source format is this
 * machine's: none, so the events speak): open it, let the event set feed
 * its decoder (the relay is event_set_drain's), take the samples through
 * its access call, and report its counts: a load, a branch, a bad byte
 * that costs the record around it, a store, a record cut by the end of
 * the bytes, and a chunk the kernel flagged as having gaps.
 */
static void test_spe_row(const struct perf_event_attr *attr)
{
	const struct backend_row *row = backend_row(BACKEND_SPE);
	const struct op load = { T1, 0x401100, 0x601040, 250, 0x00, SPE_NV_PEER_CORE, 0 };
	const struct op store = { T1, 0x401108, 0x601048, 0, 0x01, 0, 0 };
	struct row_sink sink = { row, NULL, { { 0 } }, 0 };
	struct perf_callbacks cb = { .sample_ctx = &sink, .sample = row_sample };
	struct bytes chunk = { 0 };
	struct named_count *drops;
	struct perf_aux a;
	uint8_t rec[128];
	unsigned n_drops;

	CHECK(row && row->aux && row->aux->pages && row->untried, "spe row: an AUX decoder");
	if (!row || !row->aux)
		return;
	sink.state = row->open(NULL);
	spe_record(&chunk, &load, 100, false);
	spe_branch(&chunk, 0x401200, 101);
	put(&chunk, 0xb2);                      /* a data address ... */
	put_le(&chunk, 0x601000, 8);
	put(&chunk, 0x02);                      /* ... and a byte that is no packet */
	spe_record(&chunk, &store, 102, false);
	put(&chunk, 0xb0);                      /* a PC, and the bytes end */
	put_le(&chunk, 0x401300, 8);
	row->aux->itrace_start(sink.state, 2, PID, T1);
	CHECK(perf_parse_aux(attr, rec, aux_record(rec, 0, chunk.n, PERF_AUX_FLAG_PARTIAL, 0, 0, 77),
			     &a), "AUX record");
	a.data = chunk.b;
	a.cpu = 2;
	row->aux->feed(sink.state, &a, &cb);

	CHECK(sink.n == 2, "%u accesses", sink.n);
	if (sink.n == 2) {
		CHECK(sink.got[0].kind == ACCESS_LOAD && sink.got[0].addr == 0x601040 &&
		      sink.got[0].weight == 250 && sink.got[0].pid == PID &&
		      sink.got[0].tid == T1 && sink.got[0].time == 77 &&
		      (sink.got[0].data_src & PERF_MEM_S(OP, LOAD)),
		      "the load: kind %u tid %u time %" PRIu64, sink.got[0].kind, sink.got[0].tid,
		      sink.got[0].time);
		CHECK(sink.got[1].kind == ACCESS_STORE && sink.got[1].addr == 0x601048,
		      "the store: kind %u addr 0x%" PRIx64, sink.got[1].kind, sink.got[1].addr);
	}
	CHECK_EQ_U64(row->samples_seen(sink.state), 5, "seen: load, branch, bad, store, cut");
	CHECK_EQ_U64(row->samples_decoded(sink.state), 2, "decoded");
	n_drops = row->drop_counts(sink.state, &drops);
	CHECK(n_drops == 4 && !strcmp(drops[0].what, "SPE record of no load or store") &&
	      drops[0].n == 1 && !strcmp(drops[1].what, "SPE record lost to a bad packet") &&
	      drops[1].n == 1 && !strcmp(drops[2].what, "SPE record cut short") &&
	      drops[2].n == 1 && !strcmp(drops[3].what, "AUX data the kernel lost (chunks)") &&
	      drops[3].n == 1, "%u drop reasons: %s ...", n_drops, n_drops ? drops[0].what : "");
	named_counts_free(drops, n_drops);
	row->close(sink.state);
	free(chunk.b);
}

static uint64_t symbol(struct elf_file *f, const char *name)
{
	return elf_fixture_symbol(f, LOAD_BASE, name);
}

static char *render(const struct report *r, void (*print)(const struct report *, FILE *))
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	print(r, f);
	fclose(f);
	return text;
}

struct run {
	struct symbolizer *sym;
	struct data_types *dt;
	struct hw_backend *hb;
	struct line_table *lines;
	struct report *r;
	char *text, *json;
};

static void run_release(struct run *x)
{
	free(x->text);
	free(x->json);
	report_free(x->r);
	line_table_free(x->lines);
	hw_backend_free(x->hb);
	data_types_free(x->dt);
	symbolizer_free(x->sym);
}

static void check_same_line(const struct report_line *p, const struct report_line *s)
{
	CHECK(p->addr == s->addr && p->kind == s->kind, "line 0x%" PRIx64 "/%u vs 0x%" PRIx64 "/%u",
	      p->addr, p->kind, s->addr, s->kind);
	CHECK(p->n_members == s->n_members && p->n_ranges == s->n_ranges,
	      "members %u/%u ranges %u/%u", p->n_members, s->n_members, p->n_ranges, s->n_ranges);
	for (unsigned i = 0; i < p->n_members && i < s->n_members; i++)
		CHECK(p->members[i].name && s->members[i].name &&
		      !strcmp(p->members[i].name, s->members[i].name) &&
		      p->members[i].reads == s->members[i].reads &&
		      p->members[i].writes == s->members[i].writes,
		      "member %u: %s vs %s", i, p->members[i].name, s->members[i].name);
	for (unsigned i = 0; i < p->n_ranges && i < s->n_ranges; i++) {
		const struct report_range *a = &p->ranges[i], *b = &s->ranges[i];

		CHECK(a->offset == b->offset && a->n_threads == b->n_threads &&
		      a->reads == b->reads && a->writes == b->writes &&
		      a->mem.peer == b->mem.peer && a->mem.latency == b->mem.latency,
		      "range +%u: threads %u/%u writes %" PRIu64 "/%" PRIu64 " peer %" PRIu64
		      "/%" PRIu64, a->offset, a->n_threads, b->n_threads, a->writes, b->writes,
		      a->mem.peer, b->mem.peer);
		for (unsigned t = 0; t < a->n_threads && t < b->n_threads; t++)
			CHECK(a->threads[t].tid == b->threads[t].tid &&
			      a->threads[t].writes == b->threads[t].writes,
			      "range +%u thread %u: %u vs %u", a->offset, t, a->threads[t].tid,
			      b->threads[t].tid);
	}
}

static bool load_run(struct run *x, const char *fixture)
{
	struct elf_file f;

	memset(x, 0, sizeof(*x));
	x->sym = symbolizer_new();
	x->dt = data_types_new();
	x->hb = hw_backend_new(x->sym);
	x->lines = line_table_new(64, 10 * 1000000ULL);
	if (!elf_file_open(&f, fixture))
		return false;
	elf_fixture_map(&f, x->sym, PID, LOAD_BASE, fixture);
	elf_file_close(&f);
	return true;
}

static void finish_run(struct run *x, const char *backend)
{
	static struct run_facts hdr = { .backend_note = "test", .freq = 1000, .mem_info = true };
	struct classify_config cfg;

	(void)backend;          /* the header names a backend; both say "test" */
	hdr.backend = "test";
	hdr.samples = hw_backend_samples_seen(x->hb);
	hdr.decoded = hw_backend_samples_decoded(x->hb);
	classify_config_default(&cfg);
	x->r = report_build(&hdr, x->lines, &cfg, 10, x->sym, x->dt);
	x->text = render(x->r, report_print_text);
	x->json = render(x->r, report_print_json);
}

static void test_same_report(const char *fixture, const struct perf_event_attr *pebs_attr,
			     const struct perf_event_attr *spe_attr)
{
	struct workload w = { 0 };
	struct run pebs, spe;
	uint64_t counters, main_ip, priv;
	unsigned e = 0;
	struct elf_file f;
	const struct report_line *l;
	char m0[32], m1[32];

	if (!elf_file_open(&f, fixture)) {
		CHECK(0, "cannot open %s", fixture);
		return;
	}
	counters = symbol(&f, "counters");
	main_ip = symbol(&f, "main");
	priv = counters + 0x10000;   /* a word of its own */
	elf_file_close(&f);
	CHECK(counters && main_ip, "fixture symbols");
	while ((counters + 8 * e) / 64 != (counters + 8 * e + 8) / 64)
		e++;
	build_workload(&w, counters + 8 * e, priv, main_ip);

	CHECK(load_run(&pebs, fixture) && load_run(&spe, fixture), "fixture mapped");
	run_pebs(&w, pebs_attr, pebs.hb, pebs.lines);
	run_spe(&w, spe_attr, spe.hb, spe.lines);
	finish_run(&pebs, "pebs");
	finish_run(&spe, "spe");

	CHECK_EQ_U64(hw_backend_samples_decoded(spe.hb), hw_backend_samples_decoded(pebs.hb),
		     "as many accesses");
	CHECK_EQ_U64(hw_backend_samples_decoded(pebs.hb), 40 * 2 + 10 * 2 + 20, "PEBS accesses");
	CHECK_EQ_U64(hw_backend_samples_seen(spe.hb), hw_backend_samples_seen(pebs.hb),
		     "as many samples (the kernel one dropped by both)");

	/* the PEBS report is what it should be ... */
	snprintf(m0, sizeof(m0), "counters[%u]", e);
	snprintf(m1, sizeof(m1), "counters[%u]", e + 1);
	l = pebs.r->n_lines ? &pebs.r->lines[0] : NULL;
	CHECK(pebs.r->n_lines == 1 && l && l->kind == SHARING_FALSE && l->variable &&
	      !strcmp(l->variable, "counters"), "PEBS: one false-sharing line on counters");
	if (l && l->n_ranges == 2) {
		CHECK_STR(l->ranges[0].member, m0, "PEBS: first member");
		CHECK_STR(l->ranges[1].member, m1, "PEBS: second member");
		CHECK(l->ranges[0].n_threads == 1 && l->ranges[0].threads[0].tid == T1 &&
		      l->ranges[1].n_threads == 1 && l->ranges[1].threads[0].tid == T2,
		      "PEBS: T1 on the first, T2 on the second");
		CHECK(l->ranges[1].mem.peer == 40 && l->ranges[1].mem.latency == 40 * 300,
		      "PEBS: T2's peer loads %" PRIu64, l->ranges[1].mem.peer);
	}
	/* ... and SPE's is the same */
	CHECK_EQ_U64(spe.r->n_lines, pebs.r->n_lines, "SPE: lines");
	for (unsigned i = 0; i < pebs.r->n_lines && i < spe.r->n_lines; i++)
		check_same_line(&pebs.r->lines[i], &spe.r->lines[i]);
	CHECK(!strcmp(pebs.text, spe.text), "text differs:\n--- pebs\n%s\n--- spe\n%s",
	      pebs.text, spe.text);
	CHECK(!strcmp(pebs.json, spe.json), "JSON differs:\n--- pebs\n%s\n--- spe\n%s",
	      pebs.json, spe.json);
	run_release(&pebs);
	run_release(&spe);
	free(w.ops);
	free(w.times);
}

/* --- the events a session would open ---------------------------------------------------- */

static void write_file(const char *root, const char *path, const char *text)
{
	char full[PATH_MAX], *slash;
	FILE *f;

	snprintf(full, sizeof(full), "%s/%s", root, path);
	for (slash = strchr(full + 1, '/'); slash; slash = strchr(slash + 1, '/')) {
		*slash = '\0';
		mkdir(full, 0755);
		*slash = '/';
	}
	if (!(f = fopen(full, "w")))
		die("cannot write %s", full);
	fputs(text, f);
	fclose(f);
}

#define DEV "sys/bus/event_source/devices/"

static bool encode_events(const char *root, struct perf_event_attr *pebs,
			  struct perf_event_attr *spe)
{
	const struct hw_config cfg = { .ldlat = 30, .freq = 1000 };
	struct hw_event ev[HW_MAX_EVENTS];
	struct hw_host h;
	char *why = NULL;

	write_file(root, DEV "cpu/type", "4\n");
	write_file(root, DEV "cpu/format/event", "config:0-7\n");
	write_file(root, DEV "cpu/format/umask", "config:8-15\n");
	write_file(root, DEV "cpu/format/ldlat", "config1:0-15\n");
	write_file(root, DEV "cpu/events/mem-loads", "event=0xcd,umask=0x1,ldlat=3\n");
	write_file(root, DEV "arm_spe_0/type", "12\n");
	hw_host_detect(&h, root);
	h.pfm_pmu[0] = '\0';
	h.vendor = VENDOR_INTEL;
	if (hw_encode(BACKEND_PEBS, &h, &cfg, ev, &why) < 1)
		return error("pebs: %s", why), false;
	*pebs = ev[0].attr;
	h.vendor = VENDOR_ARM;
	if (hw_encode(BACKEND_SPE, &h, &cfg, ev, &why) != 1)
		return error("spe: %s", why), false;
	*spe = ev[0].attr;
	return true;
}

int main(int argc, char **argv)
{
	const char *top = getenv("top_builddir");
	char *fixture = argc > 1 ? xstrdup(argv[1]) :
			xasprintf("%s/tests/fixture_globals", top ? top : ".");
	char tmpl[] = "/tmp/test_spe_pipeline.XXXXXX", cmd[64];
	struct perf_event_attr pebs, spe;
	bool ok;

	test_data_source();
	test_clock_and_context();
	if (!mkdtemp(tmpl))
		return test_skip("cannot make a temporary directory");
	ok = encode_events(tmpl, &pebs, &spe);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmpl);
	if (system(cmd) != 0)
		fprintf(stderr, "cannot remove %s\n", tmpl);
	CHECK(ok, "events encoded");
	if (ok) {
		test_aux_records(&spe);
		test_spe_row(&spe);
		if (access(fixture, R_OK))
			printf("# %s not built: SPE and PEBS reports not compared\n", fixture);
		else
			test_same_report(fixture, &pebs, &spe);
	}
	free(fixture);
	return test_done();
}
