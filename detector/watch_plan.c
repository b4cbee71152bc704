/* watch_plan.c - what to watch, for how long, and what the counts say.
 *
 * The pure half of the watch backend (watch.h): choosing a line's words,
 * cutting them into windows, the sample period and hit cap of a window,
 * and turning exact counts into line-table evidence for classification.
 * No system calls here: everything is unit-tested (tests/test_watch.c).
 */
#include "detector/watch.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/util.h"

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
	uint64_t threads;         /* bit i: the i-th thread of the line's cells */
};

static int cmp_heat(const void *a, const void *b)
{
	const struct word_heat *x = a, *y = b;

	if (x->heat != y->heat)
		return x->heat > y->heat ? -1 : 1;
	return (x->index > y->index) - (x->index < y->index);
}

/* The line's first 64 threads, each a bit of word_heat.threads (the rest
 * have none: they only lose the preference for mixing threads). */
struct thread_bits {
	uint32_t tid[64];
	unsigned n;
};

static uint64_t thread_bit(struct thread_bits *tb, uint32_t tid)
{
	for (unsigned i = 0; i < tb->n; i++)
		if (tb->tid[i] == tid)
			return (uint64_t)1 << i;
	if (tb->n == ARRAY_SIZE(tb->tid))
		return 0;
	tb->tid[tb->n] = tid;
	return (uint64_t)1 << tb->n++;
}

/* Heat and threads of every word of the line; returns the total heat. */
static uint64_t heat_words(const struct line *l, unsigned n_words, struct word_heat *heat)
{
	struct thread_bits tb = { .n = 0 };
	uint64_t total = 0;

	for (unsigned i = 0; i < n_words; i++)
		heat[i] = (struct word_heat){ .index = i };
	for (unsigned i = 0; i < l->n_cells; i++) {
		const struct line_cell *c = &l->cells[i];
		uint64_t h = c->count * (access_kind_writes(c->kind) ? WATCH_WRITE_WEIGHT : 1);
		uint64_t bit = thread_bit(&tb, c->tid);
		unsigned first = c->offset / WATCH_WORD;
		unsigned last = (c->offset + (c->size ? c->size : 1) - 1) / WATCH_WORD;

		for (unsigned k = first; k <= last && k < n_words; k++) {
			heat[k].heat += h;
			heat[k].threads |= bit;
		}
		total += h;
	}
	return total;
}

struct site_heat {
	uint64_t ip;
	uint64_t heat;
};

static int cmp_site_heat(const void *a, const void *b)
{
	const struct site_heat *x = a, *y = b;

	if (x->heat != y->heat)
		return x->heat > y->heat ? -1 : 1;
	return (x->ip > y->ip) - (x->ip < y->ip);
}

/* The line's code sites, hottest first (a write weighing as the words'
 * do), at most CODE_PROBE_MAX_SITES, into out. */
static void hot_sites(const struct line *l, struct watch_line_words *out)
{
	struct site_heat *h = xcalloc(l->n_cells ? l->n_cells : 1, sizeof(*h));
	unsigned n = 0;

	for (unsigned i = 0; i < l->n_cells; i++) {
		const struct line_cell *c = &l->cells[i];
		unsigned k;

		if (!c->ip)
			continue;
		for (k = 0; k < n && h[k].ip != c->ip; k++)
			;
		if (k == n)
			h[n++] = (struct site_heat){ .ip = c->ip };
		h[k].heat += c->count * (access_kind_writes(c->kind) ? WATCH_WRITE_WEIGHT : 1);
	}
	if (n > 1)
		sort_items(h, n, sizeof(*h), cmp_site_heat);
	for (unsigned i = 0; i < n && out->n_sites < CODE_PROBE_MAX_SITES; i++)
		out->sites[out->n_sites++] = (struct code_site){ .ip = h[i].ip };
	out->n_sampled_sites = out->n_sites;
	free(h);
}

void watch_hot_words(const struct line *l, unsigned line_size,
		     const struct watch_config *cfg, struct watch_line_words *out)
{
	struct word_heat heat[WATCH_MAX_LINE_WORDS];
	bool taken[WATCH_MAX_LINE_WORDS] = { false };
	unsigned n_words = line_size / WATCH_WORD, max = cfg->max_words;
	uint64_t total, in_window = 0;

	if (n_words > WATCH_MAX_LINE_WORDS)
		n_words = WATCH_MAX_LINE_WORDS;
	memset(out, 0, sizeof(*out));
	out->pid = l->pid;
	out->line = l->addr;
	out->line_size = line_size;
	total = heat_words(l, n_words, heat);
	sort_items(heat, n_words, sizeof(*heat), cmp_heat);
	if (max > n_words)
		max = n_words;
	for (unsigned pos = 0; pos < max; pos++) {
		/* the first window has room for WATCH_WORDS_PER_WINDOW words
		 * at no extra cost: fill it with any sampled word (a rarely
		 * sampled neighbour is where false-sharing victims hide) */
		bool free_slot = pos < WATCH_WORDS_PER_WINDOW;
		bool opens_window = pos % WATCH_WORDS_PER_WINDOW == 0;
		int pick = -1;

		for (unsigned i = 0; i < n_words; i++) {
			if (taken[i] || !heat[i].heat ||
			    (!free_slot && (double)heat[i].heat < cfg->min_word_share * (double)total))
				continue;
			if (pick < 0)
				pick = (int)i;
			/* a window shows contention only if two threads hit it:
			 * after its first word, prefer one with another thread
			 * (one thread's 16-byte access heats two words alike) */
			if (opens_window || (heat[i].threads & ~in_window)) {
				pick = (int)i;
				break;
			}
		}
		if (pick < 0)
			break;
		taken[pick] = true;
		in_window = (opens_window ? 0 : in_window) | heat[pick].threads;
		out->words[out->n_words++] = l->addr + (uint64_t)heat[pick].index * WATCH_WORD;
	}
	hot_sites(l, out);
}

bool watch_add_sibling(struct watch_line_words *lw, uint64_t addr, const struct code_site *site,
		       bool by_code)
{
	uint64_t word = addr - addr % WATCH_WORD;
	unsigned i;

	if (by_code) {
		for (i = 0; i < lw->n_sites && lw->sites[i].ip != site->ip; i++)
			;
		if (i < lw->n_sites || lw->n_sites == CODE_PROBE_MAX_SITES)
			return false;
		lw->sites[lw->n_sites++] = *site;
	}
	for (i = 0; i < lw->n_words && lw->words[i] != word; i++)
		;
	if (i < lw->n_words)
		return by_code;
	if (!by_code && lw->n_words >= WATCH_WORDS_PER_WINDOW)
		return false;
	if (lw->n_words < WATCH_MAX_LINE_WORDS)
		lw->words[lw->n_words++] = word;
	return true;
}

/* ---- windows ----------------------------------------------------------- */

unsigned watch_plan(const struct watch_line_words *lines, unsigned n, unsigned per_window,
		    struct watch_window **out)
{
	struct watch_window *win = NULL;
	size_t alloc = 0;
	unsigned n_win = 0;
	bool more = true;

	/* round r takes words [r*W, (r+1)*W) of every line that has them */
	if (per_window < 1 || per_window > WATCH_MAX_LINE_WORDS)
		per_window = WATCH_WORDS_PER_WINDOW;
	for (unsigned start = 0; more; start += per_window) {
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
			w->line_size = lw->line_size;
			for (unsigned k = start; k < lw->n_words && w->n_words < per_window; k++)
				w->words[w->n_words++] = lw->words[k];
			memcpy(w->sites, lw->sites, lw->n_sites * sizeof(*w->sites));
			w->n_sites = lw->n_sites;
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

/* ---- code sites ---------------------------------------------------------------- */

/* The sites' reads (or writes) become total, shared in proportion to
 * them: floors first, the rest one each to the largest remainders. */
static void share_out(struct watch_site *s, unsigned n, bool writes, uint64_t total)
{
	double *rest = xcalloc(n ? n : 1, sizeof(*rest));
	uint64_t sum = 0, given = 0;

	for (unsigned i = 0; i < n; i++)
		sum += writes ? s[i].writes : s[i].reads;
	if (!sum) {
		free(rest);
		return;
	}
	for (unsigned i = 0; i < n; i++) {
		uint64_t *v = writes ? &s[i].writes : &s[i].reads;
		double exact = (double)total * (double)*v / (double)sum;

		*v = (uint64_t)exact;
		rest[i] = *v || exact > 0 ? exact - (double)*v : -1;
		given += *v;
	}
	for (; given < total; given++) {
		unsigned best = 0;

		for (unsigned i = 1; i < n; i++)
			if (rest[i] > rest[best])
				best = i;
		if (rest[best] < 0)
			break;
		*(writes ? &s[best].writes : &s[best].reads) += 1;
		rest[best] = -0.5;    /* one each */
	}
	free(rest);
}

void watch_sites_fit(struct watch_site *sites, unsigned n, uint64_t reads, uint64_t writes)
{
	share_out(sites, n, false, reads);
	share_out(sites, n, true, writes);
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
	c->pid = l->pid;          /* a watch is of one process */
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
		lt->pid = l->pid;
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

/*
 * The sampled cells a merge replaces are accesses; the watch counts hits
 * per 8-byte word.  An access wider than a word (a 16-byte movdqu, a
 * straddling load) hits each of its words once, so its exact count is what
 * one word says, not the sum of them: every replaced cell collects a share
 * of the hits of each watched word it covers, and its accesses are the
 * mean of those shares.  Hits no replaced cell of that thread and kind
 * accounts for (stores the timer missed) become a cell of their own, in
 * the shape of the thread's sampled access to those bytes when there is
 * one, else of the word.
 */
struct merge_cell {
	struct line_cell cell;         /* tid, bytes, kind, code; counts unused */
	double hits;                   /* shares of its words' exact hits */
	double concurrent;             /* of which concurrent */
	unsigned words;                /* words that gave it hits */
};

struct merge {
	const struct watch_word_result *watched[WATCH_MAX_LINE_WORDS];
	uint64_t samples[WATCH_MAX_LINE_WORDS];     /* replaced samples on word k */
	uint64_t concurrent[WATCH_MAX_LINE_WORDS];
	unsigned n_words;
	struct merge_cell *cells;      /* the replaced cells first, in order */
	unsigned n_cells, n_replaced, alloc_cells;
	uint64_t replaced_samples;
};

static uint64_t word_hits(const struct watch_word_result *w)
{
	return w->reads + w->writes;
}

static bool watched_thread(const struct watch_word_result *w, uint32_t tid)
{
	for (unsigned i = 0; i < w->n_threads; i++)
		if (w->threads[i].tid == tid)
			return true;
	return false;
}

/* The words [*first, *last] of the line that c's bytes overlap. */
static void cell_words(const struct line_cell *c, unsigned n_words, unsigned *first,
		       unsigned *last)
{
	*first = c->offset / WATCH_WORD;
	*last = (c->offset + (c->size ? c->size : 1) - 1) / WATCH_WORD;
	if (*last >= n_words)
		*last = n_words - 1;
}

static bool overlaps_word(const struct line_cell *c, unsigned n_words, unsigned k)
{
	unsigned first, last;

	cell_words(c, n_words, &first, &last);
	return first <= k && k <= last;
}

/* Replaced: a watched word it overlaps saw its thread.  A window is short:
 * threads that came and went outside it keep their sampled evidence. */
static bool replaced_by_watch(const struct merge *m, const struct line_cell *c)
{
	unsigned first, last;

	cell_words(c, m->n_words, &first, &last);
	for (unsigned k = first; k <= last; k++)
		if (m->watched[k] && watched_thread(m->watched[k], c->tid))
			return true;
	return false;
}

static void replace_cell(struct merge *m, const struct line_cell *c)
{
	unsigned first, last;

	ALLOC_GROW(m->cells, m->n_cells + 1, m->alloc_cells);
	m->cells[m->n_cells++] = (struct merge_cell){ .cell = *c };
	m->n_replaced++;
	m->replaced_samples += c->count;
	cell_words(c, m->n_words, &first, &last);
	for (unsigned k = first; k <= last; k++) {
		m->samples[k] += c->count;
		m->concurrent[k] += c->concurrent;
	}
}

/* The most sampled replaced cell on word k, of thread tid (any thread: 0). */
static const struct line_cell *replaced_on_word(const struct merge *m, unsigned k,
						uint32_t tid)
{
	const struct line_cell *best = NULL;

	for (unsigned i = 0; i < m->n_replaced; i++) {
		const struct line_cell *c = &m->cells[i].cell;

		if ((tid && c->tid != tid) || !overlaps_word(c, m->n_words, k))
			continue;
		if (!best || c->count > best->count)
			best = c;
	}
	return best;
}

/* The cell for hits of tid on word k that no replaced cell of that kind
 * takes: found or added, in the shape of shape (the word's if NULL) with
 * the code of rep.  Both may point into m->cells: copied before it grows. */
static struct merge_cell *extra_cell(struct merge *m, uint32_t tid, unsigned k, int kind,
				     const struct line_cell *shape, const struct line_cell *rep)
{
	unsigned offset = shape ? shape->offset : k * WATCH_WORD;
	unsigned size = shape ? shape->size : WATCH_WORD;
	struct line_cell from = rep ? *rep : (struct line_cell){ .base_reg = -1 };
	struct line_cell *c;

	for (unsigned i = m->n_replaced; i < m->n_cells; i++) {
		c = &m->cells[i].cell;
		if (c->tid == tid && c->offset == offset && c->size == size && c->kind == kind)
			return &m->cells[i];
	}
	ALLOC_GROW(m->cells, m->n_cells + 1, m->alloc_cells);
	m->cells[m->n_cells] = (struct merge_cell){ { 0 } };
	c = &m->cells[m->n_cells].cell;
	c->tid = tid;
	c->offset = (uint8_t)offset;
	c->size = (uint8_t)size;
	c->kind = (uint8_t)kind;
	c->ip = from.ip;
	c->base_reg = from.base_reg;
	c->fenced = from.fenced;   /* the code's fence: its load part waits too */
	if (rep)
		c->base_off = from.base_off + ((int64_t)offset - (int64_t)from.offset);
	/* the call chains sampled at that code (-g) stay with it */
	memcpy(c->chains, from.chains, sizeof(c->chains));
	return &m->cells[m->n_cells++];
}

static void credit(struct merge_cell *mc, double hits, double conc_frac)
{
	mc->hits += hits;
	mc->concurrent += hits * conc_frac;
	mc->words++;
}

static bool takes(const struct merge *m, const struct line_cell *c, unsigned k, uint32_t tid,
		  bool writes)
{
	return c->tid == tid && !access_kind_writes(c->kind) == !writes &&
	       overlaps_word(c, m->n_words, k);
}

/*
 * The reads (or writes) of thread tid on word k, shared by the replaced
 * cells of that thread and kind on the word in proportion to their
 * samples; else one extra cell takes them.  A cell is credited at most
 * once per word: it takes one thread's reads or its writes.
 */
static void attribute_hits(struct merge *m, unsigned k, uint32_t tid, bool writes,
			   uint64_t hits, double conc_frac)
{
	const struct line_cell *own, *rep;
	uint64_t sampled = 0;

	if (!hits)
		return;
	for (unsigned i = 0; i < m->n_replaced; i++)
		if (takes(m, &m->cells[i].cell, k, tid, writes))
			sampled += m->cells[i].cell.count;
	if (sampled) {
		for (unsigned i = 0; i < m->n_replaced; i++)
			if (takes(m, &m->cells[i].cell, k, tid, writes))
				credit(&m->cells[i],
				       (double)hits * (double)m->cells[i].cell.count / (double)sampled,
				       conc_frac);
		return;
	}
	own = replaced_on_word(m, k, tid);
	rep = own ? own : replaced_on_word(m, k, 0);
	credit(extra_cell(m, tid, k, writes ? ACCESS_STORE : ACCESS_LOAD, own, rep), (double)hits,
	       conc_frac);
}

/* The sampled concurrent share of word k, or 1 where nothing was sampled;
 * the watch saw who overlapped in a window exactly, and sampling may have
 * missed it for want of stores: a thread's is the larger of the two. */
static double concurrent_frac(const struct merge *m, unsigned k,
			      const struct watch_thread_count *tc)
{
	double sampled = m->samples[k] ? (double)m->concurrent[k] / (double)m->samples[k] : 1;
	uint64_t hits = tc->reads + tc->writes;
	double exact = hits ? (double)tc->concurrent / (double)hits : 0;

	return exact > sampled ? exact : sampled;
}

/* A merged cell into the line: its accesses (the mean of its words'
 * shares) times the line's samples per access. */
static void add_merged(struct line *l, const struct merge_cell *mc, double scale)
{
	double accesses = mc->words ? mc->hits / mc->words : 0;
	uint64_t count = (uint64_t)(accesses * scale + 0.5);
	struct line_cell *c;

	/* a thread that wrote keeps a write: sampling misses stores */
	if (!count && accesses > 0 && access_kind_writes(mc->cell.kind))
		count = 1;
	if (!count)
		return;
	add_cell(l, mc->cell.tid, mc->cell.offset, mc->cell.kind, count,
		 (uint64_t)((double)count * mc->concurrent / mc->hits + 0.5));
	c = &l->cells[l->n_cells - 1];
	c->size = mc->cell.size;
	c->ip = mc->cell.ip;
	c->base_reg = mc->cell.base_reg;
	c->fenced = mc->cell.fenced;
	c->base_off = mc->cell.base_off;
	memcpy(c->chains, mc->cell.chains, sizeof(c->chains));
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

/* The sampled threads' spans on the line (classify.h: threads whose spans
 * never meet never contend); a thread only the watch saw has none. */
static void keep_spans(const struct line *sampled, struct line *out)
{
	for (unsigned i = 0; i < out->n_threads; i++) {
		for (unsigned k = 0; k < sampled->n_threads; k++) {
			if (sampled->threads[k].tid != out->threads[i].tid)
				continue;
			out->threads[i].first_time = sampled->threads[k].first_time;
			out->threads[i].last_time = sampled->threads[k].last_time;
			break;
		}
	}
}

bool watch_merge_line(const struct line *sampled, const struct watch_word_result *const *words,
		      unsigned n, unsigned line_size, struct line *out)
{
	struct merge m = { .n_words = line_size / WATCH_WORD };
	uint64_t all_hits = 0;
	double exact = 0, scale;
	bool any = false;

	if (m.n_words > WATCH_MAX_LINE_WORDS)
		m.n_words = WATCH_MAX_LINE_WORDS;
	memset(out, 0, sizeof(*out));
	out->pid = sampled->pid;
	out->addr = sampled->addr;
	for (unsigned i = 0; i < n; i++) {
		uint64_t off = words[i]->addr - sampled->addr;

		if (words[i]->addr < sampled->addr || off >= (uint64_t)m.n_words * WATCH_WORD)
			continue;
		m.watched[off / WATCH_WORD] = words[i];
		all_hits += word_hits(words[i]);
		any = true;
	}
	if (!any)
		return false;

	/* sampled cells the watch saw are replaced; the rest stay */
	for (unsigned i = 0; i < sampled->n_cells; i++) {
		const struct line_cell *c = &sampled->cells[i];

		if (replaced_by_watch(&m, c)) {
			replace_cell(&m, c);
			continue;
		}
		ALLOC_GROW(out->cells, out->n_cells + 1, out->alloc_cells);
		out->cells[out->n_cells++] = *c;
		out->count += c->count;
		out->concurrent += c->concurrent;
	}

	for (unsigned k = 0; k < m.n_words; k++) {
		const struct watch_word_result *w = m.watched[k];

		for (unsigned i = 0; w && i < w->n_threads; i++) {
			const struct watch_thread_count *tc = &w->threads[i];
			double conc = concurrent_frac(&m, k, tc);

			attribute_hits(&m, k, tc->tid, false, tc->reads, conc);
			attribute_hits(&m, k, tc->tid, true, tc->writes, conc);
		}
	}

	/* one scale for the line: the replaced samples per exact access.
	 * The watched accesses keep the weight their samples had (and the
	 * line its score), while each keeps its exact share of them: a
	 * victim read often but cheaply is not lost under the noise floor. */
	for (unsigned i = 0; i < m.n_cells; i++)
		if (m.cells[i].words)
			exact += m.cells[i].hits / m.cells[i].words;
	scale = m.replaced_samples && exact > 0 ? (double)m.replaced_samples / exact :
		all_hits && sampled->count ? (double)sampled->count / (double)all_hits : 1;
	for (unsigned i = 0; i < m.n_cells; i++)
		add_merged(out, &m.cells[i], scale);
	free(m.cells);
	threads_from_cells(out);
	keep_spans(sampled, out);
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
