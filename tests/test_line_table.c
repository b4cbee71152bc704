#include "detector/data_src.h"
#include "detector/line_table.h"
#include "tap.h"
#include "common/util.h"

#define MS 1000000ULL
#define PID 42

static struct access_sample sample(uint64_t time, uint32_t tid, uint64_t ip,
				   uint64_t addr, unsigned size, int kind)
{
	struct access_sample s = {
		.time = time, .pid = PID, .tid = tid, .ip = ip, .addr = addr,
		.size = size, .kind = kind, .base_reg = -1,
	};
	return s;
}

static void add(struct line_table *t, uint64_t time, uint32_t tid, uint64_t ip,
		uint64_t addr, unsigned size, int kind)
{
	struct access_sample s = sample(time, tid, ip, addr, size, kind);

	line_table_add(t, &s);
}

static const struct line_thread *thread_of(const struct line *l, uint32_t tid)
{
	for (unsigned i = 0; i < l->n_threads; i++)
		if (l->threads[i].tid == tid)
			return &l->threads[i];
	return NULL;
}

static void test_bad_line_size(void)
{
	CHECK(!line_table_new(0, MS), "line size 0 rejected");
	CHECK(!line_table_new(96, MS), "line size 96 rejected");
	CHECK(!line_table_new(512, MS), "line size 512 rejected");
}

/* Two addresses 64 bytes apart share a 128-byte line but not a 64-byte one. */
static void test_line_keys(void)
{
	struct line_table *t64 = line_table_new(64, MS);
	struct line_table *t128 = line_table_new(128, MS);
	struct line *l;

	add(t64, 0, 1, 0x400000, 0x1008, 8, ACCESS_LOAD);
	add(t64, 0, 1, 0x400000, 0x1048, 8, ACCESS_LOAD);
	add(t128, 0, 1, 0x400000, 0x1008, 8, ACCESS_LOAD);
	add(t128, 0, 1, 0x400000, 0x1048, 8, ACCESS_LOAD);

	CHECK_EQ_U64(line_table_line_size(t64), 64, "line size");
	CHECK_EQ_U64(line_table_count(t64), 2, "64-byte lines");
	CHECK_EQ_U64(line_table_count(t128), 1, "128-byte lines");
	CHECK_EQ_U64(line_table_samples(t128), 2, "samples");

	l = line_table_find(t64, PID, 0x1050);
	CHECK(l != NULL, "find by any address in the line");
	if (l) {
		CHECK_EQ_U64(l->addr, 0x1040, "64-byte line address");
		CHECK_EQ_U64(l->cells[0].offset, 8, "64-byte offset");
	}
	l = line_table_find(t128, PID, 0x1048);
	CHECK(l != NULL, "128-byte line found");
	if (l) {
		CHECK_EQ_U64(l->addr, 0x1000, "128-byte line address");
		CHECK_EQ_U64(l->n_cells, 2, "one cell per offset");
		CHECK_EQ_U64(l->cells[1].offset, 0x48, "128-byte offset");
	}
	CHECK(!line_table_find(t64, PID + 1, 0x1008), "pid is part of the key");
	CHECK(!line_table_find(t64, PID, 0x1080), "untouched line not found");
	CHECK(line_table_line(t64, 2) == NULL, "index past the end");

	line_table_free(t64);
	line_table_free(t128);
}

/* A straddling access counts for its first line, clipped to it. */
static void test_clipping(void)
{
	struct line_table *t64 = line_table_new(64, MS);
	struct line_table *t128 = line_table_new(128, MS);
	struct line *l;

	add(t64, 0, 1, 0x400000, 0x103c, 8, ACCESS_STORE);
	add(t128, 0, 1, 0x400000, 0x103c, 8, ACCESS_STORE);

	CHECK_EQ_U64(line_table_count(t64), 1, "straddle makes one line");
	l = line_table_find(t64, PID, 0x1000);
	CHECK(l != NULL, "first line holds the access");
	if (l) {
		CHECK_EQ_U64(l->cells[0].offset, 60, "offset");
		CHECK_EQ_U64(l->cells[0].size, 4, "size clipped to the line");
	}
	CHECK(!line_table_find(t64, PID, 0x1040), "second line untouched");
	l = line_table_find(t128, PID, 0x1000);
	CHECK(l && l->cells[0].size == 8, "inside a 128-byte line: not clipped");

	line_table_free(t64);
	line_table_free(t128);
}

static void test_cells_and_threads(void)
{
	struct line_table *t = line_table_new(64, MS);
	struct access_sample s = sample(0, 7, 0x401000, 0x2010, 8, ACCESS_RMW);
	const struct line_thread *th;
	struct line *l;

	s.weight = 30;
	s.base_reg = 5;
	s.base_off = 16;
	for (int i = 0; i < 5; i++)
		line_table_add(t, &s);
	add(t, 0, 7, 0x401000, 0x2010, 8, ACCESS_LOAD);   /* other kind */
	add(t, 0, 7, 0x401004, 0x2010, 8, ACCESS_RMW);    /* other site */
	add(t, 0, 7, 0x401000, 0x2010, 4, ACCESS_RMW);    /* other size */
	add(t, 0, 8, 0x401000, 0x2010, 8, ACCESS_RMW);    /* other thread */
	add(t, 0, 8, 0x401000, 0x2018, 8, ACCESS_RMW);    /* other offset */

	l = line_table_find(t, PID, 0x2000);
	CHECK(l != NULL, "line exists");
	if (!l)
		goto out;
	CHECK_EQ_U64(l->count, 10, "line count");
	CHECK_EQ_U64(l->n_cells, 6, "distinct cells");
	CHECK_EQ_U64(l->cells[0].count, 5, "repeated sample aggregated");
	CHECK_EQ_U64(l->cells[0].weight, 150, "weights summed");
	CHECK_EQ_U64(l->cells[0].kind, ACCESS_RMW, "cell kind");
	CHECK_EQ_U64(l->cells[0].ip, 0x401000, "cell ip");
	CHECK_EQ_U64(l->cells[0].base_reg, 5, "base register kept");
	CHECK_EQ_U64(l->cells[0].base_off, 16, "base offset kept");
	CHECK_EQ_U64(l->n_threads, 2, "threads");
	th = thread_of(l, 7);
	CHECK(th && th->count == 8, "thread 7 count");
	th = thread_of(l, 8);
	CHECK(th && th->count == 2, "thread 8 count");
out:
	line_table_free(t);
}

/* Two threads writing alternately every millisecond: almost all concurrent. */
static void test_alternating(void)
{
	struct line_table *t = line_table_new(64, 3 * MS);
	struct line *l;

	for (int i = 0; i < 200; i++)
		add(t, i * MS, 1 + i % 2, 0x401000, 0x3000 + 8 * (i % 2), 8,
		    ACCESS_RMW);
	l = line_table_find(t, PID, 0x3000);
	CHECK(l != NULL, "line exists");
	if (!l)
		goto out;
	/* only the very first access has no other thread before it */
	CHECK_EQ_U64(l->concurrent, 199, "line concurrent");
	CHECK_EQ_U64(thread_of(l, 1)->concurrent, 99, "thread 1 concurrent");
	CHECK_EQ_U64(thread_of(l, 2)->concurrent, 100, "thread 2 concurrent");
	CHECK_EQ_U64(l->cells[0].concurrent + l->cells[1].concurrent, 199,
		     "cells concurrent");
out:
	line_table_free(t);
}

/* Thread 1 for 100 ms, then thread 2: only the hand-over is concurrent. */
static void test_phased(void)
{
	struct line_table *t = line_table_new(64, 3 * MS);
	struct line *l;

	for (int i = 0; i < 200; i++)
		add(t, i * MS, i < 100 ? 1 : 2, 0x401000, 0x3000 + 8 * (i >= 100),
		    8, ACCESS_RMW);
	l = line_table_find(t, PID, 0x3000);
	CHECK(l != NULL, "line exists");
	if (l) {
		CHECK(l->concurrent * 20 <= l->count,
		      "concurrent %" PRIu64 " of %" PRIu64, l->concurrent, l->count);
		CHECK_EQ_U64(l->concurrent, 3, "thread 2's first 3 ms");
	}
	line_table_free(t);
}

static void test_read_only(void)
{
	struct line_table *t = line_table_new(64, 3 * MS);
	struct line *l;

	for (int i = 0; i < 200; i++)
		add(t, i * MS, 1 + i % 2, 0x401000, 0x3000, 8, ACCESS_LOAD);
	l = line_table_find(t, PID, 0x3000);
	CHECK(l && l->concurrent == 0, "reads alone are never concurrent");
	line_table_free(t);
}

/* Two threads are concurrent on a line when both touch it within the
 * window and one of them wrote it within the (50x longer) writer horizon:
 * stores are sampled rarely, so a thread's write is not hidden by its
 * later reads, nor forgotten after one window. */
static void test_last_access_kind(void)
{
	struct line_table *t = line_table_new(64, 3 * MS);
	struct line *l;

	add(t, 0, 1, 0x401000, 0x3000, 8, ACCESS_STORE);      /* no: 2 not seen yet */
	add(t, 1 * MS, 2, 0x401000, 0x3008, 8, ACCESS_LOAD);  /* yes: 1 wrote */
	add(t, 2 * MS, 1, 0x401000, 0x3000, 8, ACCESS_LOAD);  /* yes: 1 itself wrote at 0 */
	add(t, 3 * MS, 2, 0x401000, 0x3008, 8, ACCESS_LOAD);  /* yes: 1 near, wrote at 0 */
	add(t, 4 * MS, 2, 0x401000, 0x3008, 8, ACCESS_LOAD);  /* yes: 1 near (2 ms ago) */
	add(t, 9 * MS, 2, 0x401000, 0x3008, 8, ACCESS_STORE); /* no: 1 last seen 7 ms ago */
	l = line_table_find(t, PID, 0x3000);
	CHECK(l && l->concurrent == 4, "concurrent %" PRIu64, l ? l->concurrent : 0);
	line_table_free(t);

	/* read-only use within the window is never concurrent, even when
	 * one thread wrote long before (beyond the writer horizon) */
	t = line_table_new(64, 3 * MS);
	add(t, 0, 1, 0x401000, 0x3000, 8, ACCESS_STORE);
	add(t, 500 * MS, 1, 0x401000, 0x3000, 8, ACCESS_LOAD);
	add(t, 501 * MS, 2, 0x401000, 0x3008, 8, ACCESS_LOAD);
	l = line_table_find(t, PID, 0x3000);
	CHECK(l && l->concurrent == 0, "stale write: concurrent %" PRIu64, l ? l->concurrent : 0);
	line_table_free(t);
}

/* A late sample neither moves a thread's clock back nor its last kind. */
static void test_out_of_order(void)
{
	struct line_table *t = line_table_new(64, 3 * MS);
	const struct line_thread *th;
	struct line *l;

	add(t, 100 * MS, 1, 0x401000, 0x3000, 8, ACCESS_STORE);
	add(t, 99 * MS, 2, 0x401000, 0x3008, 8, ACCESS_LOAD);   /* 1 ms before */
	add(t, 50 * MS, 1, 0x401000, 0x3000, 8, ACCESS_LOAD);   /* late */
	l = line_table_find(t, PID, 0x3000);
	CHECK(l != NULL, "line exists");
	if (!l)
		goto out;
	th = thread_of(l, 1);
	CHECK_EQ_U64(th->last_time, 100 * MS, "last time is the latest");
	CHECK_EQ_U64(th->last_writes, 1, "last kind is the latest");
	CHECK_EQ_U64(l->concurrent, 1, "time distance is symmetric");
out:
	line_table_free(t);
}

/* A million samples over ten lines: memory follows keys, not samples. */
static void test_bounded(void)
{
	struct line_table *t = line_table_new(64, MS);
	size_t cells = 0;
	uint64_t count = 0;

	for (int i = 0; i < 1000000; i++)
		add(t, i * 1000ULL, i % 4, 0x401000 + 4 * (i % 5),
		    0x10000 + 64 * (i % 10) + 8 * (i % 4), 8, ACCESS_RMW);
	CHECK_EQ_U64(line_table_count(t), 10, "lines");
	CHECK_EQ_U64(line_table_samples(t), 1000000, "samples");
	for (size_t i = 0; i < line_table_count(t); i++) {
		struct line *l = line_table_line(t, i);

		cells += l->n_cells;
		count += l->count;
		CHECK(l->n_threads <= 4, "line %zu threads: %u", i, l->n_threads);
		CHECK(l->alloc_cells <= 64, "line %zu cells: %u", i, l->alloc_cells);
	}
	CHECK(cells <= 10 * 4 * 5, "cells %zu", cells);
	CHECK_EQ_U64(count, 1000000, "line counts add up");
	line_table_free(t);
}

/* Many threads and sites on one line, many lines: the tables grow. */
static void test_many(void)
{
	struct line_table *t = line_table_new(128, MS);
	struct line *l;
	int bad = 0;

	for (uint32_t tid = 1; tid <= 1000; tid++)
		for (int site = 0; site < 5; site++)
			add(t, tid, tid, 0x401000 + 4 * site, 0x5000 + 8 * site, 8,
			    site ? ACCESS_LOAD : ACCESS_ATOMIC);
	for (int i = 0; i < 20000; i++)
		add(t, 0, 1, 0x401000, 0x100000 + 128 * i, 8, ACCESS_LOAD);

	l = line_table_find(t, PID, 0x5000);
	CHECK(l != NULL, "crowded line found");
	if (l) {
		CHECK_EQ_U64(l->n_threads, 1000, "threads");
		CHECK_EQ_U64(l->n_cells, 5000, "cells");
		CHECK_EQ_U64(l->count, 5000, "samples");
	}
	CHECK_EQ_U64(line_table_count(t), 20001, "lines");
	for (int i = 0; i < 20000; i++) {
		l = line_table_find(t, PID, 0x100000 + 128 * i);
		bad += !l || l->count != 1 || l->n_cells != 1;
	}
	CHECK_EQ_U64(bad, 0, "lines found after growth");
	line_table_free(t);
}

static uint64_t chain_count(const struct line_cell *c, uint32_t id)
{
	for (unsigned i = 0; i < LINE_CELL_CHAINS; i++)
		if (c->chains[i].id == id)
			return c->chains[i].count;
	return 0;
}

static void add_chained(struct line_table *t, uint32_t chain_id, int times)
{
	struct access_sample s = sample(0, 1, 0x401000, 0x1000, 8, ACCESS_STORE);

	s.chain_id = chain_id;
	while (times-- > 0)
		line_table_add(t, &s);
}

/* Chains do not split a cell; it keeps the most sampled ones. */
static void test_chains(void)
{
	struct line_table *t = line_table_new(64, MS);
	const struct line_cell *c;
	struct line *l;

	add_chained(t, 7, 10);
	add_chained(t, 8, 5);
	add_chained(t, 0, 3);           /* no chain: counted in the cell only */
	add_chained(t, 9, 2);
	add_chained(t, 10, 1);
	l = line_table_find(t, PID, 0x1000);
	if (!l) {
		CHECK(l != NULL, "line found");
		goto out;
	}
	CHECK_EQ_U64(l->n_cells, 1, "one cell whatever the chain");
	c = &l->cells[0];
	CHECK_EQ_U64(c->count, 21, "cell samples");
	CHECK_EQ_U64(chain_count(c, 7), 10, "chain 7");
	CHECK_EQ_U64(chain_count(c, 8), 5, "chain 8");
	CHECK_EQ_U64(chain_count(c, 9), 2, "chain 9");
	CHECK_EQ_U64(chain_count(c, 10), 1, "chain 10");
	CHECK_EQ_U64(chain_count(c, 0), 0, "no slot for 'no chain'");

	/* a fifth chain takes the least counted slot, and its count + 1 */
	add_chained(t, 11, 1);
	CHECK_EQ_U64(chain_count(c, 10), 0, "chain 10 evicted");
	CHECK_EQ_U64(chain_count(c, 11), 2, "chain 11 inherits 1 + 1");
	/* a heavy late chain gets in and stays */
	add_chained(t, 12, 30);
	CHECK_EQ_U64(chain_count(c, 7), 10, "chain 7 kept");
	CHECK(chain_count(c, 12) >= 30, "chain 12: %" PRIu64, chain_count(c, 12));
out:
	line_table_free(t);
}

/*
 * The table as line_table.h states it, with plain linear searches and the
 * concurrency test over all of a line's threads: the real one finds cells
 * through an index and decides most samples from the line's two latest
 * threads, and must agree with this field for field, in the same order.
 */
#define REF_LINES 64
#define REF_CELLS 4096
#define REF_THREADS 16

struct ref {
	struct line lines[REF_LINES];
	unsigned n_lines;
	uint64_t samples;
};

static bool ref_within(uint64_t a, uint64_t b, uint64_t window)
{
	return (a > b ? a - b : b - a) <= window;
}

static void ref_add(struct ref *m, uint64_t window, const struct access_sample *s)
{
	uint64_t addr = s->addr & ~63ULL, writer_window = window * 50;
	unsigned offset = s->addr - addr, size = s->size ? s->size : 1;
	bool writes = access_kind_writes(s->kind), concurrent;
	bool other_near = false, other_writer = false, self_writer = writes;
	struct line_thread *self = NULL;
	struct line_cell *c = NULL;
	struct line *l = NULL;

	if (s->kind > ACCESS_ATOMIC)
		return;
	if (size > 64 - offset)
		size = 64 - offset;
	for (unsigned i = 0; i < m->n_lines && !l; i++)
		if (m->lines[i].pid == s->pid && m->lines[i].addr == addr)
			l = &m->lines[i];
	if (!l) {
		l = &m->lines[m->n_lines++];
		l->pid = s->pid;
		l->addr = addr;
		l->cells = xcalloc(REF_CELLS, sizeof(*l->cells));
		l->threads = xcalloc(REF_THREADS, sizeof(*l->threads));
	}
	for (unsigned i = 0; i < l->n_cells && !c; i++)
		if (l->cells[i].tid == s->tid && l->cells[i].ip == s->ip &&
		    l->cells[i].offset == offset && l->cells[i].size == size &&
		    l->cells[i].kind == s->kind)
			c = &l->cells[i];
	if (!c) {
		c = &l->cells[l->n_cells++];
		c->tid = s->tid;
		c->ip = s->ip;
		c->offset = offset;
		c->size = size;
		c->kind = s->kind;
		c->base_reg = s->base_reg;
		c->base_off = s->base_off;
	}
	for (unsigned i = 0; i < l->n_threads; i++) {
		struct line_thread *th = &l->threads[i];
		bool near;

		if (th->tid == s->tid) {
			self = th;
			if (th->has_written &&
			    ref_within(th->last_write_time, s->time, writer_window))
				self_writer = true;
			continue;
		}
		near = ref_within(th->last_time, s->time, window);
		other_near |= near;
		if (near && th->has_written &&
		    ref_within(th->last_write_time, s->time, writer_window))
			other_writer = true;
	}
	concurrent = other_near && (self_writer || other_writer);
	if (!self) {
		self = &l->threads[l->n_threads++];
		self->tid = s->tid;
		self->last_time = s->time;
		self->last_writes = writes;
	} else if (s->time >= self->last_time) {
		self->last_time = s->time;
		self->last_writes = writes;
	}
	if (writes && (!self->has_written || s->time >= self->last_write_time)) {
		self->last_write_time = s->time;
		self->has_written = 1;
	}

	m->samples++;
	l->count++;
	self->count++;
	c->count++;
	c->weight += s->weight;
	c->weighted += s->weight != 0;
	switch (data_src_coherence(s->data_src)) {
	case COHERENCE_HITM_LOCAL: c->hitm_local++; break;
	case COHERENCE_HITM_REMOTE: c->hitm_remote++; break;
	case COHERENCE_PEER: c->peer++; break;
	case COHERENCE_NONE: break;
	}
	if (s->chain_id) {
		struct line_chain *min = &c->chains[0], *hit = NULL;

		for (unsigned i = 0; i < LINE_CELL_CHAINS && !hit; i++) {
			if (c->chains[i].id == s->chain_id)
				hit = &c->chains[i];
			else if (c->chains[i].count < min->count)
				min = &c->chains[i];
		}
		if (!hit) {
			hit = min;
			hit->id = s->chain_id;
		}
		hit->count++;
	}
	if (concurrent) {
		l->concurrent++;
		self->concurrent++;
		c->concurrent++;
	}
}

static bool same_cell(const struct line_cell *a, const struct line_cell *b)
{
	if (a->tid != b->tid || a->offset != b->offset || a->size != b->size ||
	    a->kind != b->kind || a->base_reg != b->base_reg || a->ip != b->ip ||
	    a->base_off != b->base_off || a->count != b->count ||
	    a->concurrent != b->concurrent || a->weight != b->weight ||
	    a->weighted != b->weighted || a->hitm_local != b->hitm_local ||
	    a->hitm_remote != b->hitm_remote || a->peer != b->peer)
		return false;
	for (unsigned i = 0; i < LINE_CELL_CHAINS; i++)
		if (a->chains[i].id != b->chains[i].id ||
		    a->chains[i].count != b->chains[i].count)
			return false;
	return true;
}

static bool same_thread(const struct line_thread *a, const struct line_thread *b)
{
	return a->tid == b->tid && a->last_time == b->last_time &&
	       a->last_writes == b->last_writes && a->has_written == b->has_written &&
	       a->last_write_time == b->last_write_time && a->count == b->count &&
	       a->concurrent == b->concurrent;
}

/* The first difference between the table and the model, NULL if none. */
static const char *differ(struct line_table *t, const struct ref *m)
{
	if (line_table_samples(t) != m->samples)
		return "samples";
	if (line_table_count(t) != m->n_lines)
		return "line count";
	for (unsigned i = 0; i < m->n_lines; i++) {
		const struct line *r = &m->lines[i], *l = line_table_line(t, i);

		if (l->pid != r->pid || l->addr != r->addr)
			return "line order";
		if (l->count != r->count || l->concurrent != r->concurrent)
			return "line counts";
		if (l->n_cells != r->n_cells || l->n_threads != r->n_threads)
			return "cells or threads per line";
		for (unsigned k = 0; k < r->n_cells; k++)
			if (!same_cell(&l->cells[k], &r->cells[k]))
				return "cell";
		for (unsigned k = 0; k < r->n_threads; k++)
			if (!same_thread(&l->threads[k], &r->threads[k]))
				return "thread";
	}
	return NULL;
}

/*
 * Random streams against the model: two processes, lines side by side,
 * up to seven threads and many cells per line, accesses that straddle,
 * kinds the table drops, chains, data sources, and times that mostly go
 * forward with some late samples among them; the window is short enough
 * that threads come and go.
 */
static void test_model(void)
{
	static const unsigned sizes[] = { 0, 1, 2, 4, 8, 16 };
	uint64_t rng = 0x9e3779b97f4a7c15ULL;

	for (unsigned seed = 0; seed < 8; seed++) {
		struct line_table *t = line_table_new(64, 3 * MS);
		struct ref *m = xcalloc(1, sizeof(*m));
		unsigned threads = 2 + seed % 6;
		uint64_t now = 0;
		const char *diff;

		for (unsigned i = 0; i < 20000; i++) {
			struct access_sample s = { .base_reg = -1 };
			uint64_t x;

			rng ^= rng << 13;
			rng ^= rng >> 7;
			rng ^= rng << 17;
			x = rng;
			now += (x & 0xfff) * 500;      /* up to 2 ms on */
			s.time = x % 10 ? now : now - (x >> 20) % (20 * MS);
			s.pid = 1 + (x >> 12) % 2;
			s.tid = 100 + (x >> 14) % threads;
			s.addr = 0x10000 + 64 * ((x >> 17) % 12) + (x >> 21) % 64;
			s.size = sizes[(x >> 27) % ARRAY_SIZE(sizes)];
			s.kind = (x >> 30) % 9 ? (x >> 34) % 4 : 4;
			s.ip = 0x401000 + 4 * ((x >> 36) % 5);
			s.weight = (x >> 40) % 3 ? 0 : (x >> 42) % 500;
			s.data_src = (x >> 51) % 4 ? 0 : x;
			s.chain_id = (x >> 53) % 7;
			s.base_reg = (x >> 56) % 3 - 1;
			s.base_off = (int64_t)(x >> 58) - 8;
			line_table_add(t, &s);
			ref_add(m, 3 * MS, &s);
		}
		diff = differ(t, m);
		CHECK(!diff, "seed %u: %s differs from the model", seed, diff);
		for (unsigned i = 0; i < m->n_lines; i++) {
			free(m->lines[i].cells);
			free(m->lines[i].threads);
		}
		free(m);
		line_table_free(t);
	}
}

/* Memory processes share (sample obj_*): one line per (device, inode,
 * offset), whatever address each process sees it at; each cell and thread
 * keeps its pid.  Private memory at the same address stays per process. */
static void test_shared_lines(void)
{
	struct line_table *t = line_table_new(64, MS);
	struct access_sample a = sample(0, 100, 0x401000, 0x7f0000001000, 8, ACCESS_STORE);
	struct access_sample b = sample(MS / 10, 200, 0x401100, 0x7e0000005008, 8, ACCESS_STORE);
	struct access_sample other, priv;
	struct line *l;

	a.pid = 100;
	a.obj_dev = 1; a.obj_ino = 777; a.obj_off = 0x40;    /* page 0, line 1 */
	b.pid = 200;     /* another process, another address: the same line */
	b.obj_dev = 1; b.obj_ino = 777; b.obj_off = 0x48;
	line_table_add(t, &a);
	line_table_add(t, &b);
	CHECK_EQ_U64(line_table_count(t), 1, "one shared line for two processes");
	l = line_table_line(t, 0);
	CHECK_EQ_U64(l->pid, 100, "its pid: the first process's");
	CHECK_EQ_U64(l->addr, 0x7f0000001000, "its address: the first process's");
	CHECK_EQ_U64(l->obj_ino, 777, "the object's inode");
	CHECK_EQ_U64(l->obj_off, 0x40, "the line's offset in the object");
	CHECK_EQ_U64(l->n_threads, 2, "both threads");
	CHECK(line_cross_process(l), "cross-process");
	CHECK_EQ_U64(thread_of(l, 200)->pid, 200, "thread 200 of pid 200");
	CHECK_EQ_U64(l->cells[1].pid, 200, "its cell: pid 200");
	CHECK_EQ_U64(l->cells[1].offset, 8, "offset in the line from the address");
	CHECK_EQ_U64(l->concurrent, 1, "the second write pairs with the first");

	other = priv = b;
	other.obj_ino = 778;     /* another object at the same offset */
	line_table_add(t, &other);
	priv.obj_dev = priv.obj_ino = priv.obj_off = 0;   /* private */
	line_table_add(t, &priv);
	CHECK_EQ_U64(line_table_count(t), 3, "another object, private memory: lines apart");
	CHECK(line_table_find(t, 200, 0x7e0000005008) != NULL, "private line found by pid");
	CHECK(!line_cross_process(line_table_line(t, 1)), "one process: not cross-process");
	line_table_free(t);
}

/* The CPUs a line's samples ran on: a bit each below LINE_CPUS_MAX, a
 * flag above, nothing for an unknown CPU (a perf.data without it). */
static void test_cpus(void)
{
	struct line_table *t = line_table_new(64, 1000);
	uint32_t cpus[] = { 3, 70, 300, UINT32_MAX, 3 };
	const struct line *l;

	for (unsigned i = 0; i < ARRAY_SIZE(cpus); i++) {
		struct access_sample s = sample(i, 1 + i % 2, 0x401000, 0x3000, 8, ACCESS_STORE);

		s.cpu = cpus[i];
		line_table_add(t, &s);
	}
	l = line_table_find(t, PID, 0x3000);
	CHECK(l, "the line");
	if (l) {
		CHECK_EQ_U64(l->cpus[0], 1ULL << 3, "CPU 3");
		CHECK_EQ_U64(l->cpus[1], 1ULL << 6, "CPU 70");
		CHECK_EQ_U64(l->cpus[2] | l->cpus[3], 0, "no others");
		CHECK(l->cpus_beyond, "CPU 300");
	}
	line_table_free(t);
}

int main(void)
{
	test_cpus();
	test_bad_line_size();
	test_line_keys();
	test_shared_lines();
	test_clipping();
	test_cells_and_threads();
	test_alternating();
	test_phased();
	test_read_only();
	test_last_access_kind();
	test_out_of_order();
	test_bounded();
	test_many();
	test_chains();
	test_model();
	return test_done();
}
