/* test_data_src.c - perf_mem_data_src decoding: every value of every field
 * the kernel defines, alone, and the encodings real PMUs produce. */
#include <linux/perf_event.h>

#include "detector/data_src.h"
#include "tap.h"

/* The ABI field positions and widths, from the kernel header's own
 * macros where they exist; the decoder must agree with them. */
struct field {
	const char *name;
	unsigned shift, bits;
};

static const struct field fields[] = {
	{ "op", PERF_MEM_OP_SHIFT, 5 },
	{ "lvl", PERF_MEM_LVL_SHIFT, 14 },
	{ "snoop", PERF_MEM_SNOOP_SHIFT, 5 },
	{ "lock", PERF_MEM_LOCK_SHIFT, 2 },
	{ "dtlb", PERF_MEM_TLB_SHIFT, 7 },
	{ "lvl_num", PERF_MEM_LVLNUM_SHIFT, 4 },
	{ "remote", PERF_MEM_REMOTE_SHIFT, 1 },
	{ "snoopx", PERF_MEM_SNOOPX_SHIFT, 2 },
	{ "blk", PERF_MEM_BLK_SHIFT, 3 },
	{ "hops", PERF_MEM_HOPS_SHIFT, 3 },
};

static uint64_t put(const char *name, uint64_t v)
{
	for (size_t i = 0; i < sizeof(fields) / sizeof(fields[0]); i++)
		if (!strcmp(fields[i].name, name))
			return v << fields[i].shift;
	return 0;
}

/* What a field alone must decode to; the rest is "not available". */
static void check_rest_na(const struct data_src *d, const char *except, uint64_t raw)
{
	if (strcmp(except, "op"))
		CHECK(d->op == 0, "raw 0x%" PRIx64 ": op %u", raw, d->op);
	if (strcmp(except, "lvl") && strcmp(except, "lvl_num"))
		CHECK(d->level == MEM_LEVEL_NA, "raw 0x%" PRIx64 ": level %u", raw, d->level);
	if (strcmp(except, "lvl"))
		CHECK(d->hit == MEM_HIT_NA, "raw 0x%" PRIx64 ": hit %u", raw, d->hit);
	if (strcmp(except, "snoop"))
		CHECK(d->snoop == 0, "raw 0x%" PRIx64 ": snoop %u", raw, d->snoop);
	if (strcmp(except, "snoopx"))
		CHECK(!d->fwd && !d->peer, "raw 0x%" PRIx64 ": snoopx", raw);
	if (strcmp(except, "lock"))
		CHECK(d->lock == MEM_UNLOCKED, "raw 0x%" PRIx64 ": lock %u", raw, d->lock);
	if (strcmp(except, "dtlb"))
		CHECK(d->tlb == 0, "raw 0x%" PRIx64 ": tlb %u", raw, d->tlb);
	if (strcmp(except, "blk"))
		CHECK(d->blk == 0, "raw 0x%" PRIx64 ": blk %u", raw, d->blk);
	if (strcmp(except, "hops"))
		CHECK(d->hops == 0, "raw 0x%" PRIx64 ": hops %u", raw, d->hops);
	if (strcmp(except, "remote") && strcmp(except, "lvl"))
		CHECK(!d->remote, "raw 0x%" PRIx64 ": remote", raw);
}

/* Every field value: describe() is bounded and NUL-terminated. */
static void check_describe(uint64_t raw)
{
	char big[512], small[12];
	int n = data_src_describe(raw, big, sizeof(big));

	CHECK(n > 0 && (size_t)n < sizeof(big) && strlen(big) == (size_t)n,
	      "raw 0x%" PRIx64 ": describe %d \"%s\"", raw, n, big);
	data_src_describe(raw, small, sizeof(small));
	CHECK(strlen(small) < sizeof(small) && !strncmp(small, big, sizeof(small) - 1),
	      "raw 0x%" PRIx64 ": truncated \"%s\" vs \"%s\"", raw, small, big);
}

static uint64_t decode_alone(const char *name, uint64_t v, struct data_src *d)
{
	uint64_t raw = put(name, v);
	bool ok = data_src_decode(raw, d);

	CHECK(ok == (raw != 0), "%s=%" PRIu64 ": decode says %d", name, v, ok);
	if (raw)
		check_describe(raw);
	return raw;
}

static void test_op(void)
{
	for (uint64_t v = 1; v < 32; v++) {
		struct data_src d;
		uint64_t raw = decode_alone("op", v, &d);

		/* load, store, prefetch, exec are bits 1..4 over the n/a bit */
		CHECK_EQ_U64(d.op & DS_OP_LOAD, v & PERF_MEM_OP_LOAD ? DS_OP_LOAD : 0, "op load");
		CHECK_EQ_U64(d.op & DS_OP_STORE, v & PERF_MEM_OP_STORE ? DS_OP_STORE : 0, "op store");
		CHECK_EQ_U64(d.op & DS_OP_PFETCH, v & PERF_MEM_OP_PFETCH ? DS_OP_PFETCH : 0, "op pfetch");
		CHECK_EQ_U64(d.op & DS_OP_EXEC, v & PERF_MEM_OP_EXEC ? DS_OP_EXEC : 0, "op exec");
		check_rest_na(&d, "op", raw);
	}
}

/* The old bitmask: nearest level wins, remote only without a local one. */
static void test_lvl(void)
{
	static const struct { unsigned bit; enum mem_level level; bool remote; } by_distance[] = {
		{ PERF_MEM_LVL_L1, MEM_LEVEL_L1, false },
		{ PERF_MEM_LVL_LFB, MEM_LEVEL_LFB, false },
		{ PERF_MEM_LVL_L2, MEM_LEVEL_L2, false },
		{ PERF_MEM_LVL_L3, MEM_LEVEL_L3, false },
		{ PERF_MEM_LVL_LOC_RAM, MEM_LEVEL_RAM, false },
		{ PERF_MEM_LVL_REM_CCE1, MEM_LEVEL_ANY_CACHE, true },
		{ PERF_MEM_LVL_REM_CCE2, MEM_LEVEL_ANY_CACHE, true },
		{ PERF_MEM_LVL_REM_RAM1, MEM_LEVEL_RAM, true },
		{ PERF_MEM_LVL_REM_RAM2, MEM_LEVEL_RAM, true },
		{ PERF_MEM_LVL_IO, MEM_LEVEL_IO, false },
		{ PERF_MEM_LVL_UNC, MEM_LEVEL_UNCACHED, false },
	};
	const unsigned local = PERF_MEM_LVL_L1 | PERF_MEM_LVL_LFB | PERF_MEM_LVL_L2 |
			       PERF_MEM_LVL_L3 | PERF_MEM_LVL_LOC_RAM;
	unsigned n_bad = 0;

	for (uint64_t v = 1; v < (1u << 14); v++) {
		enum mem_level want = MEM_LEVEL_NA;
		enum mem_hit want_hit = MEM_HIT_NA;
		bool want_remote = false, hit = v & PERF_MEM_LVL_HIT, miss = v & PERF_MEM_LVL_MISS;
		struct data_src d;
		uint64_t raw = decode_alone("lvl", v, &d);

		for (size_t i = 0; i < sizeof(by_distance) / sizeof(by_distance[0]); i++) {
			if (v & by_distance[i].bit) {
				want = by_distance[i].level;
				break;
			}
		}
		for (size_t i = 0; i < sizeof(by_distance) / sizeof(by_distance[0]); i++)
			if ((v & by_distance[i].bit) && by_distance[i].remote && !(v & local))
				want_remote = true;
		if (hit != miss)
			want_hit = hit ? MEM_HIT : MEM_MISS;
		if (d.level != want || d.hit != want_hit || d.remote != want_remote)
			n_bad++;
		check_rest_na(&d, "lvl", raw);
	}
	CHECK(n_bad == 0, "%u of 16383 lvl values decode wrongly", n_bad);
}

static void test_snoop(void)
{
	for (uint64_t v = 1; v < 32; v++) {
		struct data_src d;
		uint64_t raw = decode_alone("snoop", v, &d);

		CHECK_EQ_U64(!!(d.snoop & DS_SNOOP_NONE), !!(v & PERF_MEM_SNOOP_NONE), "snoop none");
		CHECK_EQ_U64(!!(d.snoop & DS_SNOOP_HIT), !!(v & PERF_MEM_SNOOP_HIT), "snoop hit");
		CHECK_EQ_U64(!!(d.snoop & DS_SNOOP_MISS), !!(v & PERF_MEM_SNOOP_MISS), "snoop miss");
		CHECK_EQ_U64(!!(d.snoop & DS_SNOOP_HITM), !!(v & PERF_MEM_SNOOP_HITM), "snoop HITM");
		CHECK_EQ_U64(data_src_coherence(raw),
			     v & PERF_MEM_SNOOP_HITM ? COHERENCE_HITM_LOCAL : COHERENCE_NONE,
			     "HITM alone is local");
		check_rest_na(&d, "snoop", raw);
	}
}

static void test_lock(void)
{
	static const uint8_t want[4] = { MEM_UNLOCKED, MEM_LOCK_NA, MEM_LOCKED, MEM_LOCK_NA };

	for (uint64_t v = 1; v < 4; v++) {
		struct data_src d;
		uint64_t raw = decode_alone("lock", v, &d);

		CHECK_EQ_U64(d.lock, want[v], "lock");
		check_rest_na(&d, "lock", raw);
	}
}

static void test_dtlb(void)
{
	static const struct { unsigned kernel, ours; } bits[] = {
		{ PERF_MEM_TLB_HIT, DS_TLB_HIT }, { PERF_MEM_TLB_MISS, DS_TLB_MISS },
		{ PERF_MEM_TLB_L1, DS_TLB_L1 }, { PERF_MEM_TLB_L2, DS_TLB_L2 },
		{ PERF_MEM_TLB_WK, DS_TLB_WALKER }, { PERF_MEM_TLB_OS, DS_TLB_OS },
	};

	for (uint64_t v = 1; v < 128; v++) {
		struct data_src d;
		uint64_t raw = decode_alone("dtlb", v, &d);

		for (size_t i = 0; i < sizeof(bits) / sizeof(bits[0]); i++)
			CHECK_EQ_U64(!!(d.tlb & bits[i].ours), !!(v & bits[i].kernel), "tlb bit");
		check_rest_na(&d, "dtlb", raw);
	}
}

static void test_lvl_num(void)
{
	/* 0x5 L2 MHB, 0x6 memory-side cache and 0x8 uncached are newer than
	 * some installed headers: spelled out here */
	static const enum mem_level want[16] = {
		[0x0] = MEM_LEVEL_NA, [0x1] = MEM_LEVEL_L1, [0x2] = MEM_LEVEL_L2,
		[0x3] = MEM_LEVEL_L3, [0x4] = MEM_LEVEL_L4, [0x5] = MEM_LEVEL_L2_MHB,
		[0x6] = MEM_LEVEL_MSC, [0x7] = MEM_LEVEL_NA, [0x8] = MEM_LEVEL_UNCACHED,
		[PERF_MEM_LVLNUM_CXL] = MEM_LEVEL_CXL, [PERF_MEM_LVLNUM_IO] = MEM_LEVEL_IO,
		[PERF_MEM_LVLNUM_ANY_CACHE] = MEM_LEVEL_ANY_CACHE,
		[PERF_MEM_LVLNUM_LFB] = MEM_LEVEL_LFB, [PERF_MEM_LVLNUM_RAM] = MEM_LEVEL_RAM,
		[PERF_MEM_LVLNUM_PMEM] = MEM_LEVEL_PMEM, [PERF_MEM_LVLNUM_NA] = MEM_LEVEL_NA,
	};

	for (uint64_t v = 1; v < 16; v++) {
		struct data_src d;
		uint64_t raw = decode_alone("lvl_num", v, &d);

		CHECK(d.level == want[v], "lvl_num 0x%" PRIx64 ": level %s, want %s", v,
		      mem_level_name(d.level), mem_level_name(want[v]));
		check_rest_na(&d, "lvl_num", raw);
	}
	/* the number wins over the bitmask when it says something */
	{
		struct data_src d;

		data_src_decode(put("lvl", PERF_MEM_LVL_REM_CCE1 | PERF_MEM_LVL_HIT) |
				put("lvl_num", PERF_MEM_LVLNUM_L3), &d);
		CHECK_EQ_U64(d.level, MEM_LEVEL_L3, "lvl_num over lvl");
		data_src_decode(put("lvl", PERF_MEM_LVL_L2 | PERF_MEM_LVL_HIT) |
				put("lvl_num", PERF_MEM_LVLNUM_NA), &d);
		CHECK_EQ_U64(d.level, MEM_LEVEL_L2, "lvl when lvl_num is n/a");
	}
}

static void test_remote_hops(void)
{
	struct data_src d;

	decode_alone("remote", 1, &d);
	CHECK(d.remote, "remote bit alone");
	for (uint64_t v = 1; v < 8; v++) {
		uint64_t raw = decode_alone("hops", v, &d);

		CHECK_EQ_U64(d.hops, v <= PERF_MEM_HOPS_3 ? v : 0, "hops");
		check_rest_na(&d, "hops", raw);
		/* with the remote bit: HOPS_0 is another core of this node */
		data_src_decode(raw | put("remote", 1), &d);
		CHECK(d.remote == (v != PERF_MEM_HOPS_0),
		      "remote with hops %" PRIu64 ": %d", v, d.remote);
	}
}

static void test_snoopx(void)
{
	for (uint64_t v = 1; v < 4; v++) {
		struct data_src d;
		uint64_t raw = decode_alone("snoopx", v, &d);

		CHECK_EQ_U64(d.fwd, !!(v & PERF_MEM_SNOOPX_FWD), "fwd");
		CHECK_EQ_U64(d.peer, !!(v & PERF_MEM_SNOOPX_PEER), "peer");
		CHECK_EQ_U64(data_src_coherence(raw),
			     v & PERF_MEM_SNOOPX_PEER ? COHERENCE_PEER : COHERENCE_NONE, "peer coherence");
		check_rest_na(&d, "snoopx", raw);
	}
}

static void test_blk(void)
{
	for (uint64_t v = 1; v < 8; v++) {
		struct data_src d;
		uint64_t raw = decode_alone("blk", v, &d);

		CHECK_EQ_U64(!!(d.blk & DS_BLK_DATA), !!(v & PERF_MEM_BLK_DATA), "blk data");
		CHECK_EQ_U64(!!(d.blk & DS_BLK_ADDR), !!(v & PERF_MEM_BLK_ADDR), "blk addr");
		check_rest_na(&d, "blk", raw);
	}
}

#define S(a, s) PERF_MEM_S(a, s)

/* What the kernel's PMU drivers put in data_src for the accesses that matter. */
static void test_real_encodings(void)
{
	char text[256];
	struct data_src d;
	/* Intel Skylake load latency: L3 hit, snoop HITM, DTLB L1 hit */
	uint64_t skx_lcl = S(OP, LOAD) | S(LVL, L3) | S(LVL, HIT) | S(SNOOP, HITM) |
			   S(TLB, L1) | S(TLB, HIT) | S(LOCK, NA);
	/* ... remote cache, 1 hop */
	uint64_t skx_rmt = S(OP, LOAD) | S(LVL, REM_CCE1) | S(LVL, HIT) | S(SNOOP, HITM);
	/* Skylake reporting an unknown remote level through the remote bit */
	uint64_t skx_rmt_bit = S(OP, LOAD) | S(LVL, MISS) | S(REMOTE, REMOTE) | S(SNOOP, HITM);
	/* Sapphire Rapids: both encodings, remote L3 */
	uint64_t spr_rmt = S(OP, LOAD) | S(LVL, REM_CCE1) | S(LVL, HIT) | S(LVLNUM, L3) |
			   S(REMOTE, REMOTE) | S(SNOOP, HITM);
	/* AMD Zen 3 IBS: "L3 or another core of this CCX", modified */
	uint64_t zen3_lcl = S(OP, LOAD) | S(LVL, L3) | S(LVL, REM_CCE1) | S(LVL, HIT) |
			    S(SNOOP, HITM) | S(LOCK, LOCKED);
	/* AMD Zen 4 IBS: a peer cache in another CCX */
	uint64_t zen4_far = S(OP, LOAD) | S(LVL, REM_CCE2) | S(LVL, HIT) | S(SNOOP, HITM);
	/* Arm SPE (Neoverse): from a peer core's L2, not modified */
	uint64_t spe_peer = S(OP, LOAD) | S(LVL, L2) | S(LVL, HIT) | S(LVLNUM, L2) |
			    S(SNOOPX, PEER);
	/* POWER: another core of the same node */
	uint64_t power_near = S(OP, LOAD) | S(LVLNUM, L2) | S(REMOTE, REMOTE) | S(HOPS, 0) |
			      S(SNOOP, HITM);
	/* Intel precise store: L1 miss, no snoop information */
	uint64_t store = S(OP, STORE) | S(LVL, L1) | S(LVL, MISS) | S(SNOOP, NA) | S(TLB, NA);

	CHECK_EQ_U64(data_src_coherence(skx_lcl), COHERENCE_HITM_LOCAL, "skx local HITM");
	CHECK_EQ_U64(data_src_coherence(skx_rmt), COHERENCE_HITM_REMOTE, "skx remote HITM");
	CHECK_EQ_U64(data_src_coherence(skx_rmt_bit), COHERENCE_HITM_REMOTE, "skx remote bit");
	CHECK_EQ_U64(data_src_coherence(spr_rmt), COHERENCE_HITM_REMOTE, "spr remote HITM");
	CHECK_EQ_U64(data_src_coherence(zen3_lcl), COHERENCE_HITM_LOCAL, "zen3 CCX HITM");
	CHECK_EQ_U64(data_src_coherence(zen4_far), COHERENCE_HITM_REMOTE, "zen4 far CCX");
	CHECK_EQ_U64(data_src_coherence(spe_peer), COHERENCE_PEER, "spe peer");
	CHECK_EQ_U64(data_src_coherence(power_near), COHERENCE_HITM_LOCAL, "power same node");
	CHECK_EQ_U64(data_src_coherence(store), COHERENCE_NONE, "store");

	data_src_decode(spr_rmt, &d);
	CHECK(d.op == DS_OP_LOAD && d.level == MEM_LEVEL_L3 && d.hit == MEM_HIT && d.remote,
	      "spr: op %u level %s hit %u remote %d", d.op, mem_level_name(d.level), d.hit, d.remote);
	data_src_decode(zen3_lcl, &d);
	CHECK(d.level == MEM_LEVEL_L3 && !d.remote && d.lock == MEM_LOCKED,
	      "zen3: level %s remote %d lock %u", mem_level_name(d.level), d.remote, d.lock);
	data_src_decode(store, &d);
	CHECK(d.op == DS_OP_STORE && d.level == MEM_LEVEL_L1 && d.hit == MEM_MISS &&
	      d.snoop == 0 && d.tlb == 0, "store: op %u level %u hit %u", d.op, d.level, d.hit);

	data_src_describe(skx_lcl, text, sizeof(text));
	CHECK_STR(text, "load, L3 hit, snoop HITM, TLB hit|L1", "describe skx local HITM");
	data_src_describe(spr_rmt, text, sizeof(text));
	CHECK_STR(text, "load, L3 hit (remote), snoop HITM", "describe spr remote HITM");
	data_src_describe(zen3_lcl, text, sizeof(text));
	CHECK_STR(text, "load, L3 hit, snoop HITM, locked", "describe zen3");
	data_src_describe(spe_peer, text, sizeof(text));
	CHECK_STR(text, "load, L2 hit, peer", "describe spe peer");
	data_src_describe(0, text, sizeof(text));
	CHECK_STR(text, "no data source", "describe 0");
	CHECK_EQ_U64(data_src_coherence(0), COHERENCE_NONE, "no data source");
}

int main(void)
{
	test_op();
	test_lvl();
	test_snoop();
	test_lock();
	test_dtlb();
	test_lvl_num();
	test_remote_hops();
	test_snoopx();
	test_blk();
	test_real_encodings();
	return test_done();
}
