/* test_decode.c - the x86-64 decoder on hand-assembled instructions.
 *
 * Bytes come from GNU as (Intel syntax); the comment beside each is what
 * objdump prints for them.  Several cases pin down Capstone 4.0.2 access
 * flags that decode_x86.c has to correct (test, setcc, rol, cmpxchg,
 * vector stores, x87 stores).
 */
#include <asm/perf_regs.h>
#include <stdbool.h>

#include "tap.h"
#include "symbolize/decode.h"
#include "detector/sample.h"

#define IP 0x401000ULL

#define AX  0x601000ULL
#define BX  0x10ULL
#define CX  3ULL
#define DX  0x602000ULL
#define SI  0x603000ULL
#define DI  0x7f0000001000ULL
#define BP  0x7ffd00001000ULL
#define SP  0x7ffd00000f00ULL
#define R12 5ULL
#define R13 0x605000ULL

/* Every general register but r8, which "was not sampled". */
static struct regs sampled_regs(void)
{
	struct regs r = { .mask = 0 };
	static const struct { int perf; uint64_t val; } set[] = {
		{ PERF_REG_X86_AX, AX }, { PERF_REG_X86_BX, BX },
		{ PERF_REG_X86_CX, CX }, { PERF_REG_X86_DX, DX },
		{ PERF_REG_X86_SI, SI }, { PERF_REG_X86_DI, DI },
		{ PERF_REG_X86_BP, BP }, { PERF_REG_X86_SP, SP },
		{ PERF_REG_X86_IP, IP }, { PERF_REG_X86_R9, 9 },
		{ PERF_REG_X86_R10, 10 }, { PERF_REG_X86_R11, 11 },
		{ PERF_REG_X86_R12, R12 }, { PERF_REG_X86_R13, R13 },
		{ PERF_REG_X86_R14, 14 }, { PERF_REG_X86_R15, 15 },
	};

	for (size_t i = 0; i < sizeof(set) / sizeof(set[0]); i++) {
		r.val[set[i].perf] = set[i].val;
		r.mask |= 1ULL << set[i].perf;
	}
	return r;
}

#define CODE(...) { __VA_ARGS__ }, sizeof((uint8_t[]){ __VA_ARGS__ })

enum { BEFORE = 0, AFTER = 1 };

struct access_case {
	const char *what;
	uint8_t code[DECODE_MAX_INSN];
	size_t len;
	bool after;
	enum decode_status status;
	uint64_t addr;      /* checked only for DECODE_OK */
	uint8_t size;
	uint8_t kind;
};

static const struct access_case access_cases[] = {
	/* addressing forms */
	{ "mov rax,[rdi+0x20]", CODE(0x48, 0x8b, 0x47, 0x20), BEFORE,
	  DECODE_OK, DI + 0x20, 8, ACCESS_LOAD },
	{ "mov [rdi+0x10],rax", CODE(0x48, 0x89, 0x47, 0x10), BEFORE,
	  DECODE_OK, DI + 0x10, 8, ACCESS_STORE },
	{ "mov rax,[rdi+rcx*8+0x40]", CODE(0x48, 0x8b, 0x44, 0xcf, 0x40), BEFORE,
	  DECODE_OK, DI + CX * 8 + 0x40, 8, ACCESS_LOAD },
	{ "mov rax,[rcx*4+0x1000]", CODE(0x48, 0x8b, 0x04, 0x8d, 0x00, 0x10, 0x00, 0x00), BEFORE,
	  DECODE_OK, CX * 4 + 0x1000, 8, ACCESS_LOAD },
	{ "mov rax,[rip+0x100]", CODE(0x48, 0x8b, 0x05, 0x00, 0x01, 0x00, 0x00), BEFORE,
	  DECODE_OK, IP + 7 + 0x100, 8, ACCESS_LOAD },
	{ "mov [rip+0x200],eax", CODE(0x89, 0x05, 0x00, 0x02, 0x00, 0x00), BEFORE,
	  DECODE_OK, IP + 6 + 0x200, 4, ACCESS_STORE },
	{ "mov rax,[0x1000]", CODE(0x48, 0x8b, 0x04, 0x25, 0x00, 0x10, 0x00, 0x00), BEFORE,
	  DECODE_OK, 0x1000, 8, ACCESS_LOAD },
	{ "mov rax,[rbp-8]", CODE(0x48, 0x8b, 0x45, 0xf8), BEFORE,
	  DECODE_OK, BP - 8, 8, ACCESS_LOAD },
	{ "mov rax,[r13+r12*8]", CODE(0x4b, 0x8b, 0x44, 0xe5, 0x00), BEFORE,
	  DECODE_OK, R13 + R12 * 8, 8, ACCESS_LOAD },
	{ "add rcx,[rdx+rcx*8]", CODE(0x48, 0x03, 0x0c, 0xca), BEFORE,
	  DECODE_OK, DX + CX * 8, 8, ACCESS_LOAD },

	/* kinds */
	{ "lock add qword [rdi],1", CODE(0xf0, 0x48, 0x83, 0x07, 0x01), BEFORE,
	  DECODE_OK, DI, 8, ACCESS_ATOMIC },
	{ "lock xadd [rdi],rax", CODE(0xf0, 0x48, 0x0f, 0xc1, 0x07), BEFORE,
	  DECODE_OK, DI, 8, ACCESS_ATOMIC },
	{ "xchg [rdi],rax", CODE(0x48, 0x87, 0x07), BEFORE,
	  DECODE_OK, DI, 8, ACCESS_ATOMIC },
	{ "lock cmpxchg [rdi],rcx", CODE(0xf0, 0x48, 0x0f, 0xb1, 0x0f), BEFORE,
	  DECODE_OK, DI, 8, ACCESS_ATOMIC },
	{ "cmpxchg [rdi],rcx", CODE(0x48, 0x0f, 0xb1, 0x0f), BEFORE,
	  DECODE_OK, DI, 8, ACCESS_RMW },
	{ "f0 f3 add qword [rdi],1", CODE(0xf0, 0xf3, 0x48, 0x83, 0x07, 0x01), BEFORE,
	  DECODE_OK, DI, 8, ACCESS_ATOMIC },
	{ "add [rdi],rax", CODE(0x48, 0x01, 0x07), BEFORE,
	  DECODE_OK, DI, 8, ACCESS_RMW },
	{ "inc qword [rdi]", CODE(0x48, 0xff, 0x07), BEFORE,
	  DECODE_OK, DI, 8, ACCESS_RMW },
	{ "rol qword [rdi],3", CODE(0x48, 0xc1, 0x07, 0x03), BEFORE,
	  DECODE_OK, DI, 8, ACCESS_RMW },
	{ "cmp [rdi],rax", CODE(0x48, 0x39, 0x07), BEFORE,
	  DECODE_OK, DI, 8, ACCESS_LOAD },
	{ "test dword [rdi],1", CODE(0xf7, 0x07, 0x01, 0x00, 0x00, 0x00), BEFORE,
	  DECODE_OK, DI, 4, ACCESS_LOAD },
	{ "seta byte [rdi]", CODE(0x0f, 0x97, 0x07), BEFORE,
	  DECODE_OK, DI, 1, ACCESS_STORE },
	{ "fstp qword [rdi]", CODE(0xdd, 0x1f), BEFORE,
	  DECODE_OK, DI, 8, ACCESS_STORE },
	{ "push qword [rdi]", CODE(0xff, 0x37), BEFORE,
	  DECODE_OK, DI, 8, ACCESS_LOAD },

	/* sizes */
	{ "movss xmm0,[rdi]", CODE(0xf3, 0x0f, 0x10, 0x07), BEFORE,
	  DECODE_OK, DI, 4, ACCESS_LOAD },
	{ "movsd xmm0,[rdi]", CODE(0xf2, 0x0f, 0x10, 0x07), BEFORE,
	  DECODE_OK, DI, 8, ACCESS_LOAD },
	{ "movaps xmm0,[rdi]", CODE(0x0f, 0x28, 0x07), BEFORE,
	  DECODE_OK, DI, 16, ACCESS_LOAD },
	{ "movups [rdi],xmm1", CODE(0x0f, 0x11, 0x0f), BEFORE,
	  DECODE_OK, DI, 16, ACCESS_STORE },
	{ "vmovdqu [rdi],ymm0", CODE(0xc5, 0xfe, 0x7f, 0x07), BEFORE,
	  DECODE_OK, DI, 32, ACCESS_STORE },
	/* p6_nested's vectorized rx.packets++, rx.bytes += n: one 16-byte
	 * load and one 16-byte store (watch.h: two watched words each) */
	{ "movdqu xmm3,[rdx+0x10]", CODE(0xf3, 0x0f, 0x6f, 0x5a, 0x10), BEFORE,
	  DECODE_OK, DX + 0x10, 16, ACCESS_LOAD },
	{ "movups [rdx+0x10],xmm0", CODE(0x0f, 0x11, 0x42, 0x10), BEFORE,
	  DECODE_OK, DX + 0x10, 16, ACCESS_STORE },
	/* p2_class_array's counts[tid] += v: one RMW (report.h: one write) */
	{ "add [rax+rdx*8+0x10],rsi", CODE(0x48, 0x01, 0x74, 0xd0, 0x10), BEFORE,
	  DECODE_OK, AX + DX * 8 + 0x10, 8, ACCESS_RMW },
	{ "movzx eax,byte [rsi+rcx]", CODE(0x0f, 0xb6, 0x04, 0x0e), BEFORE,
	  DECODE_OK, SI + CX, 1, ACCESS_LOAD },
	{ "mov eax,[rdi]", CODE(0x8b, 0x07), BEFORE,
	  DECODE_OK, DI, 4, ACCESS_LOAD },

	/* string instructions: registers still point at the element */
	{ "rep stosq", CODE(0xf3, 0x48, 0xab), BEFORE,
	  DECODE_OK, DI, 8, ACCESS_STORE },
	{ "rep stosq, after", CODE(0xf3, 0x48, 0xab), AFTER,
	  DECODE_CLOBBERED },
	{ "repne scasb", CODE(0xf2, 0xae), BEFORE,
	  DECODE_OK, DI, 1, ACCESS_LOAD },
	{ "movsb", CODE(0xa4), BEFORE,
	  DECODE_OK, DI, 1, ACCESS_STORE },

	/* the base or index register after the instruction retired */
	{ "mov rax,[rax]", CODE(0x48, 0x8b, 0x00), BEFORE,
	  DECODE_OK, AX, 8, ACCESS_LOAD },
	{ "mov rax,[rax], after", CODE(0x48, 0x8b, 0x00), AFTER,
	  DECODE_CLOBBERED },
	{ "mov rax,[rdi+0x20], after", CODE(0x48, 0x8b, 0x47, 0x20), AFTER,
	  DECODE_OK, DI + 0x20, 8, ACCESS_LOAD },
	{ "add rcx,[rdx+rcx*8], after", CODE(0x48, 0x03, 0x0c, 0xca), AFTER,
	  DECODE_CLOBBERED },
	{ "add rax,[rax+rbx*8], after", CODE(0x48, 0x03, 0x04, 0xd8), AFTER,
	  DECODE_CLOBBERED },
	{ "movzx eax,byte [rax], after", CODE(0x0f, 0xb6, 0x00), AFTER,
	  DECODE_CLOBBERED },
	{ "lock cmpxchg [rax],rcx, after", CODE(0xf0, 0x48, 0x0f, 0xb1, 0x08), AFTER,
	  DECODE_CLOBBERED },
	{ "mov rdi,[rdi+rax], after", CODE(0x48, 0x8b, 0x3c, 0x07), AFTER,
	  DECODE_CLOBBERED },

	/* refused */
	{ "push rax", CODE(0x50), BEFORE, DECODE_STACK },
	{ "pop rax", CODE(0x58), AFTER, DECODE_STACK },
	{ "mov rax,[rsp+8]", CODE(0x48, 0x8b, 0x44, 0x24, 0x08), BEFORE, DECODE_STACK },
	{ "lock or dword [rsp],0", CODE(0xf0, 0x83, 0x0c, 0x24, 0x00), BEFORE, DECODE_STACK },
	{ "call [rax+8]", CODE(0xff, 0x50, 0x08), BEFORE, DECODE_STACK },
	{ "lea rax,[rdi+8]", CODE(0x48, 0x8d, 0x47, 0x08), BEFORE, DECODE_NOT_ACCESS },
	{ "nop dword [rax]", CODE(0x0f, 0x1f, 0x00), BEFORE, DECODE_NOT_ACCESS },
	{ "prefetcht0 [rdi]", CODE(0x0f, 0x18, 0x0f), BEFORE, DECODE_NOT_ACCESS },
	{ "mov rax,fs:[0x28]", CODE(0x64, 0x48, 0x8b, 0x04, 0x25, 0x28, 0x00, 0x00, 0x00),
	  BEFORE, DECODE_SEGMENT },
	{ "add rax,rbx", CODE(0x48, 0x01, 0xd8), BEFORE, DECODE_NO_MEMORY },
	{ "mov rax,[r8]", CODE(0x49, 0x8b, 0x00), BEFORE, DECODE_NO_REGS },
	{ "vpgatherdd ymm0,[rdi+ymm1*4],ymm2", CODE(0xc4, 0xe2, 0x6d, 0x90, 0x04, 0x8f),
	  BEFORE, DECODE_UNSUPPORTED },
	{ "(bad) 06", CODE(0x06), BEFORE, DECODE_INVALID },
	{ "truncated mov", CODE(0x48, 0x8b), BEFORE, DECODE_INVALID },
};

static void test_access_cases(struct decoder *d)
{
	struct regs regs = sampled_regs();

	for (size_t i = 0; i < sizeof(access_cases) / sizeof(access_cases[0]); i++) {
		const struct access_case *c = &access_cases[i];
		struct decoded_access a = { 0 };
		enum decode_status st;

		st = decoder_access(d, c->code, c->len, IP, &regs, c->after, &a);
		CHECK(st == c->status, "%s: status \"%s\", want \"%s\"", c->what,
		      decode_status_name(st), decode_status_name(c->status));
		if (st != DECODE_OK || c->status != DECODE_OK)
			continue;
		CHECK(a.addr == c->addr, "%s: addr 0x%" PRIx64 ", want 0x%" PRIx64,
		      c->what, a.addr, c->addr);
		CHECK(a.size == c->size, "%s: size %u, want %u", c->what, a.size, c->size);
		CHECK(a.kind == c->kind, "%s: kind %s, want %s", c->what,
		      access_kind_name(a.kind), access_kind_name(c->kind));
	}
}

static void check_base(struct decoder *d, const char *what, const uint8_t *code,
		       size_t len, int base_reg, int64_t base_off)
{
	struct regs regs = sampled_regs();
	struct decoded_access a = { 0 };

	CHECK(decoder_access(d, code, len, IP, &regs, false, &a) == DECODE_OK, "%s", what);
	CHECK(a.base_reg == base_reg, "%s: base_reg %d, want %d", what, a.base_reg, base_reg);
	CHECK(a.base_off == base_off, "%s: base_off %" PRId64 ", want %" PRId64,
	      what, a.base_off, base_off);
}

static void test_base_register(struct decoder *d)
{
	static const uint8_t rdi_20[] = { 0x48, 0x8b, 0x47, 0x20 };
	static const uint8_t rbp_m8[] = { 0x48, 0x8b, 0x45, 0xf8 };
	static const uint8_t r13_r12[] = { 0x4b, 0x8b, 0x44, 0xe5, 0x00 };
	static const uint8_t rip_100[] = { 0x48, 0x8b, 0x05, 0x00, 0x01, 0x00, 0x00 };
	static const uint8_t abs_cx4[] = { 0x48, 0x8b, 0x04, 0x8d, 0x00, 0x10, 0x00, 0x00 };
	static const uint8_t rdx_rcx8[] = { 0x48, 0x03, 0x0c, 0xca };

	check_base(d, "[rdi+0x20]", rdi_20, sizeof(rdi_20), 5, 0x20);
	check_base(d, "[rbp-8]", rbp_m8, sizeof(rbp_m8), 6, -8);
	check_base(d, "[r13+r12*8]", r13_r12, sizeof(r13_r12), 13, R12 * 8);
	check_base(d, "[rdx+rcx*8]", rdx_rcx8, sizeof(rdx_rcx8), 1, CX * 8);
	check_base(d, "[rip+0x100]", rip_100, sizeof(rip_100), -1, 0);
	check_base(d, "[rcx*4+0x1000]", abs_cx4, sizeof(abs_cx4), -1, 0);
}

/* With a 0x67 prefix the address is computed in 32 bits and wraps. */
static void test_address_size(struct decoder *d)
{
	static const uint8_t mov_edi4[] = { 0x67, 0x8b, 0x47, 0x04 };   /* mov eax,[edi+4] */
	struct regs regs = sampled_regs();
	struct decoded_access a = { 0 };

	regs.val[PERF_REG_X86_DI] = 0x7f00fffffffeULL;
	CHECK(decoder_access(d, mov_edi4, sizeof(mov_edi4), IP, &regs, false, &a) ==
	      DECODE_OK, "mov eax,[edi+4]");
	CHECK_EQ_U64(a.addr, 0x2, "[edi+4] wraps at 4 GiB");
	CHECK_EQ_U64(a.size, 4, "[edi+4] size");
	CHECK(a.base_reg == 5, "[edi+4] base_reg %d", a.base_reg);
	CHECK(a.base_off == 4, "[edi+4] base_off %" PRId64, a.base_off);
}

static void test_empty_input(struct decoder *d)
{
	struct regs regs = sampled_regs();
	struct decoded_access a;
	struct insn_info ii;
	static const uint8_t nop[] = { 0x90 };

	CHECK(decoder_access(d, nop, 0, IP, &regs, false, &a) == DECODE_INVALID,
	      "zero-length code");
	CHECK(!decoder_insn(d, nop, 0, IP, &ii), "zero-length code");
}

struct insn_case {
	const char *what;
	uint8_t code[DECODE_MAX_INSN];
	size_t len;
	bool falls_through, is_call, has_target;
	uint64_t target;
};

static const struct insn_case insn_cases[] = {
	{ "jmp rel32", CODE(0xe9, 0xfb, 0x00, 0x00, 0x00), false, false, true, IP + 5 + 0xfb },
	{ "je rel8", CODE(0x74, 0x0e), true, false, true, IP + 2 + 0x0e },
	{ "jne rel8 back", CODE(0x75, 0xde), true, false, true, IP + 2 - 0x22 },
	{ "call rel32", CODE(0xe8, 0xfb, 0x0f, 0x00, 0x00), true, true, true, IP + 5 + 0xffb },
	{ "loop rel8", CODE(0xe2, 0x10), true, false, true, IP + 2 + 0x10 },
	{ "ret", CODE(0xc3), false, false, false, 0 },
	{ "jmp rax", CODE(0xff, 0xe0), false, false, false, 0 },
	{ "call [rax+8]", CODE(0xff, 0x50, 0x08), true, true, false, 0 },
	{ "ud2", CODE(0x0f, 0x0b), false, false, false, 0 },
	{ "hlt", CODE(0xf4), false, false, false, 0 },
	{ "mov rax,[rdi+0x20]", CODE(0x48, 0x8b, 0x47, 0x20), true, false, false, 0 },
};

static void test_insn_cases(struct decoder *d)
{
	for (size_t i = 0; i < sizeof(insn_cases) / sizeof(insn_cases[0]); i++) {
		const struct insn_case *c = &insn_cases[i];
		struct insn_info ii = { 0 };

		if (!decoder_insn(d, c->code, c->len, IP, &ii)) {
			CHECK(0, "%s: does not decode", c->what);
			continue;
		}
		CHECK(ii.length == c->len, "%s: length %u, want %zu", c->what, ii.length, c->len);
		CHECK(ii.falls_through == c->falls_through, "%s: falls_through %d", c->what,
		      ii.falls_through);
		CHECK(ii.is_call == c->is_call, "%s: is_call %d", c->what, ii.is_call);
		CHECK(ii.has_target == c->has_target, "%s: has_target %d", c->what, ii.has_target);
		CHECK(ii.target == c->target, "%s: target 0x%" PRIx64 ", want 0x%" PRIx64,
		      c->what, ii.target, c->target);
	}
}

/* A decoder walking a function reads past the instruction: the length must
 * come from the first instruction only. */
static void test_insn_walk(struct decoder *d)
{
	static const uint8_t code[] = {
		0x48, 0x8b, 0x47, 0x20,         /* mov rax,[rdi+0x20] */
		0xf0, 0x48, 0x83, 0x07, 0x01,   /* lock add qword [rdi],1 */
		0xc3,                           /* ret */
	};
	static const uint8_t want[] = { 4, 5, 1 };
	struct insn_info ii;
	size_t off = 0;

	for (size_t i = 0; i < sizeof(want); i++) {
		CHECK(decoder_insn(d, code + off, sizeof(code) - off, IP + off, &ii),
		      "walk step %zu", i);
		CHECK_EQ_U64(ii.length, want[i], "walk length");
		off += ii.length;
	}
	CHECK_EQ_U64(off, sizeof(code), "walk covers the function");
	CHECK(!ii.falls_through, "walk ends on ret");
	CHECK(!decoder_insn(d, (const uint8_t[]){ 0x06 }, 1, IP, &ii), "(bad) 06");
}

/* DWARF numbers */
enum { D_RAX = 0, D_RDX = 1, D_RCX = 2, D_RBX = 3, D_RSI = 4, D_RDI = 5,
       D_RBP = 6, D_RSP = 7 };

struct flow_case {
	const char *what;
	uint8_t code[DECODE_MAX_INSN];
	size_t len;
	int reg;
	enum reg_flow_kind kind;
	int src_reg;                 /* FLOW_COPY, FLOW_ADD_REG */
	int64_t imm;                 /* FLOW_ADD_IMM */
	struct mem_ref mem;          /* FLOW_LOAD, FLOW_ADDRESS, FLOW_ADD_LOAD */
};

#define NO_MEM { -1, -1, 0, 0, false }

static const struct flow_case flow_cases[] = {
	{ "mov rdx,[rip+0x2f71]", CODE(0x48, 0x8b, 0x15, 0x71, 0x2f, 0x00, 0x00), D_RDX,
	  FLOW_LOAD, -1, 0, { -1, -1, 0, IP + 7 + 0x2f71, true } },
	{ "mov rdx,[rcx]", CODE(0x48, 0x8b, 0x11), D_RDX,
	  FLOW_LOAD, -1, 0, { D_RCX, -1, 1, 0, false } },
	{ "mov rdx,[rcx] for rcx", CODE(0x48, 0x8b, 0x11), D_RCX,
	  FLOW_NONE, -1, 0, NO_MEM },
	{ "add rdx,rsi", CODE(0x48, 0x01, 0xf2), D_RDX, FLOW_ADD_REG, D_RSI, 0, NO_MEM },
	{ "add rdx,rsi for rsi", CODE(0x48, 0x01, 0xf2), D_RSI, FLOW_NONE, -1, 0, NO_MEM },
	{ "lea rbp,[rbx+8]", CODE(0x48, 0x8d, 0x6b, 0x08), D_RBP,
	  FLOW_ADDRESS, -1, 0, { D_RBX, -1, 1, 8, false } },
	{ "add rbx,[rbp+0]", CODE(0x48, 0x03, 0x5d, 0x00), D_RBX,
	  FLOW_ADD_LOAD, -1, 0, { D_RBP, -1, 1, 0, false } },
	{ "add rax,0x10", CODE(0x48, 0x83, 0xc0, 0x10), D_RAX, FLOW_ADD_IMM, -1, 16, NO_MEM },
	{ "sub rax,0x10", CODE(0x48, 0x83, 0xe8, 0x10), D_RAX, FLOW_ADD_IMM, -1, -16, NO_MEM },
	{ "mov rbp,rdi", CODE(0x48, 0x89, 0xfd), D_RBP, FLOW_COPY, D_RDI, 0, NO_MEM },
	{ "mov eax,edx", CODE(0x89, 0xd0), D_RAX, FLOW_OTHER, -1, 0, NO_MEM },
	{ "mov edx,[rcx]", CODE(0x8b, 0x11), D_RDX, FLOW_OTHER, -1, 0, NO_MEM },
	{ "call: rax is clobbered", CODE(0xe8, 0xfb, 0x00, 0x00, 0x00), D_RAX,
	  FLOW_OTHER, -1, 0, NO_MEM },
	{ "call: rbx is kept", CODE(0xe8, 0xfb, 0x00, 0x00, 0x00), D_RBX,
	  FLOW_NONE, -1, 0, NO_MEM },
	{ "mov rax,[rax+rdx*8]", CODE(0x48, 0x8b, 0x04, 0xd0), D_RAX,
	  FLOW_LOAD, -1, 0, { D_RAX, D_RDX, 8, 0, false } },
	{ "mov rax,[rsp+0x10]", CODE(0x48, 0x8b, 0x44, 0x24, 0x10), D_RAX,
	  FLOW_LOAD, -1, 0, { D_RSP, -1, 1, 0x10, false } },
	{ "mov rax,[0x404040+rdx*8]", CODE(0x48, 0x8b, 0x04, 0xd5, 0x40, 0x40, 0x40, 0x00),
	  D_RAX, FLOW_LOAD, -1, 0, { -1, D_RDX, 8, 0x404040, true } },
	{ "mov rax,fs:0x28", CODE(0x64, 0x48, 0x8b, 0x04, 0x25, 0x28, 0x00, 0x00, 0x00),
	  D_RAX, FLOW_OTHER, -1, 0, NO_MEM },
	{ "cmovne rax,rbx", CODE(0x48, 0x0f, 0x45, 0xc3), D_RAX, FLOW_OTHER, -1, 0, NO_MEM },
	{ "addq [rdx+0x10],1", CODE(0x48, 0x83, 0x42, 0x10, 0x01), D_RDX,
	  FLOW_NONE, -1, 0, NO_MEM },
};

static void test_reg_flow(struct decoder *d)
{
	struct reg_flow f;

	for (size_t i = 0; i < sizeof(flow_cases) / sizeof(flow_cases[0]); i++) {
		const struct flow_case *c = &flow_cases[i];

		if (!decoder_reg_flow(d, c->code, c->len, IP, c->reg, &f)) {
			CHECK(0, "%s: does not decode", c->what);
			continue;
		}
		CHECK(f.kind == c->kind, "%s: kind %d, want %d", c->what, f.kind, c->kind);
		if (f.kind != c->kind)
			continue;
		if (c->kind == FLOW_COPY || c->kind == FLOW_ADD_REG)
			CHECK(f.src_reg == c->src_reg, "%s: src %d", c->what, f.src_reg);
		if (c->kind == FLOW_ADD_IMM)
			CHECK(f.imm == c->imm, "%s: imm %" PRId64, c->what, f.imm);
		if (c->kind != FLOW_LOAD && c->kind != FLOW_ADDRESS && c->kind != FLOW_ADD_LOAD)
			continue;
		CHECK(f.mem.base_reg == c->mem.base_reg, "%s: base %d", c->what, f.mem.base_reg);
		CHECK(f.mem.index_reg == c->mem.index_reg, "%s: index %d", c->what,
		      f.mem.index_reg);
		if (c->mem.index_reg >= 0)
			CHECK(f.mem.scale == c->mem.scale, "%s: scale %u", c->what, f.mem.scale);
		CHECK(f.mem.disp == c->mem.disp, "%s: disp 0x%" PRIx64, c->what,
		      (uint64_t)f.mem.disp);
		CHECK(f.mem.absolute == c->mem.absolute, "%s: absolute %d", c->what,
		      f.mem.absolute);
	}
	CHECK(!decoder_reg_flow(d, (const uint8_t[]){ 0x06 }, 1, IP, D_RAX, &f), "(bad) 06");
}

/* Does a loaded value decide a branch (a check like the Klass cache's)? */
static const struct {
	const char *what;
	uint8_t code[40];
	size_t len;
	bool steers;
} steer_cases[] = {
	{ "mov rax,[rdi]; cmp rax,rsi; jne", CODE(0x48, 0x8b, 0x07, 0x48, 0x39, 0xf0, 0x75, 0x00),
	  true },
	{ "cmp qword [rdi],5; je", CODE(0x48, 0x83, 0x3f, 0x05, 0x74, 0x00), true },
	{ "mov eax,[rdi]; test eax,eax; je: eax is rax",
	  CODE(0x8b, 0x07, 0x85, 0xc0, 0x74, 0x00), true },
	{ "mov rax,[rdi]; mov rdx,rax; cmp rdx,rsi; jne: through a copy",
	  CODE(0x48, 0x8b, 0x07, 0x48, 0x89, 0xc2, 0x48, 0x39, 0xf2, 0x75, 0x00), true },
	{ "mov rax,[rdi]; cmp rcx,rdx; jae; cmp rax,rsi; jne: past another branch",
	  CODE(0x48, 0x8b, 0x07, 0x48, 0x39, 0xd1, 0x73, 0x00, 0x48, 0x39, 0xf0, 0x75, 0x00),
	  true },
	{ "mov rax,[rdi]; add rax,1; mov [rdi],rax; cmp rcx,rdx; jne: a counter",
	  CODE(0x48, 0x8b, 0x07, 0x48, 0x83, 0xc0, 0x01, 0x48, 0x89, 0x07, 0x48, 0x39, 0xd1,
	       0x75, 0x00), false },
	{ "mov rax,[rdi]; mov rax,rbx; cmp rax,rsi; jne: overwritten",
	  CODE(0x48, 0x8b, 0x07, 0x48, 0x89, 0xd8, 0x48, 0x39, 0xf0, 0x75, 0x00), false },
	{ "mov rax,[rdi]; call; test eax,eax; jne: a call ends it",
	  CODE(0x48, 0x8b, 0x07, 0xe8, 0x00, 0x00, 0x00, 0x00, 0x85, 0xc0, 0x75, 0x00), false },
	{ "mov rax,[rdi]; jmp; cmp rax,rsi; jne: not straight-line",
	  CODE(0x48, 0x8b, 0x07, 0xeb, 0x00, 0x48, 0x39, 0xf0, 0x75, 0x00), false },
	{ "mov rax,[rdi]; 8 multiplies and adds; cmp rax,rsi; jne: hoisted above work",
	  CODE(0x48, 0x8b, 0x07, 0x48, 0x0f, 0xaf, 0xc9, 0x48, 0x01, 0xd1, 0x48, 0x0f, 0xaf,
	       0xc9, 0x48, 0x01, 0xd1, 0x48, 0x0f, 0xaf, 0xc9, 0x48, 0x01, 0xd1, 0x48, 0x0f,
	       0xaf, 0xc9, 0x48, 0x01, 0xd1, 0x48, 0x39, 0xf0, 0x75, 0x00), true },
	{ "mov rax,[rdi]; then 17 nops, cmp rax,rsi; jne: past the window",
	  CODE(0x48, 0x8b, 0x07, 0x90, 0x90, 0x90, 0x90, 0x90, 0x90, 0x90, 0x90, 0x90,
	       0x90, 0x90, 0x90, 0x90, 0x90, 0x90, 0x90, 0x90, 0x48, 0x39, 0xf0, 0x75, 0x00),
	  false },
	{ "mov rax,[rdi]; cmp rax,rsi (no branch)", CODE(0x48, 0x8b, 0x07, 0x48, 0x39, 0xf0),
	  false },
};

static void test_value_steers_branch(struct decoder *d)
{
	for (size_t i = 0; i < sizeof(steer_cases) / sizeof(steer_cases[0]); i++)
		CHECK(decoder_value_steers_branch(d, steer_cases[i].code, steer_cases[i].len, IP) ==
		      steer_cases[i].steers, "%s: %s", steer_cases[i].what,
		      steer_cases[i].steers ? "steers" : "does not steer");
	CHECK(!decoder_value_steers_branch(d, (const uint8_t[]){ 0x06 }, 1, IP), "(bad) 06");
}

static void test_status_names(void)
{
	CHECK_STR(decode_status_name(DECODE_OK), "ok", "ok");
	CHECK_STR(decode_status_name(DECODE_NOT_ACCESS), "lea/nop/prefetch", "not access");
	CHECK_STR(decode_status_name(DECODE_CLOBBERED), "base register clobbered", "clobbered");
	CHECK_STR(decode_status_name(DECODE_NO_REGS), "register not sampled", "no regs");
	for (int s = 0; s < DECODE__COUNT; s++)
		CHECK(decode_status_name(s) && *decode_status_name(s), "status %d has a name", s);
	CHECK_STR(decode_status_name(DECODE__COUNT), "?", "out of range");
}

int main(void)
{
	struct decoder *d = decoder_new_for_machine(EM_X86_64);

	if (!d)
		return test_skip("Capstone cannot open x86-64");
	test_access_cases(d);
	test_base_register(d);
	test_address_size(d);
	test_empty_input(d);
	test_insn_cases(d);
	test_insn_walk(d);
	test_reg_flow(d);
	test_value_steers_branch(d);
	test_status_names();
	decoder_free(d);
	return test_done();
}
