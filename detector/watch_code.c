/* watch_code.c - a watch window by code (watch.h, "By code").
 *
 * Uprobes on the line's sampled code sites, in every thread, for one
 * window (code_probe.h).  Each hit is decoded with the thread's registers
 * to the address it touched; those on the line count for their thread
 * and word, as a read or a write, and the site for the word.  The window
 * then goes into the watch's results as a watchpoint window's would
 * (watch_internal.h), marked by_code.
 */
#include "detector/watch_internal.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/util.h"
#include "detector/perf_session.h"
#include "detector/uprobe_event.h"
#include "symbolize/decode.h"
#include "symbolize/symbolizer.h"

struct thread_hits {
	uint32_t tid;
	uint64_t reads[WATCH_MAX_LINE_WORDS], writes[WATCH_MAX_LINE_WORDS];
	uint64_t hits;
	bool wrote;
	double scale;                 /* hits counted per record seen (>= 1) */
};

struct code_window {
	struct watch *w;
	const struct watch_window *win;
	unsigned n_words;                     /* of the line */
	unsigned res_of[WATCH_MAX_LINE_WORDS];
	bool has_res[WATCH_MAX_LINE_WORDS];
	struct decoder_set decs;
	struct thread_hits *t;
	unsigned n_t, alloc_t;
};

static struct thread_hits *thread_of(struct code_window *cw, uint32_t tid)
{
	for (unsigned i = 0; i < cw->n_t; i++)
		if (cw->t[i].tid == tid)
			return &cw->t[i];
	ALLOC_GROW(cw->t, cw->n_t + 1, cw->alloc_t);
	memset(&cw->t[cw->n_t], 0, sizeof(cw->t[0]));
	cw->t[cw->n_t].tid = tid;
	cw->t[cw->n_t].scale = 1;
	return &cw->t[cw->n_t++];
}

/* A thread whose ring overflowed: its events counted every hit, its
 * records are a sample of them. */
static void on_thread_done(void *ctx, pid_t tid, uint64_t counted, uint64_t seen)
{
	struct code_window *cw = ctx;

	for (unsigned i = 0; i < cw->n_t; i++)
		if (cw->t[i].tid == (uint32_t)tid && seen && counted > seen)
			cw->t[i].scale = (double)counted / (double)seen;
}

static uint64_t scaled(uint64_t n, double scale)
{
	return (uint64_t)((double)n * scale + 0.5);
}

static unsigned word_result(struct code_window *cw, unsigned k)
{
	if (!cw->has_res[k]) {
		cw->res_of[k] = watch_result_index(cw->w, cw->win->pid,
						   cw->win->line + (uint64_t)k * WATCH_WORD);
		cw->has_res[k] = true;
	}
	return cw->res_of[k];
}

static void on_hit(void *ctx, const struct perf_sample *ps, const struct code_site *site)
{
	struct code_window *cw = ctx;
	struct symbolizer *sym = watch_config_of(cw->w)->sym;
	uint64_t ip = symbolizer_plain(site->ip), line = cw->win->line;
	uint8_t code[DECODE_MAX_INSN];
	struct decoded_access acc;
	struct decoder *dec;
	struct thread_hits *th;
	unsigned first, last;
	bool write;
	size_t len;

	dec = decoder_set_get(&cw->decs, symbolizer_machine(sym, (pid_t)ps->pid, ip));
	len = dec ? symbolizer_read(sym, (pid_t)ps->pid, ip, code, sizeof(code)) : 0;
	if (!len || decoder_access(dec, code, len, ip, &ps->regs, site->at_alt, &acc) != DECODE_OK)
		return;
	if (acc.addr + (acc.size ? acc.size : 1) <= line ||
	    acc.addr >= line + (uint64_t)cw->n_words * WATCH_WORD)
		return;
	/* as a watchpoint counts it: once on each word the access covers */
	first = acc.addr < line ? 0 : (unsigned)((acc.addr - line) / WATCH_WORD);
	last = (unsigned)((acc.addr + (acc.size ? acc.size : 1) - 1 - line) / WATCH_WORD);
	if (last >= cw->n_words)
		last = cw->n_words - 1;
	write = access_kind_writes(acc.kind);
	th = thread_of(cw, ps->tid);
	th->hits++;
	th->wrote |= write;
	for (unsigned k = first; k <= last; k++) {
		if (write)
			th->writes[k]++;
		else
			th->reads[k]++;
		watch_result_site(cw->w, word_result(cw, k), site->alt ? symbolizer_plain(site->alt) : ip,
				  write);
	}
}

/* Hits are concurrent when another thread hit the line in the window, and
 * one of the two wrote (watch.c's rule). */
static bool concurrent(const struct code_window *cw, unsigned i)
{
	for (unsigned j = 0; j < cw->n_t; j++)
		if (j != i && cw->t[j].hits && (cw->t[i].wrote || cw->t[j].wrote))
			return true;
	return false;
}

static void take_counts(struct code_window *cw, double armed_s, bool cut_short)
{
	for (unsigned i = 0; i < cw->win->n_words; i++) {   /* the planned words */
		uint64_t off = cw->win->words[i] - cw->win->line;

		if (cw->win->words[i] >= cw->win->line && off / WATCH_WORD < cw->n_words)
			word_result(cw, (unsigned)(off / WATCH_WORD));
	}
	for (unsigned i = 0; i < cw->n_t; i++) {
		bool conc = concurrent(cw, i);

		for (unsigned k = 0; k < cw->n_words; k++) {
			const struct thread_hits *th = &cw->t[i];
			uint64_t reads = scaled(th->reads[k], th->scale);
			uint64_t writes = scaled(th->writes[k], th->scale);
			struct watch_word_result *r;
			struct watch_thread_count *tc;

			if (!reads && !writes)
				continue;
			r = watch_result_at(cw->w, word_result(cw, k));
			tc = watch_result_thread(r, th->tid);
			tc->reads += reads;
			tc->writes += writes;
			if (conc)
				tc->concurrent += reads + writes;
			r->reads += reads;
			r->writes += writes;
		}
	}
	for (unsigned k = 0; k < cw->n_words; k++) {
		struct watch_word_result *r;

		if (!cw->has_res[k])
			continue;
		r = watch_result_at(cw->w, cw->res_of[k]);
		r->by_code = true;
		r->window_s += armed_s;
		r->windows++;
		r->cut_short |= cut_short;
	}
	watch_window_done(cw->w, armed_s);
}

int watch_code_window(struct watch *w, const struct watch_window *win)
{
	const struct watch_config *cfg = watch_config_of(w);
	struct code_window cw = { .w = w, .win = win };
	struct code_site sites[CODE_PROBE_MAX_SITES];
	unsigned max_hits = (unsigned)(cfg->max_hits_per_s * cfg->window_s * 2);
	struct code_probe_window pw = {
		.kind = CODE_PROBE_UPROBE, .sym = cfg->sym, .pid = (pid_t)win->pid,
		.sites = sites, .n_sites = win->n_sites, .max_s = cfg->window_s,
		.max_hits = max_hits ? max_hits : 2000, .stop = cfg->stop,
		.hit = on_hit, .thread_done = on_thread_done, .ctx = &cw,
	};
	double t0;
	int hits;

	if (!cfg->sym)
		return -EINVAL;
	if (!win->n_sites)
		return -ENOENT;          /* no code to probe: this line is left alone */
	cw.n_words = (win->line_size ? win->line_size : 64) / WATCH_WORD;
	if (cw.n_words > WATCH_MAX_LINE_WORDS)
		cw.n_words = WATCH_MAX_LINE_WORDS;
	memcpy(sites, win->sites, win->n_sites * sizeof(*sites));
	t0 = monotonic_s();
	hits = code_probe_run(&pw);
	if (hits >= 0)
		take_counts(&cw, monotonic_s() - t0, (unsigned)hits >= pw.max_hits);
	else if (hits != -ESRCH && hits != -ENOENT)   /* ENOENT: JIT code, no file */
		error("cannot probe the code of process %u: %s", (unsigned)win->pid,
		      uprobe_event_hint(-hits));
	decoder_set_release(&cw.decs);
	free(cw.t);
	return hits < 0 ? hits : 0;
}
