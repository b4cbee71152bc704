/* test_decode_arm64.c - the AArch64 decoder on real cross-compiled code.
 *
 * The instruction words come from tests/arm64/fixtures.h, which
 * tests/arm64/regen.sh writes by compiling tests/arm64/{fixtures,lse,
 * simd}.c and testcases/false_sharing_counters.c with Debian's
 * aarch64-linux-gnu-gcc at -O2 (inline asm only for forms gcc does not
 * emit: say so in those files).  A case names the function and the text
 * objdump printed for the instruction, so a regenerated header that
 * moved things fails by name.  Each expected address is computed by hand
 * from that text and the register values below.
 */
#include <stdbool.h>

#include "tap.h"
#include "tests/arm64/fixtures.h"
#include "symbolize/decode.h"
#include "detector/sample.h"

#define IP 0x400000ULL
/* x0..x30: distinct, recognisable user addresses; sp a stack address */
#define X(n) (0x7f0000100000ULL + (uint64_t)(n) * 0x1000ULL)
#define SP 0x7ffd00000f00ULL

enum { BEFORE = 0, AFTER = 1 };

static const struct a64_insn *find(const char *func, const char *text)
{
	for (size_t i = 0; i < sizeof(a64_insns) / sizeof(a64_insns[0]); i++)
		if (!strcmp(a64_insns[i].func, func) && !strcmp(a64_insns[i].text, text))
			return &a64_insns[i];
	return NULL;
}

static void bytes_of(const struct a64_insn *in, uint8_t code[4])
{
	for (int i = 0; i < 4; i++)
		code[i] = (uint8_t)(in->word >> (8 * i));
}

struct set_reg { int reg; uint64_t val; };

struct access_case {
	const char *func, *text;
	bool after;
	enum decode_status status;
	uint64_t addr;           /* checked for DECODE_OK */
	uint8_t size;
	int kind;
	struct set_reg set[2];   /* overrides of X(n); reg 0 with val 0: none */
};

static struct regs regs_with(const struct set_reg *set)
{
	struct regs r = { .mask = 0 };

	for (int n = 0; n <= 30; n++)
		r.val[n] = X(n);
	r.val[31] = SP;
	r.val[32] = IP;
	r.mask = 0x1ffffffffULL;
	for (int i = 0; i < 2; i++)
		if (set[i].reg || set[i].val)
			r.val[set[i].reg] = set[i].val;
	return r;
}

#define L ACCESS_LOAD
#define S ACCESS_STORE
#define A ACCESS_ATOMIC
#define OK DECODE_OK

static const struct access_case cases[] = {
	/* every width, immediate offsets (fixtures.c) */
	{ "ld_x", "ldr\tx0, [x0, #24]", BEFORE, OK, X(0) + 24, 8, L },
	{ "ld_x", "ldr\tx0, [x0, #24]", AFTER, DECODE_CLOBBERED },
	{ "ld_w", "ldr\tw0, [x0, #20]", BEFORE, OK, X(0) + 20, 4, L },
	{ "ld_b", "ldrb\tw0, [x0, #7]", BEFORE, OK, X(0) + 7, 1, L },
	{ "ld_h", "ldrh\tw0, [x0, #18]", BEFORE, OK, X(0) + 18, 2, L },
	{ "ld_sb", "ldrsb\tx0, [x0, #11]", BEFORE, OK, X(0) + 11, 1, L },
	{ "ld_sh", "ldrsh\tx0, [x0, #26]", BEFORE, OK, X(0) + 26, 2, L },
	{ "ld_sw", "ldrsw\tx0, [x0, #60]", BEFORE, OK, X(0) + 60, 4, L },
	{ "ldur_x", "ldur\tx0, [x0, #-24]", BEFORE, OK, X(0) - 24, 8, L },
	{ "ldur_sw", "ldursw\tx0, [x0, #-4]", BEFORE, OK, X(0) - 4, 4, L },
	{ "st_x", "str\tx1, [x0, #16]", AFTER, OK, X(0) + 16, 8, S },
	{ "st_w", "str\tw1, [x0, #16]", AFTER, OK, X(0) + 16, 4, S },
	{ "st_b", "strb\tw1, [x0, #6]", AFTER, OK, X(0) + 6, 1, S },
	{ "st_h", "strh\tw1, [x0, #16]", AFTER, OK, X(0) + 16, 2, S },
	{ "stur_x", "stur\tx1, [x0, #-16]", AFTER, OK, X(0) - 16, 8, S },
	{ "stur_b", "sturb\tw1, [x0, #-1]", AFTER, OK, X(0) - 1, 1, S },
	{ "st_zero", "str\txzr, [x0, #8]", AFTER, OK, X(0) + 8, 8, S },
	{ "ld_d", "ldr\td0, [x0, #32]", AFTER, OK, X(0) + 32, 8, L },
	{ "ld_s", "ldr\ts0, [x0, #24]", AFTER, OK, X(0) + 24, 4, L },
	{ "st_d", "str\td0, [x0, #24]", AFTER, OK, X(0) + 24, 8, S },
	/* register offsets: lsl, sxtw of a negative w, uxtw of dirty high bits */
	{ "ld_idx_lsl", "ldr\tx0, [x0, x1, lsl #3]", BEFORE, OK, X(0) + 7 * 8, 8, L,
	  { { 1, 7 } } },
	{ "ld_idx_sxtw", "ldr\tw0, [x0, w1, sxtw #2]", BEFORE, OK, X(0) - 3 * 4, 4, L,
	  { { 1, 0x12345678fffffffdULL } } },
	{ "ld_idx_uxtw", "ldr\tx0, [x0, w1, uxtw #3]", BEFORE, OK, X(0) + 5 * 8, 8, L,
	  { { 1, 0xdeadbeef00000005ULL } } },
	{ "ld_idx_b", "ldrb\tw0, [x0, x1]", BEFORE, OK, X(0) + 0x33, 1, L, { { 1, 0x33 } } },
	{ "st_idx_h", "strh\tw2, [x0, x1, lsl #1]", AFTER, OK, X(0) + 9 * 2, 2, S,
	  { { 1, 9 } } },
	/* pairs */
	{ "ld_q_pair", "ldp\tx0, x1, [x0, #32]", BEFORE, OK, X(0) + 32, 16, L },
	{ "ld_pair", "ldp\tx1, x0, [x0, #32]", BEFORE, OK, X(0) + 32, 16, L },
	{ "ld_pair", "ldp\tx1, x0, [x0, #32]", AFTER, DECODE_CLOBBERED },
	{ "st_pair", "stp\tx1, x2, [x0, #48]", AFTER, OK, X(0) + 48, 16, S },
	{ "ld_pair_w", "ldp\tw1, w0, [x0, #8]", BEFORE, OK, X(0) + 8, 8, L },
	{ "st_pair_w", "stp\tw1, w2, [x0, #40]", AFTER, OK, X(0) + 40, 8, S },
	{ "ldnp_stnp", "ldnp\tx2, x3, [x1, #32]", AFTER, OK, X(1) + 32, 16, L },
	{ "ldnp_stnp", "stnp\tx2, x3, [x0, #-16]", AFTER, OK, X(0) - 16, 16, S },
	{ "ld_pre", "ldp\tx2, x0, [x1, #8]", AFTER, OK, X(1) + 8, 16, L },
	{ "walk", "ldp\tx1, x2, [x1]", AFTER, DECODE_CLOBBERED },
	{ "walk", "ldp\tx1, x2, [x1]", BEFORE, OK, X(1), 16, L },
	/* writeback: after the sample the base has moved; undone */
	{ "strsum", "ldrb\tw1, [x2], #1", AFTER, OK, X(2) - 1, 1, L },
	{ "strsum", "ldrb\tw1, [x2], #1", BEFORE, OK, X(2), 1, L },
	{ "fill", "str\tx2, [x0], #8", AFTER, OK, X(0) - 8, 8, S },
	{ "wb_asm", "ldr\tx1, [x0], #8", AFTER, OK, X(0) - 8, 8, L },
	{ "wb_asm", "str\tx1, [x0, #16]!", AFTER, OK, X(0), 8, S },
	{ "wb_asm", "str\tx1, [x0, #16]!", BEFORE, OK, X(0) + 16, 8, S },
	{ "wb_asm", "ldp\tx1, xzr, [x0, #-32]!", AFTER, OK, X(0), 16, L },
	{ "wb_asm", "stp\tx1, x1, [x0], #48", AFTER, OK, X(0) - 48, 16, S },
	/* the stack */
	{ "callee_saves", "stp\tx29, x30, [sp, #-32]!", AFTER, DECODE_STACK },
	{ "callee_saves", "ldp\tx29, x30, [sp], #32", AFTER, DECODE_STACK },
	{ "stack_slot", "str\tx0, [sp, #8]", AFTER, DECODE_STACK },
	{ "callee_saves", "ldr\tx20, [x0]", AFTER, OK, X(0), 8, L },
	{ "callee_saves", "str\tx20, [x19, #8]", AFTER, OK, X(19) + 8, 8, S },
	/* exclusives and acquire/release */
	{ "llsc_add", "ldaxr\tx0, [x1]", AFTER, OK, X(1), 8, A },
	{ "llsc_add", "stlxr\tw3, x2, [x1]", AFTER, OK, X(1), 8, A },
	{ "llsc_cas_w", "ldaxr\tw0, [x3]", AFTER, OK, X(3), 4, A },
	{ "llsc_cas_w", "stxr\tw4, w2, [x3]", AFTER, OK, X(3), 4, A },
	{ "llsc_xchg_b", "ldxrb\tw0, [x1]", AFTER, OK, X(1), 1, A },
	{ "llsc_xchg_b", "stxrb\tw3, w2, [x1]", AFTER, OK, X(1), 1, A },
	{ "llsc_or_h", "ldxrh\tw0, [x1]", AFTER, OK, X(1), 2, A },
	{ "llsc_or_h", "stlxrh\tw3, w2, [x1]", AFTER, OK, X(1), 2, A },
	{ "llsc_pair", "ldaxp\tx2, x3, [x1]", AFTER, OK, X(1), 16, A },
	{ "llsc_pair", "stlxp\tw0, x2, x3, [x1]", AFTER, OK, X(1), 16, A },
	{ "ld_acquire", "ldar\tx0, [x0]", BEFORE, OK, X(0), 8, L },
	{ "st_release", "stlr\tw1, [x0]", AFTER, OK, X(0), 4, S },
	{ "st_release_b", "stlrb\tw1, [x0]", AFTER, OK, X(0), 1, S },
	/* LSE atomics (lse.c, -march=armv8.1-a) */
	{ "lse_ldadd", "ldaddal\tx1, x0, [x0]", BEFORE, OK, X(0), 8, A },
	{ "lse_ldadd", "ldaddal\tx1, x0, [x0]", AFTER, DECODE_CLOBBERED },
	{ "lse_ldadd_w", "ldadd\tw1, w0, [x0]", BEFORE, OK, X(0), 4, A },
	{ "lse_ldaddb", "ldaddab\tw2, w0, [x0]", BEFORE, OK, X(0), 1, A },
	{ "lse_ldaddh", "ldaddlh\tw2, w0, [x0]", BEFORE, OK, X(0), 2, A },
	{ "lse_ldadd_unused", "ldadd\tx1, x1, [x0]", AFTER, OK, X(0), 8, A },
	{ "lse_stadd", "staddl\tx1, [x0]", AFTER, OK, X(0), 8, A },
	{ "lse_stsetb", "stsetb\tw1, [x0]", AFTER, OK, X(0), 1, A },
	{ "lse_ldset", "ldsetal\tx2, x0, [x0]", BEFORE, OK, X(0), 8, A },
	{ "lse_ldclr", "ldclral\tx2, x0, [x0]", BEFORE, OK, X(0), 8, A },
	{ "lse_ldeor", "ldeoral\tx2, x0, [x0]", BEFORE, OK, X(0), 8, A },
	{ "lse_swp", "swpal\tx1, x0, [x0]", BEFORE, OK, X(0), 8, A },
	{ "lse_swpb", "swpab\tw2, w0, [x0]", BEFORE, OK, X(0), 1, A },
	{ "lse_ldumax", "ldumaxal\tx1, x0, [x0]", BEFORE, OK, X(0), 8, A },
	{ "rcpc_ldapr", "ldapr\tx0, [x0]", BEFORE, OK, X(0), 8, L },
	{ "rcpc_ldapr", "ldapr\tx0, [x0]", AFTER, DECODE_CLOBBERED },
	{ "lse_cas", "casal\tx0, x2, [x3]", AFTER, OK, X(3), 8, A },
	{ "lse_cash", "cash\tw0, w2, [x3]", AFTER, OK, X(3), 2, A },
	{ "lse_casp", "caspal\tx0, x1, x4, x5, [x6]", AFTER, OK, X(6), 16, A },
	/* SIMD (simd.c) */
	{ "vec_add", "ldr\tq0, [x1, x3]", AFTER, OK, X(1) + 0x20, 16, L, { { 3, 0x20 } } },
	{ "vec_add", "ldr\tq1, [x2, x3]", AFTER, OK, X(2) + 0x20, 16, L, { { 3, 0x20 } } },
	{ "vec_add", "str\tq0, [x0, x3]", AFTER, OK, X(0) + 0x20, 16, S, { { 3, 0x20 } } },
	{ "ld_q", "ldr\tq0, [x0, #48]", AFTER, OK, X(0) + 48, 16, L },
	{ "st_q", "str\tq0, [x0, #16]", AFTER, OK, X(0) + 16, 16, S },
	{ "ld1_two", "ld1\t{v0.16b, v1.16b}, [x0]", AFTER, OK, X(0), 32, L },
	{ "st1_two", "st1\t{v0.16b, v1.16b}, [x0]", AFTER, OK, X(0), 32, S },
	{ "ld2_h", "ld2\t{v0.8h, v1.8h}, [x0]", AFTER, OK, X(0), 32, L },
	{ "ld1r_s", "ld1r\t{v0.4s}, [x0]", AFTER, OK, X(0), 4, L },
	{ "ld1_lane", "ld1\t{v0.s}[3], [x0]", AFTER, OK, X(0), 4, L },
	{ "st4_b", "st4\t{v0.8b-v3.8b}, [x0]", AFTER, OK, X(0), 32, S },
	{ "ld1_post", "ld1\t{v0.16b}, [x0], #16", AFTER, OK, X(0) - 16, 16, L },
	{ "ld1_post_reg", "ld1\t{v0.16b}, [x0], x1", AFTER, OK, X(0) - 0x30, 16, L,
	  { { 1, 0x30 } } },
	{ "prefetch", "prfm\tpldl1keep, [x0, #64]", AFTER, DECODE_NOT_ACCESS },
	/* the hot loop of testcases/false_sharing_counters.c (-O2 -g) */
	{ "increment", "str\tx3, [x1]", AFTER, OK, X(1), 8, S },
	{ "increment", "ldr\tx4, [x0]", AFTER, OK, X(0), 8, L },
	{ "increment", "str\tx4, [x0]", AFTER, OK, X(0), 8, S },
	{ "increment", "add\tx4, x4, #0x1", AFTER, DECODE_NO_MEMORY },
};

static void test_accesses(struct decoder *d)
{
	unsigned forms = 0;

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const struct access_case *c = &cases[i];
		const struct a64_insn *in = find(c->func, c->text);
		struct regs regs = regs_with(c->set);
		struct decoded_access a;
		enum decode_status st;
		uint8_t code[4];

		if (!in) {
			CHECK(0, "%s: no \"%s\" in fixtures.h (regenerated?)", c->func, c->text);
			continue;
		}
		bytes_of(in, code);
		memset(&a, 0, sizeof(a));
		st = decoder_access(d, code, 4, IP + in->off, &regs, c->after, &a);
		CHECK(st == c->status, "%s: %s (%s): status %s, want %s", c->func, c->text,
		      c->after ? "after" : "before", decode_status_name(st),
		      decode_status_name(c->status));
		if (st != DECODE_OK || c->status != DECODE_OK)
			continue;
		forms++;
		CHECK(a.addr == c->addr, "%s: %s: address 0x%" PRIx64 ", want 0x%" PRIx64,
		      c->func, c->text, a.addr, c->addr);
		CHECK(a.size == c->size, "%s: %s: size %u, want %u", c->func, c->text,
		      a.size, c->size);
		CHECK(a.kind == c->kind, "%s: %s: kind %s, want %s", c->func, c->text,
		      access_kind_name(a.kind), access_kind_name(c->kind));
	}
	CHECK(forms >= 40, "%u access forms decoded to an address", forms);
}

/* ldr x0, <literal>: the address is pc-relative, no register needed. */
static void test_literal(struct decoder *d)
{
	const struct a64_insn *in = find("literal", "ldr\tx0, d8 <literal+0x8>");
	struct regs none = { .mask = 0 };
	struct decoded_access a;
	uint8_t code[4];

	CHECK(in != NULL, "literal load in fixtures.h");
	if (!in)
		return;
	bytes_of(in, code);
	CHECK(decoder_access(d, code, 4, IP + in->off, &none, true, &a) == DECODE_OK,
	      "literal decodes without registers");
	CHECK_EQ_U64(a.addr, IP + in->off + 8, "literal: pc + 8");
	CHECK_EQ_U64(a.size, 8, "literal size");
}

static void test_missing_register(struct decoder *d)
{
	const struct a64_insn *in = find("st_x", "str\tx1, [x0, #16]");
	struct regs r = regs_with((struct set_reg[2]){ { 0, 0 } });
	struct decoded_access a;
	uint8_t code[4];

	if (!in)
		return;
	bytes_of(in, code);
	r.mask &= ~1ULL;
	CHECK(decoder_access(d, code, 4, IP, &r, true, &a) == DECODE_NO_REGS,
	      "x0 not sampled: no registers");
	CHECK(decoder_access(d, code, 3, IP, &r, true, &a) == DECODE_INVALID,
	      "three bytes are no instruction");
	CHECK(decoder_access(d, (const uint8_t[]){ 0, 0, 0, 0 }, 4, IP, &r, true, &a) ==
	      DECODE_INVALID, "udf #0");
}

/* Control flow: lengths, fall-through, calls and branch targets. */
static void test_insn(struct decoder *d)
{
	static const struct {
		const char *func, *text;
		bool falls, call, has_target;
		uint32_t target_off;     /* from the function start */
	} flow[] = {
		{ "increment", "ldr\tx4, [x0]", true, false, false, 0 },
		{ "increment", "b.ne\t10 <increment+0x10>", true, false, true, 0x10 },
		{ "increment", "b.le\t2c <increment+0x2c>", true, false, true, 0x2c },
		{ "increment", "ret", false, false, false, 0 },
		{ "literal", "b\te0 <literal+0x10>", false, false, true, 0x10 },
		{ "strsum", "cbz\tw1, 1fc <strsum+0x1c>", true, false, true, 0x1c },
		{ "callee_saves", "blr\tx1", true, true, false, 0 },
		{ "lse_cas", "casal\tx0, x2, [x3]", true, false, false, 0 },
	};
	uint8_t code[4];

	for (size_t i = 0; i < sizeof(flow) / sizeof(flow[0]); i++) {
		const struct a64_insn *in = find(flow[i].func, flow[i].text);
		struct insn_info ii;
		uint64_t start;

		if (!in) {
			CHECK(0, "no \"%s\" in %s", flow[i].text, flow[i].func);
			continue;
		}
		start = IP + 0x1000;
		bytes_of(in, code);
		CHECK(decoder_insn(d, code, 4, start + in->off, &ii), "%s decodes", flow[i].text);
		CHECK_EQ_U64(ii.length, 4, flow[i].text);
		CHECK(ii.falls_through == flow[i].falls, "%s: falls through %d", flow[i].text,
		      ii.falls_through);
		CHECK(ii.is_call == flow[i].call, "%s: call %d", flow[i].text, ii.is_call);
		CHECK(ii.has_target == flow[i].has_target, "%s: target %d", flow[i].text,
		      ii.has_target);
		if (flow[i].has_target)
			CHECK_EQ_U64(ii.target, start + flow[i].target_off, flow[i].text);
	}
	CHECK(!decoder_insn(d, (const uint8_t[]){ 0, 0, 0, 0 }, 4, IP, &(struct insn_info){ 0 }),
	      "udf #0 is no instruction");
}

/* The operand as written, for store streams. */
static void test_memory(struct decoder *d)
{
	const struct a64_insn *st = find("increment", "str\tx4, [x0]");
	const struct a64_insn *sp = find("stack_slot", "str\tx0, [sp, #8]");
	const struct a64_insn *ix = find("st_idx_h", "strh\tw2, [x0, x1, lsl #1]");
	const struct a64_insn *add = find("increment", "add\tx3, x3, #0x1");
	struct insn_mem m;
	uint8_t code[4];

	if (!st || !sp || !ix || !add) {
		CHECK(0, "memory fixtures missing");
		return;
	}
	bytes_of(st, code);
	CHECK(decoder_memory(d, code, 4, IP, &m) && m.access && m.writes && !m.stack &&
	      m.base == 0 && m.index == -1 && m.disp == 0 && m.size == 8, "str x4, [x0]");
	bytes_of(sp, code);
	CHECK(decoder_memory(d, code, 4, IP, &m) && m.access && m.stack && m.disp == 8,
	      "str x0, [sp, #8] is the stack");
	bytes_of(ix, code);
	CHECK(decoder_memory(d, code, 4, IP, &m) && m.writes && m.base == 0 && m.index == 1 &&
	      m.size == 2, "strh w2, [x0, x1, lsl #1]");
	bytes_of(add, code);
	CHECK(decoder_memory(d, code, 4, IP, &m) && !m.access, "add touches no memory");
}

/* How registers got their values, for pointer origins. */
static void test_reg_flow(struct decoder *d)
{
	static const struct {
		const char *func, *text;
		int reg;
		enum reg_flow_kind kind;
		int base, index;
		int64_t disp, imm;
		int src;
	} flows[] = {
		{ "callee_saves", "ldr\tx20, [x0]", 20, FLOW_LOAD, 0, -1, 0, 0, -1 },
		{ "callee_saves", "ldr\tx20, [x0]", 0, FLOW_NONE, -1, -1, 0, 0, -1 },
		{ "walk", "ldp\tx1, x2, [x1]", 1, FLOW_LOAD, 1, -1, 0, 0, -1 },
		{ "walk", "ldp\tx1, x2, [x1]", 2, FLOW_LOAD, 1, -1, 8, 0, -1 },
		{ "ld1_two", "add\tx0, x0, #0x10", 0, FLOW_ADD_IMM, -1, -1, 0, 16, -1 },
		{ "llsc_add", "mov\tx1, x0", 1, FLOW_COPY, -1, -1, 0, 0, 0 },
		{ "wb_asm", "ldr\tx1, [x0], #8", 0, FLOW_ADD_IMM, -1, -1, 0, 8, -1 },
		{ "wb_asm", "ldr\tx1, [x0], #8", 1, FLOW_LOAD, 0, -1, 0, 0, -1 },
		{ "ld_idx_lsl", "ldr\tx0, [x0, x1, lsl #3]", 0, FLOW_LOAD, 0, 1, 0, 0, -1 },
		{ "callee_saves", "blr\tx1", 0, FLOW_OTHER, -1, -1, 0, 0, -1 },
		{ "callee_saves", "blr\tx1", 19, FLOW_NONE, -1, -1, 0, 0, -1 },
		{ "lse_ldadd", "ldaddal\tx1, x0, [x0]", 0, FLOW_LOAD, 0, -1, 0, 0, -1 },
		{ "ld_w", "ldr\tw0, [x0, #20]", 0, FLOW_OTHER, -1, -1, 0, 0, -1 },
	};
	uint8_t code[4];

	for (size_t i = 0; i < sizeof(flows) / sizeof(flows[0]); i++) {
		const struct a64_insn *in = find(flows[i].func, flows[i].text);
		struct reg_flow f;

		if (!in) {
			CHECK(0, "no \"%s\" in %s", flows[i].text, flows[i].func);
			continue;
		}
		bytes_of(in, code);
		CHECK(decoder_reg_flow(d, code, 4, IP, flows[i].reg, &f), "%s", flows[i].text);
		CHECK(f.kind == flows[i].kind, "%s, x%d: kind %d, want %d", flows[i].text,
		      flows[i].reg, f.kind, flows[i].kind);
		if (f.kind == FLOW_LOAD) {
			CHECK(f.mem.base_reg == flows[i].base && f.mem.index_reg == flows[i].index &&
			      f.mem.disp == flows[i].disp, "%s, x%d: [x%d, x%d, #%" PRId64 "]",
			      flows[i].text, flows[i].reg, f.mem.base_reg, f.mem.index_reg,
			      f.mem.disp);
		}
		if (f.kind == FLOW_ADD_IMM)
			CHECK(f.imm == flows[i].imm, "%s: imm %" PRId64, flows[i].text, f.imm);
		if (f.kind == FLOW_COPY)
			CHECK(f.src_reg == flows[i].src, "%s: from x%d", flows[i].text, f.src_reg);
	}
}

/* ldr, cmp, b.cond; ldr, cbz; and a compare of other registers */
static void test_value_steers_branch(struct decoder *d)
{
	static const struct {
		const char *what;
		uint32_t insn[3];
		bool steers;
	} cases[] = {
		{ "ldr x0, [x1]; cmp x0, x2; b.ne", { 0xf9400020, 0xeb02001f, 0x54000001 }, true },
		{ "ldr w0, [x1]; cbz w0", { 0xb9400020, 0x34000000, 0xd503201f }, true },
		{ "ldr x0, [x1]; cmp x3, x2; b.ne", { 0xf9400020, 0xeb02007f, 0x54000001 }, false },
	};
	uint8_t code[12];

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		for (int k = 0; k < 3; k++)
			for (int b = 0; b < 4; b++)
				code[k * 4 + b] = (uint8_t)(cases[i].insn[k] >> (8 * b));
		CHECK(decoder_value_steers_branch(d, code, sizeof(code), IP) == cases[i].steers,
		      "%s: %s", cases[i].what, cases[i].steers ? "steers" : "does not steer");
	}
}

int main(void)
{
	struct decoder *d = decoder_new_for_machine(EM_AARCH64);

	CHECK(d != NULL, "AArch64 decoder opens");
	if (!d)
		return test_done();
	test_accesses(d);
	test_literal(d);
	test_missing_register(d);
	test_insn(d);
	test_memory(d);
	test_reg_flow(d);
	test_value_steers_branch(d);
	decoder_free(d);
	return test_done();
}
