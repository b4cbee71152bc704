/* watch_plan.c - what to watch, for how long, and what the counts say.
 *
 * The pure half of the watch backend (watch.h): choosing a line's words,
 * cutting them into windows, the sample period and hit cap of a window,
 * and turning exact counts into line-table evidence for classification.
 * No system calls here: everything is unit-tested (tests/test_watch.c).
 */
#include "watch.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

void watch_config_default(struct watch_config *c)
{
	memset(c, 0, sizeof(*c));
	c->window_s = 0.05;
	c->duty = 0.5;
	c->max_hits_per_s = 20000;
	c->max_samples_per_s = 2000;
	c->max_lines = 3;
	c->max_words = 4;
	c->min_word_share = 0.02;
}

/* ---- words of a line ------------------------------------------------- */

struct word_heat {
	unsigned index;           /* word in the line */
	uint64_t heat;
};

static int cmp_heat(const void *a, const void *b)
{
	const struct word_heat *x = a, *y = b;

	if (x->heat != y->heat)
		return x->heat > y->heat ? -1 : 1;
	return (x->index > y->index) - (x->index < y->index);
}

void watch_hot_words(const struct line *l, unsigned line_size,
		     const struct watch_config *cfg, struct watch_line_words *out)
{
	struct word_heat heat[WATCH_MAX_LINE_WORDS];
	unsigned n_words = line_size / WATCH_WORD, max = cfg->max_words;
	uint64_t total = 0;

	if (n_words > WATCH_MAX_LINE_WORDS)
		n_words = WATCH_MAX_LINE_WORDS;
	memset(out, 0, sizeof(*out));
	out->pid = l->pid;
	out->line = l->addr;
	for (unsigned i = 0; i < n_words; i++)
		heat[i] = (struct word_heat){ .index = i };

	for (unsigned i = 0; i < l->n_cells; i++) {
		const struct line_cell *c = &l->cells[i];
		uint64_t h = c->count * (access_kind_writes(c->kind) ? WATCH_WRITE_WEIGHT : 1);
		unsigned first = c->offset / WATCH_WORD;
		unsigned last = (c->offset + (c->size ? c->size : 1) - 1) / WATCH_WORD;

		for (unsigned k = first; k <= last && k < n_words; k++)
			heat[k].heat += h;
		total += h;
	}
	qsort(heat, n_words, sizeof(*heat), cmp_heat);
	if (max > n_words)
		max = n_words;
	for (unsigned i = 0; i < max; i++) {
		/* the first window has room for WATCH_WORDS_PER_WINDOW words
		 * at no extra cost: fill it with any sampled word (a rarely
		 * sampled neighbour is where false-sharing victims hide) */
		bool free_slot = i < WATCH_WORDS_PER_WINDOW;
		if (!heat[i].heat ||
		    (!free_slot && (double)heat[i].heat < cfg->min_word_share * (double)total))
			break;
		out->words[out->n_words++] = l->addr + (uint64_t)heat[i].index * WATCH_WORD;
	}
}

/* ---- windows ----------------------------------------------------------- */

unsigned watch_plan(const struct watch_line_words *lines, unsigned n,
		    struct watch_window **out)
{
	struct watch_window *win = NULL;
	size_t alloc = 0;
	unsigned n_win = 0;
	bool more = true;

	/* round r takes words [r*W, (r+1)*W) of every line that has them */
	for (unsigned start = 0; more; start += WATCH_WORDS_PER_WINDOW) {
		more = false;
		for (unsigned i = 0; i < n; i++) {
			const struct watch_line_words *lw = &lines[i];
			struct watch_window *w;

			if (start >= lw->n_words)
				continue;
			more = true;
			ALLOC_GROW(win, n_win + 1, alloc);
			w = &win[n_win++];
			memset(w, 0, sizeof(*w));
			w->pid = lw->pid;
			w->line = lw->line;
			for (unsigned k = start; k < lw->n_words &&
			     w->n_words < WATCH_WORDS_PER_WINDOW; k++)
				w->words[w->n_words++] = lw->words[k];
		}
	}
	*out = win;
	return n_win;
}

/* ---- cost control ------------------------------------------------------------ */

uint64_t watch_sample_period(uint64_t cur, uint64_t hits, double dt, double max_rate)
{
	double want;

	if (cur < 1)
		cur = 1;
	if (dt <= 0 || max_rate <= 0)
		return cur;
	want = ceil((double)hits / (dt * max_rate));
	/* a period only grows within a window: a burst should not make the
	 * records flip between exact and scaled */
	return want > (double)cur ? (want > 1e12 ? (uint64_t)1e12 : (uint64_t)want) : cur;
}

double watch_rest_s(double armed_s, const struct watch_config *cfg)
{
	double longest = armed_s > cfg->window_s ? armed_s : cfg->window_s;

	if (cfg->duty <= 0 || cfg->duty >= 1)
		return 0;
	return longest * (1 - cfg->duty) / cfg->duty;
}

bool watch_over_cap(uint64_t hits, double elapsed, const struct watch_config *cfg)
{
	if (cfg->max_hits_per_s <= 0 || elapsed < WATCH_MIN_WINDOW_S)
		return false;
	return (double)hits > cfg->max_hits_per_s * elapsed;
}

/* ---- evidence ------------------------------------------------------------------ */

static void add_cell(struct line *l, uint32_t tid, unsigned offset, int kind,
		     uint64_t count, uint64_t concurrent)
{
	struct line_cell *c;

	if (!count)
		return;
	ALLOC_GROW(l->cells, l->n_cells + 1, l->alloc_cells);
	c = &l->cells[l->n_cells++];
	memset(c, 0, sizeof(*c));
	c->tid = tid;
	c->offset = (uint8_t)offset;
	c->size = WATCH_WORD;
	c->kind = (uint8_t)kind;
	c->base_reg = -1;
	c->count = count;
	c->concurrent = concurrent;
	l->count += count;
	l->concurrent += concurrent;
}

static void add_thread(struct line *l, const struct watch_thread_count *t,
		       uint64_t concurrent)
{
	struct line_thread *lt = NULL;

	for (unsigned i = 0; i < l->n_threads; i++)
		if (l->threads[i].tid == t->tid)
			lt = &l->threads[i];
	if (!lt) {
		ALLOC_GROW(l->threads, l->n_threads + 1, l->alloc_threads);
		lt = &l->threads[l->n_threads++];
		memset(lt, 0, sizeof(*lt));
		lt->tid = t->tid;
	}
	lt->count += t->reads + t->writes;
	lt->concurrent += concurrent;
	lt->has_written |= t->writes > 0;
}

/* The concurrent hits of a thread, split over its reads and writes in
 * proportion (they are counted per window, not per access). */
static uint64_t share_of(uint64_t part, uint64_t whole, uint64_t concurrent)
{
	if (!whole)
		return 0;
	return (uint64_t)((double)concurrent * (double)part / (double)whole + 0.5);
}

bool watch_line_evidence(const struct watch_word_result *const *words, unsigned n,
			 uint64_t line_addr, unsigned line_size, struct line *out)
{
	bool any = false;

	memset(out, 0, sizeof(*out));
	out->addr = line_addr;
	for (unsigned i = 0; i < n; i++) {
		const struct watch_word_result *w = words[i];

		if (w->addr < line_addr || w->addr >= line_addr + line_size)
			continue;
		out->pid = w->pid;
		any = true;
		for (unsigned k = 0; k < w->n_threads; k++) {
			const struct watch_thread_count *t = &w->threads[k];
			uint64_t all = t->reads + t->writes;
			uint64_t cw = share_of(t->writes, all, t->concurrent);

			add_cell(out, t->tid, w->addr - line_addr, ACCESS_LOAD, t->reads,
				 t->concurrent - cw);
			add_cell(out, t->tid, w->addr - line_addr, ACCESS_STORE, t->writes, cw);
			add_thread(out, t, t->concurrent);
		}
	}
	return any;
}

void watch_line_evidence_release(struct line *l)
{
	free(l->cells);
	free(l->threads);
	memset(l, 0, sizeof(*l));
}

/* ---- merged with samples ------------------------------------------------------ */

struct word_tally {
	const struct watch_word_result *watched;
	uint64_t samples, concurrent;  /* sampled cells inside the word */
	const struct line_cell *rep;   /* one of them, for ip and base register */
};

static uint64_t word_hits(const struct watch_word_result *w)
{
	return w->reads + w->writes;
}

/* One merged cell; rep (may be NULL) lends its code address and base. */
static void add_scaled(struct line *l, uint32_t tid, unsigned offset, int kind,
		       uint64_t hits, double scale, double conc_frac,
		       const struct line_cell *rep)
{
	uint64_t count = (uint64_t)((double)hits * scale + 0.5);
	struct line_cell *c;

	if (!hits)
		return;
	if (!count && kind == ACCESS_STORE)
		count = 1;
	if (!count)
		return;
	add_cell(l, tid, offset, kind, count, (uint64_t)((double)count * conc_frac + 0.5));
	c = &l->cells[l->n_cells - 1];
	if (rep) {
		c->ip = rep->ip;
		c->base_reg = rep->base_reg;
		c->base_off = rep->base_off + ((int64_t)offset - (int64_t)rep->offset);
		/* the call chains sampled at that code (-g) stay with it */
		memcpy(c->chains, rep->chains, sizeof(c->chains));
	}
}

/* The line's threads, from its cells. */
static void threads_from_cells(struct line *l)
{
	for (unsigned i = 0; i < l->n_cells; i++) {
		const struct line_cell *c = &l->cells[i];
		struct watch_thread_count t = { .tid = c->tid };

		if (access_kind_writes(c->kind))
			t.writes = c->count;
		else
			t.reads = c->count;
		add_thread(l, &t, c->concurrent);
	}
}

static bool watched_thread(const struct watch_word_result *w, uint32_t tid)
{
	for (unsigned i = 0; i < w->n_threads; i++)
		if (w->threads[i].tid == tid)
			return true;
	return false;
}

bool watch_merge_line(const struct line *sampled, const struct watch_word_result *const *words,
		      unsigned n, unsigned line_size, struct line *out)
{
	struct word_tally tally[WATCH_MAX_LINE_WORDS] = { { 0 } };
	unsigned n_words = line_size / WATCH_WORD;
	uint64_t scaled_samples = 0, scaled_hits = 0, all_hits = 0;
	double fallback;
	bool any = false;

	if (n_words > WATCH_MAX_LINE_WORDS)
		n_words = WATCH_MAX_LINE_WORDS;
	memset(out, 0, sizeof(*out));
	out->pid = sampled->pid;
	out->addr = sampled->addr;
	for (unsigned i = 0; i < n; i++) {
		uint64_t off = words[i]->addr - sampled->addr;

		if (words[i]->addr < sampled->addr || off >= (uint64_t)n_words * WATCH_WORD)
			continue;
		tally[off / WATCH_WORD].watched = words[i];
		all_hits += word_hits(words[i]);
		any = true;
	}
	if (!any)
		return false;

	/* sampled cells inside a watched word are replaced; the rest stay */
	for (unsigned i = 0; i < sampled->n_cells; i++) {
		const struct line_cell *c = &sampled->cells[i];
		unsigned k = c->offset / WATCH_WORD;
		struct word_tally *t = k < n_words ? &tally[k] : NULL;

		/* replaced only where the watch saw the thread: a window is
		 * short, and threads that came and went outside it keep
		 * their sampled evidence */
		if (t && t->watched && c->offset + c->size <= (k + 1) * WATCH_WORD &&
		    watched_thread(t->watched, c->tid)) {
			t->samples += c->count;
			t->concurrent += c->concurrent;
			if (!t->rep)
				t->rep = c;
			continue;
		}
		ALLOC_GROW(out->cells, out->n_cells + 1, out->alloc_cells);
		out->cells[out->n_cells++] = *c;
		out->count += c->count;
		out->concurrent += c->concurrent;
	}

	for (unsigned k = 0; k < n_words; k++) {
		if (tally[k].watched && tally[k].samples && word_hits(tally[k].watched)) {
			scaled_samples += tally[k].samples;
			scaled_hits += word_hits(tally[k].watched);
		}
	}
	fallback = scaled_hits ? (double)scaled_samples / (double)scaled_hits :
		   all_hits && sampled->count ? (double)sampled->count / (double)all_hits : 1;

	for (unsigned k = 0; k < n_words; k++) {
		const struct word_tally *t = &tally[k];
		const struct watch_word_result *w = t->watched;
		double scale, conc;

		if (!w || !word_hits(w))
			continue;
		/* one scale for every watched word: the line's samples per
		 * hit.  A word read often but cheaply (a false-sharing
		 * victim next to a stalling one) keeps its exact share of the
		 * accesses instead of vanishing under the noise floor. */
		scale = fallback;
		conc = t->samples ? (double)t->concurrent / (double)t->samples : 1;
		for (unsigned i = 0; i < w->n_threads; i++) {
			const struct watch_thread_count *tc = &w->threads[i];
			uint64_t hits = tc->reads + tc->writes;
			/* the watch saw who overlapped in a window exactly;
			 * sampling may have missed it for want of stores */
			double exact = hits ? (double)tc->concurrent / (double)hits : 0;
			double c = exact > conc ? exact : conc;

			add_scaled(out, tc->tid, k * WATCH_WORD, ACCESS_LOAD, tc->reads, scale,
				   c, t->rep);
			add_scaled(out, tc->tid, k * WATCH_WORD, ACCESS_STORE, tc->writes, scale,
				   c, t->rep);
		}
	}
	threads_from_cells(out);
	return true;
}

void watch_classify(const struct line *evidence, struct line_verdict *out)
{
	struct classify_config cfg;

	/* exact counts: no sampling noise to wait out, only a floor against
	 * a thread that passed by once (noise_frac still applies) */
	classify_config_default(&cfg);
	cfg.min_score = 0;
	cfg.min_concurrent = 2;
	classify_line(evidence, evidence->count, &cfg, out);
}
