/* test_report.c - report model, text and JSON from a hand-made line table.
 *
 * Without a symbolizer or data types the model still has to rank and
 * classify lines, split them into ranges with threads and sites, and
 * print both formats; the JSON must parse whatever the command holds.
 * With them, on tests/fixture_globals mapped into a made-up process, the
 * lines get their variables, members and struct layouts.
 */
#include <fcntl.h>
#include <gelf.h>
#include <inttypes.h>
#include <stdbool.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "tap.h"
#include "elf_fixture.h"
#include "common/util.h"
#include "detector/callchain.h"
#include "detector/line_table.h"
#include "detector/watch.h"
#include "printers/printers.h"
#include "reports/report.h"
#include "reports/report_finish.h"
#include "reports/report_build.h"
#include "reports/watch_report.h"
#include "symbolize/data_types.h"
#include "symbolize/symbolizer.h"

#define PID 100
#define T1 101
#define T2 102
#define FS_LINE 0x7f0000010040ULL   /* false sharing: T1 at +0, T2 at +8 */
#define TS_LINE 0x7f0000020000ULL   /* true sharing: both at +16 */
#define PRIV_LINE 0x7f0000030000ULL /* T1 only */
#define IP1 0x401000ULL
#define IP2 0x402000ULL

static uint64_t now;

static void add_access(struct line_table *t, uint32_t tid, uint64_t ip, uint64_t addr,
		       int kind, int base_reg, int64_t base_off)
{
	struct access_sample s = {
		.time = now += 1000, .pid = PID, .tid = tid, .ip = ip,
		.addr = addr, .size = 8, .kind = kind,
		.base_reg = base_reg, .base_off = base_off,
	};

	line_table_add(t, &s);
}

static void add(struct line_table *t, uint32_t tid, uint64_t ip, uint64_t addr, int kind)
{
	add_access(t, tid, ip, addr, kind, -1, 0);
}

/* Two threads incrementing neighbouring longs, n samples each, interleaved. */
static void add_false_sharing(struct line_table *t, int n)
{
	for (int i = 0; i < n; i++) {
		add(t, T1, IP1, FS_LINE + 0, ACCESS_RMW);
		add(t, T2, IP2, FS_LINE + 8, ACCESS_RMW);
	}
}

static void add_private(struct line_table *t, int n)
{
	for (int i = 0; i < n; i++)
		add(t, T1, IP1, PRIV_LINE + 24, ACCESS_STORE);
}

static const struct run_facts header = {
	.command = "prog \"a b\"\nnext\x01 caf\xc3\xa9 \xff",
	.backend = "soft",
	.backend_note = "no hardware PMU: cpu-clock sampling + instruction decoding",
	.freq = 1000,
	.duration = 1.5,
	.samples = 300,
	.decoded = 250,
	.dropped = (const struct named_count[]) {
		{ "stack", 20 }, { "no memory operand", 30 },
	},
	.n_dropped = 2,
};

/* ------------------------------------------------------------------ */
/* a JSON validator: enough to say the output parses */

static const char *skip_ws(const char *p)
{
	while (*p == ' ' || *p == '\n' || *p == '\t' || *p == '\r')
		p++;
	return p;
}

static const char *json_value(const char *p, int depth);

static const char *json_string(const char *p)
{
	if (*p++ != '"')
		return NULL;
	while (*p != '"') {
		if ((unsigned char)*p < 0x20)
			return NULL;
		if (*p == '\\') {
			p++;
			if (*p == 'u') {
				for (int i = 1; i <= 4; i++)
					if (!strchr("0123456789abcdefABCDEF", p[i]) || !p[i])
						return NULL;
				p += 4;
			} else if (!*p || !strchr("\"\\/bfnrt", *p)) {
				return NULL;
			}
		}
		p++;
	}
	return p + 1;
}

static const char *json_number(const char *p)
{
	const char *start = p;

	if (*p == '-')
		p++;
	while ((*p >= '0' && *p <= '9') || strchr(".eE+-", *p))
		p++;
	return p > start && *p ? p : NULL;
}

static const char *json_container(const char *p, char close, bool keys, int depth)
{
	p = skip_ws(p + 1);
	if (*p == close)
		return p + 1;
	for (;;) {
		if (keys) {
			p = json_string(skip_ws(p));
			if (!p || *(p = skip_ws(p)) != ':')
				return NULL;
			p++;
		}
		p = json_value(p, depth + 1);
		if (!p)
			return NULL;
		p = skip_ws(p);
		if (*p == close)
			return p + 1;
		if (*p++ != ',')
			return NULL;
	}
}

static const char *json_value(const char *p, int depth)
{
	if (depth > 32)
		return NULL;
	p = skip_ws(p);
	switch (*p) {
	case '{': return json_container(p, '}', true, depth);
	case '[': return json_container(p, ']', false, depth);
	case '"': return json_string(p);
	case 't': return strncmp(p, "true", 4) ? NULL : p + 4;
	case 'f': return strncmp(p, "false", 5) ? NULL : p + 5;
	case 'n': return strncmp(p, "null", 4) ? NULL : p + 4;
	}
	return json_number(p);
}

static bool json_parses(const char *s)
{
	const char *end = json_value(s, 0);

	return end && !*skip_ws(end);
}

/* ------------------------------------------------------------------ */

static char *render(const struct report *r, bool json)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	if (!f)
		die("open_memstream failed");
	if (json)
		report_print_json(r, f);
	else
		report_print_text(r, f);
	fclose(f);
	return buf;
}

static int widest_line(const char *s)
{
	int widest = 0;

	while (*s) {
		const char *nl = strchrnul(s, '\n');

		if (nl - s > widest)
			widest = nl - s;
		s = *nl ? nl + 1 : nl;
	}
	return widest;
}

static struct report *build(struct line_table *t, unsigned top)
{
	struct classify_config cfg;

	classify_config_default(&cfg);
	return report_build(&header, t, &cfg, top, NULL, NULL);
}

static void check_model(const struct report *r)
{
	const struct report_line *l = &r->lines[0];

	CHECK_EQ_U64(r->n_lines, 1, "contended lines");
	CHECK_EQ_U64(r->n_candidates, 1, "lines with >= 2 threads");
	CHECK_EQ_U64(r->line_size, 64, "line size");
	CHECK_STR(r->command, header.command, "command copied");
	CHECK_EQ_U64(r->n_dropped, 2, "dropped reasons");
	CHECK_STR(r->dropped[0].what, "no memory operand", "dropped, largest first");
	if (r->n_lines != 1)
		return;

	CHECK_EQ_U64(l->kind, SHARING_FALSE, "kind");
	CHECK_EQ_U64(l->pid, PID, "pid");
	CHECK_EQ_U64(l->addr, FS_LINE, "line address");
	CHECK_EQ_U64(l->samples, 200, "samples on the line");
	CHECK(l->score > 0.6 && l->score <= 200.0 / 300, "score %f", l->score);
	CHECK_STR(l->object, "0x7f0000010040", "object without symbols");
	CHECK(!l->variable && !l->type_name, "no type without DWARF");
	CHECK_EQ_U64(l->untyped, 200, "untyped samples");
	CHECK_EQ_U64(r->untyped, 200, "untyped over the report");
	CHECK_EQ_U64(r->n_untyped_why, 1, "untyped reasons");
	CHECK_EQ_U64(l->n_members, 0, "no members without a type");
	CHECK_EQ_U64(l->n_threads, 2, "line threads");
	if (l->n_threads == 2) {
		CHECK_EQ_U64(l->threads[0].tid, T1, "threads sorted by tid");
		CHECK_EQ_U64(l->threads[1].writes, 100, "writes of T2");
	}

	CHECK_EQ_U64(l->n_ranges, 2, "ranges");
	if (l->n_ranges != 2)
		return;
	for (unsigned i = 0; i < 2; i++) {
		const struct report_range *rr = &l->ranges[i];

		CHECK_EQ_U64(rr->offset, 8 * i, "range offset");
		CHECK_EQ_U64(rr->size, 8, "range size");
		CHECK(rr->false_writer && rr->false_victim && !rr->true_shared,
		      "range %u role", i);
		CHECK(!rr->member, "range %u has no member", i);
		/* an RMW is one access: a write (report.h) */
		CHECK_EQ_U64(rr->reads, 0, "range reads");
		CHECK_EQ_U64(rr->writes, 100, "range writes");
		CHECK_EQ_U64(rr->n_threads, 1, "range threads");
		CHECK_EQ_U64(rr->threads[0].tid, i ? T2 : T1, "range thread");
		CHECK_EQ_U64(rr->n_sites, 1, "range sites");
		CHECK_EQ_U64(rr->sites[0].ip, i ? IP2 : IP1, "site ip");
		CHECK(!rr->sites[0].function && !rr->sites[0].module, "site unnamed");
	}
}

static void check_text(const struct report *r)
{
	char *text = render(r, false);

	CHECK(strstr(text, "== #1  FALSE SHARING  line 0x7f0000010040  pid 100\n"),
	      "title:\n%s", text);
	CHECK(strstr(text, "\n   0       8     "), "row of offset 0:\n%s", text);
	CHECK(strstr(text, "\n   8       8     "), "row of offset 8:\n%s", text);
	CHECK(strstr(text, "false (writer)"), "role");
	CHECK(strstr(text, "threads: 101 102\n"), "thread list");
	CHECK(strstr(text, "0x401000"), "unnamed site shown by address");
	CHECK(strstr(text, "dropped: 50 (no memory operand 30, stack 20)"), "dropped");
	CHECK(strstr(text, "prog \"a b\"\\nnext\\x01"), "command control characters (escape_text)");
	CHECK(widest_line(text) <= 100, "text wider than 100 columns:\n%s", text);
	free(text);
}

static void check_json(const struct report *r)
{
	char *json = render(r, true);

	CHECK(json_parses(json), "JSON does not parse:\n%s", json);
	CHECK(strstr(json, "\"schema\": \"contend-report\""), "schema");
	CHECK(strstr(json, "\"kind\": \"false\""), "kind");
	CHECK(strstr(json, "\"address\": \"0x7f0000010040\""), "address");
	CHECK(strstr(json, "\"candidates\": 1,"), "candidates");
	CHECK(strstr(json, "\"dropped\": { \"no memory operand\": 30, \"stack\": 20 }"),
	      "dropped");
	CHECK(strstr(json, "\"command\": \"prog \\\"a b\\\"\\nnext\\u0001 caf\xc3\xa9 \\u00ff\""),
	      "command escaped:\n%s", json);
	CHECK(strstr(json, "{ \"tid\": 102, \"comm\": null, \"reads\": 0, \"writes\": 100 }"),
	      "thread object");
	CHECK(strstr(json, "\"member\": null"), "untyped member");
	CHECK(strstr(json, "\"untyped_by_reason\": { \"no type lookup\": 200 }"),
	      "untyped reasons");
	free(json);
}

static void test_false_sharing(void)
{
	struct line_table *t = line_table_new(64, 100000);
	struct report *r;

	add_false_sharing(t, 100);
	add_private(t, 50);
	r = build(t, 0);
	check_model(r);
	check_text(r);
	check_json(r);
	report_free(r);
	line_table_free(t);
}

static void test_ranking(void)
{
	struct line_table *t = line_table_new(64, 100000);
	struct report *r;

	add_false_sharing(t, 100);
	for (int i = 0; i < 40; i++) {
		add(t, T1, IP1, TS_LINE + 16, ACCESS_ATOMIC);
		add(t, T2, IP2, TS_LINE + 16, ACCESS_ATOMIC);
	}
	r = build(t, 0);
	CHECK_EQ_U64(r->n_lines, 2, "both lines contended");
	if (r->n_lines == 2) {
		CHECK_EQ_U64(r->lines[0].addr, FS_LINE, "hottest first");
		CHECK_EQ_U64(r->lines[1].kind, SHARING_TRUE, "second is true sharing");
		CHECK(r->lines[1].n_ranges == 1 && r->lines[1].ranges[0].true_shared &&
		      r->lines[1].ranges[0].n_threads == 2, "one range, both threads");
	}
	report_free(r);

	r = build(t, 1);
	CHECK_EQ_U64(r->n_lines, 1, "top 1");
	CHECK_EQ_U64(r->n_candidates, 2, "candidates do not depend on top");
	report_free(r);
	line_table_free(t);
}

/*
 * One counting rule for every table: reads are accesses that only read,
 * writes accesses that write, an RMW or atomic (add %rsi,(mem), lock
 * xadd) once, as the watchpoints count it.  So a sampled lock addq reads
 * "0 R 180 W" as its confirmation does, not "180 R 180 W", and reads +
 * writes are the samples.
 */
static void test_rmw_counts_once(void)
{
	static const int kinds[] = { ACCESS_LOAD, ACCESS_STORE, ACCESS_RMW, ACCESS_ATOMIC };
	static const int per_kind[] = { 10, 20, 30, 40 };
	struct line_table *t = line_table_new(64, 100000);
	const struct report_range *rr;
	struct report *r;
	uint64_t site_reads = 0, site_writes = 0;

	for (int i = 0; i < 100; i++) {
		for (unsigned k = 0; k < ARRAY_SIZE(kinds); k++)
			if (i < per_kind[k])
				add(t, T1, IP1 + 4 * k, TS_LINE + 16, kinds[k]);
		add(t, T2, IP2, TS_LINE + 16, ACCESS_ATOMIC);
	}
	r = build(t, 0);
	CHECK(r->n_lines == 1 && r->lines[0].n_ranges == 1, "one line, one range");
	if (r->n_lines != 1 || r->lines[0].n_ranges != 1)
		goto out;
	rr = &r->lines[0].ranges[0];
	CHECK_EQ_U64(rr->reads, 10, "range reads: the loads");
	CHECK_EQ_U64(rr->writes, 20 + 30 + 40 + 100, "range writes: stores, RMWs, atomics");
	CHECK_EQ_U64(rr->reads + rr->writes, r->lines[0].samples, "one sample, one access");
	CHECK(rr->n_threads == 2 && rr->threads[0].tid == T1, "both threads, by tid");
	CHECK_EQ_U64(rr->threads[0].reads, 10, "T1 reads");
	CHECK_EQ_U64(rr->threads[0].writes, 90, "T1 writes");
	CHECK_EQ_U64(rr->threads[1].reads, 0, "T2's lock xadd reads nothing extra");
	CHECK_EQ_U64(rr->threads[1].writes, 100, "T2 writes");
	for (unsigned i = 0; i < rr->n_sites; i++) {
		site_reads += rr->sites[i].reads;
		site_writes += rr->sites[i].writes;
		if (rr->sites[i].ip == IP1 + 8)
			CHECK(!rr->sites[i].reads && rr->sites[i].writes == 30, "the RMW site: 0 R 30 W");
	}
	CHECK(site_reads == rr->reads && site_writes == rr->writes, "sites add up to the range");
out:
	report_free(r);
	line_table_free(t);
}

/*
 * A watched word's table: its sites add up to its exact counts (watch.h),
 * but only MAX_SITES are printed; the rest are said, and counts no
 * sampled code took are said too, so the rows never disagree silently.
 */
static void test_watch_word_text(void)
{
	struct line_table *t = line_table_new(64, 100000);
	struct report_watch_word *ww;
	struct report *r;
	char *text;

	add_false_sharing(t, 100);
	r = build(t, 0);
	CHECK_EQ_U64(r->n_lines, 1, "a line to hang the words on");
	if (r->n_lines != 1)
		goto out;
	r->lines[0].confirmed_checked = r->lines[0].confirmed = true;
	r->lines[0].watch_kind = SHARING_FALSE;
	r->lines[0].n_words = 1;
	r->lines[0].words = ww = xcalloc(1, sizeof(*ww));
	ww->offset = 0;
	ww->size = 8;
	ww->windows = 1;
	ww->reads = 3;
	ww->writes = 600;
	ww->n_threads = 1;
	ww->threads = xcalloc(1, sizeof(*ww->threads));
	ww->threads[0] = (struct report_thread){ .tid = T1, .reads = 3, .writes = 600 };
	ww->n_sites = 6;
	ww->sites = xcalloc(6, sizeof(*ww->sites));
	for (unsigned i = 0; i < 6; i++)
		ww->sites[i] = (struct report_site){ .ip = IP1 + i, .writes = 100 };
	text = render(r, false);
	CHECK(strstr(text, "sites: 0 R 100 W  0x401000\n"), "first site:\n%s", text);
	CHECK(strstr(text, "0 R 100 W  0x401003\n"), "fourth site");
	CHECK(!strstr(text, "0x401004"), "fifth site not listed");
	CHECK(strstr(text, "... 2 more sites: 0 R 200 W\n"), "the rest said:\n%s", text);
	CHECK(strstr(text, "(3 reads at code no sample caught)\n"), "unsampled reads:\n%s",
	      text);
	free(text);
out:
	report_free(r);
	line_table_free(t);
}

/*
 * p3_mutex's done and checksum: both threads store to both, in turn.
 * True sharing, and no false pair between the two fields' code.
 */
static void test_co_written_pairs(void)
{
	struct line_table *t = line_table_new(64, 100000);
	struct report *r;

	for (int i = 0; i < 100; i++) {
		add(t, i & 1 ? T2 : T1, IP1, TS_LINE + 8, ACCESS_STORE);
		add(t, i & 1 ? T2 : T1, IP2, TS_LINE + 16, ACCESS_STORE);
	}
	r = build(t, 0);
	CHECK_EQ_U64(r->n_lines, 1, "co-written line");
	if (r->n_lines == 1) {
		const struct report_line *l = &r->lines[0];

		CHECK_EQ_U64(l->kind, SHARING_TRUE, "co-written: true sharing");
		for (unsigned i = 0; i < l->n_pairs; i++)
			CHECK_EQ_U64(l->pairs[i].kind, SHARING_TRUE,
				     "co-written: no false pair");
		CHECK(l->n_pairs == 2, "a true pair per field: %u", l->n_pairs);
	}
	report_free(r);
	line_table_free(t);
}

/* Bytes that are not well-formed UTF-8 come out as \u00XX, one per byte. */
static void test_json_escaping(void)
{
	struct report r = {
		.command = "\t\\\x7f|\xc0\x80|\xed\xa0\x80|\xf0\x9f\x98\x80|\xe2\x82",
	};
	char *json = render(&r, true);

	CHECK(json_parses(json), "JSON does not parse:\n%s", json);
	CHECK(strstr(json, "\"command\": \"\\t\\\\\\u007f|"
			   "\\u00c0\\u0080|" /* overlong NUL */
			   "\\u00ed\\u00a0\\u0080|" /* surrogate */
			   "\xf0\x9f\x98\x80|" /* valid, 4 bytes */
			   "\\u00e2\\u0082\""), /* cut short */
	      "escaping:\n%s", json);
	free(json);
}

/* Thirty threads writing their own words of one line, from many sites. */
static void test_wide(void)
{
	struct line_table *t = line_table_new(64, 100000);
	struct report *r;
	char *text;

	for (int i = 0; i < 20; i++)
		for (uint32_t tid = 0; tid < 30; tid++)
			add(t, 1000 + tid, IP1 + 16 * (i % 6), FS_LINE + 2 * tid, ACCESS_STORE);
	r = build(t, 0);
	text = render(r, false);
	CHECK_EQ_U64(r->n_lines, 1, "one line");
	CHECK(r->n_lines && r->lines[0].n_ranges == 30 && r->lines[0].n_threads == 30,
	      "30 ranges and threads");
	CHECK(strstr(text, "... 2 more\n"), "sites beyond the first four summed up");
	CHECK(widest_line(text) <= 100, "text wider than 100 columns:\n%s", text);
	free(text);
	report_free(r);
	line_table_free(t);
}

static void test_no_contention(void)
{
	struct line_table *t = line_table_new(64, 100000);
	struct report *r;
	char *text, *json;

	add_private(t, 50);
	r = build(t, 0);
	text = render(r, false);
	json = render(r, true);
	CHECK_EQ_U64(r->n_lines, 0, "nothing contended");
	CHECK(strstr(text, "no contended cache lines found (0 lines touched by >= 2 threads)"),
	      "no-contention text:\n%s", text);
	CHECK(json_parses(json), "empty report JSON does not parse:\n%s", json);
	CHECK(strstr(json, "\"lines\": []"), "empty lines array");
	free(text);
	free(json);
	report_free(r);
	line_table_free(t);
}

#define IP3 0x403000ULL
#define T3 103

/*
 * Who contends with whom: T1 and T2 increment neighbouring longs (false),
 * T3 reads T1's long (true with T1, false with T2).  T1's samples carry a
 * call chain.
 */
static void test_pairs_and_chains(void)
{
	struct line_table *t = line_table_new(64, 100000);
	struct callchains *chains = callchains_new();
	uint64_t callers[] = { 0x500000, 0x500100 };
	struct run_facts hdr = header;
	struct classify_config cfg;
	const struct report_line *l;
	const struct report_site *site;
	struct report *r;
	char *text, *json;

	for (int i = 0; i < 100; i++) {
		struct access_sample s = {
			.time = now += 1000, .pid = PID, .tid = T1, .ip = IP1,
			.addr = FS_LINE, .size = 8, .kind = ACCESS_RMW, .base_reg = -1,
			.chain_id = callchain_intern(chains, callers, 2),
		};

		line_table_add(t, &s);
		add(t, T2, IP2, FS_LINE + 8, ACCESS_RMW);
		if (i % 2)
			add(t, T3, IP3, FS_LINE, ACCESS_LOAD);
	}
	hdr.chains = chains;
	classify_config_default(&cfg);
	r = report_build(&hdr, t, &cfg, 0, NULL, NULL);
	if (r->n_lines != 1 || r->lines[0].n_pairs != 3) {
		CHECK(0, "want 1 line with 3 pairs, got %u lines, %u pairs", r->n_lines,
		      r->n_lines ? r->lines[0].n_pairs : 0);
		goto out;
	}
	l = &r->lines[0];
	CHECK_EQ_U64(l->kind, SHARING_MIXED, "kind");
	/* heaviest first: T1 and T2 have 100 concurrent samples each */
	CHECK_EQ_U64(l->pairs[0].kind, SHARING_FALSE, "first pair: false");
	CHECK_EQ_U64(l->pairs[0].a.site.ip, IP1, "side a: the lower site");
	CHECK(l->pairs[0].a.n_tids == 1 && l->pairs[0].a.tids[0] == T1, "side a: T1");
	CHECK_EQ_U64(l->pairs[0].b.site.ip, IP2, "side b");
	CHECK(l->pairs[0].b.n_tids == 1 && l->pairs[0].b.tids[0] == T2, "side b: T2");
	CHECK_EQ_U64(l->pairs[0].weight, 99, "weight: the smaller side's concurrent samples");
	for (unsigned i = 1; i < 3; i++) {
		const struct report_pair *p = &l->pairs[i];

		CHECK_EQ_U64(p->b.site.ip, IP3, "T3's site pairs with the writers");
		CHECK_EQ_U64(p->weight, 50, "T3's 50 loads");
		CHECK_EQ_U64(p->kind, p->a.site.ip == IP1 ? SHARING_TRUE : SHARING_FALSE,
			     "T3 against T1's bytes: true; T2's: false");
	}

	site = &l->ranges[0].sites[0];
	CHECK_EQ_U64(site->ip, IP1, "T1's site");
	CHECK_EQ_U64(site->n_chains, 1, "one chain");
	if (site->n_chains == 1) {
		CHECK_EQ_U64(site->chains[0].count, 100, "chain samples");
		CHECK_EQ_U64(site->chains[0].n_frames, 2, "chain frames");
		CHECK_STR(site->chains[0].frames[1], "0x500100", "frame without symbols");
	}
	CHECK_EQ_U64(l->ranges[1].sites[0].n_chains, 0, "no chain for T2's samples");

	text = render(r, false);
	json = render(r, true);
	CHECK(strstr(text, "100 from 0x500000 <- 0x500100\n"), "chain in text:\n%s", text);
	CHECK(strstr(text, "contending pairs"), "pairs in text:\n%s", text);
	CHECK(strstr(text, "  false  99  101  0x401000\n"), "first pair:\n%s", text);
	CHECK(strstr(text, "       vs  102  0x402000\n"), "its other side:\n%s", text);
	CHECK(widest_line(text) <= 100, "text wider than 100 columns:\n%s", text);
	CHECK(json_parses(json), "JSON does not parse:\n%s", json);
	CHECK(strstr(json, "\"chains\": [\n"), "chains array");
	CHECK(strstr(json, "{ \"count\": 100, \"frames\": [ \"0x500000\", \"0x500100\" ] }"),
	      "chain object:\n%s", json);
	CHECK(strstr(json, "\"kind\": \"true\""), "a true pair");
	CHECK(strstr(json, "\"concurrent\": 99, \"tids\": [ 101 ] }"), "pair side:\n%s", json);
	free(text);
	free(json);
out:
	report_free(r);
	callchains_free(chains);
	line_table_free(t);
}

/* ------------------------------------------------------------------ */
/* with symbols and types: the fixture, mapped as the kernel would */

#define LOAD_BASE 0x555555554000ULL
#define DWARF_RDI 5

/* The fixture's segments at LOAD_BASE. */
static void map_segments(struct elf_file *f, struct symbolizer *sym, const char *path)
{
	elf_fixture_map(f, sym, PID, LOAD_BASE, path);
}

/* The address of a symbol once loaded, 0 if missing. */
static uint64_t symbol(struct elf_file *f, const char *name)
{
	return elf_fixture_symbol(f, LOAD_BASE, name);
}

static const struct report_line *find_line(const struct report *r, const char *variable)
{
	for (unsigned i = 0; i < r->n_lines; i++)
		if (r->lines[i].variable && !strcmp(r->lines[i].variable, variable))
			return &r->lines[i];
	return NULL;
}

static const struct report_member *find_member(const struct report_line *l, const char *name)
{
	for (unsigned i = 0; i < l->n_members; i++)
		if (l->members[i].name && !strcmp(l->members[i].name, name))
			return &l->members[i];
	return NULL;
}

/* Addresses of the fixture once loaded, and where the test touches it. */
struct fixture {
	uint64_t counters, klass, main, is_subtype, bump;
	uint64_t aligned_stats;     /* _Alignas(64) on the variable, struct stats[4] */
	uint64_t stats_arena;       /* _Alignas(64) unsigned char[128], used as struct stats */
	unsigned elem;              /* counters[elem] and [elem + 1] share a line */
};

static bool same_line(uint64_t a, uint64_t b)
{
	return a / 64 == b / 64;
}

/* counters[elem] and [elem + 1] written by two threads (RIP-relative). */
static void check_counters(const struct report_line *l, const struct fixture *fx)
{
	char *first = xasprintf("counters[%u]", fx->elem);
	char *second = xasprintf("counters[%u]", fx->elem + 1);
	char *object = fx->elem ? xasprintf("counters+%u", 8 * fx->elem) : xstrdup("counters");
	const struct report_member *m;

	CHECK(l, "a line for counters");
	if (!l)
		goto out;
	CHECK_EQ_U64(l->kind, SHARING_FALSE, "counters: kind");
	CHECK_STR(l->object, object, "counters: object");
	CHECK_STR(l->type_name, "long[4]", "counters: type");
	CHECK_EQ_U64(l->object_start, fx->counters, "counters: start");
	CHECK_EQ_U64(l->untyped, 0, "counters: all typed");
	CHECK(l->n_ranges == 2, "counters: ranges");
	if (l->n_ranges == 2) {
		CHECK_STR(l->ranges[0].member, first, "counters: first range");
		CHECK_STR(l->ranges[1].member, second, "counters: second range");
		CHECK_STR(l->ranges[0].sites[0].function, "main", "counters: site");
	}
	/* an array of scalars: one member per element touched */
	CHECK_EQ_U64(l->n_members, 2, "counters: elements");
	m = find_member(l, second);
	CHECK(m && m->offset == 8 * (fx->elem + 1) && m->n_writers == 1 && m->writers[0] == T2,
	      "%s written by T2 alone", second);
	CHECK_EQ_U64(l->struct_size, 8, "counters: element size");
out:
	free(first);
	free(second);
	free(object);
}

/*
 * klass_c1.secondary_super_cache read by T1 and written by T2, its
 * neighbour secondary_supers written by a third thread.
 */
static void check_klass(const struct report_line *l)
{
	const struct report_member *m;

	CHECK(l, "a line for klass_c1");
	if (!l)
		return;
	CHECK_EQ_U64(l->kind, SHARING_MIXED, "klass: kind");
	CHECK_STR(l->object, "klass_c1+32", "klass: object");
	CHECK_STR(l->type_name, "Klass", "klass: type");
	CHECK_EQ_U64(l->struct_size, 128, "sizeof(Klass)");
	CHECK_EQ_U64(l->n_members, 11, "Klass members");
	CHECK(l->n_ranges == 2, "klass: ranges");
	if (l->n_ranges == 2) {
		CHECK_STR(l->ranges[0].member, "klass_c1.secondary_super_cache", "klass: member");
		CHECK(l->ranges[0].true_shared, "the cache is truly shared");
		CHECK_STR(l->ranges[0].sites[0].function, "is_subtype", "klass: site");
		CHECK(l->ranges[0].sites[0].file &&
		      strstr(l->ranges[0].sites[0].file, "fixture_globals.c"), "klass: file");
	}
	m = find_member(l, "secondary_super_cache");
	CHECK(m && m->offset == 32 && m->n_writers == 1 && m->writers[0] == T2 &&
	      m->n_readers == 1 && m->readers[0] == T1, "cache: T2 writes, T1 reads");
	m = find_member(l, "secondary_supers");
	CHECK(m && m->writes == 100 && m->n_writers == 1, "secondary_supers written");
	m = find_member(l, "vptr");
	CHECK(m && !m->reads && !m->writes, "vptr untouched");
}

/*
 * Two struct stats on the heap, one line: bump(s) in T1 and T2 writes
 * s->writes of each.  Only the pointer in %rdi says what they are.
 */
static void check_heap(const struct report_line *l)
{
	const struct report_member *m;

	CHECK(l, "a line for the heap stats");
	if (!l)
		return;
	CHECK_EQ_U64(l->kind, SHARING_FALSE, "heap: kind");
	CHECK(l->object && !strncmp(l->object, "[heap]+0x", 9), "heap: object %s", l->object);
	CHECK_STR(l->type_name, "struct stats", "heap: type");
	CHECK_EQ_U64(l->struct_size, 32, "sizeof(struct stats)");
	CHECK(l->n_ranges == 2, "heap: ranges");
	if (l->n_ranges == 2) {
		CHECK_STR(l->ranges[0].member, "writes", "heap: member through a pointer");
		CHECK_STR(l->ranges[0].sites[0].function, "bump", "heap: site");
	}
	m = find_member(l, "writes");
	CHECK(m && m->offset == 8 && m->writes == 100 && m->n_writers == 1,
	      "one instance's writes, by one thread");
}

static bool fixture_load(struct fixture *fx, struct symbolizer *sym, const char *path)
{
	struct elf_file f;

	if (!elf_file_open(&f, path))
		return false;
	map_segments(&f, sym, path);
	fx->counters = symbol(&f, "counters");
	fx->klass = symbol(&f, "klass_c1");
	fx->main = symbol(&f, "main");
	fx->is_subtype = symbol(&f, "is_subtype");
	fx->bump = symbol(&f, "bump");
	fx->aligned_stats = symbol(&f, "aligned_stats");
	fx->stats_arena = symbol(&f, "stats_arena");
	elf_file_close(&f);
	/* wherever the linker put counters, two neighbours share a line */
	while (!same_line(fx->counters + 8 * fx->elem, fx->counters + 8 * fx->elem + 8))
		fx->elem++;
	return fx->counters && fx->klass && fx->main && fx->is_subtype && fx->bump;
}

static void test_typed(const char *path)
{
	struct symbolizer *sym = symbolizer_new();
	struct data_types *dt = data_types_new();
	struct line_table *t = line_table_new(64, 100000);
	uint64_t counters, heap = LOAD_BASE + 0x100000;
	struct fixture fx = { 0 };
	struct classify_config cfg;
	struct report *r;
	char *json;

	CHECK(fixture_load(&fx, sym, path), "fixture symbols in %s", path);
	symbolizer_add_mapping(sym, PID, heap, 0x21000, 0, PROT_READ | PROT_WRITE, "[heap]");
	counters = fx.counters + 8 * fx.elem;
	for (int i = 0; i < 100; i++) {
		add(t, T1, fx.main, counters, ACCESS_RMW);
		add(t, T2, fx.main, counters + 8, ACCESS_RMW);
		/* is_subtype: cmp %rsi, 0x20(%rdi); bump: addq $1, 0x8(%rdi) */
		add_access(t, T1, fx.is_subtype, fx.klass + 32, ACCESS_LOAD, DWARF_RDI, 32);
		add_access(t, T2, fx.is_subtype, fx.klass + 32, ACCESS_STORE, DWARF_RDI, 32);
		add_access(t, 103, fx.bump, fx.klass + 40, ACCESS_STORE, DWARF_RDI, 40);
		add_access(t, T1, fx.bump, heap + 0x280 + 8, ACCESS_RMW, DWARF_RDI, 8);
		add_access(t, T2, fx.bump, heap + 0x2a0 + 8, ACCESS_RMW, DWARF_RDI, 8);
	}
	classify_config_default(&cfg);
	r = report_build(&header, t, &cfg, 0, sym, dt);

	check_counters(find_line(r, "counters"), &fx);
	if (same_line(fx.klass + 32, fx.klass + 47))
		check_klass(find_line(r, "klass_c1"));
	check_heap(find_line(r, "s"));
	CHECK_EQ_U64(r->untyped, 0, "typed: nothing untyped");
	json = render(r, true);
	CHECK(json_parses(json), "typed JSON does not parse:\n%s", json);
	CHECK(strstr(json, "\"variable\": \"s\""), "JSON pointer variable");
	free(json);

	report_free(r);
	line_table_free(t);
	data_types_free(dt);
	symbolizer_free(sym);
}

/*
 * Latent false sharing: bump(s) in T1 and T2 writes s->writes of two
 * neighbouring struct stats (32 bytes) on the heap, elements 0 and 1 of
 * one array whose element 0 starts 32 bytes into a line: the two writes
 * are 24 bytes apart, on two lines.  With elements 64 bytes apart (a
 * padded array) no placement at 8-byte alignment joins them: nothing.
 */
static struct report *latent_report(struct symbolizer *sym, struct data_types *dt,
				    const struct fixture *fx, struct line_table *t,
				    uint64_t first, uint64_t second)
{
	struct classify_config cfg;

	for (int i = 0; i < 100; i++) {
		add_access(t, T1, fx->bump, first + 8, ACCESS_RMW, DWARF_RDI, 8);
		add_access(t, T2, fx->bump, second + 8, ACCESS_RMW, DWARF_RDI, 8);
	}
	classify_config_default(&cfg);
	return report_build(&header, t, &cfg, 0, sym, dt);
}

static void test_latent(const char *path)
{
	struct symbolizer *sym = symbolizer_new();
	struct data_types *dt = data_types_new();
	struct line_table *t = line_table_new(64, 100000);
	uint64_t heap = LOAD_BASE + 0x100000;
	struct fixture fx = { 0 };
	const struct report_latent *lt;
	struct report *r;
	char *text;

	CHECK(fixture_load(&fx, sym, path), "fixture symbols in %s", path);
	symbolizer_add_mapping(sym, PID, heap, 0x21000, 0, PROT_READ | PROT_WRITE, "[heap]");
	r = latent_report(sym, dt, &fx, t, heap + 0x2a0, heap + 0x2c0);
	CHECK_EQ_U64(r->n_lines + r->n_minor, 0, "latent: no line shared");
	CHECK_EQ_U64(r->n_latent, 1, "latent: one pair");
	lt = r->n_latent ? &r->latent[0] : NULL;
	if (lt) {
		CHECK_STR(lt->object, "struct stats[] at [heap]+0x2a0, via s", "latent: object");
		CHECK_STR(lt->type_name, "struct stats", "latent: type");
		CHECK_STR(lt->a.member, "[0].writes", "latent: a");
		CHECK_STR(lt->b.member, "[1].writes", "latent: b");
		CHECK(lt->a.tid == T1 && lt->b.tid == T2 && lt->a.writes == 100 &&
		      lt->a.offset == 8 && lt->b.offset == 40, "latent: sides");
		CHECK_STR(lt->a.site.function, "bump", "latent: site");
		CHECK_EQ_U64(lt->gap, 24, "latent: gap");
		CHECK(lt->heap && lt->n_placements == 4 &&
		      lt->placements[0].line_size == 64 && lt->placements[0].align == 16 &&
		      lt->placements[0].sharing == 2 && lt->placements[0].total == 4 &&
		      lt->placements[1].align == 8 && lt->placements[1].sharing == 4 &&
		      lt->placements[1].total == 8 && lt->placements[2].line_size == 128,
		      "latent: placements");
		CHECK(lt->advice && strstr(lt->advice, "pad struct stats from 32 to 64 bytes"),
		      "latent: advice %s", lt->advice);
	}
	text = render(r, false);
	CHECK(strstr(text, "== latent #1  LATENT FALSE SHARING  struct stats[] at [heap]+0x2a0") &&
	      strstr(text, "   they share a line in 2 of 4 placements at 16-byte alignment "
		     "(malloc's), 4 of 8 at 8-byte\n"
		     "                        alignment (the type's) on 64-byte lines; 6 of 8"),
	      "latent text:\n%s", text);
	free(text);
	text = render(r, true);
	CHECK(json_parses(text) && strstr(text, "\"kind\": \"latent_false\""), "latent JSON");
	free(text);
	report_free(r);
	line_table_free(t);

	t = line_table_new(64, 100000);
	r = latent_report(sym, dt, &fx, t, heap + 0x2a0, heap + 0x2e0);
	CHECK_EQ_U64(r->n_latent, 0, "padded: no latent pair");
	report_free(r);
	line_table_free(t);
	data_types_free(dt);
	symbolizer_free(sym);
}

/* What a declared-pair test holds, to free. */
struct pair_env {
	struct symbolizer *sym;
	struct data_types *dt;
	struct line_table *t;
	struct report *r;
};

/* [1].misses and [2].reads of the 32-byte struct stats elements from the
 * start of aligned_stats (stats_arena if arena), written by two threads
 * through bump()'s pointer, 8 bytes apart on two lines: e->r's latent
 * pair, or NULL. */
static const struct report_latent *declared_pair(const char *path, bool arena,
						 struct pair_env *e)
{
	struct fixture fx = { 0 };
	struct classify_config cfg;
	uint64_t at;

	e->sym = symbolizer_new();
	e->dt = data_types_new();
	e->t = line_table_new(64, 100000);
	CHECK(fixture_load(&fx, e->sym, path) && fx.aligned_stats && fx.stats_arena,
	      "aligned_stats and stats_arena in %s", path);
	at = arena ? fx.stats_arena : fx.aligned_stats;
	for (int i = 0; i < 100; i++) {
		add_access(e->t, T1, fx.bump, at + 32 + 16, ACCESS_RMW, DWARF_RDI, 16);
		add_access(e->t, T2, fx.bump, at + 64, ACCESS_RMW, DWARF_RDI, 0);
	}
	classify_config_default(&cfg);
	e->r = report_build(&header, e->t, &cfg, 0, e->sym, e->dt);
	CHECK_EQ_U64(e->r->n_latent, 1, "one latent pair");
	return e->r->n_latent ? &e->r->latent[0] : NULL;
}

static void pair_env_free(struct pair_env *e)
{
	report_free(e->r);
	line_table_free(e->t);
	data_types_free(e->dt);
	symbolizer_free(e->sym);
}

/*
 * The pair in a global whose declaration, not its type, aligns it to 64
 * (fixture_globals' aligned_stats, DW_AT_alignment on the variable).  The
 * declaration keeps them apart: its placements count, and the advice says
 * to keep it, not that nothing keeps the array line-aligned.
 */
static void test_latent_declared(const char *path)
{
	struct pair_env e;
	const struct report_latent *lt = declared_pair(path, false, &e);

	if (lt) {
		CHECK_STR(lt->object, "aligned_stats", "declared: the global");
		CHECK(!lt->heap && lt->decl_align == 64 && lt->type_align == 8,
		      "declared: 64 from the variable, 8 from struct stats (%llu, %llu)",
		      (unsigned long long)lt->decl_align, (unsigned long long)lt->type_align);
		CHECK_STR(lt->a.member, "aligned_stats[1].misses", "declared: a");
		CHECK_STR(lt->b.member, "aligned_stats[2].reads", "declared: b");
		CHECK(lt->n_placements == 4 && lt->placements[0].align == 64 &&
		      lt->placements[0].basis == PLACEMENT_DECLARATION &&
		      lt->placements[0].sharing == 0 && lt->placements[0].total == 1 &&
		      lt->placements[1].basis == PLACEMENT_TYPE &&
		      lt->placements[1].sharing == 6 && lt->placements[1].total == 8,
		      "declared: 0 of 1 at the declaration's 64, 6 of 8 at the type's 8");
		CHECK(lt->advice && strstr(lt->advice, "pad struct stats from 32 to 64 bytes (cost "
					   "+32 bytes per element); _Alignas(64) on the declaration of "
					   "aligned_stats keeps the array aligned to 64: keep it") &&
		      !strstr(lt->advice, "nothing keeps"), "declared: advice %s", lt->advice);
	}
	pair_env_free(&e);
}

/*
 * The same pair in a byte array that code uses as struct stats through a
 * pointer (an arena): named as the array of struct stats the code makes
 * of it, "stats_arena[1].misses", not "stats_arena[48]", and placed by
 * the byte array's _Alignas(64).
 */
static void test_latent_declared_via_pointer(const char *path)
{
	struct pair_env e;
	const struct report_latent *lt = declared_pair(path, true, &e);

	if (lt) {
		CHECK_STR(lt->object, "stats_arena", "arena: the global");
		CHECK_STR(lt->type_name, "struct stats", "arena: the struct the code uses");
		CHECK_STR(lt->a.member, "stats_arena[1].misses", "arena: a, as an element");
		CHECK_STR(lt->b.member, "stats_arena[2].reads", "arena: b, as an element");
		CHECK(!lt->heap && lt->decl_align == 64 && lt->type_align == 8,
		      "arena: 64 from the byte array's declaration, 8 from struct stats "
		      "(%llu, %llu)", (unsigned long long)lt->decl_align,
		      (unsigned long long)lt->type_align);
		CHECK(lt->advice && strstr(lt->advice, "pad struct stats from 32 to 64 bytes") &&
		      strstr(lt->advice, "stats_arena") && !strstr(lt->advice, "nothing keeps"),
		      "arena: advice %s", lt->advice);
		CHECK(lt->n_placements >= 1 && lt->placements[0].basis == PLACEMENT_DECLARATION &&
		      lt->placements[0].sharing == 0,
		      "arena: 0 placements share at the declaration's 64");
	}
	pair_env_free(&e);
}

static uint64_t untyped_why(const struct report *r, const char *what)
{
	for (unsigned i = 0; i < r->n_untyped_why; i++)
		if (!strcmp(r->untyped_why[i].what, what))
			return r->untyped_why[i].n;
	return 0;
}

/*
 * Heap accesses that cannot be typed for want of a code address (watched
 * hits no sample caught) or of a base register to find a pointer variable
 * in: the binary has DWARF, so the reason must not be "no debug info"
 * (p6_nested said "no debug info 1358" of a -g build).
 */
static void test_untyped_reasons(const char *path)
{
	struct symbolizer *sym = symbolizer_new();
	struct data_types *dt = data_types_new();
	struct line_table *t = line_table_new(64, 100000);
	uint64_t heap = LOAD_BASE + 0x100000;
	struct fixture fx = { 0 };
	struct classify_config cfg;
	struct report *r;

	CHECK(fixture_load(&fx, sym, path), "fixture symbols in %s", path);
	symbolizer_add_mapping(sym, PID, heap, 0x21000, 0, PROT_READ | PROT_WRITE, "[heap]");
	for (int i = 0; i < 100; i++) {
		add_access(t, T1, 0, heap + 0x400, ACCESS_RMW, DWARF_RDI, 0);
		add_access(t, T2, fx.bump, heap + 0x408, ACCESS_RMW, -1, 0);
	}
	classify_config_default(&cfg);
	r = report_build(&header, t, &cfg, 0, sym, dt);
	CHECK_EQ_U64(r->n_lines, 1, "the heap line");
	CHECK_EQ_U64(r->untyped, 200, "untyped");
	CHECK_EQ_U64(untyped_why(r, "no debug info"), 0, "not for want of debug info");
	CHECK_EQ_U64(untyped_why(r, "no code address"), 100, "T1: its code is unknown");
	CHECK_EQ_U64(untyped_why(r, "no pointer register"), 100,
		     "T2: its address is in no register");
	report_free(r);
	line_table_free(t);
	data_types_free(dt);
	symbolizer_free(sym);
}

/*
 * A read-only neighbour starts the line (p4_omp: the data pointer before
 * hist): the line is named by the contended counters, not by it.
 */
static void test_named_by_contended(const char *path)
{
	struct symbolizer *sym = symbolizer_new();
	struct data_types *dt = data_types_new();
	struct line_table *t = line_table_new(64, 100000);
	struct fixture fx = { 0 };
	struct classify_config cfg;
	uint64_t counters, line_start;
	const struct report_line *l;
	struct report *r;
	char *object, *title, *text;

	CHECK(fixture_load(&fx, sym, path), "fixture symbols in %s", path);
	counters = fx.counters + 8 * fx.elem;
	line_start = counters & ~63ULL;
	if (line_start == counters) {
		printf("# counters start a line here: no neighbour before them\n");
		goto out;
	}
	for (int i = 0; i < 100; i++) {
		if (i % 20 == 0)
			add(t, T1, fx.main, line_start, ACCESS_LOAD);
		add(t, T1, fx.main, counters, ACCESS_RMW);
		add(t, T2, fx.main, counters + 8, ACCESS_RMW);
	}
	classify_config_default(&cfg);
	r = report_build(&header, t, &cfg, 0, sym, dt);
	l = find_line(r, "counters");
	object = fx.elem ? xasprintf("counters+%u", 8 * fx.elem) : xstrdup("counters");
	title = xasprintf("FALSE SHARING  %s (long[4])  line", object);
	CHECK(l && l->n_ranges == 3, "neighbour read is a range of the line");
	CHECK_STR(l ? l->object : NULL, object, "named by the contended variable");
	text = render(r, false);
	CHECK(strstr(text, title), "title %s in:\n%s", title, text);
	free(text);
	free(title);
	free(object);
	report_free(r);
out:
	line_table_free(t);
	data_types_free(dt);
	symbolizer_free(sym);
}

/* Watched words inside the lock confirm threads taking it: true sharing. */
static void test_confirm_locks(void)
{
	struct report_watch_word words[] = {
		{ .offset = 32, .size = 8 },    /* __lock */
		{ .offset = 48, .size = 8 },    /* __kind */
	};
	struct report_line line = {
		.addr = 0x1000, .line_size = 64, .kind = SHARING_TRUE,
		.lock = { "g.lock", "pthread_mutex_t", 0x1020, 40 },
		.confirmed_checked = true, .confirmed = true,
		.watch_kind = SHARING_MIXED, .words = words, .n_words = 2,
	};
	struct report r = { .lines = &line, .n_lines = 1 };

	report_confirm_locks(&r);
	CHECK_EQ_U64(line.watch_kind, SHARING_TRUE, "words in the lock: true");

	/* a word beside the lock: its own evidence stands */
	words[0].offset = 8;
	line.watch_kind = SHARING_MIXED;
	report_confirm_locks(&r);
	CHECK_EQ_U64(line.watch_kind, SHARING_MIXED, "a word outside the lock");

	/* no lock: nothing changes */
	words[0].offset = 32;
	line.lock.name = NULL;
	report_confirm_locks(&r);
	CHECK_EQ_U64(line.watch_kind, SHARING_MIXED, "no lock");
}

/*
 * tests/fixture_lock: two threads take locked.g.lock in turn, writing its
 * __lock word and reading its __kind.  The report sees one lock, taken in
 * turn: true sharing on one range named after it, whose 40 bytes straddle
 * two lines; no layout of the mutex's insides is proposed.
 */
static void test_lock(const char *path)
{
	struct symbolizer *sym = symbolizer_new();
	struct data_types *dt = data_types_new();
	struct line_table *t = line_table_new(64, 100000);
	struct classify_config cfg;
	const struct report_line *l;
	struct elf_file f;
	uint64_t locked, main_ip, lock;
	struct report *r;
	char *text;

	CHECK(elf_file_open(&f, path), "open %s", path);
	map_segments(&f, sym, path);
	locked = symbol(&f, "locked");
	main_ip = symbol(&f, "main");
	elf_file_close(&f);
	CHECK(locked && main_ip && locked % 64 == 0, "fixture_lock symbols");
	lock = locked + 32;
	for (int i = 0; i < 100; i++) {
		add(t, T1, main_ip, lock, ACCESS_RMW);          /* __lock */
		add(t, T2, main_ip, lock + 16, ACCESS_LOAD);    /* __kind */
		add(t, T2, main_ip, lock, ACCESS_RMW);
		add(t, T1, main_ip, lock + 16, ACCESS_LOAD);
	}
	classify_config_default(&cfg);
	r = report_build(&header, t, &cfg, 0, sym, dt);
	l = r->n_lines ? &r->lines[0] : NULL;
	CHECK(l && r->n_lines == 1, "one line");
	if (!l)
		goto out;
	CHECK_EQ_U64(l->kind, SHARING_TRUE, "a lock taken in turn: true sharing");
	CHECK(l->n_ranges == 1, "one range, the lock: %u", l->n_ranges);
	if (l->n_ranges == 1) {
		CHECK_STR(l->ranges[0].member, "locked.g.lock", "range named by the lock");
		CHECK_EQ_U64(l->ranges[0].offset, 32, "lock range offset");
		CHECK_EQ_U64(l->ranges[0].size, 32, "lock range: its bytes on the line");
		CHECK(l->ranges[0].true_shared && !l->ranges[0].false_writer &&
		      !l->ranges[0].false_victim, "lock range true-shared only");
	}
	CHECK_STR(l->lock.name, "locked.g.lock", "lock name");
	CHECK_STR(l->lock.type_name, "pthread_mutex_t", "lock type");
	CHECK_EQ_U64(l->lock.addr, lock, "lock address");
	CHECK_EQ_U64(l->lock.size, 40, "sizeof(pthread_mutex_t)");
	CHECK_EQ_U64(l->n_members, 0, "no layout of the mutex's insides");
	CHECK(!l->advice.layout_proposed, "no layout proposed");
	for (unsigned i = 0; i < l->n_pairs; i++)
		CHECK_EQ_U64(l->pairs[i].kind, SHARING_TRUE, "lock pairs are true");
	CHECK_STR(l->advice.summary,
		  "lock contention on locked.g.lock (pthread_mutex_t): threads 101, "
		  "102 take it in turn, and padding cannot help; shard it (a lock "
		  "per bucket or per group of threads) or the data it protects, "
		  "hold it for less time (work outside it), or give each thread "
		  "its own data and merge at the end; it straddles two 64-byte "
		  "lines (40 bytes from line offset 32): declare it _Alignas(64) "
		  "pthread_mutex_t lock; to keep it on one", "lock advice");
	text = render(r, false);
	CHECK(strstr(text, "   lock: locked.g.lock (pthread_mutex_t), 40 bytes from "
		     "line offset 32, 8 of them on the next line\n"), "lock line:\n%s", text);
	free(text);
	text = render(r, true);
	CHECK(json_parses(text), "lock JSON parses");
	CHECK(strstr(text, "\"lock\": { \"name\": \"locked.g.lock\", \"type\": "
		     "\"pthread_mutex_t\""), "lock JSON:\n%s", text);
	free(text);
out:
	report_free(r);
	line_table_free(t);
	data_types_free(dt);
	symbolizer_free(sym);
}

/* A JIT method without line numbers: three pairs of different
 * instructions print as the same row; merged, with their counts summed.
 * A pair of other threads, a mirrored pair and another kind stay apart
 * or merge as the rule says. */
static struct report_pair jit_pair(enum sharing_kind kind, uint64_t ip_a, uint64_t ip_b,
				   const char *fn, uint32_t ta, uint32_t tb, uint64_t conc)
{
	struct report_pair p = { .kind = kind, .weight = conc };

	p.a.site.ip = ip_a;
	p.a.site.function = fn ? xstrdup(fn) : NULL;
	p.a.site.writes = conc;
	p.a.tids = xmalloc(sizeof(uint32_t));
	p.a.tids[0] = ta;
	p.a.n_tids = 1;
	p.a.concurrent = conc;
	p.b.site.ip = ip_b;
	p.b.site.function = fn ? xstrdup(fn) : NULL;
	p.b.site.reads = conc;
	p.b.tids = xmalloc(sizeof(uint32_t));
	p.b.tids[0] = tb;
	p.b.n_tids = 1;
	p.b.concurrent = conc;
	return p;
}

static void test_pairs_merge(void)
{
	const char *run = "void TypeCheck$Checker.run()";
	struct report_pair p[7];
	unsigned n;

	p[0] = jit_pair(SHARING_TRUE, 0x10, 0x20, run, T1, T2, 60);
	p[1] = jit_pair(SHARING_TRUE, 0x11, 0x21, run, T1, T2, 46);
	p[2] = jit_pair(SHARING_TRUE, 0x12, 0x22, run, T1, T2, 10);
	p[3] = jit_pair(SHARING_TRUE, 0x13, 0x23, run, T2, T1, 30);   /* mirrored */
	p[4] = jit_pair(SHARING_FALSE, 0x14, 0x24, run, T1, T2, 50);  /* another kind */
	p[5] = jit_pair(SHARING_TRUE, 0x15, 0x25, run, T1, 103, 70);  /* other threads */
	p[6] = jit_pair(SHARING_TRUE, 0x30, 0x31, NULL, T1, T2, 5);   /* no name: by address */
	n = report_pairs_merge(p, 7);
	CHECK(n == 4, "pairs merge: 7 rows -> %u, want 4", n);
	CHECK(p[0].kind == SHARING_TRUE && p[0].weight == 146 && p[0].a.tids[0] == T1 &&
	      p[0].b.tids[0] == T2, "merged row first: weight %" PRIu64 " (60+46+10+30)",
	      p[0].weight);
	/* the mirrored pair's writer (T2) lands on side b */
	CHECK(p[0].a.site.writes == 116 && p[0].a.site.reads == 30 &&
	      p[0].b.site.reads == 116 && p[0].b.site.writes == 30,
	      "merged row sums its sites: a %" PRIu64 " R %" PRIu64 " W, b %" PRIu64 " R %"
	      PRIu64 " W", p[0].a.site.reads, p[0].a.site.writes, p[0].b.site.reads,
	      p[0].b.site.writes);
	CHECK(p[1].b.tids[0] == 103 && p[1].weight == 70, "the pair with thread 103 stays");
	CHECK(p[2].kind == SHARING_FALSE && p[2].weight == 50, "the false-sharing pair stays");
	CHECK(p[3].weight == 5 && !p[3].a.site.function, "the unnamed pair stays");
	for (unsigned i = 0; i < n; i++) {
		report_pair_side_release(&p[i].a);
		report_pair_side_release(&p[i].b);
	}
}

/* A JVM's Klass line as jvm_names.c leaves it: the object says its type
 * (no "(Klass)" after it), and a gain the model cannot price is printed
 * as a lower bound with why and no range, in text and JSON; before the
 * note, the model's range. */
static void test_jvm_line_text(void)
{
	struct line_table *t = line_table_new(64, 100000);
	struct report_line *l;
	struct report *r;
	char *text, *json;

	add_false_sharing(t, 100);
	r = build(t, 0);
	CHECK_EQ_U64(r->n_lines, 1, "a line to name");
	if (r->n_lines != 1)
		goto out;
	l = &r->lines[0];
	free(l->object);
	l->object = xstrdup("Klass TypeCheck$C0");
	free(l->type_name);
	l->type_name = xstrdup("Klass");
	l->predicted_gain = 2.5;       /* the model's range, printed with it */
	l->gain_low = 1.8;
	l->gain_high = 3.4;
	text = render(r, false);
	json = render(r, true);
	CHECK(strstr(text, "fixing this line: ~2.5x (1.8-3.4x)\n"), "gain and its range:\n%s", text);
	CHECK(strstr(json, "\"predicted_gain_low\": 1.8,") &&
	      strstr(json, "\"predicted_gain_high\": 3.4,") &&
	      strstr(json, "\"gain_measured\": false,"), "JSON: the range, not measured");
	free(text);
	free(json);
	l->predicted_gain = 1.5;
	l->gain_low = 1.5;
	l->gain_high = 0;              /* what jvm_names.c leaves with its note */
	l->gain_note = "the model cannot price X";
	text = render(r, false);
	json = render(r, true);
	CHECK(strstr(json, "\"predicted_gain_high\": null,"), "JSON: no upper bound");
	CHECK(strstr(text, "SHARING  Klass TypeCheck$C0  line ") && !strstr(text, "(Klass)"),
	      "JVM title: the object once, no type after it:\n%s", text);
	CHECK(strstr(text, "fixing this line: at least ~1.5x; the model cannot price X\n"),
	      "gain as a lower bound with why:\n%s", text);
	CHECK(strstr(json, "\"predicted_gain_note\": \"the model cannot price X\"") &&
	      strstr(json, "\"type\": \"Klass\"") && strstr(json, "\"object\": \"Klass TypeCheck$C0\""),
	      "JSON: object, type and gain note");
	free(text);
	free(json);
out:
	report_free(r);
	line_table_free(t);
}

/*
 * A line of shared memory that eight processes use (PostgreSQL's
 * backends on a buffer header): the title keeps the object's name whole
 * and counts the processes; with two it lists them.  Before, the pid
 * list took the title's room and cut the name to "[shared ...".
 */
static void test_shared_title(void)
{
	static const uint32_t pids[] = { 3009, 3010, 3011, 3014, 3015, 3016, 3018, 3020 };
	struct line_table *t = line_table_new(64, 100000);
	struct report_line *l;
	struct report *r;
	char *text;

	add_false_sharing(t, 100);
	r = build(t, 0);
	CHECK_EQ_U64(r->n_lines, 1, "a line to share");
	if (r->n_lines != 1)
		goto out;
	l = &r->lines[0];
	free(l->object);
	l->object = xstrdup("[shared anon]+0x5ac600");
	l->obj_dev = 1;
	l->obj_ino = 26994;
	l->obj_off = 0x5ac600;
	l->pids = xrealloc(l->pids, sizeof(pids));
	memcpy(l->pids, pids, sizeof(pids));
	l->n_pids = 8;
	text = render(r, false);
	CHECK(strstr(text, "  FALSE SHARING  [shared anon]+0x5ac600  line 0x7f0000010040  "
			   "8 processes\n"),
	      "title with the whole object and the count:\n%s", text);
	CHECK(strstr(text, "offset 0x5ac600) of 8 processes; not watched"),
	      "the shared memory row counts them:\n%s", text);
	CHECK(strstr(text, "threads: 100/101 100/102\n"), "threads as pid/tid:\n%s", text);
	free(text);
	l->n_pids = 2;
	text = render(r, false);
	CHECK(strstr(text, "[shared anon]+0x5ac600  line 0x7f0000010040  pids 3009,3010\n") &&
	      strstr(text, "offset 0x5ac600) of processes 3009,3010; not watched"),
	      "two processes listed:\n%s", text);
	free(text);
out:
	report_free(r);
	line_table_free(t);
}

/* A line's title: the object, and the variable and type when it does not
 * say them; Go's heap (anonymous memory) by its name, not a mapping
 * offset, and the same anonymous memory in C as it is. */
static void test_line_titles(void)
{
	struct report_line l;
	char *title;

	memset(&l, 0, sizeof(l));
	l.object = (char *)"[anon]+0xa4000";
	l.variable = (char *)"s";
	l.type_name = (char *)"main.stats";
	l.go = true;
	title = report_line_title(&l);
	CHECK_STR(title, "Go heap (s: main.stats)", "Go heap data");
	free(title);
	l.go = false;
	l.variable = (char *)"st";
	l.type_name = (char *)"struct stats";
	title = report_line_title(&l);
	CHECK_STR(title, "[anon]+0xa4000 (st: struct stats)", "C data in anonymous memory");
	free(title);
	l.object = (char *)"counters";
	l.variable = (char *)"counters";
	l.type_name = (char *)"long[2]";
	title = report_line_title(&l);
	CHECK_STR(title, "counters (long[2])", "a global");
	free(title);
}

/*
 * -O2 stores two adjacent longs of a struct with one 16-byte movups: the
 * access starts at the first member and runs into the second.  Its name
 * says both, "[0].processed..bytes", not the first alone; an access
 * inside one member, or one past the struct, keeps the member's name.
 */
static void test_member_span(void)
{
	struct type_member members[] = {
		{ "processed", "long", 0, 8 }, { "bytes", "long", 8, 8 },
		{ NULL, NULL, 16, 4 }, { "state", "int", 20, 4 },
	};
	struct type_layout lay = { "struct WorkerStats", 24, 8, members, 4, false };
	struct data_attribution a = {
		.variable = "s", .via_pointer = true, .type_name = "struct WorkerStats",
		.path = "[0].processed", .object_start = 0x1000, .member_offset = 0,
		.member_size = 8, .layout = &lay, .layout_start = 0x1000,
	};
	char *name;

	name = member_span_name(xstrdup("[0].processed"), &a, 0x1000, 16);
	CHECK_STR(name, "[0].processed..bytes", "a 16-byte store over two members");
	free(name);
	name = member_span_name(xstrdup("[0].processed"), &a, 0x1000, 8);
	CHECK_STR(name, "[0].processed", "an 8-byte store in one member");
	free(name);
	name = member_span_name(xstrdup("[0].processed"), &a, 0x1000, 24);
	CHECK_STR(name, "[0].processed..state", "a store to the whole struct");
	free(name);
	name = member_span_name(xstrdup("[0].processed"), &a, 0x1000, 20);
	CHECK_STR(name, "[0].processed", "ending in padding: not named by a hole");
	free(name);
	name = member_span_name(xstrdup("[0].processed"), &a, 0x1010, 32);
	CHECK_STR(name, "[0].processed", "past the struct's end: left as it is");
	free(name);
	a.layout = NULL;
	name = member_span_name(xstrdup("x"), &a, 0x1000, 16);
	CHECK_STR(name, "x", "no layout: left as it is");
	free(name);
}

/* A watched word takes the name of the sampled range in it, or of the
 * range it lies in; before, a word inside a 16-byte range was "?". */
static void test_watch_word_member(void)
{
	struct report_range ranges[] = {
		{ .offset = 16, .size = 16, .member = "processed..bytes", .writes = 5 },
		{ .offset = 40, .size = 4, .member = "flag", .writes = 1 },
		{ .offset = 44, .size = 4, .member = "count", .writes = 9 },
	};
	struct report_line rl = { .addr = 0x1000, .ranges = ranges, .n_ranges = 3 };
	char *name;

	name = watch_word_member(&rl, 0x1010, NULL, NULL);
	CHECK_STR(name, "processed..bytes", "first word of a 16-byte range");
	free(name);
	name = watch_word_member(&rl, 0x1018, NULL, NULL);
	CHECK_STR(name, "processed..bytes", "second word of a 16-byte range");
	free(name);
	name = watch_word_member(&rl, 0x1028, NULL, NULL);
	CHECK_STR(name, "count", "the most sampled range inside the word");
	free(name);
	name = watch_word_member(&rl, 0x1030, NULL, NULL);
	CHECK(!name, "no range there, no symbolizer: unnamed, not %s", name ? name : "");
	free(name);
}

/* A pool of instances is watched on its hottest instance when the windows
 * are planned and named by its hottest at the end; with instances alike
 * those differ, and the counts must still reach the line (before, half the
 * Klass recordings on an AMD VM showed no confirmation). */
static void test_watch_pooled_instance(void)
{
	struct watch_config wcfg;
	struct classify_config ccfg;
	struct confirm *c;
	struct watch_thread_count t[2][2] = {
		{ { .tid = 11, .reads = 400, .writes = 40, .concurrent = 300 },
		  { .tid = 12, .reads = 380, .writes = 35, .concurrent = 300 } },
		{ { .tid = 11, .reads = 30 }, { .tid = 12, .reads = 28 } },
	};
	struct watch_word_result words[2] = {
		{ .pid = 7, .addr = 0x2a80 + 32, .window_s = 0.011, .windows = 1,
		  .reads = 780, .writes = 75, .threads = t[0], .n_threads = 2 },
		{ .pid = 7, .addr = 0x2a80 + 40, .window_s = 0.011, .windows = 1,
		  .reads = 58, .threads = t[1], .n_threads = 2 },
	};
	struct report *r = xcalloc(1, sizeof(*r));
	struct report_line *rl;

	watch_config_default(&wcfg);
	classify_config_default(&ccfg);
	c = confirm_new(&wcfg, &ccfg, 64);
	confirm_on_demand(c);
	CHECK(watch_restore(confirm_watch(c), &words[0]) &&
	      watch_restore(confirm_watch(c), &words[1]), "words restored");
	r->lines = rl = xcalloc(2, sizeof(*rl));
	r->n_lines = 2;
	rl[0] = (struct report_line){ .pid = 7, .addr = 0x2780, .line_size = 64,
				      .n_instances = 3 };
	rl[0].instance_lines = xcalloc(3, sizeof(uint64_t));
	rl[0].instance_lines[0] = 0x2780;
	rl[0].instance_lines[1] = 0x2900;
	rl[0].instance_lines[2] = 0x2a80;
	rl[1] = (struct report_line){ .pid = 7, .addr = 0x2b00, .line_size = 64,
				      .n_instances = 1 };
	confirm_fill_report(c, r, NULL);
	CHECK(rl[0].confirmed_checked && rl[0].confirmed,
	      "the pool is confirmed by its watched instance");
	CHECK_EQ_U64(rl[0].watched_line, 0x2a80, "watched on the third instance");
	CHECK(rl[0].n_words == 2 && rl[0].words[0].offset == 32 &&
	      rl[0].words[1].offset == 40,
	      "offsets in the watched instance's line (%u words)", rl[0].n_words);
	CHECK(!rl[1].confirmed_checked, "a line next to it is not");
	report_free(r);
	confirm_free(c);
}

/* Two threads writing their own longs on one line in turns, meeting in
 * 16 of 216 samples: 7% concurrent, under the 30% a contended line needs
 * on a machine where the threads could run at once. */
static void add_turns(struct line_table *t)
{
	for (int block = 0; block < 10; block++) {
		for (int i = 0; i < 20; i++)
			add(t, block % 2 ? T2 : T1, block % 2 ? IP2 : IP1, FS_LINE + 8 * (block % 2),
			    ACCESS_RMW);
		now += 1000000;          /* past the interleaving window */
	}
	for (int i = 0; i < 8; i++) {
		add(t, T1, IP1, FS_LINE, ACCESS_RMW);
		add(t, T2, IP2, FS_LINE + 8, ACCESS_RMW);
	}
}

/* Two threads loading one line heavily: the timer saw no store. */
static void add_loads(struct line_table *t)
{
	for (int i = 0; i < 60; i++) {
		add(t, T1, IP1, FS_LINE, ACCESS_LOAD);
		add(t, T2, IP2, FS_LINE + 8, ACCESS_LOAD);
	}
}

/*
 * A busy machine (overlap.h): the same turns are false sharing when the
 * threads ran at once only 20% of the time and the watch saw them share
 * the line, undecided without the watch, and nothing on an idle one;
 * a line two threads only loaded is undecided, and the verdict is
 * "inconclusive" there, or where no instrument could count stores;
 * elsewhere "no contended cache lines found".
 */
static void test_busy_machine(void)
{
	struct run_facts busy = header, idle = header, blind = header;
	struct instruments dead = { .t = {
		[INSTRUMENT_WATCHPOINTS] = { .state = INSTRUMENT_DEAD, .expected = 200 },
		[INSTRUMENT_EXEC_BREAKPOINTS] = { .state = INSTRUMENT_DEAD, .expected = 100 },
		[INSTRUMENT_UPROBES] = { .state = INSTRUMENT_REFUSED, .err = EACCES },
		[INSTRUMENT_TIMER] = { .state = INSTRUMENT_WORKS, .expected = 1000, .counted = 1000 },
	} };
	struct classify_config cfg, gate;
	struct line_table *t;
	struct report *r;
	char *text, *json;

	classify_config_default(&cfg);
	busy.overlap = 0.2;
	busy.cpu_pressure = 0.9;
	busy.load = 6.5;
	idle.overlap = 0.2;          /* threads taking turns by themselves */
	idle.cpu_pressure = 0.01;
	blind.instruments = &dead;

	t = line_table_new(64, 100000);
	add_turns(t);
	r = report_build(&idle, t, &cfg, 0, NULL, NULL);
	CHECK(!r->busy && r->n_lines == 0 && !r->inconclusive,
	      "idle: the threads took turns by themselves: not contended, not inconclusive");
	report_free(r);
	r = report_build(&busy, t, &cfg, 0, NULL, NULL);
	CHECK(r->busy && r->busy_scale > 0.2 && r->busy_scale < 0.25, "busy, scale %g",
	      r->busy_scale);
	CHECK(r->n_lines == 0 && r->inconclusive && r->n_undecided == 1,
	      "busy, the watch did not see them share: taking turns by design looks the same, "
	      "undecided");
	report_free(r);
	line_table_find(t, PID, FS_LINE)->watch_shared = true;
	r = report_build(&busy, t, &cfg, 0, NULL, NULL);
	CHECK(r->n_lines == 1 && r->lines[0].kind == SHARING_FALSE,
	      "busy, and the watch saw them share: judged against the time the threads could "
	      "meet, false sharing");
	text = render(r, false);
	CHECK(strstr(text, "# busy machine: the target's threads ran at once 20% of the sampled"),
	      "the header says so:\n%s", text);
	free(text);
	gate = cfg;
	gate.min_score = 2 * r->lines[0].score;
	report_free(r);
	/* a default threshold scales with the machine; the user's gate holds */
	r = report_build(&busy, t, &gate, 0, NULL, NULL);
	CHECK(r->n_lines == 1, "busy: a min_score above the line's (%g), scaled down (x%g), passes it", gate.min_score, r->busy_scale);
	report_free(r);
	gate.min_score_fixed = true;
	r = report_build(&busy, t, &gate, 0, NULL, NULL);
	CHECK(r->n_lines == 0, "busy: --min-score %g, set by the user, is not scaled down",
	      gate.min_score);
	report_free(r);
	line_table_free(t);

	now = 0;
	t = line_table_new(64, 100000);
	add_loads(t);
	r = report_build(&busy, t, &cfg, 0, NULL, NULL);
	text = render(r, false);
	json = render(r, true);
	CHECK(r->n_lines == 0 && r->inconclusive && r->n_undecided == 1,
	      "busy, nothing decided: inconclusive, with the line");
	CHECK(strstr(text, "inconclusive: the target's threads ran at the same time only 20% of"),
	      "inconclusive in words:\n%s", text);
	CHECK(strstr(text, "== undecided #1  SHARED") && !strstr(text, "no contended cache lines"),
	      "the undecided line, no plain verdict:\n%s", text);
	CHECK(json_parses(json) && strstr(json, "\"verdict\": \"inconclusive\"") &&
	      strstr(json, "\"undecided_lines\": [") && strstr(json, "\"busy\": true"),
	      "JSON: the verdict, the line, the machine:\n%s", json);
	free(text);
	free(json);
	report_free(r);

	r = report_build(&blind, t, &cfg, 0, NULL, NULL);
	text = render(r, false);
	CHECK(r->inconclusive && strstr(r->inconclusive, "no instrument here can count them"),
	      "no instrument to count stores: inconclusive (%s)", r->inconclusive);
	free(text);
	report_free(r);

	r = report_build(&idle, t, &cfg, 0, NULL, NULL);
	text = render(r, false);
	CHECK(!r->inconclusive && !r->n_undecided &&
	      strstr(text, "no contended cache lines found (1 line touched by >= 2 threads)"),
	      "working instruments, an idle machine: the verdict stands:\n%s", text);
	free(text);
	report_free(r);
	line_table_free(t);
}

int main(int argc, char **argv)
{
	const char *top = getenv("top_builddir");
	char *fixture = argc > 1 ? xstrdup(argv[1]) :
			xasprintf("%s/tests/fixture_globals", top ? top : ".");
	char *lock_fixture = argc > 2 ? xstrdup(argv[2]) :
			     xasprintf("%s/tests/fixture_lock", top ? top : ".");

	test_false_sharing();
	test_ranking();
	test_rmw_counts_once();
	test_watch_word_text();
	test_co_written_pairs();
	test_wide();
	test_no_contention();
	test_busy_machine();
	test_json_escaping();
	test_pairs_and_chains();
	test_pairs_merge();
	test_jvm_line_text();
	test_shared_title();
	test_line_titles();
	test_member_span();
	test_watch_word_member();
	test_watch_pooled_instance();
	if (access(fixture, R_OK))
		printf("# tests/fixture_globals not built: typed report not tested\n");
	else {
		test_typed(fixture);
		test_untyped_reasons(fixture);
		test_named_by_contended(fixture);
		test_latent(fixture);
		test_latent_declared(fixture);
		test_latent_declared_via_pointer(fixture);
	}
	free(fixture);
	test_confirm_locks();
	if (access(lock_fixture, R_OK))
		printf("# tests/fixture_lock not built: locks not tested\n");
	else
		test_lock(lock_fixture);
	free(lock_fixture);
	return test_done();
}
