#include "reports/gain.h"

#include <stdlib.h>

#include "common/util.h"

/* ------------------------------------------------------------------ */
/* queued stores */

struct queued_store {
	uint32_t pid, tid;
	uint64_t ip;
	uint64_t count;
};

struct gain_queue {
	gain_function_fn function_of;
	gain_stream_fn stream_of;
	void *ctx;
	struct queued_store *v;          /* sorted by pid, tid, ip; ips unique */
	size_t n, alloc;
};

static int cmp_queued(const void *a, const void *b)
{
	const struct queued_store *x = a, *y = b;

	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	if (x->tid != y->tid)
		return x->tid < y->tid ? -1 : 1;
	if (x->ip != y->ip)
		return x->ip < y->ip ? -1 : 1;
	return 0;
}

struct gain_queue *gain_queue_new(struct line_table *t, gain_function_fn function_of,
				  gain_stream_fn stream_of, void *ctx)
{
	struct gain_queue *q = xcalloc(1, sizeof(*q));
	size_t n = line_table_count(t), out = 0;

	q->function_of = function_of;
	q->stream_of = stream_of;
	q->ctx = ctx;
	for (size_t i = 0; i < n; i++) {
		const struct line *l = line_table_line(t, i);

		if (l->n_threads != 1)
			continue;
		for (unsigned c = 0; c < l->n_cells; c++) {
			const struct line_cell *cell = &l->cells[c];

			if (!access_kind_writes(cell->kind))
				continue;
			ALLOC_GROW(q->v, q->n + 1, q->alloc);
			q->v[q->n++] = (struct queued_store){
				.pid = cell_pid(l, cell), .tid = cell->tid, .ip = cell->ip, .count = cell->count,
			};
		}
	}
	if (!q->n)
		return q;
	sort_items(q->v, q->n, sizeof(*q->v), cmp_queued);
	for (size_t i = 1; i < q->n; i++) {     /* one entry per store */
		if (!cmp_queued(&q->v[out], &q->v[i]))
			q->v[out].count += q->v[i].count;
		else
			q->v[++out] = q->v[i];
	}
	q->n = out + 1;
	return q;
}

void gain_queue_free(struct gain_queue *q)
{
	if (!q)
		return;
	free(q->v);
	free(q);
}

/* First entry not before (pid, tid, ip). */
static size_t queue_lower_bound(const struct gain_queue *q, uint32_t pid,
				uint32_t tid, uint64_t ip)
{
	struct queued_store key = { .pid = pid, .tid = tid, .ip = ip };
	size_t lo = 0, hi = q->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (cmp_queued(&q->v[mid], &key) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

uint64_t gain_queue_samples(struct gain_queue *q, uint32_t pid, uint32_t tid,
			    uint64_t ip, uint64_t *func)
{
	uint64_t start, end, n = 0;

	*func = 0;
	if (!q || !q->n || !q->function_of(q->ctx, pid, ip, &start, &end) || end <= start)
		return 0;
	*func = start;
	for (size_t i = queue_lower_bound(q, pid, tid, start);
	     i < q->n && q->v[i].pid == pid && q->v[i].tid == tid && q->v[i].ip < end; i++)
		n += q->v[i].count;
	return n;
}

/* ------------------------------------------------------------------ */
/* the model */

static bool cells_overlap(const struct line_cell *a, const struct line_cell *b)
{
	return a->offset < b->offset + b->size && b->offset < a->offset + a->size;
}

/* Does c read bytes that its own thread, and no other, writes?  Then its
 * load is served by the thread's own latest store (forwarded from the
 * store buffer, or still in L1): it waits for the store queue to drain,
 * as a store does, not for another core's data. */
static bool reads_own_word(const struct line *l, const struct line_cell *c)
{
	bool own = false;

	for (unsigned i = 0; i < l->n_cells; i++) {
		const struct line_cell *w = &l->cells[i];

		if (!access_kind_writes(w->kind) || !cells_overlap(w, c))
			continue;
		if (w->tid != c->tid)
			return false;
		own = true;
	}
	return own;
}

static bool commits_in_bursts(const struct line *l, const struct line_cell *c,
			      struct gain_queue *q)
{
	return q && q->stream_of &&
	       q->stream_of(q->ctx, cell_pid(l, c), c->ip) == STORE_STREAM_ONE_LINE;
}

static double residual(const struct line *l, const struct line_cell *c,
		       struct gain_queue *q)
{
	double r;

	if (c->weighted && c->weight) {
		r = GAIN_L1_CYCLES / ((double)c->weight / (double)c->weighted);
		return r > 1 ? 1 : r;
	}
	if (c->kind == ACCESS_ATOMIC)
		return GAIN_RESIDUAL_ATOMIC;
	if (c->kind == ACCESS_STORE || reads_own_word(l, c))
		return commits_in_bursts(l, c, q) ? GAIN_RESIDUAL_BURST : GAIN_RESIDUAL_STORE;
	return GAIN_RESIDUAL_LOAD;
}

struct charged {                         /* a (thread, function) charged once */
	uint32_t tid;
	uint64_t func;
};

void gain_saved(const struct line *l, const unsigned *range_of_cell,
		unsigned n_ranges, struct gain_queue *q, double *saved)
{
	struct charged *done = NULL;
	size_t n_done = 0, alloc_done = 0;
	bool *seen = xcalloc(l->n_cells, sizeof(*seen));

	for (unsigned ri = 0; ri < n_ranges; ri++)
		saved[ri] = 0;
	for (unsigned i = 0; i < l->n_cells; i++)
		if (range_of_cell[i] < n_ranges)
			saved[range_of_cell[i]] += (double)l->cells[i].count *
						   (1 - residual(l, &l->cells[i], q));
	if (!q) {
		free(seen);
		return;
	}
	/* The queue of a thread's function goes to the store with the most
	 * samples there, once: hottest stores first. */
	for (;;) {
		const struct line_cell *c;
		unsigned best = l->n_cells;
		uint64_t func, n;
		size_t k;

		for (unsigned i = 0; i < l->n_cells; i++)
			if (!seen[i] && range_of_cell[i] < n_ranges &&
			    access_kind_writes(l->cells[i].kind) &&
			    (best == l->n_cells || l->cells[i].count > l->cells[best].count))
				best = i;
		if (best == l->n_cells)
			break;
		seen[best] = true;
		c = &l->cells[best];
		if (commits_in_bursts(l, c, q))      /* no other line queued behind it */
			continue;
		n = gain_queue_samples(q, cell_pid(l, c), c->tid, c->ip, &func);
		if (!n)
			continue;
		for (k = 0; k < n_done; k++)
			if (done[k].tid == c->tid && done[k].func == func)
				break;
		if (k < n_done)
			continue;
		ALLOC_GROW(done, n_done + 1, alloc_done);
		done[n_done++] = (struct charged){ c->tid, func };
		saved[range_of_cell[best]] += (double)n * (1 - GAIN_RESIDUAL_STORE);
	}
	free(done);
	free(seen);
}

static double speedup(double saved, uint64_t total)
{
	double rest = (double)total - saved;

	if (saved <= 0 || !total)
		return 1;
	/* bounded where the saved samples are (nearly) all of them: at
	 * most 4 / GAIN_RESIDUAL_LOAD, not infinity */
	if (rest < (double)total * GAIN_RESIDUAL_LOAD / 4)
		rest = (double)total * GAIN_RESIDUAL_LOAD / 4;
	return (double)total / rest;
}

void gain_predict(struct report_line *l, const double *saved, uint64_t total_samples)
{
	double false_part = 0, true_part = 0;

	for (unsigned i = 0; i < l->n_ranges; i++) {
		const struct report_range *g = &l->ranges[i];

		if (g->true_shared)
			true_part += saved[i];
		else if (g->false_victim || g->false_writer)
			false_part += saved[i];
	}
	l->predicted_gain = speedup(l->kind == SHARING_TRUE ? true_part : false_part,
				    total_samples);
	l->predicted_gain_all = speedup(false_part + true_part, total_samples);
}
