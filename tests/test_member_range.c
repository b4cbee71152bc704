/* test_member_range - consecutive array elements merged into one range
 * (reports/member_range.h): which ranges join, what the merged one holds,
 * and that the names parse back. */
#include "tests/tap.h"

#include "common/util.h"
#include "reports/member_range.h"
#include "reports/report.h"

/* A range of one element written (w) or read by each thread in tids. */
static void range(struct report_range *r, unsigned offset, unsigned size, const char *member,
		  const uint32_t *tids, const bool *writes, unsigned n, uint64_t ip)
{
	r->offset = offset;
	r->size = size;
	r->member = xstrdup(member);
	r->false_writer = true;
	r->threads = xcalloc(n, sizeof(*r->threads));
	r->n_threads = n;
	for (unsigned i = 0; i < n; i++) {
		r->threads[i].tid = tids[i];
		r->threads[i].comm = xstrdup("w");
		r->threads[i].writes = writes[i] ? 10 : 0;
		r->threads[i].reads = writes[i] ? 0 : 3;
		r->writes += r->threads[i].writes;
		r->reads += r->threads[i].reads;
	}
	r->sites = xcalloc(1, sizeof(*r->sites));
	r->n_sites = 1;
	r->sites[0].ip = ip;
	r->sites[0].function = xstrdup("count");
	r->sites[0].writes = r->writes;
	r->sites[0].reads = r->reads;
}

static void test_parse(void)
{
	size_t len = 0;
	unsigned long a = 0, b = 0;

	CHECK(member_range_parse("arg[0].blue[254]", &len, &a, &b) && len == 11 && a == 254 &&
	      b == 254, "one element: %zu %lu %lu", len, a, b);
	CHECK(member_range_parse("arg[1].red[0..7]", &len, &a, &b) && len == 10 && a == 0 &&
	      b == 7, "a range: %zu %lu %lu", len, a, b);
	CHECK(member_range_parse("[3..4]", &len, &a, &b) && len == 0 && a == 3 && b == 4,
	      "a range relative to the variable");
	CHECK(!member_range_parse("arg[0].blue", &len, &a, &b), "no index");
	CHECK(!member_range_parse("p[7..3]", &len, &a, &b), "backwards");
	CHECK(!member_range_parse("p[x]", &len, &a, &b), "not a number");
	CHECK(!member_range_parse("p[]", &len, &a, &b), "empty");
	CHECK(!member_range_parse("p[1..]", &len, &a, &b), "open");
	CHECK(!member_range_parse("p[99999999999999999999999]", &len, &a, &b), "too big");
	CHECK(!member_range_parse(NULL, &len, &a, &b) && !member_range_parse("", &len, &a, &b),
	      "nothing");
}

static void test_merge(void)
{
	struct report *r = xcalloc(1, sizeof(*r));
	struct report_line *l;
	const uint32_t t1[] = { 101 }, t2[] = { 102 }, both[] = { 101, 102 };
	const bool w[] = { true }, w_r[] = { true, false };

	r->lines = xcalloc(1, sizeof(*r->lines));
	r->n_lines = 1;
	l = &r->lines[0];
	l->ranges = xcalloc(9, sizeof(*l->ranges));
	/* thread 101 writes blue[254], [255]; [255] also seen as a victim */
	range(&l->ranges[0], 24, 4, "arg[0].blue[254]", t1, w, 1, 0x10);
	range(&l->ranges[1], 28, 4, "arg[0].blue[255]", t1, w, 1, 0x10);
	l->ranges[1].false_victim = true;
	/* thread 102 writes red[0..2]; red[1] has a second site */
	range(&l->ranges[2], 32, 4, "arg[1].red[0]", t2, w, 1, 0x20);
	range(&l->ranges[3], 36, 4, "arg[1].red[1]", t2, w, 1, 0x24);
	range(&l->ranges[4], 40, 4, "arg[1].red[2]", t2, w, 1, 0x20);
	/* red[3]: thread 101 reads it too: another set of threads */
	range(&l->ranges[5], 44, 4, "arg[1].red[3]", both, w_r, 2, 0x20);
	l->ranges[5].true_shared = true;
	/* red[5]: a gap before it (red[4] untouched) */
	range(&l->ranges[6], 52, 4, "arg[1].red[5]", t2, w, 1, 0x20);
	/* red[6] as 8 bytes: not one element's size */
	range(&l->ranges[7], 56, 8, "arg[1].red[6]", t2, w, 1, 0x20);
	range(&l->ranges[8], 60, 4, "arg[1].red[7]", t2, w, 1, 0x20);
	l->n_ranges = 9;
	l->ranges[4].sites[0].chains = xcalloc(1, sizeof(struct report_chain));
	l->ranges[4].sites[0].n_chains = 1;
	l->ranges[4].sites[0].chains[0].frames = xcalloc(1, sizeof(char *));
	l->ranges[4].sites[0].chains[0].frames[0] = xstrdup("worker x.c:9");
	l->ranges[4].sites[0].chains[0].n_frames = 1;
	l->ranges[4].sites[0].chains[0].count = 5;

	member_ranges_merge(l);
	CHECK_EQ_U64(l->n_ranges, 6, "ranges left");
	CHECK_STR(l->ranges[0].member, "arg[0].blue[254..255]", "element 0's");
	CHECK_EQ_U64(l->ranges[0].offset, 24, "its offset");
	CHECK_EQ_U64(l->ranges[0].size, 8, "both elements' bytes");
	CHECK_EQ_U64(l->ranges[0].writes, 20, "writes summed");
	CHECK_EQ_U64(l->ranges[0].n_threads, 1, "one thread");
	CHECK_EQ_U64(l->ranges[0].threads[0].writes, 20, "the thread's writes summed");
	CHECK_EQ_U64(l->ranges[0].n_sites, 1, "one site, its samples summed");
	CHECK_EQ_U64(l->ranges[0].sites[0].writes, 20, "the site's writes");
	CHECK(l->ranges[0].false_writer && l->ranges[0].false_victim, "any element's role");

	CHECK_STR(l->ranges[1].member, "arg[1].red[0..2]", "element 1's");
	CHECK_EQ_U64(l->ranges[1].size, 12, "three elements' bytes");
	CHECK_EQ_U64(l->ranges[1].n_sites, 2, "two sites");
	CHECK_EQ_U64(l->ranges[1].sites[0].ip, 0x20, "the heavier first");
	CHECK_EQ_U64(l->ranges[1].sites[0].writes, 20, "its writes summed");
	CHECK_EQ_U64(l->ranges[1].sites[0].n_chains, 1, "its chain kept");

	CHECK_STR(l->ranges[2].member, "arg[1].red[3]", "other threads: apart");
	CHECK_STR(l->ranges[3].member, "arg[1].red[5]", "after a gap: apart");
	CHECK_STR(l->ranges[4].member, "arg[1].red[6]", "another size: apart");
	CHECK_STR(l->ranges[5].member, "arg[1].red[7]", "after it, alone");
	report_free(r);
}

int main(void)
{
	test_parse();
	test_merge();
	return test_done();
}
