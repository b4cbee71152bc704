/* words.c - the sentences more than one printer says (printers.h): why
 * a watch's exact counts did not confirm a line, what counted them, which
 * instruments the self-test found not working, what gains were priced at,
 * where a line's samples ran.
 */
#include "printers/printers.h"

#include <inttypes.h>
#include <stdlib.h>

#include "common/util.h"
#include "reports/report.h"

/* A thread's accesses to the watched words of a line, all words. */
static uint64_t watch_hits(const struct report_line *l, uint32_t tid, uint64_t *writes)
{
	uint64_t n = 0;

	*writes = 0;
	for (unsigned i = 0; i < l->n_words; i++) {
		for (unsigned k = 0; k < l->words[i].n_threads; k++) {
			const struct report_thread *t = &l->words[i].threads[k];

			if (t->tid != tid)
				continue;
			n += t->reads + t->writes;
			*writes += t->writes;
		}
	}
	return n;
}

/*
 * Why the exact counts do not confirm the line.  As classification does,
 * a thread with less than 1% of the accesses is not taking part (a
 * monitoring thread that read the word a few times).
 */
char *watch_not_confirmed_why(const struct report_line *l)
{
	uint64_t all = 0, others = 0, writes, n;
	unsigned n_tids = 0, players = 0, writers = 0;
	uint32_t tids[64], one = 0;

	for (unsigned i = 0; i < l->n_words; i++) {
		all += l->words[i].reads + l->words[i].writes;
		for (unsigned k = 0; k < l->words[i].n_threads; k++) {
			unsigned j = 0;

			while (j < n_tids && tids[j] != l->words[i].threads[k].tid)
				j++;
			if (j == n_tids && n_tids < ARRAY_SIZE(tids))
				tids[n_tids++] = l->words[i].threads[k].tid;
		}
	}
	for (unsigned j = 0; j < n_tids; j++) {
		n = watch_hits(l, tids[j], &writes);
		if (100 * n < all) {
			others += n;
			continue;
		}
		players++;
		writers += writes > 0;
		one = tids[j];
	}
	/* by code, what was seen is the probed code's accesses, not all */
	if (!all && l->watch_by_code)
		return xstrdup("the probed code did not touch the words in the window");
	if (!all)
		return xstrdup("no thread accessed the watched words");
	if (players == 1 && !others)
		return xasprintf("only thread %" PRIu32 " accessed the %s words", one,
				 l->watch_by_code ? "probed" : "watched");
	if (players == 1)
		return xasprintf("only thread %" PRIu32 " accessed the %s words often (the "
				 "others %" PRIu64 " times)", one,
				 l->watch_by_code ? "probed" : "watched", others);
	if (!writers)
		return xasprintf("no thread wrote the %s words (%u threads read them)",
				 l->watch_by_code ? "probed" : "watched", players);
	return xstrdup("the threads did not touch them in the same windows");
}

const char *report_watch_instrument(const struct report *r)
{
	return r->watch_by_code ? "uprobes on the lines' code" : "watchpoints";
}

char *report_instruments_note(const struct report *r)
{
	struct strbuf sb = STRBUF_INIT;

	for (int i = 0; i < INSTRUMENT__COUNT; i++) {
		enum instrument_state st = r->instruments.t[i].state;
		char *text;

		if (st == INSTRUMENT_UNTESTED || st == INSTRUMENT_WORKS)
			continue;
		text = instrument_result_text(&r->instruments, (enum instrument)i);
		strbuf_addf(&sb, "%s%s %s", sb.len ? "; " : "", instrument_name((enum instrument)i),
			    text);
		free(text);
	}
	return sb.len ? strbuf_detach(&sb) : (strbuf_release(&sb), NULL);
}

char *report_price_text(const struct report *r)
{
	struct report_pricing p = report_pricing(r);

	if (r->price.locked)
		return xasprintf("contended, a locked add costs %.2fx, a plain one %.2fx and a "
				 "fenced store %.2fx their private time here (%u probe runs%s): "
				 "gains priced at that (the model's reference: %.2fx, %.2fx and "
				 "%.2fx)", r->price.locked, r->price.store, p.fenced,
				 r->price.runs, r->price.cached ? ", earlier this boot" : "",
				 p.reference_locked, p.reference_store, p.reference_fenced);
	if (r->price.busy)
		return xasprintf("%s: gains unknown (a price from another machine would not "
				 "hold here)", r->price_note ? r->price_note : "not measured");
	return xasprintf("%s: gains priced at the model's reference, contended locked and "
			 "plain adds and fenced stores at %.2fx, %.2fx and %.2fx their private "
			 "time (an Intel Icelake VM)", r->price_note ? r->price_note : "not "
			 "recorded", p.reference_locked, p.reference_store, p.reference_fenced);
}

/* Bits of mask (n of them) as a list of ranges, "0-3,8"; "" if none. */
static void add_bit_ranges(struct strbuf *sb, const uint64_t *mask, unsigned n)
{
	for (unsigned i = 0; i < n; i++) {
		unsigned j = i;

		if (!(mask[i / 64] & (1ULL << (i % 64))))
			continue;
		while (j + 1 < n && (mask[(j + 1) / 64] & (1ULL << ((j + 1) % 64))))
			j++;
		strbuf_addf(sb, "%s%u", sb->len ? "," : "", i);
		if (j > i)
			strbuf_addf(sb, "-%u", j);
		i = j;
	}
}

/* "cpus 0-3, NUMA nodes 0-1" (the nodes where known); "" if no CPU is. */
char *report_cpus_text(const struct report_line *l)
{
	struct strbuf sb = STRBUF_INIT, nodes = STRBUF_INIT;
	char *text;

	add_bit_ranges(&sb, l->cpus, REPORT_CPUS_MAX);
	if (!sb.len && !l->cpus_beyond)
		return strbuf_detach(&sb);
	if (l->cpus_beyond)
		strbuf_addf(&sb, "%s%u and up", sb.len ? "," : "", REPORT_CPUS_MAX);
	if (l->nodes_known) {
		add_bit_ranges(&nodes, &l->nodes, 64);
		strbuf_addf(&sb, ", NUMA node%s %s", strchr(strbuf_str(&nodes), ',') ||
			    strchr(strbuf_str(&nodes), '-') ? "s" : "", strbuf_str(&nodes));
	}
	strbuf_release(&nodes);
	text = xasprintf("cpus %s", strbuf_str(&sb));
	strbuf_release(&sb);
	return text;
}
