/* test_hw_pipeline.c - synthetic PEBS and IBS records through the whole
 * pipeline: ring-buffer bytes -> perf_parse_sample -> access samples ->
 * line table -> report, which must show the HITM counts on the right line,
 * offset and thread, in the model, the text and the JSON.
 *
 * The events are those hw_encode() makes (from a fake sysfs: this machine
 * has no PMU), so the records are laid out by the sample_type a session
 * would really ask for.
 */
#include <limits.h>
#include <stdarg.h>
#include <stdlib.h>
#include <sys/stat.h>

#include "tap.h"
#include "common/util.h"
#include "detector/data_src.h"
#include "detector/hw_backend.h"
#include "detector/line_table.h"
#include "detector/soft.h"          /* named_counts_free */
#include "printers/printers.h"
#include "reports/report.h"
#include "reports/report_finish.h"

#define PID 100
#define T1 101
#define T2 102
#define LINE 0x601040ULL            /* T1 at +0, T2 at +8 */
#define PRIV 0x602000ULL            /* T1 alone */
#define IP1 0x401100ULL
#define IP2 0x401200ULL
#define KERNEL_IP 0xffffffff81000000ULL

#define S(a, s) PERF_MEM_S(a, s)
/* locked loads that found the line modified in a core of this node ... */
#define HITM_LOCAL (S(OP, LOAD) | S(LVL, L3) | S(LVL, HIT) | S(LVLNUM, L3) | \
		    S(SNOOP, HITM) | S(LOCK, LOCKED))
/* ... in another socket */
#define HITM_REMOTE (S(OP, LOAD) | S(LVL, REM_CCE1) | S(LVL, HIT) | S(LVLNUM, L3) | \
		     S(REMOTE, REMOTE) | S(SNOOP, HITM) | S(LOCK, LOCKED))
/* from a peer core's cache, clean */
#define PEER (S(OP, LOAD) | S(LVL, L2) | S(LVL, HIT) | S(SNOOPX, PEER) | S(LOCK, LOCKED))
#define L1_HIT (S(OP, LOAD) | S(LVL, L1) | S(LVL, HIT))
#define STORE (S(OP, STORE) | S(LVL, L1) | S(LVL, MISS))

/* --- a ring buffer's worth of records --------------------------------------- */

struct stream {
	uint8_t *buf;
	size_t len, alloc;
	uint64_t time;
};

struct rec {
	uint32_t tid;
	uint64_t ip, addr, weight, data_src;
};

static void put_u64(struct stream *s, uint64_t v)
{
	ALLOC_GROW(s->buf, s->len + 8, s->alloc);
	memcpy(s->buf + s->len, &v, 8);
	s->len += 8;
}

/* One PERF_RECORD_SAMPLE laid out as attr says (perf_event.h order). */
static void put_sample(struct stream *s, const struct perf_event_attr *attr, const struct rec *r)
{
	uint64_t st = attr->sample_type;
	size_t start = s->len;
	struct perf_event_header h = { .type = PERF_RECORD_SAMPLE, .misc = PERF_RECORD_MISC_USER };

	ALLOC_GROW(s->buf, s->len + sizeof(h), s->alloc);
	s->len += sizeof(h);
	s->time += 50000;           /* 50 us apart: the threads interleave */
	if (st & PERF_SAMPLE_IP)
		put_u64(s, r->ip);
	if (st & PERF_SAMPLE_TID)
		put_u64(s, (uint64_t)r->tid << 32 | PID);
	if (st & PERF_SAMPLE_TIME)
		put_u64(s, s->time);
	if (st & PERF_SAMPLE_ADDR)
		put_u64(s, r->addr);
	if (st & PERF_SAMPLE_CPU)
		put_u64(s, r->tid & 1);
	if (st & PERF_SAMPLE_PERIOD)
		put_u64(s, 1000);
	if (st & PERF_SAMPLE_REGS_USER)
		put_u64(s, PERF_SAMPLE_REGS_ABI_NONE);   /* e.g. a kernel-mode sample */
	if (st & PERF_SAMPLE_WEIGHT)
		put_u64(s, r->weight);
	if (st & PERF_SAMPLE_DATA_SRC)
		put_u64(s, r->data_src);
	h.size = (uint16_t)(s->len - start);
	memcpy(s->buf + start, &h, sizeof(h));
}

static void put_samples(struct stream *s, const struct perf_event_attr *attr,
			const struct rec *r, int n)
{
	for (int i = 0; i < n; i++)
		put_sample(s, attr, r);
}

/* --- the events, as a session would open them ------------------------------- */

static void write_file(const char *root, const char *path, const char *text)
{
	char full[PATH_MAX], *slash;
	FILE *f;

	snprintf(full, sizeof(full), "%s/%s", root, path);
	for (slash = strchr(full + 1, '/'); slash; slash = strchr(slash + 1, '/')) {
		*slash = '\0';
		mkdir(full, 0755);
		*slash = '/';
	}
	if (!(f = fopen(full, "w")))
		die("cannot write %s", full);
	fputs(text, f);
	fclose(f);
}

#define DEV "sys/bus/event_source/devices/"

static bool encode_events(const char *root, struct perf_event_attr *pebs_loads,
			  struct perf_event_attr *pebs_stores, struct perf_event_attr *ibs)
{
	const struct hw_config cfg = { .ldlat = 30, .freq = 1000 };
	struct hw_event ev[HW_MAX_EVENTS];
	struct hw_host h;
	char *why = NULL;

	write_file(root, DEV "cpu/type", "4\n");
	write_file(root, DEV "cpu/format/event", "config:0-7\n");
	write_file(root, DEV "cpu/format/umask", "config:8-15\n");
	write_file(root, DEV "cpu/format/ldlat", "config1:0-15\n");
	write_file(root, DEV "cpu/events/mem-loads", "event=0xcd,umask=0x1,ldlat=3\n");
	write_file(root, DEV "cpu/events/mem-stores", "event=0xd0,umask=0x82\n");
	write_file(root, DEV "ibs_op/type", "11\n");
	hw_host_detect(&h, root);
	h.pfm_pmu[0] = '\0';        /* sysfs aliases: the same on every machine */

	h.vendor = VENDOR_INTEL;
	if (hw_encode(BACKEND_PEBS, &h, &cfg, ev, &why) != 2)
		return error("pebs: %s", why), false;
	*pebs_loads = ev[0].attr;
	*pebs_stores = ev[1].attr;
	h.vendor = VENDOR_AMD;
	if (hw_encode(BACKEND_IBS, &h, &cfg, ev, &why) != 1)
		return error("ibs: %s", why), false;
	*ibs = ev[0].attr;
	return true;
}

/* --- the pipeline -------------------------------------------------------------- */

/* Every record of the stream, walked by header size as a ring is. */
static void feed(struct hw_backend *hb, struct line_table *lines,
		 const struct perf_event_attr *attr, const struct stream *s)
{
	for (size_t off = 0; off + sizeof(struct perf_event_header) <= s->len;) {
		struct perf_event_header h;
		struct perf_sample ps;
		struct access_sample a;

		memcpy(&h, s->buf + off, sizeof(h));
		if (!h.size || off + h.size > s->len)
			break;
		CHECK(perf_parse_sample(attr, s->buf + off, h.size, &ps),
		      "record at %zu does not parse", off);
		if (hw_backend_access(hb, &ps, &a))
			line_table_add(lines, &a);
		off += h.size;
	}
}

static const struct report_range *range_at(const struct report_line *l, unsigned offset)
{
	for (unsigned i = 0; i < l->n_ranges; i++)
		if (l->ranges[i].offset == offset)
			return &l->ranges[i];
	return NULL;
}

static const struct report_thread *thread_of(const struct report_range *rr, uint32_t tid)
{
	for (unsigned i = 0; rr && i < rr->n_threads; i++)
		if (rr->threads[i].tid == tid)
			return &rr->threads[i];
	return NULL;
}

static char *render(const struct report *r, void (*print)(const struct report *, FILE *))
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	print(r, f);
	fclose(f);
	return text;
}

/*
 * PEBS, two events: T1 and T2 increment neighbouring counters with locked
 * instructions; the load-latency event sees T1's loads hit a line T2 just
 * modified (local HITM) and T2's find it in the other socket (remote
 * HITM), T2 a few from a peer cache; the store event sees plain stores.
 */
static void test_pebs(const struct perf_event_attr *loads, const struct perf_event_attr *stores)
{
	struct stream ls = { 0 }, ss = { 0 };
	struct line_table *lines = line_table_new(64, 10 * 1000000ULL);
	struct hw_backend *hb = hw_backend_new(NULL);
	struct classify_config cfg;
	struct run_facts hdr = { .backend = "pebs", .backend_note = "test", .freq = 1000,
				     .mem_info = true };
	const struct rec t1_hitm = { T1, IP1, LINE + 0, 200, HITM_LOCAL };
	const struct rec t2_hitm = { T2, IP2, LINE + 8, 400, HITM_REMOTE };
	const struct rec t2_peer = { T2, IP2, LINE + 8, 100, PEER };
	const struct rec t1_priv = { T1, IP1, PRIV + 16, 5, L1_HIT };
	const struct rec t1_store = { T1, IP1 + 8, LINE + 0, 0, STORE };
	const struct rec t2_store = { T2, IP2 + 8, LINE + 8, 0, STORE };
	const struct report_range *r0, *r8;
	const struct report_thread *th;
	struct report *r;
	char *text, *json;

	for (int i = 0; i < 40; i++) {
		put_sample(&ls, loads, &t1_hitm);
		put_sample(&ls, loads, i < 30 ? &t2_hitm : &t2_peer);
		if (i % 4 == 0) {
			put_sample(&ss, stores, &t1_store);
			put_sample(&ss, stores, &t2_store);
		}
	}
	ss.time = 0;                /* the second ring covers the same time */
	put_samples(&ls, loads, &t1_priv, 20);
	feed(hb, lines, loads, &ls);
	feed(hb, lines, stores, &ss);
	CHECK_EQ_U64(hw_backend_samples_decoded(hb), 40 + 40 + 20 + 20, "accesses");

	classify_config_default(&cfg);
	hdr.samples = hw_backend_samples_seen(hb);
	hdr.decoded = hw_backend_samples_decoded(hb);
	r = report_build(&hdr, lines, &cfg, 10, NULL, NULL);
	CHECK(r->n_lines == 1, "%u contended lines", r->n_lines);
	if (r->n_lines != 1)
		goto out;
	CHECK_EQ_U64(r->lines[0].addr, LINE, "the contended line");
	CHECK_EQ_U64(r->lines[0].kind, SHARING_FALSE, "false sharing");
	CHECK_EQ_U64(r->lines[0].mem.hitm_local, 40, "line HITM local");
	CHECK_EQ_U64(r->lines[0].mem.hitm_remote, 30, "line HITM remote");
	CHECK_EQ_U64(r->lines[0].mem.peer, 10, "line peer");
	/* 40*200 + 30*400 + 10*100 over 80 weighed loads */
	CHECK_EQ_U64(r->lines[0].mem.latency, 40 * 200 + 30 * 400 + 10 * 100, "latency sum");
	CHECK_EQ_U64(r->lines[0].mem.weighted, 80, "weighed samples");

	r0 = range_at(&r->lines[0], 0);
	r8 = range_at(&r->lines[0], 8);
	CHECK(r0 && r8, "ranges at +0 and +8");
	if (!r0 || !r8)
		goto out;
	CHECK(r0->mem.hitm_local == 40 && r0->mem.hitm_remote == 0 && r0->mem.peer == 0,
	      "+0: HITM %" PRIu64 "/%" PRIu64 " peer %" PRIu64, r0->mem.hitm_local,
	      r0->mem.hitm_remote, r0->mem.peer);
	CHECK(r8->mem.hitm_local == 0 && r8->mem.hitm_remote == 30 && r8->mem.peer == 10,
	      "+8: HITM %" PRIu64 "/%" PRIu64 " peer %" PRIu64, r8->mem.hitm_local,
	      r8->mem.hitm_remote, r8->mem.peer);
	/* locked loads are atomic accesses, counted once, as writes
	 * (report.h); stores write */
	CHECK(r0->reads == 0 && r0->writes == 50, "+0: %" PRIu64 " reads %" PRIu64 " writes",
	      r0->reads, r0->writes);
	th = thread_of(r8, T2);
	CHECK(th && th->mem.hitm_remote == 30 && th->mem.peer == 10 && th->reads == 0 &&
	      th->writes == 40 + 10, "T2 on +8");
	CHECK(!thread_of(r8, T1), "T1 never touched +8");
	/* the score takes the stronger evidence: here the time windows */
	CHECK(r->lines[0].concurrent > 80 &&
	      r->lines[0].score == (double)r->lines[0].concurrent / 120,
	      "score %g, concurrent %" PRIu64, r->lines[0].score, r->lines[0].concurrent);

	text = render(r, report_print_text);
	CHECK(strstr(text, "HITM 40 local, 30 remote   peer 10   mean latency 262 cycles"),
	      "text summary:\n%s", text);
	CHECK(strstr(text, "HITM l/r") && strstr(text, "40/0") && strstr(text, "0/30"),
	      "text columns:\n%s", text);
	free(text);
	json = render(r, report_print_json);
	CHECK(strstr(json, "\"memory_info\": true"), "json memory_info");
	CHECK(strstr(json, "\"hitm_local\": 40, \"hitm_remote\": 0, \"peer\": 0, \"mean_latency\": 200"),
	      "json thread T1:\n%s", json);
	CHECK(strstr(json, "\"hitm_remote\": 30, \"peer\": 10, \"mean_latency\": 325"),
	      "json thread T2");
	free(json);
out:
	report_free(r);
	hw_backend_free(hb);
	line_table_free(lines);
	free(ls.buf);
	free(ss.buf);
}

/*
 * IBS, one event: the same contention, plus what IBS also tags: kernel
 * code (it cannot exclude the kernel) and ops without a data address.
 */
static void test_ibs(const struct perf_event_attr *ibs)
{
	struct stream s = { 0 };
	struct line_table *lines = line_table_new(64, 10 * 1000000ULL);
	struct hw_backend *hb = hw_backend_new(NULL);
	struct classify_config cfg;
	struct run_facts hdr = { .backend = "ibs", .freq = 1000, .mem_info = true };
	const struct rec t1 = { T1, IP1, LINE + 0, 150, HITM_LOCAL };
	const struct rec t2 = { T2, IP2, LINE + 8, 150, HITM_LOCAL };
	const struct rec kernel = { T1, KERNEL_IP, LINE, 10, L1_HIT };
	const struct rec no_addr = { T2, IP2, 0, 0, S(OP, NA) };
	struct named_count *drops;
	unsigned n_drops;
	struct report *r;

	for (int i = 0; i < 30; i++) {
		put_sample(&s, ibs, &t1);
		put_sample(&s, ibs, &t2);
		if (i % 10 == 0) {
			put_sample(&s, ibs, &kernel);
			put_sample(&s, ibs, &no_addr);
		}
	}
	feed(hb, lines, ibs, &s);
	CHECK_EQ_U64(hw_backend_samples_seen(hb), 66, "ibs samples");
	CHECK_EQ_U64(hw_backend_samples_decoded(hb), 60, "ibs accesses");
	n_drops = hw_backend_drop_counts(hb, &drops);
	CHECK(n_drops == 2 && !strcmp(drops[0].what, "no data address") && drops[0].n == 3 &&
	      !strcmp(drops[1].what, "kernel address") && drops[1].n == 3, "ibs drops");
	named_counts_free(drops, n_drops);

	classify_config_default(&cfg);
	hdr.samples = hw_backend_samples_seen(hb);
	r = report_build(&hdr, lines, &cfg, 10, NULL, NULL);
	CHECK(r->n_lines == 1 && r->lines[0].addr == LINE && r->lines[0].mem.hitm_local == 60,
	      "ibs: %u lines", r->n_lines);
	if (r->n_lines == 1) {
		CHECK_EQ_U64(range_at(&r->lines[0], 0)->mem.hitm_local, 30, "ibs +0");
		CHECK_EQ_U64(range_at(&r->lines[0], 8)->mem.hitm_local, 30, "ibs +8");
	}
	report_free(r);
	hw_backend_free(hb);
	line_table_free(lines);
	free(s.buf);
}

/*
 * HITM is evidence the time windows can miss: T2's loads 50 ms after T1's
 * stores are not concurrent, yet they found the line modified by T1.
 */
static void test_hitm_score(void)
{
	struct line_table *lines = line_table_new(64, 10 * 1000000ULL);
	struct classify_config cfg;
	struct line_verdict v;
	struct line *l;

	for (int k = 0; k < 10; k++) {
		uint64_t t = 100000000ULL * (k + 1);
		struct access_sample st = { .time = t, .pid = PID, .tid = T1, .ip = IP1,
					    .addr = LINE, .size = 8, .kind = ACCESS_STORE,
					    .base_reg = -1, .data_src = STORE };
		struct access_sample ld = { .time = t + 1000000, .pid = PID, .tid = T2, .ip = IP2,
					    .addr = LINE + 8, .size = 8, .kind = ACCESS_LOAD,
					    .base_reg = -1, .weight = 300, .data_src = HITM_LOCAL };

		line_table_add(lines, &st);
		line_table_add(lines, &ld);          /* 1 ms later: concurrent */
		ld.time += 49000000;
		line_table_add(lines, &ld);          /* 50 ms later: not */
		ld.time += 1000000;
		line_table_add(lines, &ld);
	}
	classify_config_default(&cfg);
	l = line_table_find(lines, PID, LINE);
	CHECK(l && l->concurrent < 30, "concurrent %" PRIu64, l ? l->concurrent : 0);
	if (l) {
		classify_line(l, 40, &cfg, &v);
		CHECK(v.score == 30.0 / 40, "score %g: the 30 HITM loads of 40 samples", v.score);
		line_verdict_release(&v);
	}
	line_table_free(lines);
}

/* Without a data source (the soft backend) nothing changes: no HITM. */
static void test_soft_unchanged(void)
{
	struct line_table *lines = line_table_new(64, 10 * 1000000ULL);
	struct classify_config cfg;
	struct run_facts hdr = { .backend = "soft", .freq = 1000 };
	struct report *r;
	char *text;

	for (int i = 0; i < 50; i++) {
		struct access_sample a = { .time = 1000000ULL * i, .pid = PID, .tid = T1 + i % 2,
					   .ip = IP1, .addr = LINE + 8 * (i % 2), .size = 8,
					   .kind = ACCESS_ATOMIC, .base_reg = -1 };
		line_table_add(lines, &a);
	}
	classify_config_default(&cfg);
	r = report_build(&hdr, lines, &cfg, 10, NULL, NULL);
	CHECK(r->n_lines == 1 && r->lines[0].mem.hitm_local == 0 && !r->mem_info, "soft line");
	if (r->n_lines == 1)
		CHECK(r->lines[0].score == (double)r->lines[0].concurrent / 50,
		      "soft score %g is concurrent/samples", r->lines[0].score);
	text = render(r, report_print_text);
	CHECK(!strstr(text, "HITM"), "soft text has no HITM column");
	free(text);
	text = render(r, report_print_json);
	CHECK(strstr(text, "\"memory_info\": false") && !strstr(text, "hitm_local"),
	      "soft json has no HITM fields");
	free(text);
	report_free(r);
	line_table_free(lines);
}

int main(void)
{
	char tmpl[] = "/tmp/test_hw_pipeline.XXXXXX", cmd[64];
	struct perf_event_attr loads, stores, ibs;
	bool ok;

	if (!mkdtemp(tmpl))
		return test_skip("cannot make a temporary directory");
	ok = encode_events(tmpl, &loads, &stores, &ibs);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmpl);
	if (system(cmd) != 0)
		fprintf(stderr, "cannot remove %s\n", tmpl);
	CHECK(ok, "events encoded");
	if (ok) {
		test_pebs(&loads, &stores);
		test_ibs(&ibs);
	}
	test_hitm_score();
	test_soft_unchanged();
	return test_done();
}
