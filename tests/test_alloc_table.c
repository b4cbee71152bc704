/* Unit tests for detector/alloc_table.c: blocks found by any address in
 * them, frees that arrive out of order between threads, freed blocks kept
 * only where a sampled line lies, sites counted once. */
#include "detector/alloc_table.h"
#include "detector/line_table.h"
#include "detector/sample.h"
#include "tests/tap.h"

#include <string.h>

static struct alloc_record rec(uint32_t call, uint64_t t, uint64_t addr, uint64_t size,
			       uint64_t site)
{
	struct alloc_record r;

	memset(&r, 0, sizeof(r));
	r.call = call;
	r.time = t;
	r.addr = addr;
	r.size = size;
	r.pid = 100;
	r.tid = 101;
	r.frames[0] = site;
	return r;
}

static void test_find(void)
{
	struct alloc_table *t = alloc_table_new();
	struct alloc_record r = rec(ALLOC_CALLOC, 1, 0x1000, 6144, 0x4014c2);
	const struct alloc_block *b;
	const struct alloc_site *s;

	r.arg = 2;
	alloc_table_add(t, &r, NULL);
	r = rec(ALLOC_MALLOC, 2, 0x3000, 64, 0x4014c2);
	alloc_table_add(t, &r, NULL);
	b = alloc_table_find(t, 100, 0x1000 + 3072 + 8);
	CHECK(b && b->addr == 0x1000 && b->size == 6144 && b->arg == 2 && b->call == ALLOC_CALLOC,
	      "an address in the middle finds the calloc'd block");
	CHECK(!alloc_table_find(t, 100, 0x1000 + 6144), "one past the end is outside");
	CHECK(!alloc_table_find(t, 200, 0x1008), "another pid's address is not this block");
	s = b ? alloc_table_site(t, b->site) : NULL;
	CHECK(s && s->frames[0] == 0x4014c2 && s->call == ALLOC_CALLOC, "the block's site");
	b = alloc_table_find(t, 100, 0x3000 + 63);
	CHECK(b && b->addr == 0x3000, "the second block");
	alloc_table_free(t);
}

static void test_out_of_order(void)
{
	struct alloc_table *t = alloc_table_new();
	struct alloc_record r;
	const struct alloc_block *b;
	struct alloc_stats st;

	/* thread A frees 0x2000 at t=5; thread B reuses it at t=6, but B's
	 * batch arrives first */
	r = rec(ALLOC_MALLOC, 1, 0x2000, 32, 0xa);
	alloc_table_add(t, &r, NULL);
	r = rec(ALLOC_MALLOC, 6, 0x2000, 48, 0xb);
	alloc_table_add(t, &r, NULL);
	r = rec(ALLOC_FREE, 5, 0x2000, 0, 0);
	alloc_table_add(t, &r, NULL);
	b = alloc_table_find(t, 100, 0x2000);
	CHECK(b && b->size == 48 && !b->freed, "the late free of the older block leaves the newer one");
	/* a free in order takes it out */
	r = rec(ALLOC_FREE, 7, 0x2000, 0, 0);
	alloc_table_add(t, &r, NULL);
	alloc_table_stats(t, &st);
	CHECK_EQ_U64(st.live, 0, "no live block after the free");
	CHECK_EQ_U64(st.kept_freed, 0, "nothing sampled: nothing kept");
	CHECK_EQ_U64(st.sites, 2, "two sites");
	alloc_table_free(t);
}

/* Times by the kernel's tick (ALLOC_TIME_SLACK): two threads' records
 * closer than that are in no known order, and an owed free sorts them. */
static void test_within_a_tick(void)
{
	const uint64_t T = 1000 * ALLOC_TIME_SLACK, tick = ALLOC_TIME_SLACK / 3;
	struct alloc_table *t = alloc_table_new();
	struct alloc_record r;
	const struct alloc_block *b;
	struct alloc_stats st;

	/* thread 101 allocates, thread 102 frees it in the same tick: the free
	 * (stamped a tick earlier than the block, by another clock read) is
	 * the block's, no older block being owed one */
	r = rec(ALLOC_MALLOC, T, 0x4000, 64, 0x1);
	alloc_table_add(t, &r, NULL);
	r = rec(ALLOC_FREE, T - tick, 0x4000, 0, 0);
	r.tid = 102;
	alloc_table_add(t, &r, NULL);
	alloc_table_stats(t, &st);
	CHECK_EQ_U64(st.live, 0, "a free within the slack, nothing owed: the live block's");

	/* A frees 0x6000, B reuses it in the same tick, B's batch first: A's
	 * free is owed and taken as the replaced block's */
	r = rec(ALLOC_MALLOC, T, 0x6000, 32, 0x2);
	alloc_table_add(t, &r, NULL);
	r = rec(ALLOC_MALLOC, T + tick, 0x6000, 48, 0x3);
	r.tid = 102;
	alloc_table_add(t, &r, NULL);
	r = rec(ALLOC_FREE, T + tick, 0x6000, 0, 0);
	alloc_table_add(t, &r, NULL);
	b = alloc_table_find(t, 100, 0x6000);
	CHECK(b && b->size == 48 && !b->freed, "the owed free leaves the newer block");
	/* a free surely after the block is the block's */
	r = rec(ALLOC_FREE, T + 3 * ALLOC_TIME_SLACK, 0x6000, 0, 0);
	alloc_table_add(t, &r, NULL);
	b = alloc_table_find(t, 100, 0x6000);
	CHECK(!b || b->freed, "then its own free takes it out");

	/* a free surely before a block is of an older one, never seen */
	r = rec(ALLOC_MALLOC, T, 0x8000, 32, 0x4);
	alloc_table_add(t, &r, NULL);
	r = rec(ALLOC_FREE, T - 2 * ALLOC_TIME_SLACK, 0x8000, 0, 0);
	r.tid = 103;
	alloc_table_add(t, &r, NULL);
	b = alloc_table_find(t, 100, 0x8000);
	CHECK(b && b->size == 32, "a free surely older than the block leaves it");
	alloc_table_free(t);
}

static void test_kept_when_sampled(void)
{
	struct alloc_table *t = alloc_table_new();
	struct line_table *lines = line_table_new(64, 1000000);
	struct access_sample s;
	struct alloc_record r;
	const struct alloc_block *b;
	struct alloc_stats st;

	memset(&s, 0, sizeof(s));
	s.pid = 100;
	s.tid = 102;
	s.addr = 0x5000 + 3072 + 4;
	s.size = 4;
	s.kind = ACCESS_STORE;
	s.base_reg = -1;
	line_table_add(lines, &s);
	r = rec(ALLOC_CALLOC, 1, 0x5000, 6144, 0xc);
	r.arg = 2;
	alloc_table_add(t, &r, lines);
	r = rec(ALLOC_MALLOC, 2, 0x9000, 64, 0xd);
	alloc_table_add(t, &r, lines);
	r = rec(ALLOC_FREE, 3, 0x5000, 0, 0);
	alloc_table_add(t, &r, lines);
	r = rec(ALLOC_FREE, 4, 0x9000, 0, 0);
	alloc_table_add(t, &r, lines);
	alloc_table_stats(t, &st);
	CHECK_EQ_U64(st.live, 0, "both freed");
	CHECK_EQ_U64(st.kept_freed, 1, "only the sampled one is kept");
	b = alloc_table_find(t, 100, 0x5000 + 3072 + 4);
	CHECK(b && b->freed && b->size == 6144, "the sampled block is found after its free");
	/* a new block at the same address is preferred to the freed one */
	r = rec(ALLOC_MALLOC, 5, 0x5000, 8192, 0xe);
	alloc_table_add(t, &r, lines);
	b = alloc_table_find(t, 100, 0x5000 + 3072 + 4);
	CHECK(b && !b->freed && b->size == 8192, "the live block wins over the kept one");
	line_table_free(lines);
	alloc_table_free(t);
}

static void test_records_out(void)
{
	struct alloc_table *t = alloc_table_new();
	struct alloc_record r = rec(ALLOC_ALIGNED_ALLOC, 1, 0x7000, 128, 0xf), out;
	size_t pos = 0;
	unsigned n = 0;

	r.arg = 64;
	alloc_table_add(t, &r, NULL);
	while (alloc_table_next(t, NULL, &pos, &out)) {
		n++;
		CHECK(out.addr == 0x7000 && out.size == 128 && out.arg == 64 &&
		      out.frames[0] == 0xf && out.call == ALLOC_ALIGNED_ALLOC,
		      "the block comes back as the record it was");
	}
	CHECK_EQ_U64(n, 1, "one record out");
	CHECK_STR(alloc_call_name(ALLOC_NEW_ARRAY), "operator new[]", "call names");
	alloc_table_free(t);
}

/* Thousands of short-lived blocks at ever new addresses (the table
 * sweeps out the slots they leave), and one address handed out again and
 * again (its slot is reused): the survivors are still found, with their
 * own sizes, and only they are live. */
static void test_churn(void)
{
	struct alloc_table *t = alloc_table_new();
	struct alloc_record r;
	const struct alloc_block *b;
	struct alloc_stats st;
	unsigned found = 0;

	for (uint64_t i = 0; i < 20000; i++) {
		r = rec(ALLOC_MALLOC, 1, 0x100000 + i * 64, 48 + i % 7, 0xa);
		alloc_table_add(t, &r, NULL);
		r = rec(ALLOC_MALLOC, 1, 0x9000000, 100 + i, 0xb);
		alloc_table_add(t, &r, NULL);
		r = rec(ALLOC_FREE, 1, 0x9000000, 0, 0xb);
		alloc_table_add(t, &r, NULL);
		if (i % 1000)   /* one in a thousand lives on */
			alloc_table_add(t, &(struct alloc_record){ .call = ALLOC_FREE, .time = 1,
				.addr = 0x100000 + i * 64, .pid = 100, .tid = 101 }, NULL);
	}
	r = rec(ALLOC_MALLOC, 1, 0x9000000, 4242, 0xb);
	alloc_table_add(t, &r, NULL);
	for (uint64_t i = 0; i < 20000; i += 1000) {
		b = alloc_table_find(t, 100, 0x100000 + i * 64 + 8);
		found += b && b->addr == 0x100000 + i * 64 && b->size == 48 + i % 7 && !b->freed;
	}
	CHECK_EQ_U64(found, 20, "every survivor of the churn is found, live, with its size");
	b = alloc_table_find(t, 100, 0x100000 + 1 * 64);
	CHECK(!b || b->freed, "a freed block is not live");
	b = alloc_table_find(t, 100, 0x9000000 + 4000);
	CHECK(b && b->size == 4242 && !b->freed, "the address handed out again: its newest block");
	alloc_table_stats(t, &st);
	CHECK_EQ_U64(st.live, 21, "live blocks after the churn");
	r = rec(ALLOC_FREE, 1, 0x100000 + 5000 * 64, 0, 0xa);
	alloc_table_add(t, &r, NULL);
	alloc_table_stats(t, &st);
	CHECK_EQ_U64(st.live, 20, "a survivor's free, after the sweeps, finds it");
	b = alloc_table_find(t, 100, 0x100000 + 5000 * 64);
	CHECK(b && b->freed, "... and it is freed");
	alloc_table_free(t);
}

int main(void)
{
	test_find();
	test_out_of_order();
	test_within_a_tick();
	test_kept_when_sampled();
	test_records_out();
	test_churn();
	return test_done();
}
