/* watch_report.c - watch results on report lines: --confirm and contend watch.
 *
 * confirm_fill_report() hangs a confirmation's exact counts on the
 * report's lines, with a verdict from classify_line() over those counts
 * alone (watch_classify): confirmed when they show two threads on the
 * line, one of them writing, in one window.  watch_report_lines() builds
 * the lines of a standalone watch the same way.
 */
#include "reports/watch_report.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "common/util.h"
#include "detector/instances.h"
#include "detector/watch.h"
#include "reports/naming.h"
#include "reports/report.h"
#include "symbolize/data_types.h"
#include "symbolize/decode.h"
#include "symbolize/symbolizer.h"

#define MAX_FUNC_BYTES (256 * 1024)

/* Where a trap ip's access was: the instruction before it, found by
 * walking its function from the start; ip itself if that fails. */
static uint64_t access_ip(struct symbolizer *sym, struct decoder *dec, uint32_t pid,
			  uint64_t ip)
{
	struct func_info fi;
	uint8_t *code;
	uint64_t off = 0, prev = ip, len;

	if (!dec || !symbolizer_function(sym, (pid_t)pid, ip - 1, &fi) ||
	    fi.start >= ip || ip - fi.start > MAX_FUNC_BYTES)
		return ip;
	len = ip - fi.start;
	code = xmalloc(len + DECODE_MAX_INSN);
	len = symbolizer_read(sym, (pid_t)pid, fi.start, code, len);
	while (off < len) {
		struct insn_info ii;

		if (!decoder_insn(dec, code + off, len - off, fi.start + off, &ii) || !ii.length)
			break;
		prev = fi.start + off;
		off += ii.length;
	}
	free(code);
	return off == ip - fi.start ? prev : ip;
}

/* A word no sampled range covers (a sibling the watch took, code_siblings.h):
 * its member in the line's struct layout, "[k].name" in an array of them;
 * NULL if the layout does not reach it. */
static char *layout_member(const struct report_line *rl, uint64_t addr)
{
	uint64_t rel, k;
	bool array = rl->type_name && strchr(rl->type_name, '[');

	if (!rl->n_members || !rl->struct_size || addr < rl->object_start)
		return NULL;
	rel = addr - rl->object_start;
	k = rel / rl->struct_size;
	rel %= rl->struct_size;
	if (k && !array)
		return NULL;
	for (unsigned i = 0; i < rl->n_members; i++) {
		const struct report_member *m = &rl->members[i];

		if (m->name && rel >= m->offset && rel < m->offset + m->size)
			return array ? xasprintf("[%" PRIu64 "].%s", k, m->name) : xstrdup(m->name);
	}
	return NULL;
}

char *watch_word_member(const struct report_line *rl, uint64_t addr,
			struct symbolizer *sym, struct data_types *dt)
{
	const struct report_range *best = NULL, *around = NULL;
	struct data_attribution a;
	struct Dwfl_Module *mod;
	uint64_t bias, off = addr - (rl->watched_line ? rl->watched_line : rl->addr);
	char *name;

	for (unsigned i = 0; i < rl->n_ranges; i++) {
		const struct report_range *rr = &rl->ranges[i];

		if (!rr->member)
			continue;
		if (rr->offset <= off && rr->offset + rr->size >= off + WATCH_WORD)
			around = rr;
		if (rr->offset < off || rr->offset + rr->size > off + WATCH_WORD)
			continue;
		if (!best || rr->reads + rr->writes > best->reads + best->writes)
			best = rr;
	}
	if (best || around)
		return xstrdup((best ? best : around)->member);
	if ((name = layout_member(rl, addr)))
		return name;
	if (!sym || !dt || !(mod = symbolizer_module(sym, (pid_t)rl->pid, addr, &bias)) ||
	    data_types_global(dt, mod, bias, addr, &a) != DT_HIT)
		return NULL;
	return xasprintf("%s%s", a.variable ? a.variable : "", a.path ? a.path : "");
}

static void fill_word(const struct watch_word_result *wr, const struct report_line *rl,
		      struct symbolizer *sym, struct data_types *dt, struct decoder *dec,
		      struct report_watch_word *ww)
{
	ww->offset = wr->addr - rl->watched_line;
	ww->size = WATCH_WORD;
	ww->member = watch_word_member(rl, wr->addr, sym, dt);
	ww->window_s = wr->window_s;
	ww->windows = wr->windows;
	ww->cut_short = wr->cut_short;
	ww->threads_late = wr->threads_late;
	ww->threads_unarmed = wr->threads_unarmed;
	ww->reads = wr->reads;
	ww->writes = wr->writes;

	ww->threads = xcalloc(wr->n_threads, sizeof(*ww->threads));
	ww->n_threads = wr->n_threads;
	for (unsigned i = 0; i < wr->n_threads; i++) {
		ww->threads[i].tid = wr->threads[i].tid;
		ww->threads[i].reads = wr->threads[i].reads;
		ww->threads[i].writes = wr->threads[i].writes;
	}
	ww->sites = xcalloc(wr->n_sites, sizeof(*ww->sites));
	ww->n_sites = wr->n_sites;
	for (unsigned i = 0; i < wr->n_sites; i++) {
		struct report_site *s = &ww->sites[i];

		s->ip = sym ? access_ip(sym, dec, wr->pid, wr->sites[i].ip) : wr->sites[i].ip;
		s->reads = wr->sites[i].reads;
		s->writes = wr->sites[i].writes;
		symbolize_site(sym, wr->pid, s);
	}
}

/* The results of rl's watched words, and the line they are on.  A pool of
 * instances (instances.h) was watched on its hottest instance when the
 * windows were planned, and the report names its hottest at the end: with
 * instances alike those differ from run to run, so every instance's line
 * is looked at, and the one with the most watched words taken. */
static unsigned line_results(struct watch *w, struct report_line *rl,
			     const struct watch_word_result **out)
{
	const struct watch_word_result *r[WATCH_MAX_LINE_WORDS];
	unsigned n;

	/* watchpoints count the accesses of one process (watch.h): on a line
	 * processes share they would pass for all of them; not confirmed */
	if (rl->n_pids > 1)
		return 0;
	rl->watched_line = rl->addr;
	n = watch_line_results(w, rl->pid, rl->addr, rl->line_size, out);
	for (unsigned i = 0; rl->instance_lines && i < rl->n_instances; i++) {
		unsigned k;

		if (rl->instance_lines[i] == rl->addr)
			continue;
		k = watch_line_results(w, rl->pid, rl->instance_lines[i], rl->line_size, r);
		if (k > n) {
			memcpy(out, r, k * sizeof(*r));
			n = k;
			rl->watched_line = rl->instance_lines[i];
		}
	}
	return n;
}

static void fill_line(struct watch *w, struct report_line *rl, struct symbolizer *sym,
		      struct data_types *dt, struct decoder *dec)
{
	const struct watch_word_result *res[WATCH_MAX_LINE_WORDS];
	unsigned n = line_results(w, rl, res);
	struct line evidence;
	struct line_verdict v;

	if (!n || !watch_line_evidence(res, n, rl->watched_line, rl->line_size, &evidence))
		return;
	watch_classify(&evidence, &v);
	rl->confirmed_checked = true;
	rl->watch_by_code = res[0]->by_code;
	rl->confirmed = v.contended;
	rl->watch_kind = v.kind;
	rl->words = xcalloc(n, sizeof(*rl->words));
	rl->n_words = n;
	for (unsigned i = 0; i < n; i++) {
		fill_word(res[i], rl, sym, dt, dec, &rl->words[i]);
		if (res[i]->window_s > rl->watch_window_s)
			rl->watch_window_s = res[i]->window_s;
	}
	line_verdict_release(&v);
	watch_line_evidence_release(&evidence);
}

static void fill_lines(struct watch *w, struct report *r, struct symbolizer *sym)
{
	struct data_types *dt = sym ? data_types_new() : NULL;
	struct decoder *dec = sym ? decoder_new_native() : NULL;

	r->watch_windows = watch_windows_run(w);
	r->watch_armed_s = watch_armed_s(w);
	for (unsigned i = 0; i < r->n_lines; i++)
		fill_line(w, &r->lines[i], sym, dt, dec);
	for (unsigned i = 0; i < r->n_minor; i++)
		fill_line(w, &r->minor[i], sym, dt, dec);
	r->watch_by_code = watch_counts_by_code(w);
	decoder_free(dec);
	data_types_free(dt);
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return (x > y) - (x < y);
}

/* The line's threads: every word's, summed. */
static void line_threads(struct report_line *rl)
{
	size_t alloc = 0;

	for (unsigned i = 0; i < rl->n_words; i++) {
		const struct report_watch_word *ww = &rl->words[i];

		for (unsigned k = 0; k < ww->n_threads; k++) {
			struct report_thread *t = report_thread_of(&rl->threads, &rl->n_threads,
								   &alloc, ww->threads[k].tid);

			t->reads += ww->threads[k].reads;
			t->writes += ww->threads[k].writes;
		}
	}
}

void watch_report_lines(struct watch *w, unsigned line_size, struct report *r,
			struct symbolizer *sym)
{
	const struct watch_word_result *res;
	unsigned n = watch_results(w, &res);
	uint64_t *addrs = xcalloc(n ? n : 1, sizeof(*addrs));
	unsigned n_lines = 0;

	/* one report line per distinct (pid, line); one pid per watch */
	for (unsigned i = 0; i < n; i++)
		addrs[i] = res[i].addr & ~(uint64_t)(line_size - 1);
	if (n > 1)
		sort_items(addrs, n, sizeof(*addrs), cmp_u64);
	for (unsigned i = 0; i < n; i++)
		if (!n_lines || addrs[n_lines - 1] != addrs[i])
			addrs[n_lines++] = addrs[i];

	r->line_size = line_size;
	r->lines = xcalloc(n_lines ? n_lines : 1, sizeof(*r->lines));
	r->n_lines = n_lines;
	for (unsigned i = 0; i < n_lines; i++) {
		struct report_line *rl = &r->lines[i];

		rl->pid = res[0].pid;
		rl->addr = addrs[i];
		rl->line_size = line_size;
	}
	fill_lines(w, r, sym);
	for (unsigned i = 0; i < n_lines; i++) {
		struct report_line *rl = &r->lines[i];

		rl->kind = rl->watch_kind;
		rl->object = object_name(sym, rl->pid, rl->addr +
					 (rl->n_words ? rl->words[0].offset : 0), NULL);
		line_threads(rl);
	}
	free(addrs);
}

void confirm_fill_report(struct confirm *c, struct report *r, struct symbolizer *sym)
{
	fill_lines(confirm_watch(c), r, sym);
}
