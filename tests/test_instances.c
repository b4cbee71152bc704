/* Instances of one structure: pooled by hottest site, offset and thread
 * set; per-thread objects kept apart; pooled concurrency taken from the
 * instance with the most concurrent samples. */
#include "detector/instances.h"
#include "tap.h"
#include "common/util.h"

static struct line_cell cell(uint32_t tid, uint64_t ip, unsigned offset, int kind,
			     uint64_t count, uint64_t concurrent)
{
	struct line_cell c = {
		.tid = tid, .ip = ip, .offset = (uint8_t)offset, .size = 8,
		.kind = (uint8_t)kind, .base_reg = -1, .count = count,
		.concurrent = concurrent,
	};
	return c;
}

/* A line from its cells; threads and totals summed from them. */
static struct line *make_line(uint64_t addr, const struct line_cell *cells, unsigned n)
{
	struct line *l = xcalloc(1, sizeof(*l));

	l->pid = 9;
	l->addr = addr;
	l->cells = xcalloc(n, sizeof(*l->cells));
	l->threads = xcalloc(n, sizeof(*l->threads));
	for (unsigned i = 0; i < n; i++) {
		unsigned t;

		l->cells[l->n_cells++] = cells[i];
		l->count += cells[i].count;
		l->concurrent += cells[i].concurrent;
		for (t = 0; t < l->n_threads; t++)
			if (l->threads[t].tid == cells[i].tid)
				break;
		if (t == l->n_threads)
			l->threads[l->n_threads++].tid = cells[i].tid;
		l->threads[t].count += cells[i].count;
		l->threads[t].concurrent += cells[i].concurrent;
	}
	return l;
}

static const struct line_cell *find_cell(const struct line *l, uint32_t tid, unsigned offset,
					 int kind)
{
	for (unsigned i = 0; i < l->n_cells; i++)
		if (l->cells[i].tid == tid && l->cells[i].offset == offset &&
		    l->cells[i].kind == kind)
			return &l->cells[i];
	return NULL;
}

static void test_grouping(void)
{
	/* three instances of one struct read at 0x500 offset 32 by threads 1
	 * and 2; a per-thread object pair (thread 1 only / thread 3 only at
	 * the same site) must stay apart from them and from each other */
	struct line_cell a[] = { cell(1, 0x500, 32, ACCESS_LOAD, 50, 40),
				 cell(2, 0x500, 32, ACCESS_LOAD, 50, 40) };
	struct line_cell b[] = { cell(1, 0x500, 32, ACCESS_LOAD, 30, 0),
				 cell(2, 0x500, 32, ACCESS_LOAD, 20, 0),
				 cell(2, 0x510, 32, ACCESS_STORE, 2, 0) };
	struct line_cell c[] = { cell(1, 0x500, 32, ACCESS_LOAD, 10, 1),
				 cell(2, 0x500, 32, ACCESS_LOAD, 10, 1) };
	struct line_cell d[] = { cell(1, 0x500, 32, ACCESS_LOAD, 40, 0),
				 cell(3, 0x600, 0, ACCESS_LOAD, 1, 0) };
	struct line *lines[] = {
		make_line(0x1000, b, 3), make_line(0x2000, a, 2), make_line(0x3000, c, 2),
		make_line(0x4000, d, 2),
	};
	struct instance_group *g;
	size_t n = instance_groups(lines, 4, &g);
	const struct instance_group *three = NULL;
	struct line *m;
	const struct line_cell *x;

	CHECK_EQ_U64(n, 2, "groups");
	for (size_t i = 0; i < n; i++)
		if (g[i].n == 3)
			three = &g[i];
	CHECK(three != NULL, "the three instances pooled");
	if (!three)
		goto out;
	CHECK_EQ_U64(three->lines[0]->addr, 0x2000, "hottest first");

	m = instance_line(three);
	CHECK_EQ_U64(m->addr, 0x2000, "named by the hottest");
	CHECK_EQ_U64(m->count, 100 + 52 + 20, "samples summed");
	/* 0x2000 has the most concurrent samples (80): its cells' 80% goes
	 * to the matching cells of the others; the store has no match */
	x = find_cell(m, 1, 32, ACCESS_LOAD);
	CHECK(x && x->count == 90 && x->concurrent == 40 + 24 + 8,
	      "thread 1's loads: %lu of %lu concurrent", x ? (unsigned long)x->concurrent : 0UL,
	      x ? (unsigned long)x->count : 0UL);
	x = find_cell(m, 2, 32, ACCESS_LOAD);
	CHECK(x && x->concurrent == 40 + 16 + 8, "thread 2's loads: %lu",
	      x ? (unsigned long)x->concurrent : 0UL);
	x = find_cell(m, 2, 32, ACCESS_STORE);
	CHECK(x && x->concurrent == 0, "unmatched cell unchanged");
	CHECK_EQ_U64(m->concurrent, 72 + 64, "line's concurrent samples");
	for (unsigned t = 0; t < m->n_threads; t++)
		CHECK_EQ_U64(m->threads[t].concurrent, m->threads[t].tid == 1 ? 72 : 64,
			     "thread's concurrent samples");
	instance_line_free(m);
out:
	instance_groups_free(g, n);
	for (unsigned i = 0; i < 4; i++)
		instance_line_free(lines[i]);
}

/* Never more concurrent than its samples, never less than it was. */
static void test_concurrency_bounds(void)
{
	struct line_cell a[] = { cell(1, 0x500, 0, ACCESS_LOAD, 10, 10),
				 cell(2, 0x500, 0, ACCESS_LOAD, 10, 10) };
	struct line_cell b[] = { cell(1, 0x500, 0, ACCESS_LOAD, 8, 8),
				 cell(2, 0x500, 0, ACCESS_LOAD, 7, 7) };
	struct line *lines[] = { make_line(0x1000, a, 2), make_line(0x2000, b, 2) };
	struct instance_group *g;
	size_t n = instance_groups(lines, 2, &g);

	CHECK_EQ_U64(n, 1, "one group");
	if (n == 1) {
		struct line *m = instance_line(&g[0]);

		CHECK_EQ_U64(m->concurrent, m->count, "all concurrent, no more");
		instance_line_free(m);
	}
	instance_groups_free(g, n);
	instance_line_free(lines[0]);
	instance_line_free(lines[1]);
}

/* Two slots, each written in turn by a pool's 40 short-lived workers: no
 * thread has a share of either line, so there is no thread set to know
 * the structure by; pooled, two workers' slots would read as one field. */
static void test_no_thread_set(void)
{
	struct line_cell a[40], b[40];
	struct line *lines[2];
	struct instance_group *g;
	size_t n;

	for (unsigned i = 0; i < 40; i++) {
		a[i] = cell(100 + 2 * i, 0x700, 0, ACCESS_RMW, 2, 2);
		b[i] = cell(101 + 2 * i, 0x700, 0, ACCESS_RMW, 2, 2);
	}
	lines[0] = make_line(0x10000, a, 40);
	lines[1] = make_line(0x10040, b, 40);
	n = instance_groups(lines, 2, &g);
	CHECK_EQ_U64(n, 2, "two lines, each alone");
	instance_groups_free(g, n);
	instance_line_free(lines[0]);
	instance_line_free(lines[1]);
}

int main(void)
{
	test_grouping();
	test_concurrency_bounds();
	test_no_thread_set();
	return test_done();
}
