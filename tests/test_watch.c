/* test_watch.c - the watch backend: choosing words, cutting windows, cost
 * control, classification from exact counts, and (where the kernel lets
 * us) real watchpoints on this process's own threads. */
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "tap.h"
#include "common/util.h"
#include "detector/instruments.h"
#include "detector/watch.h"
#include "symbolize/decode.h"
#include "symbolize/symbolizer.h"

static struct line_cell cell(uint32_t tid, unsigned offset, unsigned size, int kind,
			     uint64_t count)
{
	return (struct line_cell){ .tid = tid, .offset = (uint8_t)offset, .size = (uint8_t)size,
				   .kind = (uint8_t)kind, .base_reg = -1, .count = count,
				   .concurrent = count };
}

static struct line line_of(struct line_cell *cells, unsigned n)
{
	struct line l = { .pid = 42, .addr = 0x1000, .cells = cells, .n_cells = n };

	for (unsigned i = 0; i < n; i++)
		l.count += cells[i].count;
	return l;
}

/* The Klass line as timer samples see it: ~90% loads of the cache word,
 * a few stores to it, loads of secondary_supers, a stray load elsewhere. */
static void test_hot_words(void)
{
	struct line_cell c[] = {
		cell(1, 32, 8, ACCESS_LOAD, 900),
		cell(2, 32, 8, ACCESS_LOAD, 850),
		cell(1, 32, 8, ACCESS_STORE, 1),
		cell(1, 40, 8, ACCESS_LOAD, 60),
		cell(2, 40, 8, ACCESS_LOAD, 55),
		cell(1, 20, 4, ACCESS_LOAD, 3),     /* word 16: below 2% */
		cell(2, 8, 4, ACCESS_STORE, 2),     /* word 8: rare, but a store */
	};
	struct line l = line_of(c, ARRAY_SIZE(c));
	struct watch_config cfg;
	struct watch_line_words lw;

	watch_config_default(&cfg);
	watch_hot_words(&l, 64, &cfg, &lw);
	CHECK_EQ_U64(lw.pid, 42, "pid");
	CHECK_EQ_U64(lw.line, 0x1000, "line");
	CHECK_EQ_U64(lw.n_words, 3, "words kept");
	CHECK_EQ_U64(lw.words[0], 0x1020, "hottest: the cache word");
	CHECK_EQ_U64(lw.words[1], 0x1028, "then secondary_supers");
	CHECK_EQ_U64(lw.words[2], 0x1008, "then the rarely sampled store");
	{
		struct line_cell at[] = { cell(1, 32, 8, ACCESS_LOAD, 9), cell(2, 32, 8, ACCESS_STORE, 3),
					  cell(2, 40, 8, ACCESS_LOAD, 2) };
		struct line la;

		at[0].ip = 0x400a00;
		at[1].ip = 0x400a10;
		at[2].ip = 0x400a00;
		la = line_of(at, ARRAY_SIZE(at));
		watch_hot_words(&la, 64, &cfg, &lw);
		CHECK(lw.n_sites == 2 && lw.n_sampled_sites == 2,
		      "two distinct sampled sites, both counted as sampling's (%u, %u)",
		      lw.n_sites, lw.n_sampled_sites);
	}

	cfg.max_words = 1;
	watch_hot_words(&l, 64, &cfg, &lw);
	CHECK_EQ_U64(lw.n_words, 1, "max_words");

	/* an access straddling two words heats both */
	{
		struct line_cell s[] = { cell(1, 12, 8, ACCESS_LOAD, 10) };
		struct line ls = line_of(s, 1);

		watch_config_default(&cfg);
		watch_hot_words(&ls, 64, &cfg, &lw);
		CHECK_EQ_U64(lw.n_words, 2, "straddling access");
		CHECK_EQ_U64(lw.words[0], 0x1008, "first word (equal heat: by offset)");
		CHECK_EQ_U64(lw.words[1], 0x1010, "second word");
	}
	/* 128-byte lines have 16 words */
	{
		struct line_cell s[] = { cell(1, 120, 8, ACCESS_STORE, 5) };
		struct line ls = line_of(s, 1);

		watch_hot_words(&ls, 128, &cfg, &lw);
		CHECK_EQ_U64(lw.n_words, 1, "128-byte line");
		CHECK_EQ_U64(lw.words[0], 0x1078, "last word of a 128-byte line");
	}
}

/*
 * p6_nested, vectorized: each thread's 16-byte accesses heat two words
 * equally, so by heat alone a window would hold one thread's two words
 * and never see the other thread: "not confirmed".  Each window after its
 * hottest word takes the hottest word with a thread not in it yet.
 */
static void test_hot_words_mix_threads(void)
{
	struct line_cell c[] = {
		cell(1, 16, 16, ACCESS_LOAD, 275),
		cell(1, 16, 16, ACCESS_STORE, 353),
		cell(2, 32, 16, ACCESS_LOAD, 308),
		cell(2, 32, 16, ACCESS_STORE, 344),
		cell(2, 12, 4, ACCESS_STORE, 5),
	};
	struct line l = line_of(c, ARRAY_SIZE(c));
	struct watch_config cfg;
	struct watch_line_words lw;
	struct watch_window *w;
	unsigned n;

	watch_config_default(&cfg);
	watch_hot_words(&l, 64, &cfg, &lw);
	CHECK_EQ_U64(lw.n_words, 4, "max_words");
	CHECK_EQ_U64(lw.words[0], 0x1010, "hottest: rx's first word");
	CHECK_EQ_U64(lw.words[1], 0x1020, "with it tx's first, not rx's second");
	CHECK_EQ_U64(lw.words[2], 0x1018, "second window: rx's second word");
	CHECK_EQ_U64(lw.words[3], 0x1028, "with tx's second");
	n = watch_plan(&lw, 1, WATCH_WORDS_PER_WINDOW, &w);
	CHECK_EQ_U64(n, 2, "two windows");
	CHECK(n == 2 && w[0].words[0] == 0x1010 && w[0].words[1] == 0x1020 &&
	      w[1].words[0] == 0x1018 && w[1].words[1] == 0x1028, "each window sees both threads");
	free(w);
}

/* A sibling word (code_siblings.h) takes a free slot of the first
 * window by watchpoints, never a window more; by code, its site joins
 * the sites with its word. */
static void test_add_sibling(void)
{
	struct watch_line_words lw = { .pid = 1, .line = 0x1000, .line_size = 64 };
	struct code_site store = { .ip = 0x400a18, .alt = 0x400a1c };
	struct code_site load = { .ip = 0x4009e8, .alt = 0x4009ec };

	lw.words[lw.n_words++] = 0x1020;            /* the hot cache word */
	lw.sites[lw.n_sites++] = store;
	CHECK(watch_add_sibling(&lw, 0x102c, &load, false), "watchpoints: a free slot");
	CHECK(lw.n_words == 2 && lw.words[1] == 0x1028, "the sibling's word, aligned");
	CHECK_EQ_U64(lw.n_sites, 1, "watchpoints: no site added");
	CHECK(!watch_add_sibling(&lw, 0x1030, &load, false), "no third word: a window more");
	CHECK_EQ_U64(lw.n_words, 2, "still two words");

	lw.n_words = 1;
	lw.n_sampled_sites = 1;
	CHECK(watch_add_sibling(&lw, 0x1028, &load, true), "by code: added");
	CHECK_EQ_U64(lw.n_sampled_sites, 1, "by code: a sibling is no sampled site");
	CHECK(lw.n_sites == 2 && lw.sites[1].ip == load.ip && lw.sites[1].alt == load.alt,
	      "by code: the load's site, with its alt");
	CHECK(lw.n_words == 2 && lw.words[1] == 0x1028, "by code: and its word");
	CHECK(!watch_add_sibling(&lw, 0x1028, &load, true), "by code: the same site once");
	CHECK(watch_add_sibling(&lw, 0x1020, &(struct code_site){ .ip = 0x400b00 }, true) &&
	      lw.n_words == 2 && lw.n_sites == 3, "by code: a word already there, a new site");
}

static void test_plan(void)
{
	struct watch_line_words lines[3] = {
		{ .pid = 1, .line = 0x100, .words = { 0x120, 0x128, 0x100, 0x108, 0x110 }, .n_words = 5 },
		{ .pid = 1, .line = 0x200, .words = { 0x238 }, .n_words = 1 },
		{ .pid = 2, .line = 0x300, .words = { 0x300, 0x308, 0x310 }, .n_words = 3 },
	};
	struct watch_window *w;
	unsigned n = watch_plan(lines, 3, WATCH_WORDS_PER_WINDOW, &w);

	/* round robin: first groups of every line, then second groups, ... */
	CHECK_EQ_U64(n, 6, "windows");
	CHECK_EQ_U64(w[0].line, 0x100, "w0 line");
	CHECK_EQ_U64(w[0].n_words, 2, "w0 words");
	CHECK_EQ_U64(w[0].words[0], 0x120, "w0 hottest first");
	CHECK_EQ_U64(w[0].words[1], 0x128, "w0 second");
	CHECK_EQ_U64(w[1].line, 0x200, "w1 line");
	CHECK_EQ_U64(w[1].n_words, 1, "w1 words");
	CHECK_EQ_U64(w[2].line, 0x300, "w2 line");
	CHECK_EQ_U64(w[2].pid, 2, "w2 pid");
	CHECK_EQ_U64(w[3].line, 0x100, "w3: second group of line 1");
	CHECK_EQ_U64(w[3].words[0], 0x100, "w3 word 0");
	CHECK_EQ_U64(w[3].words[1], 0x108, "w3 word 1");
	CHECK_EQ_U64(w[4].line, 0x300, "w4: second group of line 3");
	CHECK_EQ_U64(w[4].n_words, 1, "w4 words");
	CHECK_EQ_U64(w[4].words[0], 0x310, "w4 word");
	CHECK_EQ_U64(w[5].line, 0x100, "w5: third group of line 1");
	CHECK_EQ_U64(w[5].words[0], 0x110, "w5 word");
	free(w);

	n = watch_plan(lines, 0, WATCH_WORDS_PER_WINDOW, &w);
	CHECK_EQ_U64(n, 0, "no lines, no windows");
	free(w);
}

static void test_cost_control(void)
{
	struct watch_config cfg;

	CHECK_EQ_U64(watch_sample_period(1, 10, 0.005, 2000), 1, "slow: every hit");
	/* 1000 hits in 5 ms = 200k/s; 2000 records/s wanted -> period 100 */
	CHECK_EQ_U64(watch_sample_period(1, 1000, 0.005, 2000), 100, "fast: period 100");
	CHECK_EQ_U64(watch_sample_period(100, 10, 0.005, 2000), 100, "never shrinks");
	CHECK_EQ_U64(watch_sample_period(3, 1000, 0, 2000), 3, "no time: unchanged");
	CHECK_EQ_U64(watch_sample_period(0, 0, 0.005, 2000), 1, "at least 1");

	watch_config_default(&cfg);
	CHECK(!watch_over_cap(1000, 0.005, &cfg), "never before the minimum window");
	CHECK(!watch_over_cap(200, 0.011, &cfg), "20k/s allows 220 hits in 11 ms");
	CHECK(watch_over_cap(300, 0.011, &cfg), "300 hits in 11 ms are over 20k/s");
	cfg.max_hits_per_s = 0;
	CHECK(!watch_over_cap(1000000, 1, &cfg), "0: no cap");

	watch_config_default(&cfg);      /* 50 ms windows, duty 0.5 */
	CHECK(watch_rest_s(0.05, &cfg) == 0.05, "a full window rests as long");
	CHECK(watch_rest_s(0.01, &cfg) == 0.05, "a window cut short rests a full window");
	CHECK(watch_rest_s(0.2, &cfg) == 0.2, "a long window rests as long");
	cfg.duty = 0.2;
	CHECK(fabs(watch_rest_s(0.05, &cfg) - 0.2) < 1e-9, "duty 0.2: rest 4x the window");
	cfg.duty = 1;
	CHECK(watch_rest_s(0.05, &cfg) == 0, "duty 1: no rest");
}

static struct watch_word_result word(uint64_t addr, struct watch_thread_count *t, unsigned n)
{
	struct watch_word_result r = { .pid = 42, .addr = addr, .threads = t, .n_threads = n,
				       .windows = 1, .window_s = 0.05 };

	for (unsigned i = 0; i < n; i++) {
		r.reads += t[i].reads;
		r.writes += t[i].writes;
	}
	return r;
}

static enum sharing_kind classify_words(const struct watch_word_result *w, unsigned n,
					bool *contended, struct line *ev)
{
	const struct watch_word_result *p[WATCH_MAX_LINE_WORDS];
	struct line_verdict v;
	enum sharing_kind k;

	for (unsigned i = 0; i < n; i++)
		p[i] = &w[i];
	CHECK(watch_line_evidence(p, n, 0x1000, 64, ev), "evidence built");
	watch_classify(ev, &v);
	k = v.kind;
	*contended = v.contended;
	line_verdict_release(&v);
	return k;
}

/*
 * Code samples come every period-th hit, so their scaled counts fall short
 * of the exact ones by up to a period per event (p4_omp: a word of 495
 * exact writes with "sites: 0 R 464 W").  The sites share the word's
 * exact reads and writes in proportion to their samples instead.
 */
static void test_sites_fit(void)
{
	struct watch_site s[] = {
		{ .ip = 0x10, .reads = 0, .writes = 464 },
	};
	struct watch_site t[] = {
		{ .ip = 0x20, .reads = 128, .writes = 0 },
		{ .ip = 0x30, .reads = 64, .writes = 0 },
		{ .ip = 0x40, .reads = 64, .writes = 64 },
	};
	struct watch_site u[] = {
		{ .ip = 0x50, .reads = 0, .writes = 32 },
	};

	watch_sites_fit(s, 1, 0, 495);
	CHECK(s[0].reads == 0 && s[0].writes == 495, "one site takes all: %lu W",
	      (unsigned long)s[0].writes);

	/* 311 reads over 128:64:64 -> 155.5, 77.75, 77.75: largest remainders */
	watch_sites_fit(t, 3, 311, 70);
	CHECK_EQ_U64(t[0].reads, 155, "site 1 reads");
	CHECK_EQ_U64(t[1].reads, 78, "site 2 reads");
	CHECK_EQ_U64(t[2].reads, 78, "site 3 reads");
	CHECK_EQ_U64(t[0].reads + t[1].reads + t[2].reads, 311, "reads add up");
	CHECK_EQ_U64(t[2].writes, 70, "the only writing site takes the writes");
	CHECK(!t[0].writes && !t[1].writes, "loads write nothing");

	/* reads the code samples never caught stay unattributed */
	watch_sites_fit(u, 1, 3, 40);
	CHECK(u[0].reads == 0 && u[0].writes == 40, "no read sampled: 0 R, got %lu",
	      (unsigned long)u[0].reads);
}

static void test_classify(void)
{
	struct line ev;
	bool contended;

	/* false_sharing_counters: each thread reads and writes its own word;
	 * main read both three times: noise */
	{
		struct watch_thread_count a[] = { { 11, 10000, 10000, 20000 }, { 10, 3, 0, 0 } };
		struct watch_thread_count b[] = { { 12, 10000, 10000, 20000 }, { 10, 3, 0, 0 } };
		struct watch_word_result w[] = { word(0x1000, a, 2), word(0x1008, b, 2) };

		CHECK_EQ_U64(classify_words(w, 2, &contended, &ev), SHARING_FALSE, "counters: false");
		CHECK(contended, "counters: confirmed");
		CHECK_EQ_U64(ev.count, 40006, "evidence: all hits");
		CHECK_EQ_U64(ev.concurrent, 40000, "evidence: concurrent hits");
		CHECK_EQ_U64(ev.n_cells, 6, "a cell per (thread, word, kind) with hits");
		CHECK_EQ_U64(ev.n_threads, 3, "threads");
		watch_line_evidence_release(&ev);
	}
	/* Klass: both write the cache, both read secondary_supers: mixed */
	{
		struct watch_thread_count c[] = { { 1, 17950, 872, 18822 }, { 2, 16268, 871, 17139 } };
		struct watch_thread_count s[] = { { 1, 900, 0, 900 }, { 2, 880, 0, 880 } };
		struct watch_word_result w[] = { word(0x1020, c, 2), word(0x1028, s, 2) };

		CHECK_EQ_U64(classify_words(w, 2, &contended, &ev), SHARING_MIXED, "klass: mixed");
		CHECK(contended, "klass: confirmed");
		watch_line_evidence_release(&ev);
	}
	/* --no-cache-write: reads only, nothing to confirm */
	{
		struct watch_thread_count c[] = { { 1, 17950, 0, 0 }, { 2, 16268, 0, 0 } };
		struct watch_word_result w[] = { word(0x1020, c, 2) };

		CHECK_EQ_U64(classify_words(w, 1, &contended, &ev), SHARING_NONE, "read-only: none");
		CHECK(!contended, "read-only: not confirmed");
		watch_line_evidence_release(&ev);
	}
	/* one shared counter: true sharing */
	{
		struct watch_thread_count c[] = { { 1, 0, 5000, 5000 }, { 2, 0, 4000, 4000 } };
		struct watch_word_result w[] = { word(0x1000, c, 2) };

		CHECK_EQ_U64(classify_words(w, 1, &contended, &ev), SHARING_TRUE, "counter: true");
		CHECK(contended, "counter: confirmed");
		watch_line_evidence_release(&ev);
	}
	/* two threads in different windows: never concurrent */
	{
		struct watch_thread_count a[] = { { 1, 0, 5000, 0 } };
		struct watch_thread_count b[] = { { 2, 5000, 0, 0 } };
		struct watch_word_result w[] = { word(0x1000, a, 1), word(0x1008, b, 1) };

		classify_words(w, 2, &contended, &ev);
		CHECK(!contended, "not concurrent: not confirmed");
		watch_line_evidence_release(&ev);
	}
	/* words of another line are not evidence */
	{
		struct watch_thread_count a[] = { { 1, 0, 5000, 5000 } };
		struct watch_word_result w = word(0x2000, a, 1);
		const struct watch_word_result *p = &w;

		CHECK(!watch_line_evidence(&p, 1, 0x1000, 64, &ev), "other line");
		watch_line_evidence_release(&ev);
	}
}

/* The Klass line as sampled (one store sample of thread 1) merged with
 * exact counts in which both threads write the cache. */
static void test_merge(void)
{
	struct line_cell c[] = {
		cell(1, 32, 8, ACCESS_LOAD, 900),
		cell(2, 32, 8, ACCESS_LOAD, 850),
		cell(1, 32, 8, ACCESS_STORE, 1),
		cell(1, 40, 8, ACCESS_LOAD, 60),
		cell(2, 40, 8, ACCESS_LOAD, 40),
		cell(2, 8, 4, ACCESS_LOAD, 9),      /* not watched: stays */
	};
	struct watch_thread_count cache[] = { { 1, 17000, 1000, 18000 }, { 2, 16000, 1000, 17000 } };
	struct watch_thread_count supers[] = { { 1, 900, 0, 900 }, { 2, 100, 0, 100 } };
	struct watch_thread_count other[] = { { 3, 0, 10, 0 } };
	struct watch_word_result w[] = { word(0x1020, cache, 2), word(0x1028, supers, 2),
					 word(0x1030, other, 1) };
	const struct watch_word_result *p[] = { &w[0], &w[1], &w[2] };
	struct line l = line_of(c, ARRAY_SIZE(c)), m;
	struct line_verdict v;
	uint64_t writes2 = 0, loads32 = 0;

	c[0].ip = 0x4000;
	c[0].base_reg = 5;
	c[0].base_off = 32;
	CHECK(watch_merge_line(&l, p, 3, 64, &m), "merged");
	for (unsigned i = 0; i < m.n_cells; i++) {
		if (m.cells[i].tid == 2 && m.cells[i].offset == 32 && m.cells[i].kind == ACCESS_STORE)
			writes2 += m.cells[i].count;
		if (m.cells[i].offset == 32 && m.cells[i].kind == ACCESS_LOAD)
			loads32 += m.cells[i].count;
		if (m.cells[i].offset == 32 && m.cells[i].tid == 1 && m.cells[i].kind == ACCESS_LOAD) {
			CHECK_EQ_U64(m.cells[i].ip, 0x4000, "ip from a sampled cell of the word");
			CHECK_EQ_U64(m.cells[i].base_reg, 5, "base register too");
		}
		if (m.cells[i].offset == 48)
			CHECK(m.cells[i].count >= 1, "a watched writer never sampled still writes");
	}
	/* one scale for the line: the 1751 + 100 replaced samples for all
	 * 36010 exact accesses (thread 3's 10 writes too, so that the line
	 * keeps its weight): thread 2's 1000 writes weigh 51.4 samples */
	CHECK_EQ_U64(writes2, 51, "thread 2's writes, scaled to samples");
	CHECK_EQ_U64(loads32, 874 + 822, "loads: 17000 and 16000 hits, scaled");
	CHECK_EQ_U64(m.count, l.count - 1, "the line weighs what was sampled (less rounding)");
	CHECK_EQ_U64(m.cells[0].offset, 8, "the unwatched cell stays, first");
	CHECK_EQ_U64(m.cells[0].count, 9, "with its count");
	CHECK_EQ_U64(m.n_threads, 3, "threads");
	classify_line(&m, m.count, &(struct classify_config){ 0, 0.3, 8, 0.01 }, &v);
	CHECK_EQ_U64(v.kind, SHARING_MIXED, "merged Klass line: mixed");
	CHECK_EQ_U64(v.n_writers, 2, "both threads write, as the exact counts say");
	line_verdict_release(&v);
	watch_line_evidence_release(&m);

	CHECK(!watch_merge_line(&l, p, 0, 64, &m), "nothing watched: no merge");
	watch_line_evidence_release(&m);
}

static const struct line_cell *cell_at(const struct line *l, uint32_t tid, unsigned offset,
				      int kind)
{
	for (unsigned i = 0; i < l->n_cells; i++)
		if (l->cells[i].tid == tid && l->cells[i].offset == offset &&
		    l->cells[i].kind == kind)
			return &l->cells[i];
	return NULL;
}

/*
 * p6_nested at -O2 (GCC 12): "c->rx.packets++; c->rx.bytes += n" is one
 * 16-byte movdqu load and one movups store, so each sampled cell spans two
 * watched words, and every access hits both.  The merged line must hold
 * the same accesses, 16 bytes wide at their code, weighing what the
 * replaced samples weighed: no second 8-byte copy of each without code
 * (the "0x0" sites), no share of the samples above 100%.
 */
static void test_merge_wide_access(void)
{
	struct line_cell c[] = {
		cell(1, 16, 16, ACCESS_LOAD, 275),
		cell(1, 16, 16, ACCESS_STORE, 353),
		cell(2, 32, 16, ACCESS_LOAD, 308),
		cell(2, 32, 16, ACCESS_STORE, 344),
		cell(2, 12, 4, ACCESS_STORE, 5),    /* tag.parts.hi: not watched */
	};
	struct watch_thread_count rx[] = { { 1, 188, 188, 376 } };
	struct watch_thread_count tx[] = { { 2, 257, 258, 515 } };
	struct watch_word_result w[] = { word(0x1010, rx, 1), word(0x1018, rx, 1),
					 word(0x1020, tx, 1), word(0x1028, tx, 1) };
	const struct watch_word_result *p[] = { &w[0], &w[1], &w[2], &w[3] };
	struct line l = line_of(c, ARRAY_SIZE(c)), m;
	const struct line_cell *mc;
	struct line_verdict v;

	c[0].ip = 0x12ac;
	c[1].ip = 0x12be;
	c[2].ip = 0x12fc;
	c[3].ip = 0x1311;
	c[4].ip = 0x1306;
	for (unsigned i = 0; i < 4; i++) {
		c[i].base_reg = 1;
		c[i].base_off = c[i].offset;
	}
	CHECK(watch_merge_line(&l, p, 4, 64, &m), "merged");
	CHECK_EQ_U64(m.n_cells, 5, "one cell per access: none added, none doubled");
	for (unsigned i = 0; i < m.n_cells; i++)
		CHECK(m.cells[i].ip != 0, "cell %u at offset %u has code", i, m.cells[i].offset);
	/* 1280 replaced samples for 891 exact accesses (188+188+257+258):
	 * 1.4366 samples per access */
	mc = cell_at(&m, 1, 16, ACCESS_LOAD);
	CHECK(mc && mc->size == 16 && mc->ip == 0x12ac && mc->base_reg == 1,
	      "rx load: 16 bytes at its code");
	CHECK_EQ_U64(mc ? mc->count : 0, 270, "rx load: 188 accesses, not 2 x 188");
	mc = cell_at(&m, 1, 16, ACCESS_STORE);
	CHECK(mc && mc->size == 16 && mc->ip == 0x12be, "rx store: 16 bytes at its code");
	CHECK_EQ_U64(mc ? mc->count : 0, 270, "rx store: 188 accesses");
	mc = cell_at(&m, 2, 32, ACCESS_LOAD);
	CHECK_EQ_U64(mc ? mc->count : 0, 369, "tx load: 257 accesses");
	mc = cell_at(&m, 2, 32, ACCESS_STORE);
	CHECK(mc && mc->size == 16 && mc->ip == 0x1311, "tx store: 16 bytes at its code");
	CHECK_EQ_U64(mc ? mc->count : 0, 371, "tx store: 258 accesses");
	mc = cell_at(&m, 2, 12, ACCESS_STORE);
	CHECK(mc && mc->count == 5 && mc->size == 4, "the unwatched tag store stays");
	CHECK_EQ_U64(m.count, l.count, "the line weighs what was sampled");
	classify_line(&m, l.count, &(struct classify_config){ 0, 0.3, 8, 0.01 }, &v);
	CHECK_EQ_U64(v.kind, SHARING_FALSE, "rx and tx halves: false sharing");
	CHECK(v.share <= 1.0, "share %g at most 1", v.share);
	CHECK_EQ_U64(v.n_ranges, 3, "ranges: tag, rx, tx");
	line_verdict_release(&v);
	watch_line_evidence_release(&m);
}

/*
 * A wide access whose stores the timer missed, and a read-modify-write:
 * the watch's writes take the shape and code of the thread's sampled
 * access to those bytes; an RMW stays one access of kind RMW, which the
 * watch counts as one write (watch.h).
 */
static void test_merge_borrowed_shape(void)
{
	struct line_cell c[] = {
		cell(1, 16, 16, ACCESS_LOAD, 100),
		cell(2, 40, 8, ACCESS_RMW, 50),
	};
	struct watch_thread_count a[] = { { 1, 100, 100, 200 } };
	struct watch_thread_count b[] = { { 2, 0, 100, 100 } };
	struct watch_word_result w[] = { word(0x1010, a, 1), word(0x1018, a, 1),
					 word(0x1028, b, 1) };
	const struct watch_word_result *p[] = { &w[0], &w[1], &w[2] };
	struct line l = line_of(c, ARRAY_SIZE(c)), m;
	const struct line_cell *mc;

	c[0].ip = 0x4000;
	c[1].ip = 0x5000;
	CHECK(watch_merge_line(&l, p, 3, 64, &m), "merged");
	CHECK_EQ_U64(m.n_cells, 3, "load, its unsampled store, the RMW");
	mc = cell_at(&m, 1, 16, ACCESS_STORE);
	CHECK(mc && mc->size == 16 && mc->ip == 0x4000,
	      "the unsampled store: the access's bytes and code");
	CHECK_EQ_U64(mc ? mc->count : 0, 50, "100 writes of 300 accesses, 150 samples");
	mc = cell_at(&m, 1, 16, ACCESS_LOAD);
	CHECK_EQ_U64(mc ? mc->count : 0, 50, "100 reads");
	mc = cell_at(&m, 2, 40, ACCESS_RMW);
	CHECK(mc && mc->ip == 0x5000, "the RMW keeps its kind and code");
	CHECK_EQ_U64(mc ? mc->count : 0, 50, "100 RMWs");
	CHECK(!cell_at(&m, 2, 40, ACCESS_STORE), "and is not also a plain store");
	watch_line_evidence_release(&m);
}

/* ---- live: real watchpoints on this process ---------------------------- */

static volatile long words[8] __attribute__((aligned(64)));
static int go, done;

struct worker_arg {
	int word, reads, writes;
	pid_t tid;
};

static void *worker(void *p)
{
	struct worker_arg *a = p;
	long sink = 0;

	a->tid = (pid_t)syscall(SYS_gettid);
	while (!__atomic_load_n(&go, __ATOMIC_ACQUIRE))
		usleep(1000);
	/* a pause every 100 accesses: the rings are drained meanwhile, and
	 * every access leaves its record */
	for (int i = 0; i < a->writes; i++) {
		words[a->word] = i;
		if (i % 100 == 99)
			usleep(2000);
	}
	for (int i = 0; i < a->reads; i++) {
		sink += words[a->word];
		if (i % 100 == 99)
			usleep(2000);
	}
	__atomic_fetch_add(&done, 1, __ATOMIC_RELEASE);
	return (void *)sink;
}

static const struct watch_thread_count *count_of(const struct watch_word_result *r, pid_t tid)
{
	for (unsigned i = 0; r && i < r->n_threads; i++)
		if (r->threads[i].tid == (uint32_t)tid)
			return &r->threads[i];
	return NULL;
}

static void start_workers(struct worker_arg *args, pthread_t *th)
{
	go = done = 0;
	args[0] = (struct worker_arg){ 0, 500, 1000, 0 };
	args[1] = (struct worker_arg){ 1, 300, 0, 0 };
	for (int i = 0; i < 2; i++)
		pthread_create(&th[i], NULL, worker, &args[i]);
	while (!__atomic_load_n(&args[0].tid, __ATOMIC_ACQUIRE) ||
	       !__atomic_load_n(&args[1].tid, __ATOMIC_ACQUIRE))
		usleep(1000);
}

static void join_workers(pthread_t *th)
{
	__atomic_store_n(&go, 1, __ATOMIC_RELEASE);
	for (int i = 0; i < 2; i++)
		pthread_join(th[i], NULL);
}

/* The exact counts both instruments must give: worker 0 writes word 0
 * 1000 times and reads it 500, worker 1 reads word 1 300 times. */
static void check_exact(struct watch *w, const struct watch_window *win,
			const struct worker_arg *args, bool by_code)
{
	const struct watch_word_result *r0 = watch_result(w, win->pid, (uintptr_t)&words[0]);
	const struct watch_word_result *r1 = watch_result(w, win->pid, (uintptr_t)&words[1]);
	const struct watch_thread_count *t;

	CHECK(r0 && r1, "results for both words");
	t = count_of(r0, args[0].tid);
	CHECK(t && t->writes == 1000 && t->reads == 500, "worker 0: exact 500 R 1000 W, got %lu R %lu W",
	      t ? (unsigned long)t->reads : 0, t ? (unsigned long)t->writes : 0);
	CHECK(!count_of(r0, args[1].tid), "worker 1 never touched word 0");
	t = count_of(r1, args[1].tid);
	CHECK(t && t->reads == 300 && t->writes == 0, "worker 1: exact 300 R 0 W, got %lu R %lu W",
	      t ? (unsigned long)t->reads : 0, t ? (unsigned long)t->writes : 0);
	CHECK_EQ_U64(r0 ? r0->windows : 0, 1, "one window");
	CHECK(r0 && r0->by_code == by_code, "counted by %s", by_code ? "code" : "watchpoints");
	CHECK(r0 && r0->n_sites == 2, "%s: sites: a store and a load (%u)",
	      by_code ? "by code" : "watchpoints", r0 ? r0->n_sites : 0);
	if (r0 && r0->n_sites == 2) {
		CHECK(r0->sites[0].writes > 0 && !r0->sites[0].reads, "the store site writes");
		CHECK(r0->sites[1].reads > 0 && !r0->sites[1].writes, "the load site reads");
		CHECK(r0->sites[0].writes == 1000 && r0->sites[1].reads == 500,
		      "the sites add up to the exact counts");
	}
	CHECK_EQ_U64(watch_windows_run(w), 1, "windows run");
}

/* Skipped, with the self-test's reason, where the instrument does not
 * work: on some virtual machines watchpoints arm and never fire. */
static bool instrument_here(const struct instruments *in, enum instrument which)
{
	char *why;

	if (instrument_works(in, which))
		return true;
	why = instrument_result_text(in, which);
	printf("# SKIP live %s: %s\n", instrument_name(which), why);
	free(why);
	return false;
}

static void test_live(const struct instruments *in)
{
	struct worker_arg args[2];
	struct watch_window win = { .pid = (uint32_t)getpid(), .line = (uintptr_t)words,
				    .words = { (uintptr_t)&words[0], (uintptr_t)&words[1] },
				    .n_words = 2 };
	struct watch_config cfg;
	pthread_t th[2];
	struct watch *w;
	int err;

	if (!instrument_here(in, INSTRUMENT_WATCHPOINTS))
		return;
	start_workers(args, th);
	watch_config_default(&cfg);
	cfg.window_s = 30;
	cfg.max_hits_per_s = 0;
	/* every hit sampled: with the period grown past 500 the loads could
	 * leave no sample, and the sites below would be one */
	cfg.max_samples_per_s = 1e9;
	w = watch_new(&cfg);
	warnings_quiet = true;
	err = watch_arm(w, &win);
	CHECK(err == 0, "armed: %s", err < 0 ? strerror(-err) : "yes");
	if (err < 0) {
		join_workers(th);
		watch_free(w);
		return;
	}
	CHECK(watch_armed_threads(w) >= 3, "main and both workers armed");
	__atomic_store_n(&go, 1, __ATOMIC_RELEASE);
	/* poll as contend does: the code samples are drained meanwhile */
	while (__atomic_load_n(&done, __ATOMIC_ACQUIRE) < 2 && watch_poll(w, 5))
		;
	watch_disarm(w);
	join_workers(th);
	check_exact(w, &win, args, false);
	watch_free(w);
}

/* The instructions of worker() that may touch words[]: its 8-byte loads
 * and stores, RIP-relative to words[] or through a register (a sanitizer
 * build's shadow checks are 1-byte: left out, or they would take the
 * sites' room). */
static unsigned worker_sites(struct symbolizer *sym, struct code_site *out, unsigned max)
{
	struct func_info fi;
	struct decoder *dec = decoder_new_native();
	uint8_t code[4096];
	size_t len, off = 0;
	unsigned n = 0;

	if (!dec || !symbolizer_function(sym, getpid(), (uintptr_t)worker, &fi) ||
	    fi.end - fi.start > sizeof(code)) {
		decoder_free(dec);
		return 0;
	}
	len = symbolizer_read(sym, getpid(), fi.start, code, fi.end - fi.start);
	while (off < len && n < max) {
		struct insn_info ii;
		struct insn_mem m;

		if (!decoder_insn(dec, code + off, len - off, fi.start + off, &ii) || !ii.length)
			break;
		if (decoder_memory(dec, code + off, len - off, fi.start + off, &m) && m.access &&
		    !m.stack && m.size == 8 &&
		    (!m.rip_relative || ((uint64_t)m.disp >= (uintptr_t)words &&
						     (uint64_t)m.disp < (uintptr_t)(words + 8))))
			out[n++] = (struct code_site){ .ip = fi.start + off };
		off += ii.length;
	}
	decoder_free(dec);
	return n;
}

static volatile sig_atomic_t stop_window;

static void *end_window(void *p)
{
	(void)p;
	usleep(300000);                     /* the window is armed by now */
	__atomic_store_n(&go, 1, __ATOMIC_RELEASE);
	while (__atomic_load_n(&done, __ATOMIC_ACQUIRE) < 2)
		usleep(1000);
	usleep(5000);
	stop_window = 1;
	return NULL;
}

/* By code, where watchpoints do not work: uprobes on worker()'s loads and
 * stores must count what the watchpoints count. */
static void test_live_by_code(const struct instruments *in)
{
	struct worker_arg args[2];
	struct watch_window win = { .pid = (uint32_t)getpid(), .line = (uintptr_t)words,
				    .line_size = 64,
				    .words = { (uintptr_t)&words[0], (uintptr_t)&words[1] },
				    .n_words = 2 };
	struct symbolizer *sym;
	struct watch_config cfg;
	pthread_t th[2], ender;
	struct watch *w;
	int err;

	if (!instrument_here(in, INSTRUMENT_UPROBES))
		return;
	sym = symbolizer_new();
	symbolizer_load_proc_maps(sym, getpid());
	win.n_sites = worker_sites(sym, win.sites, CODE_PROBE_MAX_SITES);
	CHECK(win.n_sites >= 2, "worker()'s load and store found: %u", win.n_sites);
	start_workers(args, th);
	watch_config_default(&cfg);
	cfg.window_s = 30;
	cfg.max_hits_per_s = 1e6;
	cfg.by_code = true;
	cfg.sym = sym;
	cfg.stop = &stop_window;
	stop_window = 0;
	w = watch_new(&cfg);
	pthread_create(&ender, NULL, end_window, NULL);
	err = watch_run_window(w, &win);
	pthread_join(ender, NULL);
	join_workers(th);
	CHECK(err == 0, "a window by code ran: %s", err < 0 ? strerror(-err) : "yes");
	if (!err)
		check_exact(w, &win, args, true);
	watch_free(w);
	symbolizer_free(sym);
}

/*
 * A short run: every sample on one line, 3 loads of thread 1 and 2 of
 * thread 2; the watch saw 1500 and 500 reads and one write of thread 2
 * that sampling missed.  Merged, the line rounds to 4 + 1 loads and keeps
 * the one write: 6 samples' weight out of 5 sampled, so its share (and
 * score) read 120% until the table's total followed the replaced line.
 */
static void test_merge_keeps_total(void)
{
	struct line_table *t = line_table_new(64, 1000000);
	struct watch_thread_count tc[] = { { 1, 1500, 0, 1500 }, { 2, 500, 1, 501 } };
	struct watch_word_result w[] = { word(0x1020, tc, 2) };
	const struct watch_word_result *p[] = { &w[0] };
	struct line merged, *l;
	struct line_verdict v;

	for (unsigned i = 0; i < 5; i++) {
		struct access_sample s = {
			.time = 1000 * i, .pid = 42, .tid = i < 3 ? 1 : 2, .ip = 0x4000,
			.addr = 0x1020, .size = 8, .kind = ACCESS_LOAD, .base_reg = -1,
		};
		line_table_add(t, &s);
	}
	l = line_table_find(t, 42, 0x1000);
	CHECK(l && l->count == 5, "five samples on the line");
	if (!l)
		goto out;
	CHECK(watch_merge_line(l, p, 1, 64, &merged), "merged");
	CHECK(merged.count > l->count, "rounding and the kept write: %llu > %llu",
	      (unsigned long long)merged.count, (unsigned long long)l->count);
	line_table_replace_line(t, l, &merged);
	CHECK_EQ_U64(line_table_samples(t), l->count, "the total follows the line");
	classify_line(l, line_table_samples(t), &(struct classify_config){ 0, 0.3, 8, 0.01 }, &v);
	CHECK(v.share <= 1.0 && v.score <= 1.0, "share %g and score %g at most 1",
	      v.share, v.score);
	line_verdict_release(&v);
	watch_line_evidence_release(&merged);
out:
	line_table_free(t);
}

/*
 * On demand (top's w): a confirmation picks no line by itself, even one
 * two threads write at 1 kHz (left alone, it would watch it: the
 * control); confirm_line() plans the one line asked for, refuses a second
 * while its windows remain, and the ticks run them.  Windows arm real
 * watchpoints on this process; where the kernel refuses, only the
 * planning is checked.
 */
static void add_writes(struct line_table *t, uint32_t pid)
{
	for (unsigned i = 0; i < 400; i++) {
		struct access_sample s = {
			.time = 1000000ull * (i / 2), .pid = pid, .tid = 100 + i % 2,
			.ip = 0x4000 + i % 2, .addr = (uintptr_t)&words[i % 2], .size = 8,
			.kind = ACCESS_STORE, .base_reg = -1,
		};
		line_table_add(t, &s);
	}
}

static unsigned tick_until_idle(struct confirm *c, struct line_table *t, double from)
{
	unsigned ticks = 0;

	for (double e = from; ticks < 200 && (ticks < 30 || confirm_busy(c)); e += 0.1, ticks++)
		confirm_tick(c, t, e);
	return ticks;
}

static void test_on_demand(void)
{
	uint32_t pid = (uint32_t)getpid();
	uint64_t line = (uintptr_t)words;
	struct line_table *t = line_table_new(64, 2500000);
	struct classify_config ccfg;
	struct watch_config wcfg;
	struct confirm *c;
	const struct watch_word_result *r;
	char *note;
	int err;

	classify_config_default(&ccfg);
	watch_config_default(&wcfg);
	add_writes(t, pid);
	warnings_quiet = true;

	c = confirm_new(&wcfg, &ccfg, 64);   /* the control: picks the line */
	note = confirm_missed_note(c, 0.07);
	CHECK(note && strstr(note, "sampling lasted 0.07 s and confirmation starts 0.2 s in"),
	      "over before the first window: says so (%s)", note ? note : "none");
	free(note);
	CHECK(!confirm_missed_note(c, 0.35), "long enough for a window: no note");
	CHECK(!confirm_missed_note(NULL, 0.07), "no confirmation: no note");
	tick_until_idle(c, t, 0.3);
	if (confirm_failed(c)) {
		printf("# on-demand confirmation: live windows skipped (no watchpoints here)\n");
	} else {
		CHECK(confirm_windows_run(c) > 0, "by itself, a confirmation watches the line");
		CHECK(!confirm_missed_note(c, 0.07), "windows ran: no note");
	}
	confirm_free(c);

	c = confirm_new(&wcfg, &ccfg, 64);
	confirm_on_demand(c);
	CHECK(!confirm_missed_note(c, 0.07), "on demand (top): no note");
	tick_until_idle(c, t, 0.3);
	CHECK_EQ_U64(confirm_windows_run(c), 0, "on demand: no line watched unasked");
	CHECK(!confirm_busy(c), "nothing under way");
	CHECK_EQ_U64((uint64_t)-confirm_line(c, t, pid, line + 64), ENOENT, "no such line");
	CHECK_EQ_U64((uint64_t)-confirm_line(c, t, pid + 1, line), ENOENT, "not that process's");
	err = confirm_line(c, t, pid, line);
	CHECK_EQ_U64((uint64_t)-err, 0, "the line is planned");
	CHECK(confirm_busy(c), "its windows are under way");
	CHECK_EQ_U64((uint64_t)-confirm_line(c, t, pid, line), EBUSY, "a second w waits");
	tick_until_idle(c, t, 5.0);
	CHECK(!confirm_busy(c), "the windows all ran");
	if (confirm_failed(c)) {
		CHECK_EQ_U64((uint64_t)-confirm_line(c, t, pid, line), EIO, "failed: no more");
	} else {
		r = watch_result(confirm_watch(c), pid, (uintptr_t)&words[0]);
		CHECK(r && r->windows >= 1, "counters[0]'s word watched");
		r = watch_result(confirm_watch(c), pid, (uintptr_t)&words[1]);
		CHECK(r && r->windows >= 1, "counters[1]'s word watched");
		CHECK_EQ_U64(confirm_windows_run(c), 1, "one window: both words at once");
		CHECK_EQ_U64((uint64_t)-confirm_line(c, t, pid, line), 0, "again, once over");
	}
	confirm_free(c);
	line_table_free(t);
}

/*
 * A faint line: two threads write it 2 times each in 10,000 samples, far
 * below every threshold, and no thread uses it heavily (not a suspect).
 * The confirmation watches it all the same: the watch costs nothing where
 * nothing traps, and counts what sampling saw too rarely to judge.  A line
 * the two threads only read is not watched.
 */
static void add_faint(struct line_table *t, uint32_t pid, int kind)
{
	static long busy[8] __attribute__((aligned(64)));

	for (unsigned i = 0; i < 10000; i++) {
		struct access_sample s = {
			.time = 1000000ull * i, .pid = pid, .tid = 100, .ip = 0x5000,
			.addr = (uintptr_t)&busy[0], .size = 8, .kind = ACCESS_LOAD,
			.base_reg = -1,
		};
		line_table_add(t, &s);
	}
	for (unsigned i = 0; i < 4; i++) {
		struct access_sample s = {
			.time = 1000000ull * (i / 2), .pid = pid, .tid = 100 + i % 2,
			.ip = 0x4000 + i % 2, .addr = (uintptr_t)&words[i % 2], .size = 8,
			.kind = kind, .base_reg = -1,
		};
		line_table_add(t, &s);
	}
}

static void test_faint_line(void)
{
	uint32_t pid = (uint32_t)getpid();
	struct classify_config ccfg;
	struct watch_config wcfg;
	struct line_table *t;
	struct confirm *c;

	classify_config_default(&ccfg);
	watch_config_default(&wcfg);
	warnings_quiet = true;

	t = line_table_new(64, 2500000);
	add_faint(t, pid, ACCESS_LOAD);
	c = confirm_new(&wcfg, &ccfg, 64);
	tick_until_idle(c, t, 0.3);
	CHECK_EQ_U64(confirm_windows_run(c), 0, "two threads only reading: not watched");
	confirm_free(c);
	line_table_free(t);

	t = line_table_new(64, 2500000);
	add_faint(t, pid, ACCESS_STORE);
	c = confirm_new(&wcfg, &ccfg, 64);
	tick_until_idle(c, t, 0.3);
	if (confirm_failed(c))
		printf("# faint line: live windows skipped (no watchpoints here)\n");
	else
		CHECK_EQ_U64(confirm_windows_run(c), 1, "two threads writing, 4 samples: watched");
	confirm_merge_evidence(c, t);
	CHECK(!line_table_find(t, pid, (uintptr_t)words)->watch_shared,
	      "nobody touched it while watched: not shared by the watch");
	confirm_free(c);
	line_table_free(t);
}

int main(void)
{
	struct instruments in;

	test_merge_keeps_total();
	test_hot_words();
	test_hot_words_mix_threads();
	test_add_sibling();
	test_plan();
	test_cost_control();
	test_sites_fit();
	test_classify();
	test_merge();
	test_merge_wide_access();
	test_merge_borrowed_shape();
	instruments_test(&in, 1000);
	test_live(&in);
	test_live_by_code(&in);
	test_on_demand();
	test_faint_line();
	return test_done();
}
