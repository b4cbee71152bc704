/* classify.c - is a line contended, and how: false, true or mixed sharing.
 *
 * The evidence is per (thread, range): how many concurrent samples a thread
 * has on a distinct (offset, size) range of the line, and how many of them
 * write.  Pairs below the noise threshold are dropped, so one stray sample
 * (a misdecoded address, a thread passing by) cannot turn false sharing
 * into mixed sharing.  Noise is judged per (thread, range) rather than per
 * cell so that a range reached from many code sites is not lost piecemeal.
 */
#include "detector/classify.h"

#include <stdlib.h>
#include <string.h>

#include "common/util.h"

const char *sharing_kind_name(enum sharing_kind k)
{
	switch (k) {
	case SHARING_NONE: return "none";
	case SHARING_FALSE: return "false sharing";
	case SHARING_TRUE: return "true sharing";
	case SHARING_MIXED: return "mixed sharing";
	}
	return "?";
}

const char *sharing_kind_id(enum sharing_kind k)
{
	switch (k) {
	case SHARING_NONE: return "none";
	case SHARING_FALSE: return "false";
	case SHARING_TRUE: return "true";
	case SHARING_MIXED: return "mixed";
	}
	return "?";
}

void classify_config_default(struct classify_config *c)
{
	*c = (struct classify_config){
		.min_score = 0.005,
		.min_concurrent_frac = 0.3,
		.min_concurrent = 8,
		.noise_frac = 0.01,
	};
}

/* What one thread did on one range; built from the cells, one per pair. */
struct usage {
	unsigned range;
	uint32_t tid;
	uint64_t concurrent;
	uint64_t writes;        /* all write samples, concurrent or not */
	bool writer;            /* counts as a writer of the range (above the noise) */
	bool toucher;           /* counts as touching it (above the noise) */
	uint64_t first, last;   /* the thread's span on the line (line_thread) */
	bool span_known;
	bool in_turn;           /* the range's sampled threads never overlap:
	                           an unsampled one (watched) joins no one */
};

/* Who takes part in one range: counts and one representative of each. */
struct participants {
	unsigned n_touch, n_write;
	uint32_t toucher, writer;
	uint64_t minor;          /* concurrent samples of the threads below the noise */
	unsigned n_minor;        /* those threads */
	unsigned first, n_usage; /* its usages: u[first, first + n_usage) */
};

static int cmp_range(const void *a, const void *b)
{
	const struct range_verdict *x = a, *y = b;

	if (x->offset != y->offset)
		return x->offset < y->offset ? -1 : 1;
	return (x->size > y->size) - (x->size < y->size);
}

static int cmp_usage(const void *a, const void *b)
{
	const struct usage *x = a, *y = b;

	if (x->range != y->range)
		return x->range < y->range ? -1 : 1;
	return (x->tid > y->tid) - (x->tid < y->tid);
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return (x > y) - (x < y);
}

/* The distinct (offset, size) ranges of the line's cells, sorted. */
static unsigned collect_ranges(const struct line *l, struct range_verdict **out)
{
	struct range_verdict *r = xcalloc(l->n_cells, sizeof(*r));
	unsigned n = 0;

	for (unsigned i = 0; i < l->n_cells; i++) {
		r[i].offset = l->cells[i].offset;
		r[i].size = l->cells[i].size;
	}
	sort_items(r, l->n_cells, sizeof(*r), cmp_range);
	for (unsigned i = 0; i < l->n_cells; i++)
		if (!n || cmp_range(&r[n - 1], &r[i]))
			r[n++] = r[i];
	*out = r;
	return n;
}

static unsigned range_index(const struct range_verdict *r, unsigned n,
			    const struct line_cell *c)
{
	struct range_verdict key = { .offset = c->offset, .size = c->size };
	const struct range_verdict *hit;

	hit = search_items(&key, r, n, sizeof(*r), cmp_range);
	return hit - r;
}

static int cmp_thread_tid(const void *a, const void *b)
{
	const struct line_thread *x = a, *y = b;

	return (x->tid > y->tid) - (x->tid < y->tid);
}

struct span {
	uint64_t first, last;
};

static int cmp_span(const void *a, const void *b)
{
	const struct span *x = a, *y = b;

	return (x->first > y->first) - (x->first < y->first);
}

/* Two or more sampled threads, each gone from the range before the next
 * came: a pool's workers taking a slot in turn.  Usages u[0, n) are one
 * range's. */
static bool range_in_turn(const struct usage *u, unsigned n)
{
	struct span *s = xcalloc(n ? n : 1, sizeof(*s));
	unsigned known = 0;
	bool in_turn = true;

	for (unsigned i = 0; i < n; i++)
		if (u[i].span_known)
			s[known++] = (struct span){ u[i].first, u[i].last };
	sort_items(s, known, sizeof(*s), cmp_span);
	for (unsigned i = 1; i < known && in_turn; i++)
		in_turn = s[i].first > s[i - 1].last;
	free(s);
	return in_turn && known >= 2;
}

static void mark_in_turn(struct usage *u, unsigned n)
{
	for (unsigned i = 0, j; i < n; i = j) {
		bool in_turn;

		for (j = i; j < n && u[j].range == u[i].range; j++)
			;
		in_turn = range_in_turn(u + i, j - i);
		for (unsigned k = i; k < j; k++)
			u[k].in_turn = in_turn;
	}
}

/* Each usage's thread span, from the line's threads. */
static void add_spans(const struct line *l, struct usage *u, unsigned n)
{
	struct line_thread *t = xcalloc(l->n_threads ? l->n_threads : 1, sizeof(*t));

	copy_bytes(t, l->threads, l->n_threads * sizeof(*t));
	sort_items(t, l->n_threads, sizeof(*t), cmp_thread_tid);
	for (unsigned i = 0; i < n; i++) {
		struct line_thread key = { .tid = u[i].tid };
		const struct line_thread *hit = search_items(&key, t, l->n_threads, sizeof(*t),
							cmp_thread_tid);

		if (hit && (hit->first_time || hit->last_time)) {
			u[i].first = hit->first_time;
			u[i].last = hit->last_time;
			u[i].span_known = true;
		}
	}
	free(t);
}

/*
 * Per-range sample counts (noise included: they describe what happened),
 * and the (thread, range) usages, merged over code sites and kinds.
 */
static unsigned collect_usage(const struct line *l, struct range_verdict *r,
			      unsigned n_ranges, struct usage **out)
{
	struct usage *u = xcalloc(l->n_cells, sizeof(*u));
	unsigned n = 0;

	for (unsigned i = 0; i < l->n_cells; i++) {
		const struct line_cell *c = &l->cells[i];
		unsigned ri = range_index(r, n_ranges, c);

		r[ri].all += c->count;
		if (access_kind_reads(c->kind))
			r[ri].reads += c->concurrent;
		if (access_kind_writes(c->kind))
			r[ri].writes += c->concurrent;

		u[i].range = ri;
		u[i].tid = c->tid;
		u[i].concurrent = c->concurrent;
		if (access_kind_writes(c->kind))
			u[i].writes = c->count;
	}
	sort_items(u, l->n_cells, sizeof(*u), cmp_usage);
	for (unsigned i = 0; i < l->n_cells; i++) {
		if (n && !cmp_usage(&u[n - 1], &u[i])) {
			u[n - 1].concurrent += u[i].concurrent;
			u[n - 1].writes += u[i].writes;
		} else {
			u[n++] = u[i];
		}
	}
	add_spans(l, u, n);
	mark_in_turn(u, n);
	*out = u;
	return n;
}

static double noise_threshold(const struct line *l,
			      const struct classify_config *cfg)
{
	double t = cfg->noise_frac * (double)l->concurrent;

	return t > 1 ? t : 1;
}

static unsigned count_distinct(uint32_t *v, unsigned n)
{
	unsigned distinct = n ? 1 : 0;

	sort_items(v, n, sizeof(*v), cmp_u32);
	for (unsigned i = 1; i < n; i++)
		distinct += v[i] != v[i - 1];
	return distinct;
}

/*
 * Count the threads that touch and write each range, and the line, over
 * the usages that rise above the noise.
 */
static void count_participants(struct usage *u, unsigned n_usage,
			       double threshold, struct participants *p,
			       struct line_verdict *out)
{
	uint32_t *threads = xcalloc(n_usage, sizeof(*threads));
	uint32_t *writers = xcalloc(n_usage, sizeof(*writers));
	unsigned n_threads = 0, n_writers = 0;

	/* Short-lived threads (a pool that churns, a thread per request)
	 * each leave a few samples, all below the noise; together they
	 * are as much evidence as one long-lived thread, and count. */
	for (unsigned i = 0; i < n_usage; i++) {
		if (u[i].concurrent < threshold) {
			p[u[i].range].minor += u[i].concurrent;
			p[u[i].range].n_minor++;
		}
	}
	for (unsigned i = 0; i < n_usage; i++) {
		struct participants *pp = &p[u[i].range];

		if (!pp->n_usage++)
			pp->first = i;      /* usages are sorted by range */
	}
	for (unsigned i = 0; i < n_usage; i++) {
		struct participants *pp = &p[u[i].range];
		bool significant = u[i].concurrent >= threshold ||
			(u[i].concurrent && pp->n_minor >= 2 && pp->minor >= threshold);

		if (significant) {
			u[i].toucher = true;
			pp->n_touch++;
			pp->toucher = u[i].tid;
			threads[n_threads++] = u[i].tid;
		}
		/* Stores retire into the store buffer and are sampled far
		 * less than the loads stalling on the same line (on the
		 * Klass check: one store sample per several hundred loads).
		 * A thread whose concurrent use of the range is above the
		 * noise writes it if any of its samples there wrote. */
		if (significant && u[i].writes >= 1) {
			u[i].writer = true;
			pp->n_write++;
			pp->writer = u[i].tid;
			writers[n_writers++] = u[i].tid;
		}
	}
	for (unsigned ri = 0; ri < out->n_ranges; ri++) {
		out->ranges[ri].n_threads = p[ri].n_touch;
		out->ranges[ri].n_writers = p[ri].n_write;
	}
	/* a thread has one usage per range it touches: count it once */
	out->n_threads = count_distinct(threads, n_threads);
	out->n_writers = count_distinct(writers, n_writers);
	free(threads);
	free(writers);
}

/* Does some thread write w while a different thread touches a? */
static bool different_threads(const struct participants *w,
			      const struct participants *a)
{
	if (!w->n_write || !a->n_touch)
		return false;
	return w->n_write > 1 || a->n_touch > 1 || w->writer != a->toucher;
}

static bool spans_meet(const struct usage *x, const struct usage *y)
{
	if (!x->span_known)
		return !x->in_turn;     /* not known: as its range's others do */
	if (!y->span_known)
		return !y->in_turn;
	return x->first <= y->last && y->first <= x->last;
}

/*
 * ...and were both on the line at some time?  Successive workers of a
 * pool that write one slot in turn (each joined before the next starts)
 * share it with no one: their sample spans on the line never meet, though
 * the concurrency window may have joined the last samples of one to the
 * first of the next.  Usually the first pair checked answers.
 */
static bool threads_meet(const struct usage *u, const struct participants *p,
			 unsigned w, unsigned a)
{
	if (!different_threads(&p[w], &p[a]))
		return false;
	for (unsigned i = p[w].first; i < p[w].first + p[w].n_usage; i++) {
		if (!u[i].writer)
			continue;
		for (unsigned j = p[a].first; j < p[a].first + p[a].n_usage; j++)
			if (u[j].toucher && u[j].tid != u[i].tid && spans_meet(&u[i], &u[j]))
				return true;
	}
	return false;
}

/*
 * Do ranges x and y have the same writers, two or more?  Fields that the
 * same threads all write (updated together under a lock, by whichever
 * thread holds it) are each truly shared: on two lines they would move
 * between the same cores twice as often.  Between them there is no false
 * sharing to pad away.
 */
static bool co_written(const struct usage *u, const struct participants *p,
		       unsigned x, unsigned y)
{
	unsigned i = p[x].first, j = p[y].first;
	unsigned end_x = i + p[x].n_usage, end_y = j + p[y].n_usage;

	if (p[x].n_write < 2 || p[x].n_write != p[y].n_write)
		return false;
	for (;;) {
		while (i < end_x && !u[i].writer)
			i++;
		while (j < end_y && !u[j].writer)
			j++;
		if (i == end_x || j == end_y)
			return i == end_x && j == end_y;
		if (u[i++].tid != u[j++].tid)
			return false;
	}
}

static bool overlap(const struct range_verdict *x, const struct range_verdict *y)
{
	return x->offset < y->offset + y->size && y->offset < x->offset + x->size;
}

/*
 * Every (written range, touched range) pair that two different threads
 * form is evidence: overlapping bytes are true sharing, disjoint bytes
 * false sharing, unless the same threads write both (co_written).  Comparing ranges rather than threads keeps this
 * O(ranges^2) on lines touched by many threads.
 */
static enum sharing_kind pair_ranges(struct range_verdict *r,
				     const struct participants *p, unsigned n,
				     const struct usage *u)
{
	bool any_true = false, any_false = false;

	for (unsigned w = 0; w < n; w++) {
		for (unsigned a = 0; a < n; a++) {
			if (!threads_meet(u, p, w, a))
				continue;
			if (overlap(&r[w], &r[a])) {
				r[w].true_shared = r[a].true_shared = true;
				any_true = true;
			} else if (!co_written(u, p, w, a)) {
				r[a].false_victim = true;
				r[w].false_writer = true;
				any_false = true;
			}
		}
	}
	if (any_true && any_false)
		return SHARING_MIXED;
	if (any_true)
		return SHARING_TRUE;
	return any_false ? SHARING_FALSE : SHARING_NONE;
}

static double ratio(uint64_t num, uint64_t den)
{
	return den ? (double)num / (double)den : 0.0;
}

/*
 * Samples that show the line moving between cores: the concurrent ones or,
 * when the hardware reports data sources, the loads that found the line
 * modified in another core (HITM) or got it from a peer core's cache,
 * whichever is more.  Without data sources (soft) the second count is 0
 * and the score is the share of concurrent samples.
 */
static uint64_t contention_evidence(const struct line *l)
{
	uint64_t coherence = 0;

	for (unsigned i = 0; i < l->n_cells; i++)
		coherence += l->cells[i].hitm_local + l->cells[i].hitm_remote +
			     l->cells[i].peer;
	return coherence > l->concurrent ? coherence : l->concurrent;
}

/*
 * Did the line's writes repeat, while other threads used it?  A line
 * moves between cores once per write.  A thread seen on the line once, storing (a stop flag set at
 * shutdown among the workers' reads of it), moved it once and costs
 * nothing.  Stores are sampled rarely (count_participants), so a writer
 * that is also seen using the line again and again counts even with one
 * sampled store: that is the Klass check's writer.  Loads the hardware
 * saw miss to another core's modified copy are evidence by themselves.
 */
static bool writes_repeat(const struct line *l)
{
	uint64_t writes = 0;

	for (unsigned i = 0; i < l->n_cells; i++) {
		const struct line_cell *c = &l->cells[i];

		if (c->hitm_local || c->hitm_remote || c->peer)
			return true;
		if (access_kind_writes(c->kind))
			writes += c->concurrent;
	}
	if (writes >= MIN_LINE_WRITES)
		return true;
	for (unsigned i = 0; i < l->n_threads; i++)
		if (l->threads[i].has_written &&
		    l->threads[i].concurrent >= MIN_LINE_WRITES)
			return true;
	return false;
}

static bool is_contended(const struct line *l, const struct line_verdict *v,
			 const struct classify_config *cfg)
{
	return v->kind != SHARING_NONE && writes_repeat(l) &&
	       v->n_threads >= 2 && v->n_writers >= 1 &&
	       l->concurrent >= cfg->min_concurrent &&
	       v->concurrent_frac >= cfg->min_concurrent_frac &&
	       v->score >= cfg->min_score;
}

void classify_line(const struct line *l, uint64_t total_samples,
		   const struct classify_config *cfg, struct line_verdict *out)
{
	struct participants *p;
	struct usage *u;
	unsigned n_usage;

	memset(out, 0, sizeof(*out));
	out->n_ranges = collect_ranges(l, &out->ranges);
	n_usage = collect_usage(l, out->ranges, out->n_ranges, &u);

	p = xcalloc(out->n_ranges ? out->n_ranges : 1, sizeof(*p));
	count_participants(u, n_usage, noise_threshold(l, cfg), p, out);
	out->kind = pair_ranges(out->ranges, p, out->n_ranges, u);

	out->score = ratio(contention_evidence(l), total_samples);
	out->share = ratio(l->count, total_samples);
	out->concurrent_frac = ratio(l->concurrent, l->count);
	out->contended = is_contended(l, out, cfg);
	free(p);
	free(u);
}

bool line_verdict_minor(const struct line *l, const struct line_verdict *v,
			const struct classify_config *cfg)
{
	return !v->contended && v->kind != SHARING_NONE && writes_repeat(l) &&
	       v->n_threads >= 2 && v->n_writers >= 1 &&
	       (l->concurrent >= MINOR_MIN_CONCURRENT || l->watch_shared) &&
	       v->concurrent_frac >= cfg->min_concurrent_frac;
}

void line_verdict_release(struct line_verdict *v)
{
	free(v->ranges);
	v->ranges = NULL;
	v->n_ranges = 0;
}
