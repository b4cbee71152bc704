#include "detector/callchain.h"
#include "tap.h"
#include "common/util.h"

static void test_intern(void)
{
	struct callchains *c = callchains_new();
	uint64_t a[] = { 0x401000, 0x402000, 0x403000 };
	uint64_t b[] = { 0x401000, 0x402000, 0x403001 };
	uint64_t a_copy[] = { 0x401000, 0x402000, 0x403000 };
	const uint64_t *got;
	uint32_t ia, ib;
	unsigned n;

	ia = callchain_intern(c, a, 3);
	ib = callchain_intern(c, b, 3);
	CHECK(ia != 0 && ib != 0, "ids %u %u", ia, ib);
	CHECK(ia != ib, "different chains, different ids");
	CHECK_EQ_U64(callchain_intern(c, a_copy, 3), ia, "equal chains, equal id");
	CHECK(callchain_intern(c, a, 2) != ia, "a prefix is another chain");
	CHECK_EQ_U64(callchain_intern(c, a, 0), 0, "empty chain");
	CHECK_EQ_U64(callchains_count(c), 3, "distinct chains");

	got = callchain_get(c, ib, &n);
	CHECK_EQ_U64(n, 3, "length");
	CHECK(got && got[2] == 0x403001, "frames back");
	CHECK(!callchain_get(c, 0, &n) && n == 0, "id 0 has no frames");
	CHECK(!callchain_get(c, 1000, &n) && n == 0, "unknown id");
	callchains_free(c);
}

/* Deeper chains are cut at CALLCHAIN_MAX_DEPTH frames. */
static void test_depth(void)
{
	struct callchains *c = callchains_new();
	uint64_t pcs[CALLCHAIN_MAX_DEPTH + 10];
	unsigned n;

	for (unsigned i = 0; i < ARRAY_SIZE(pcs); i++)
		pcs[i] = 0x400000 + i;
	callchain_get(c, callchain_intern(c, pcs, ARRAY_SIZE(pcs)), &n);
	CHECK_EQ_U64(n, CALLCHAIN_MAX_DEPTH, "depth cut");
	CHECK_EQ_U64(callchain_intern(c, pcs, CALLCHAIN_MAX_DEPTH),
		     callchain_intern(c, pcs, ARRAY_SIZE(pcs)), "same once cut");
	callchains_free(c);
}

/* Past the cap new chains get 0; known ones keep their ids. */
static void test_cap(void)
{
	struct callchains *c = callchains_new();
	uint64_t pcs[2] = { 0x400000, 0 };
	uint32_t first, last = 0;
	int bad = 0;

	first = callchain_intern(c, pcs, 2);
	for (uint64_t i = 1; i < CALLCHAIN_MAX_CHAINS; i++) {
		pcs[1] = i;
		last = callchain_intern(c, pcs, 2);
		bad += last != i + 1;
	}
	CHECK_EQ_U64(bad, 0, "ids are dense");
	CHECK_EQ_U64(last, CALLCHAIN_MAX_CHAINS, "last id");
	pcs[1] = CALLCHAIN_MAX_CHAINS;
	CHECK_EQ_U64(callchain_intern(c, pcs, 2), 0, "table full");
	CHECK_EQ_U64(callchains_refused(c), 1, "refusals counted");
	pcs[1] = 0;
	CHECK_EQ_U64(callchain_intern(c, pcs, 2), first, "known chain still found");
	pcs[1] = 12345;
	CHECK_EQ_U64(callchain_intern(c, pcs, 2), 12346, "lookup after growth");
	callchains_free(c);
}

int main(void)
{
	test_intern();
	test_depth();
	test_cap();
	return test_done();
}
