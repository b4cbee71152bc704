#include "reports/gain.h"

#include <math.h>
#include <stdlib.h>

#include "common/util.h"
#include "reports/locks.h"

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
	gain_steers_fn steers_of;
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

void gain_queue_set_steers(struct gain_queue *q, gain_steers_fn steers_of)
{
	if (q)
		q->steers_of = steers_of;
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

/* Samples of tid's stores at exactly ip to private lines. */
uint64_t gain_queue_ip_samples(struct gain_queue *q, uint32_t pid, uint32_t tid, uint64_t ip)
{
	size_t i;

	if (!q || !q->n)
		return 0;
	i = queue_lower_bound(q, pid, tid, ip);
	return i < q->n && q->v[i].pid == pid && q->v[i].tid == tid && q->v[i].ip == ip ?
	       q->v[i].count : 0;
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

/* The residual of an access: the fraction of its contended cost that
 * stays once the line is fixed. */
static double residual(const struct line *l, const struct line_cell *c,
		       struct gain_queue *q, const struct gain_prices *p)
{
	if (c->weighted && c->weight) {
		double r = GAIN_L1_CYCLES / ((double)c->weight / (double)c->weighted);

		return r > 1 ? 1 : r;
	}
	if (c->kind == ACCESS_ATOMIC)
		return p->atomic;
	if (c->fenced)   /* the fence waits for the store anyway */
		return p->fenced;
	if (c->kind == ACCESS_STORE || reads_own_word(l, c))
		return commits_in_bursts(l, c, q) ? p->burst : p->store;
	return p->load;
}

/* samples that a fix makes cost r of what they cost now: the same in the
 * point and at both ends (the range around them is the fit's, gain.h) */
static void add_saving(struct gain_saving *s, double samples, double r)
{
	s->point += samples * (1 - r);
	s->low += samples * (1 - r);
	s->high += samples * (1 - r);
}

/* c's instruction's samples on this line (*here) and on lines its thread
 * alone uses (*elsewhere): a counter or a field has none elsewhere, a
 * histogram's increment or an array walk that now and then lands here
 * has. */
static void hit_samples(const struct line *l, const struct line_cell *c,
			struct gain_queue *q, double *here, double *elsewhere)
{
	uint64_t n = 0;

	for (unsigned i = 0; i < l->n_cells; i++)
		if (l->cells[i].tid == c->tid && l->cells[i].ip == c->ip &&
		    cell_pid(l, &l->cells[i]) == cell_pid(l, c))
			n += l->cells[i].count;
	*here = (double)n;
	*elsewhere = (double)gain_queue_ip_samples(q, cell_pid(l, c), c->tid, c->ip);
}

/* Stores queued behind c: n samples of its thread's private stores in its
 * function, held back as often as c's instruction goes to the line.  The
 * samples overstate that share: a contended store takes about
 * 1/p->store times the time of a private one, so it gets that
 * many more samples per execution.  The point charges the queue at the
 * executions' share (here * r / (here * r + elsewhere)), which moves
 * smoothly with the samples: a histogram recorded twice no longer flips
 * between "no queue" and "all of it" (heap_struct_array: 1.23x and 8.40x
 * from two quiet recordings of the old model).  The low end charges it
 * only where the instruction goes nowhere else (a counter: it waits on
 * every pass), the high end at the samples' share (every wait as long as
 * the samples say). */
static void add_queue(struct gain_saving *s, const struct gain_prices *p, double n,
		      double here, double elsewhere)
{
	double exec_share, sample_share, per = 1 - GAIN_RESIDUAL_QUEUED;

	if (here <= 0)
		return;
	exec_share = here * p->store / (here * p->store + elsewhere);
	sample_share = here / (here + elsewhere);
	s->point += n * exec_share * per;
	if (elsewhere <= 0)
		s->low += n * per;
	s->high += n * sample_share * per;
}

/* Is range ri a value threads keep overwriting with their own and check
 * with a branch?  Plain stores from two threads or more (not a counter's
 * read-modify-write, not a locked op), and a load of it by a thread that
 * stores there too, deciding a branch. */
static bool range_steers_branch(const struct line *l, const unsigned *range_of_cell,
				unsigned ri, struct gain_queue *q)
{
	uint32_t storer = 0;
	bool two = false;

	if (!q || !q->steers_of)
		return false;
	for (unsigned i = 0; i < l->n_cells; i++) {
		const struct line_cell *c = &l->cells[i];

		if (range_of_cell[i] != ri || c->kind != ACCESS_STORE)
			continue;
		if (storer && storer != c->tid)
			two = true;
		storer = c->tid;
	}
	if (!two)
		return false;
	for (unsigned i = 0; i < l->n_cells; i++) {
		const struct line_cell *c = &l->cells[i];
		bool stores = false;

		if (range_of_cell[i] != ri || c->kind != ACCESS_LOAD)
			continue;
		for (unsigned k = 0; k < l->n_cells && !stores; k++)
			stores = range_of_cell[k] == ri && l->cells[k].kind == ACCESS_STORE &&
				 l->cells[k].tid == c->tid;
		if (stores && q->steers_of(q->ctx, cell_pid(l, c), c->ip))
			return true;
	}
	return false;
}

struct charged {                         /* a (thread, function) charged once */
	uint32_t tid;
	uint64_t func;
};

/* a measured price, or the reference where there is none (0) or it is
 * not one (below 1, not finite: never from transfer_price.c) */
static double price_or(double measured, double reference)
{
	return measured >= 1 && isfinite(measured) ? measured : reference;
}

void gain_prices_at(struct gain_prices *p, const struct transfer_price *t)
{
	double locked = price_or(t ? t->locked : 0, GAIN_REFERENCE_LOCKED);
	double store = price_or(t ? t->store : 0, GAIN_REFERENCE_STORE);
	double fenced = price_or(t ? t->fenced : 0, GAIN_REFERENCE_FENCED);
	double transfer = (GAIN_REFERENCE_LOCKED - 1) / (locked - 1);

	p->locked = locked;
	p->store_loop = store;
	p->fenced_loop = fenced;
	p->fenced = fmin(1, 1 / fenced);
	p->atomic = fmin(1, GAIN_RESIDUAL_ATOMIC * GAIN_REFERENCE_LOCKED / locked);
	p->store = fmin(1, GAIN_RESIDUAL_STORE * transfer);
	p->load = fmin(1, GAIN_RESIDUAL_LOAD * transfer);
	p->burst = fmin(1, GAIN_RESIDUAL_BURST * GAIN_REFERENCE_STORE / store);
}

struct report_pricing report_pricing(const struct report *r)
{
	struct gain_prices p;

	gain_prices_at(&p, &r->price);
	return (struct report_pricing){
		.locked = p.locked, .store = p.store_loop, .fenced = p.fenced_loop,
		.reference_locked = GAIN_REFERENCE_LOCKED,
		.reference_store = GAIN_REFERENCE_STORE,
		.reference_fenced = GAIN_REFERENCE_FENCED,
	};
}

void gain_saved(const struct line *l, const unsigned *range_of_cell,
		unsigned n_ranges, struct gain_queue *q, const struct gain_prices *prices,
		struct gain_saving *saved)
{
	struct gain_prices reference;
	struct charged *done = NULL;
	size_t n_done = 0, alloc_done = 0;
	bool *seen = xcalloc(l->n_cells, sizeof(*seen));

	if (!prices) {
		gain_prices_at(&reference, NULL);
		prices = &reference;
	}
	for (unsigned ri = 0; ri < n_ranges; ri++)
		saved[ri] = (struct gain_saving){ 0 };
	for (unsigned i = 0; i < l->n_cells; i++) {
		struct gain_saving *s = &saved[range_of_cell[i]];
		double r;

		if (range_of_cell[i] >= n_ranges)
			continue;
		r = residual(l, &l->cells[i], q, prices);
		add_saving(s, (double)l->cells[i].count, r);
		if (l->cells[i].kind == ACCESS_ATOMIC)
			s->atomic_left += (double)l->cells[i].count * r;
	}
	if (!q) {
		free(seen);
		return;
	}
	for (unsigned ri = 0; ri < n_ranges; ri++)
		saved[ri].steers_branch = range_steers_branch(l, range_of_cell, ri, q);
	/* The queue of a thread's function goes to the store with the most
	 * samples there, once: hottest stores first. */
	for (;;) {
		const struct line_cell *c;
		unsigned best = l->n_cells;
		double here, elsewhere;
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
		hit_samples(l, c, q, &here, &elsewhere);
		add_queue(&saved[range_of_cell[best]], prices, (double)n, here, elsewhere);
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

#define QUEUE_CAVEAT "the samples cannot tell how long the stores queued behind the " \
	"contended ones, or the locked ops the fix leaves, will cost"
static const char queue_caveat[] = QUEUE_CAVEAT;

/* The range a prediction p stands by: the 2x window around p where 3 in
 * 4 fit cases fell (gain.h), widened to the speedups of the saving's own
 * ends (the queue charged nowhere or at the samples' share, the locked
 * ops left paid in full), no lower than any fit case's fix measured.
 * Where that is wider than 2x, *why says so and only the floor stands
 * (*high 0): the point would be a guess. */
static void gain_range(double p, double low_end, double high_end, double *low, double *high,
		       const char **why)
{
	double lo = p * exp(GAIN_LIKELY_LOG_LOW), hi = p * exp(GAIN_LIKELY_LOG_HIGH);

	*why = NULL;
	*low = low_end < lo ? low_end : lo;
	if (*low < GAIN_FIT_MEASURED_MIN)
		*low = GAIN_FIT_MEASURED_MIN;
	*high = high_end > hi ? high_end : hi;
	if (*high > *low * 2 * (1 + 1e-9)) {
		*why = queue_caveat;
		*high = 0;
	}
}

/* A gain whose range is unknown is stated as its floor, "at least": a
 * point that a 2x window cannot hold would read as a promise (the
 * histograms of heap_struct_array: 2.9x stated, 1.9x measured).  No
 * floor above 1: the gain is unknown, with the same reason. */
static void floor_only(double *gain, double low, const char **range_unknown,
		       const char **note, const char **unknown)
{
	static const char unknown_queue[] = "unknown: " QUEUE_CAVEAT;

	if (!*range_unknown)
		return;
	if (low > 1.005) {
		*gain = low;
		*note = *range_unknown;
	} else {
		*gain = 0;
		if (unknown)
			*unknown = unknown_queue;
	}
}

static void add_range_saving(struct gain_saving *to, const struct gain_saving *s)
{
	to->point += s->point;
	to->low += s->low;
	to->high += s->high;
	to->atomic_left += s->atomic_left;
}

/* What the locked ops a fix leaves cost once they no longer wait: hidden
 * under the run's other remaining samples up to as many (gain.h), in the
 * point and the high end; the low end pays them in full. */
static void hide_atomic_left(struct gain_saving *s, uint64_t total)
{
	double other = (double)total - s->point - s->atomic_left;
	double hidden = s->atomic_left < other ? s->atomic_left : other;

	if (hidden <= 0)
		return;
	s->point += hidden;
	s->high += hidden;
}

static const char branch_caveat[] =
	"threads store their own values to it and a branch tests it: the model cannot "
	"price the mispredictions, only the accesses";

void gain_predict(struct report_line *l, const struct gain_saving *saved,
		  uint64_t total_samples)
{
	struct gain_saving fix = { 0 }, all = { 0 };
	bool steers = false;

	for (unsigned i = 0; i < l->n_ranges; i++) {
		const struct report_range *g = &l->ranges[i];
		bool counts = l->kind == SHARING_TRUE ? g->true_shared :
			      !g->true_shared && (g->false_victim || g->false_writer);

		if (!g->true_shared && !g->false_victim && !g->false_writer)
			continue;
		if (counts)
			add_range_saving(&fix, &saved[i]);
		add_range_saving(&all, &saved[i]);
		steers = steers || (g->true_shared && saved[i].steers_branch);
	}
	hide_atomic_left(&fix, total_samples);
	hide_atomic_left(&all, total_samples);
	l->predicted_gain = speedup(fix.point, total_samples);
	gain_range(l->predicted_gain, speedup(fix.low, total_samples),
		   speedup(fix.high, total_samples), &l->gain_low, &l->gain_high,
		   &l->gain_range_unknown);
	l->predicted_gain_all = speedup(all.point, total_samples);
	gain_range(l->predicted_gain_all, speedup(all.low, total_samples),
		   speedup(all.high, total_samples), &l->gain_all_low, &l->gain_all_high,
		   &l->gain_all_range_unknown);
	floor_only(&l->predicted_gain, l->gain_low, &l->gain_range_unknown, &l->gain_note,
		   &l->gain_unknown);
	floor_only(&l->predicted_gain_all, l->gain_all_low, &l->gain_all_range_unknown,
		   &l->gain_all_note, NULL);
	if (steers)       /* removing the true sharing stops the mispredictions too */
		gain_lower_bound(l, branch_caveat);
}

void gain_lower_bound(struct report_line *l, const char *why)
{
	if (l->predicted_gain_all <= 1.005 || l->gain_all_note)
		return;
	l->gain_all_note = why;
	l->gain_all_high = 0;
	if (l->kind == SHARING_TRUE) {    /* its fix is the removal */
		l->gain_note = why;
		l->gain_high = 0;
	}
}

static const char sleep_caveat[] =
	"threads wait for the lock asleep in the kernel, where no sample is taken: the model "
	"prices only the accesses to it";

void gain_note_lock(struct report_line *l)
{
	if (l->lock.name && lock_type_sleeps(l->lock.type_name))
		gain_lower_bound(l, sleep_caveat);
}
