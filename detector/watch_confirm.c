/* watch_confirm.c - confirm a sampling session's top lines with watchpoints.
 *
 * confirm_tick() runs watch windows on the top contended lines of a
 * sampling session while its target runs; confirm_merge_evidence() hands
 * the exact counts to the line table before the report is built.  On
 * demand (top's w), confirm_line() plans the one line asked for and
 * confirm_tick() runs its windows, picking none itself.  Putting
 * the results on report lines is reports/watch_report.c's job.
 */
#include "detector/census.h"
#include "detector/code_siblings.h"
#include "detector/instances.h"
#include "detector/instruments.h"
#include "detector/watch.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "common/util.h"
#include "symbolize/decode.h"

#define CONFIRM_REPLAN_S 1.0      /* look for newly contended lines this often */
#define CONFIRM_MAX_LINES 16      /* lines watched in one session, at most */

struct line_id {
	uint32_t pid;
	uint64_t addr;
	unsigned n_sites;             /* by code: the sampled sites probed (not
	                                 code siblings: was_watched() compares
	                                 with sampling's count) */
};

struct confirm {
	struct watch_config wcfg;
	struct classify_config ccfg;
	unsigned line_size;
	struct watch *w;
	struct watch_window *plan;
	unsigned n_plan, next;
	struct line_id *watched;      /* lines planned so far */
	unsigned n_watched, alloc_watched;
	double next_at;               /* elapsed time the next window may start */
	double planned_at;
	bool failed;                  /* a fatal error: watch no more */
	bool on_demand;               /* confirm_line() alone plans */
	struct decoder_set decs;      /* for the lines' code siblings */
};

struct confirm *confirm_new(const struct watch_config *wcfg,
			    const struct classify_config *ccfg, unsigned line_size)
{
	struct confirm *c = xcalloc(1, sizeof(*c));

	c->wcfg = *wcfg;
	c->ccfg = *ccfg;
	c->line_size = line_size;
	c->w = watch_new(wcfg);
	c->planned_at = -CONFIRM_REPLAN_S;
	return c;
}

void confirm_free(struct confirm *c)
{
	if (!c)
		return;
	watch_free(c->w);
	decoder_set_release(&c->decs);
	free(c->plan);
	free(c->watched);
	free(c);
}

/* The line's distinct code sites, as many as code probes take. */
static unsigned line_sites(const struct line *l)
{
	uint64_t seen[CODE_PROBE_MAX_SITES];
	unsigned n = 0;

	for (unsigned i = 0; i < l->n_cells && n < CODE_PROBE_MAX_SITES; i++) {
		unsigned k;

		for (k = 0; k < n && seen[k] != l->cells[i].ip; k++)
			;
		if (k == n && l->cells[i].ip)
			seen[n++] = l->cells[i].ip;
	}
	return n;
}

/*
 * Watched already, and nothing new to count?  By code, a line is watched
 * again when sampling has since found code sites on it that were not
 * probed: a victim's read that follows the stalled load (Klass's
 * secondary_supers) is sampled a few times a second, and may have had no
 * sample yet when the line was first planned.  Watchpoints fill a
 * window's free slot with any sampled word instead (watch_plan.c).
 */
static bool was_watched(const struct confirm *c, const struct line *l)
{
	for (unsigned i = 0; i < c->n_watched; i++)
		if (c->watched[i].pid == l->pid && c->watched[i].addr == l->addr)
			return !c->wcfg.by_code || line_sites(l) <= c->watched[i].n_sites;
	return false;
}

/* Remember the line as watched, with the sites its probes took. */
static void mark_watched(struct confirm *c, const struct watch_line_words *lw)
{
	for (unsigned i = 0; i < c->n_watched; i++)
		if (c->watched[i].pid == lw->pid && c->watched[i].addr == lw->line) {
			c->watched[i].n_sites = lw->n_sampled_sites;
			return;
		}
	ALLOC_GROW(c->watched, c->n_watched + 1, c->alloc_watched);
	c->watched[c->n_watched++] = (struct line_id){ lw->pid, lw->line, lw->n_sampled_sites };
}

/* A thread uses a suspect line heavily with this share of its samples. */
#define SUSPECT_THREAD_SHARE 0.2

struct ranked {
	struct line *line;
	double score;
};

static int cmp_ranked(const void *a, const void *b)
{
	const struct ranked *x = a, *y = b;

	if (x->score != y->score)
		return x->score > y->score ? -1 : 1;
	return (x->line->addr > y->line->addr) - (x->line->addr < y->line->addr);
}

/* Lines sampling cannot decide, but that two threads use heavily: the
 * timer rarely sees stores (they retire into the store buffer), so a line
 * that several threads load a lot may be written by them too; only the
 * watchpoints can tell.  Ranked after the contended lines, by share. */
static bool suspect(const struct line *l, uint64_t total, const struct classify_config *cfg)
{
	unsigned heavy = 0;

	if ((double)l->count < cfg->min_score * (double)total)
		return false;
	for (unsigned i = 0; i < l->n_threads; i++)
		heavy += l->threads[i].count >= SUSPECT_THREAD_SHARE * (double)l->count;
	return heavy >= 2;
}

/* Lines two threads use, one of them writing, that sampling saw too
 * rarely to decide: a store that costs little where the threads run now
 * (a cheap transfer between these two cores) leaves a few samples at
 * most.  The watch counts exactly, whatever the cost; a line it sees
 * shared is listed as minor (classify.h).  Ranked after the suspects. */
static bool faint(const struct line *l)
{
	for (unsigned i = 0; i < l->n_cells; i++)
		if (access_kind_writes(l->cells[i].kind))
			return true;
	return false;
}

/* The line's words as sampled (watch_hot_words), and the words its hot
 * code reaches through the same pointers (code_siblings.h): a victim's
 * load that sampling missed, where the watch has room for it. */
static void line_words(struct confirm *c, const struct line *l, struct watch_line_words *lw)
{
	struct code_sibling sib[WATCH_MAX_LINE_WORDS];
	unsigned n_hot;

	watch_hot_words(l, c->line_size, &c->wcfg, lw);
	if (!c->wcfg.sym || !lw->n_words)
		return;
	n_hot = lw->n_sites;
	for (unsigned i = 0; i < n_hot; i++) {
		const struct line_cell *cell = NULL;
		unsigned n;

		for (unsigned k = 0; k < l->n_cells && !cell; k++)
			if (l->cells[k].ip == lw->sites[i].ip)
				cell = &l->cells[k];
		if (!cell)
			continue;
		n = code_siblings(c->wcfg.sym, &c->decs, (pid_t)l->pid, cell->ip,
				  l->addr + cell->offset, l->addr, c->line_size, sib,
				  ARRAY_SIZE(sib));
		for (unsigned k = 0; k < n; k++)
			watch_add_sibling(lw, sib[k].addr, &sib[k].site, c->wcfg.by_code);
	}
}

/* The top contended lines not watched yet, as the report would rank them
 * (instances of one structure pooled, instances.h), then the suspects,
 * then the faint lines.  The watch goes on the hottest instance, at the
 * words hot over all. */
static unsigned pick_lines(struct confirm *c, struct line_table *lines,
			   struct watch_line_words *out, unsigned max)
{
	uint64_t total = line_table_samples(lines);
	struct ranked *r = NULL;
	struct line **shared = NULL;
	struct instance_group *groups;
	size_t n = 0, alloc = 0, n_shared = 0, alloc_shared = 0, n_groups;
	unsigned picked = 0;

	for (size_t i = 0; i < line_table_count(lines); i++) {
		struct line *l = line_table_line(lines, i);

		/* watchpoints are armed in the threads of one process
		 * (watch.h): a line other processes share is not watched */
		if (l->n_threads < 2 || was_watched(c, l) || line_cross_process(l))
			continue;
		ALLOC_GROW(shared, n_shared + 1, alloc_shared);
		shared[n_shared++] = l;
	}
	n_groups = instance_groups(shared, n_shared, &groups);
	for (size_t i = 0; i < n_groups; i++) {
		struct line *l = instance_line(&groups[i]);
		struct line_verdict v;
		bool suspected;

		classify_line(l, total, &c->ccfg, &v);
		suspected = !v.contended && suspect(l, total, &c->ccfg);
		if (v.contended || suspected || faint(l)) {
			ALLOC_GROW(r, n + 1, alloc);
			/* contended lines first (their score is at most 1),
			 * then suspects by share, then faint lines */
			r[n++] = (struct ranked){ l, v.contended ? 1 + v.score :
						  suspected ? v.share : v.share - 1 };
		} else {
			instance_line_free(l);
		}
		line_verdict_release(&v);
	}
	instance_groups_free(groups, n_groups);
	free(shared);
	if (n > 1)
		sort_items(r, n, sizeof(*r), cmp_ranked);
	for (size_t i = 0; i < n; i++) {
		if (picked < max) {
			line_words(c, r[i].line, &out[picked]);
			if (out[picked].n_words)
				picked++;
		}
		instance_line_free(r[i].line);
	}
	free(r);
	return picked;
}

/* Watchpoints take two words a window; code probes count a whole line. */
static unsigned per_window(const struct confirm *c)
{
	return c->wcfg.by_code ? WATCH_MAX_LINE_WORDS : WATCH_WORDS_PER_WINDOW;
}

static void make_plan(struct confirm *c, struct line_table *lines)
{
	unsigned room = CONFIRM_MAX_LINES - c->n_watched, n;
	struct watch_line_words *lw;

	if (room > c->wcfg.max_lines)
		room = c->wcfg.max_lines;
	if (!room)
		return;
	lw = xcalloc(room, sizeof(*lw));
	n = pick_lines(c, lines, lw, room);
	for (unsigned i = 0; i < n; i++)
		mark_watched(c, &lw[i]);
	free(c->plan);
	c->n_plan = watch_plan(lw, n, per_window(c), &c->plan);
	c->next = 0;
	free(lw);
}

void confirm_tick(struct confirm *c, struct line_table *lines, double elapsed)
{
	const struct watch_window *win;
	double armed;
	int err;

	if (c->failed || elapsed < CONFIRM_START_S || elapsed < c->next_at)
		return;
	if (c->next == c->n_plan) {
		if (c->on_demand || elapsed - c->planned_at < CONFIRM_REPLAN_S)
			return;
		c->planned_at = elapsed;
		make_plan(c, lines);
		if (!c->n_plan)
			return;
	}
	win = &c->plan[c->next++];
	armed = watch_armed_s(c->w);
	err = watch_run_window(c->w, win);
	/* -ENOENT: by code, a line whose sites no uprobe can take (JIT
	 * code): the others are still watched */
	if (err < 0 && err != -ESRCH && err != -ENOENT)
		c->failed = true;     /* said why; the sampling goes on */
	armed = watch_armed_s(c->w) - armed;
	c->next_at = elapsed + armed + watch_rest_s(armed, &c->wcfg);
}

struct confirm *confirm_by_instruments(const struct instruments *in, struct watch_config *wcfg,
				       const struct classify_config *ccfg, unsigned line_size,
				       struct census **census)
{
	enum instrument by, census_by;

	if (!instruments_for_confirmation(in, &by))
		return NULL;
	wcfg->by_code = by == INSTRUMENT_UPROBES;
	if (census && instruments_for_census(in, &census_by))
		*census = census_new(wcfg->sym, census_by == INSTRUMENT_UPROBES ?
				     CODE_PROBE_UPROBE : CODE_PROBE_BREAKPOINT);
	return confirm_new(wcfg, ccfg, line_size);
}

void confirm_on_demand(struct confirm *c)
{
	c->on_demand = true;
}

bool confirm_busy(const struct confirm *c)
{
	return c && !c->failed && c->next < c->n_plan;
}

bool confirm_failed(const struct confirm *c)
{
	return c && c->failed;
}

/* The words of the line as sampled so far, as pick_lines() would take
 * them; the line is remembered as watched, so that a session that also
 * picks lines by itself does not plan it twice. */
int confirm_line(struct confirm *c, struct line_table *lines, uint32_t pid, uint64_t addr)
{
	struct line *l = line_table_find(lines, pid, addr);
	struct watch_line_words lw;

	if (c->failed)
		return -EIO;
	if (confirm_busy(c))
		return -EBUSY;
	if (!l)
		return -ENOENT;
	if (line_cross_process(l))
		return -EXDEV;
	line_words(c, l, &lw);
	if (!lw.n_words)
		return -ENOENT;
	mark_watched(c, &(struct watch_line_words){ .pid = pid, .line = addr,
						     .n_sampled_sites = lw.n_sampled_sites });
	free(c->plan);
	c->n_plan = watch_plan(&lw, 1, per_window(c), &c->plan);
	c->next = 0;
	return 0;
}

/* Did the watch alone see two threads share the line, one writing? */
static bool watched_sharing(const struct watch_word_result *const *res, unsigned n,
			    uint64_t line, unsigned line_size)
{
	struct line evidence;
	struct line_verdict v;
	bool shared;

	if (!watch_line_evidence(res, n, line, line_size, &evidence))
		return false;
	watch_classify(&evidence, &v);
	shared = v.contended;
	line_verdict_release(&v);
	watch_line_evidence_release(&evidence);
	return shared;
}

void confirm_merge_evidence(struct confirm *c, struct line_table *lines)
{
	unsigned line_size = line_table_line_size(lines);

	for (size_t i = 0; i < line_table_count(lines); i++) {
		struct line *l = line_table_line(lines, i);
		const struct watch_word_result *res[WATCH_MAX_LINE_WORDS];
		unsigned n;
		struct line merged;

		/* watched while one process alone had touched it: the
		 * counts would wipe out the other processes' samples */
		if (line_cross_process(l))
			continue;
		/* its samples are by goroutine, the counts by OS thread: a
		 * thread that ran both goroutines would look like true sharing */
		if (line_by_goroutines(l))
			continue;
		n = watch_line_results(c->w, l->pid, l->addr, line_size, res);
		if (!n || !watch_merge_line(l, res, n, line_size, &merged))
			continue;
		/* the line takes the merged cells and threads; the table's
		 * cell index is stale from here on, and nothing is added */
		line_table_replace_line(lines, l, &merged);
		l->watch_shared = watched_sharing(res, n, l->addr, line_size);
	}
}

struct watch *confirm_watch(const struct confirm *c)
{
	return c ? c->w : NULL;
}

bool confirm_by_code(const struct confirm *c)
{
	return c && c->wcfg.by_code;
}

unsigned confirm_windows_run(const struct confirm *c)
{
	return c && c->w ? watch_windows_run(c->w) : 0;
}

/* confirm_tick() runs at the session's 100 ms beat: a run a beat past
 * CONFIRM_START_S may still have had no tick to open a window at. */
#define CONFIRM_BEAT_S 0.1

char *confirm_missed_note(const struct confirm *c, double duration)
{
	if (!c || c->on_demand || c->failed || confirm_windows_run(c) ||
	    duration >= CONFIRM_START_S + CONFIRM_BEAT_S)
		return NULL;
	return xasprintf("none armed: sampling lasted %.2f s and confirmation starts %.1f s "
			 "in, so the kinds below are the samples' alone (a run that lasts "
			 "longer is confirmed)", duration, CONFIRM_START_S);
}
