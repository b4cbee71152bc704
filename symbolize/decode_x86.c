/* decode_x86.c - x86-64 decoding with Capstone, behind decode.h.
 *
 * One Capstone handle and one reusable cs_insn per decoder: this runs once
 * or twice per sample, so nothing is allocated per call.
 *
 * Capstone 4.0.2 gets the access flags of a memory operand wrong for a good
 * number of instructions: vector and extract stores come out as reads, test
 * with an immediate as read+write, rotates, setcc and cmpxchg as reads.
 * access_kind() corrects them; tests/test_decode.c pins the cases down.
 */
#include "symbolize/decode.h"

#include <stdlib.h>
#include <string.h>
#include <asm/perf_regs.h>
#include <capstone/capstone.h>

#include "common/access.h"
#include "common/util.h"
#include "symbolize/decode_arch.h"

static struct decoder *decoder_new_x86_64(void)
{
	return cs_decoder_new(&decode_arch_x86_64, CS_ARCH_X86, CS_MODE_64);
}

static const cs_insn *decode_one(struct decoder *d, const uint8_t *code,
				 size_t len, uint64_t ip)
{
	return cs_decoder_one(d, code, len, ip);
}

/* --- control flow ------------------------------------------------------ */

static bool ends_flow(unsigned int id)
{
	switch (id) {
	case X86_INS_JMP: case X86_INS_LJMP:
	case X86_INS_RET: case X86_INS_RETF: case X86_INS_RETFQ:
	case X86_INS_IRET: case X86_INS_IRETD: case X86_INS_IRETQ:
	case X86_INS_UD0: case X86_INS_UD2: case X86_INS_UD2B:
	case X86_INS_HLT: case X86_INS_INT3:
		return true;
	}
	return false;
}

static bool is_call(unsigned int id)
{
	return id == X86_INS_CALL || id == X86_INS_LCALL;
}

/* Capstone keeps one group-1 prefix: "f0 f3" (lock, rep) reads unlocked. */
static bool has_lock_prefix(const cs_insn *insn)
{
	for (int i = 0; i < insn->size; i++) {
		switch (insn->bytes[i]) {
		case 0xf0:
			return true;
		case 0xf2: case 0xf3: case 0x2e: case 0x36: case 0x3e:
		case 0x26: case 0x64: case 0x65: case 0x66: case 0x67:
			continue;
		}
		break;
	}
	return false;
}

/* mfence, or a locked RMW of the stack: the fence JITs and compilers put
 * after a volatile or seq_cst store ("lock addl $0,(%rsp)", HotSpot's). */
static bool is_fence(const cs_insn *insn)
{
	const cs_x86 *x86 = &insn->detail->x86;

	if (insn->id == X86_INS_MFENCE)
		return true;
	if (!has_lock_prefix(insn))
		return false;
	for (int i = 0; i < x86->op_count; i++)
		if (x86->operands[i].type == X86_OP_MEM &&
		    x86->operands[i].mem.base == X86_REG_RSP)
			return true;
	return false;
}

static bool x86_decode_insn(struct decoder *d, const uint8_t *code, size_t len,
		  uint64_t ip, struct insn_info *out)
{
	const cs_insn *insn = decode_one(d, code, len, ip);
	const cs_x86 *x86;

	if (!insn)
		return false;
	x86 = &insn->detail->x86;
	out->length = insn->size;
	out->falls_through = !ends_flow(insn->id);
	out->is_call = is_call(insn->id);
	out->is_fence = is_fence(insn);
	out->has_target = cs_insn_group(cs_handle(d), insn, X86_GRP_BRANCH_RELATIVE) &&
			  x86->op_count > 0 && x86->operands[0].type == X86_OP_IMM;
	out->target = out->has_target ? (uint64_t)x86->operands[0].imm : 0;
	return true;
}

/* --- registers --------------------------------------------------------- */

/* The perf register holding a general-purpose register or a part of it. */
static int perf_reg(unsigned int reg)
{
	switch (reg) {
	case X86_REG_AL: case X86_REG_AH: case X86_REG_AX: case X86_REG_EAX: case X86_REG_RAX:
		return PERF_REG_X86_AX;
	case X86_REG_BL: case X86_REG_BH: case X86_REG_BX: case X86_REG_EBX: case X86_REG_RBX:
		return PERF_REG_X86_BX;
	case X86_REG_CL: case X86_REG_CH: case X86_REG_CX: case X86_REG_ECX: case X86_REG_RCX:
		return PERF_REG_X86_CX;
	case X86_REG_DL: case X86_REG_DH: case X86_REG_DX: case X86_REG_EDX: case X86_REG_RDX:
		return PERF_REG_X86_DX;
	case X86_REG_SIL: case X86_REG_SI: case X86_REG_ESI: case X86_REG_RSI:
		return PERF_REG_X86_SI;
	case X86_REG_DIL: case X86_REG_DI: case X86_REG_EDI: case X86_REG_RDI:
		return PERF_REG_X86_DI;
	case X86_REG_BPL: case X86_REG_BP: case X86_REG_EBP: case X86_REG_RBP:
		return PERF_REG_X86_BP;
	case X86_REG_SPL: case X86_REG_SP: case X86_REG_ESP: case X86_REG_RSP:
		return PERF_REG_X86_SP;
	case X86_REG_IP: case X86_REG_EIP: case X86_REG_RIP:
		return PERF_REG_X86_IP;
	case X86_REG_R8B: case X86_REG_R8W: case X86_REG_R8D: case X86_REG_R8:
		return PERF_REG_X86_R8;
	case X86_REG_R9B: case X86_REG_R9W: case X86_REG_R9D: case X86_REG_R9:
		return PERF_REG_X86_R9;
	case X86_REG_R10B: case X86_REG_R10W: case X86_REG_R10D: case X86_REG_R10:
		return PERF_REG_X86_R10;
	case X86_REG_R11B: case X86_REG_R11W: case X86_REG_R11D: case X86_REG_R11:
		return PERF_REG_X86_R11;
	case X86_REG_R12B: case X86_REG_R12W: case X86_REG_R12D: case X86_REG_R12:
		return PERF_REG_X86_R12;
	case X86_REG_R13B: case X86_REG_R13W: case X86_REG_R13D: case X86_REG_R13:
		return PERF_REG_X86_R13;
	case X86_REG_R14B: case X86_REG_R14W: case X86_REG_R14D: case X86_REG_R14:
		return PERF_REG_X86_R14;
	case X86_REG_R15B: case X86_REG_R15W: case X86_REG_R15D: case X86_REG_R15:
		return PERF_REG_X86_R15;
	}
	return -1;
}

/* The x86-64 psABI's DWARF registers 0..16 (rip is 16) in perf's
 * numbering: the one x86 register table, for the decoder, the unwinder and
 * pointer tracing alike. */
static const uint8_t perf_reg_of_dwarf[] = {
	PERF_REG_X86_AX, PERF_REG_X86_DX, PERF_REG_X86_CX, PERF_REG_X86_BX,
	PERF_REG_X86_SI, PERF_REG_X86_DI, PERF_REG_X86_BP, PERF_REG_X86_SP,
	PERF_REG_X86_R8, PERF_REG_X86_R9, PERF_REG_X86_R10, PERF_REG_X86_R11,
	PERF_REG_X86_R12, PERF_REG_X86_R13, PERF_REG_X86_R14, PERF_REG_X86_R15,
	PERF_REG_X86_IP,
};
#define DWARF_GPRS 16            /* rip is no general-purpose register */

/* The user registers perf samples: AX..SS and R8..R15 (not DS..GS, which
 * are not sampled in 64-bit mode and the kernel rejects the mask if asked). */
#define X86_64_REGS_MASK 0xff0fffULL


/* DWARF x86-64 numbering of a general-purpose perf register, -1 for others. */
static int dwarf_reg(int perf)
{
	for (int dwarf = 0; dwarf < DWARF_GPRS; dwarf++)
		if (perf_reg_of_dwarf[dwarf] == perf)
			return dwarf;
	return -1;
}

static enum decode_status reg_value(const struct regs *regs, unsigned int reg,
				    uint64_t *val)
{
	int perf = perf_reg(reg);

	if (perf < 0)
		return DECODE_UNSUPPORTED;   /* vector index, segment base, ... */
	if (!(regs->mask & (1ULL << perf)))
		return DECODE_NO_REGS;
	*val = regs->val[perf];
	return DECODE_OK;
}

/* --- what the memory operand is --------------------------------------- */

/* Instructions that name memory without loading or storing it. */
static bool touches_no_memory(unsigned int id)
{
	switch (id) {
	case X86_INS_LEA:
	case X86_INS_NOP:
	case X86_INS_PREFETCH: case X86_INS_PREFETCHW:
	case X86_INS_PREFETCHNTA: case X86_INS_PREFETCHT0:
	case X86_INS_PREFETCHT1: case X86_INS_PREFETCHT2:
	case X86_INS_CLFLUSH: case X86_INS_CLFLUSHOPT: case X86_INS_CLWB:
	case X86_INS_ENDBR32: case X86_INS_ENDBR64:
		return true;
	}
	return false;
}

/* Vector-indexed: one instruction, many addresses. */
static bool is_gather_scatter(unsigned int id)
{
	switch (id) {
	case X86_INS_VGATHERDPD: case X86_INS_VGATHERDPS:
	case X86_INS_VGATHERQPD: case X86_INS_VGATHERQPS:
	case X86_INS_VPGATHERDD: case X86_INS_VPGATHERDQ:
	case X86_INS_VPGATHERQD: case X86_INS_VPGATHERQQ:
	case X86_INS_VSCATTERDPD: case X86_INS_VSCATTERDPS:
	case X86_INS_VSCATTERQPD: case X86_INS_VSCATTERQPS:
	case X86_INS_VPSCATTERDD: case X86_INS_VPSCATTERDQ:
	case X86_INS_VPSCATTERQD: case X86_INS_VPSCATTERQQ:
	case X86_INS_VGATHERPF0DPD: case X86_INS_VGATHERPF0DPS:
	case X86_INS_VGATHERPF0QPD: case X86_INS_VGATHERPF0QPS:
	case X86_INS_VGATHERPF1DPD: case X86_INS_VGATHERPF1DPS:
	case X86_INS_VGATHERPF1QPD: case X86_INS_VGATHERPF1QPS:
	case X86_INS_VSCATTERPF0DPD: case X86_INS_VSCATTERPF0DPS:
	case X86_INS_VSCATTERPF0QPD: case X86_INS_VSCATTERPF0QPS:
	case X86_INS_VSCATTERPF1DPD: case X86_INS_VSCATTERPF1DPS:
	case X86_INS_VSCATTERPF1QPD: case X86_INS_VSCATTERPF1QPS:
		return true;
	}
	return false;
}

/* Instructions whose memory access, without a memory operand, is the
 * implicit one on the stack. */
static bool uses_stack_implicitly(unsigned int id)
{
	switch (id) {
	case X86_INS_PUSH: case X86_INS_PUSHF: case X86_INS_PUSHFD: case X86_INS_PUSHFQ:
	case X86_INS_POP: case X86_INS_POPF: case X86_INS_POPFD: case X86_INS_POPFQ:
	case X86_INS_RET: case X86_INS_RETF: case X86_INS_RETFQ:
	case X86_INS_ENTER: case X86_INS_LEAVE:
		return true;
	}
	return false;
}

static bool is_stack_pointer(unsigned int reg)
{
	return reg == X86_REG_RSP || reg == X86_REG_ESP || reg == X86_REG_SP;
}

static const cs_x86_op *memory_operand(const cs_insn *insn)
{
	const cs_x86 *x86 = &insn->detail->x86;

	/* String moves and compares have two; the first is the one we report
	 * ([rdi] stored by movs, [rsi] loaded by cmps). */
	for (int i = 0; i < x86->op_count; i++)
		if (x86->operands[i].type == X86_OP_MEM)
			return &x86->operands[i];
	return NULL;
}

/* --- access kind ------------------------------------------------------- */

/* Capstone 4.0.2's access flags, corrected where they were measured wrong. */
static uint8_t fixed_access(unsigned int id)
{
	switch (id) {
	case X86_INS_CMP: case X86_INS_TEST: case X86_INS_BT:
	case X86_INS_CMPSB: case X86_INS_CMPSW: case X86_INS_CMPSD: case X86_INS_CMPSQ:
		return CS_AC_READ;
	case X86_INS_SETA: case X86_INS_SETAE: case X86_INS_SETB: case X86_INS_SETBE:
	case X86_INS_SETE: case X86_INS_SETNE: case X86_INS_SETG: case X86_INS_SETGE:
	case X86_INS_SETL: case X86_INS_SETLE: case X86_INS_SETO: case X86_INS_SETNO:
	case X86_INS_SETP: case X86_INS_SETNP: case X86_INS_SETS: case X86_INS_SETNS:
	case X86_INS_FST: case X86_INS_FSTP: case X86_INS_FIST: case X86_INS_FISTP:
	case X86_INS_FISTTP: case X86_INS_FBSTP: case X86_INS_FNSTCW: case X86_INS_FNSTSW:
	case X86_INS_STMXCSR: case X86_INS_VSTMXCSR:
		return CS_AC_WRITE;
	case X86_INS_ROL: case X86_INS_ROR: case X86_INS_RCL: case X86_INS_RCR:
	case X86_INS_CMPXCHG: case X86_INS_CMPXCHG8B: case X86_INS_CMPXCHG16B:
		return CS_AC_READ | CS_AC_WRITE;
	}
	return 0;
}

static int access_kind(const cs_insn *insn, const cs_x86_op *op)
{
	const cs_x86 *x86 = &insn->detail->x86;
	uint8_t ac = fixed_access(insn->id);

	if (!ac) {
		ac = op->access;
		/* A memory destination with a source beside it is written
		 * (compares are in fixed_access()); Capstone says "read", or
		 * nothing, for most vector, extract and non-temporal stores. */
		if (!(ac & CS_AC_WRITE) && op == &x86->operands[0] && x86->op_count >= 2)
			ac = CS_AC_WRITE;
	}
	if (!(ac & CS_AC_WRITE))
		return ACCESS_LOAD;
	/* xchg with memory locks without being asked to. */
	if (has_lock_prefix(insn) || insn->id == X86_INS_XCHG)
		return ACCESS_ATOMIC;
	return ac & CS_AC_READ ? ACCESS_RMW : ACCESS_STORE;
}

static uint8_t access_size(const cs_x86_op *op)
{
	if (!op->size)
		return 8;   /* Capstone does not say: assume a word */
	return op->size > 64 ? 64 : op->size;   /* fxsave & co: one line's worth */
}

/* --- registers the instruction overwrote -------------------------------- */

static uint64_t perf_reg_bit(unsigned int reg)
{
	int perf = perf_reg(reg);

	return perf < 0 ? 0 : 1ULL << perf;
}

/* Perf registers the instruction writes, explicitly or not; all of them
 * when Capstone cannot say. */
static uint64_t written_regs(struct decoder *d, const cs_insn *insn)
{
	const cs_x86 *x86 = &insn->detail->x86;
	uint64_t set = 0;
	cs_regs rd, wr;
	uint8_t n_rd, n_wr;

	if (cs_regs_access(cs_handle(d), insn, rd, &n_rd, wr, &n_wr) != CS_ERR_OK)
		return ~0ULL;
	for (int i = 0; i < n_wr; i++)
		set |= perf_reg_bit(wr[i]);
	for (int i = 0; i < x86->op_count; i++)
		if (x86->operands[i].type == X86_OP_REG &&
		    (x86->operands[i].access & CS_AC_WRITE))
			set |= perf_reg_bit(x86->operands[i].reg);
	/* cmpxchg loads the accumulator on failure; Capstone omits it. */
	if (insn->id == X86_INS_CMPXCHG)
		set |= 1ULL << PERF_REG_X86_AX;
	return set;
}

static bool clobbers_address(struct decoder *d, const cs_insn *insn,
			     const x86_op_mem *mem)
{
	return written_regs(d, insn) & (perf_reg_bit(mem->base) | perf_reg_bit(mem->index));
}

/* --- effective address ------------------------------------------------- */

static enum decode_status effective_address(const cs_insn *insn, const x86_op_mem *mem,
					    const struct regs *regs,
					    struct decoded_access *out)
{
	const cs_x86 *x86 = &insn->detail->x86;
	uint64_t base = 0, index = 0, off, ea;
	enum decode_status st;
	bool has_base = false;

	if (mem->base == X86_REG_RIP || mem->base == X86_REG_EIP) {
		base = insn->address + insn->size;
	} else if (mem->base != X86_REG_INVALID) {
		if ((st = reg_value(regs, mem->base, &base)) != DECODE_OK)
			return st;
		has_base = true;
	}
	if (mem->index != X86_REG_INVALID && mem->index != X86_REG_RIZ &&
	    mem->index != X86_REG_EIZ) {
		if ((st = reg_value(regs, mem->index, &index)) != DECODE_OK)
			return st;
	}
	off = index * (uint64_t)mem->scale + (uint64_t)mem->disp;
	ea = base + off;
	if (x86->addr_size == 4) {   /* 0x67: the address wraps at 4 GiB */
		ea = (uint32_t)ea;
		off = (int32_t)off;
	}
	out->addr = ea;
	out->base_reg = has_base ? dwarf_reg(perf_reg(mem->base)) : -1;
	out->base_off = has_base ? (int64_t)off : 0;
	return DECODE_OK;
}

static enum decode_status x86_decode_access(struct decoder *d, const uint8_t *code,
				  size_t len, uint64_t ip,
				  const struct regs *regs, bool after,
				  struct decoded_access *out)
{
	const cs_insn *insn = decode_one(d, code, len, ip);
	const cs_x86_op *op;
	enum decode_status st;

	if (!insn)
		return DECODE_INVALID;
	if (touches_no_memory(insn->id))
		return DECODE_NOT_ACCESS;
	if (is_gather_scatter(insn->id))
		return DECODE_UNSUPPORTED;
	/* A call through memory loads a function pointer, and once it has
	 * retired the callee owns the registers: count it with the stack. */
	if (is_call(insn->id))
		return DECODE_STACK;
	op = memory_operand(insn);
	if (!op)
		return uses_stack_implicitly(insn->id) ? DECODE_STACK : DECODE_NO_MEMORY;
	if (op->mem.segment == X86_REG_FS || op->mem.segment == X86_REG_GS)
		return DECODE_SEGMENT;
	/* Only rsp: at -O2 rbp is just another register. */
	if (is_stack_pointer(op->mem.base))
		return DECODE_STACK;
	if (after && clobbers_address(d, insn, &op->mem))
		return DECODE_CLOBBERED;
	if ((st = effective_address(insn, &op->mem, regs, out)) != DECODE_OK)
		return st;
	out->size = access_size(op);
	out->kind = access_kind(insn, op);
	return DECODE_OK;
}

/* --- how a register got its value -------------------------------------- */

static bool is_full_width(unsigned int reg)
{
	switch (reg) {
	case X86_REG_RAX: case X86_REG_RBX: case X86_REG_RCX: case X86_REG_RDX:
	case X86_REG_RSI: case X86_REG_RDI: case X86_REG_RBP: case X86_REG_RSP:
	case X86_REG_R8: case X86_REG_R9: case X86_REG_R10: case X86_REG_R11:
	case X86_REG_R12: case X86_REG_R13: case X86_REG_R14: case X86_REG_R15:
		return true;
	}
	return false;
}

static int dwarf_of(unsigned int reg)
{
	return dwarf_reg(perf_reg(reg));
}

/* The System V ABI's caller-saved registers (DWARF rax, rdx, rcx, rsi,
 * rdi, r8-r11): a call may leave anything in them. */
static bool call_clobbers(int dwarf)
{
	return (dwarf >= 0 && dwarf <= 2) || dwarf == 4 || dwarf == 5 ||
	       (dwarf >= 8 && dwarf <= 11);
}

static bool writes_dwarf_reg(struct decoder *d, const cs_insn *insn, int dwarf)
{
	uint64_t written = written_regs(d, insn);

	if (is_call(insn->id) && call_clobbers(dwarf))
		return true;
	for (int perf = 0; perf < PERF_REG_X86_64_MAX; perf++)
		if ((written & (1ULL << perf)) && dwarf_reg(perf) == dwarf)
			return true;
	return false;
}

/* false for what is no plain address: fs/gs (TLS), vector indices. */
static bool mem_ref_of(const cs_insn *insn, const x86_op_mem *mem, struct mem_ref *out)
{
	bool has_index = mem->index != X86_REG_INVALID && mem->index != X86_REG_RIZ &&
			 mem->index != X86_REG_EIZ;

	if (mem->segment == X86_REG_FS || mem->segment == X86_REG_GS)
		return false;
	out->base_reg = -1;
	out->index_reg = has_index ? (int8_t)dwarf_of(mem->index) : -1;
	out->scale = (uint8_t)mem->scale;
	out->disp = mem->disp;
	out->absolute = false;
	if (has_index && out->index_reg < 0)
		return false;
	if (mem->base == X86_REG_RIP) {
		out->disp += (int64_t)(insn->address + insn->size);
		out->absolute = true;
	} else if (mem->base == X86_REG_INVALID) {
		out->absolute = true;
	} else if ((out->base_reg = (int8_t)dwarf_of(mem->base)) < 0) {
		return false;
	}
	return true;
}

/* reg op= source, for the two-operand forms pointers are made with. */
static enum reg_flow_kind flow_kind(const cs_insn *insn, const cs_x86_op *src)
{
	bool load = src->type == X86_OP_MEM && src->size == 8;
	bool full_reg = src->type == X86_OP_REG && is_full_width(src->reg);

	switch (insn->id) {
	case X86_INS_MOV:
		return load ? FLOW_LOAD : full_reg ? FLOW_COPY : FLOW_OTHER;
	case X86_INS_LEA:
		return FLOW_ADDRESS;
	case X86_INS_ADD:
		return load ? FLOW_ADD_LOAD : full_reg ? FLOW_ADD_REG :
		       src->type == X86_OP_IMM ? FLOW_ADD_IMM : FLOW_OTHER;
	case X86_INS_SUB:
		return src->type == X86_OP_IMM ? FLOW_ADD_IMM : FLOW_OTHER;
	}
	return FLOW_OTHER;
}

static bool x86_decode_reg_flow(struct decoder *d, const uint8_t *code, size_t len,
		      uint64_t ip, int dwarf_reg, struct reg_flow *out)
{
	const cs_insn *insn = decode_one(d, code, len, ip);
	const cs_x86 *x86;
	const cs_x86_op *dst, *src;

	if (!insn)
		return false;
	memset(out, 0, sizeof(*out));
	out->src_reg = -1;
	out->kind = FLOW_NONE;
	if (dwarf_reg < 0 || !writes_dwarf_reg(d, insn, dwarf_reg))
		return true;
	out->kind = FLOW_OTHER;
	x86 = &insn->detail->x86;
	dst = &x86->operands[0];
	src = &x86->operands[1];
	/* a 32-bit write zero-extends: no pointer survives it */
	if (x86->op_count != 2 || dst->type != X86_OP_REG ||
	    !is_full_width(dst->reg) || dwarf_of(dst->reg) != dwarf_reg)
		return true;
	out->kind = flow_kind(insn, src);
	switch (out->kind) {
	case FLOW_LOAD:
	case FLOW_ADDRESS:
	case FLOW_ADD_LOAD:
		if (!mem_ref_of(insn, &src->mem, &out->mem))
			out->kind = FLOW_OTHER;
		break;
	case FLOW_COPY:
	case FLOW_ADD_REG:
		out->src_reg = (int8_t)dwarf_of(src->reg);
		break;
	case FLOW_ADD_IMM:
		out->imm = insn->id == X86_INS_SUB ? -src->imm : src->imm;
		break;
	default:
		break;
	}
	return true;
}

static bool is_push(unsigned int id)
{
	switch (id) {
	case X86_INS_PUSH: case X86_INS_PUSHF: case X86_INS_PUSHFD: case X86_INS_PUSHFQ:
	case X86_INS_ENTER:
		return true;
	}
	return false;
}

static bool x86_decode_memory(struct decoder *d, const uint8_t *code, size_t len,
		    uint64_t ip, struct insn_mem *out)
{
	const cs_insn *insn = decode_one(d, code, len, ip);
	const cs_x86_op *op;

	memset(out, 0, sizeof(*out));
	out->base = out->index = -1;
	if (!insn)
		return false;
	if (is_call(insn->id) || is_push(insn->id)) {     /* the return address, the value */
		out->access = out->writes = out->stack = true;
		out->size = 8;
		return true;
	}
	if (touches_no_memory(insn->id) || is_gather_scatter(insn->id))
		return true;
	if (!(op = memory_operand(insn))) {
		out->access = out->stack = uses_stack_implicitly(insn->id);
		return true;
	}
	out->access = true;
	out->writes = access_kind_writes(access_kind(insn, op));
	out->stack = is_stack_pointer(op->mem.base);
	out->rip_relative = op->mem.base == X86_REG_RIP;
	if (op->mem.base != X86_REG_INVALID && !out->rip_relative)
		out->base = perf_reg(op->mem.base);
	if (op->mem.index != X86_REG_INVALID)
		out->index = perf_reg(op->mem.index);
	out->disp = op->mem.disp + (out->rip_relative ? (int64_t)(ip + insn->size) : 0);
	out->size = access_size(op);
	return true;
}

/* perf_reg(), and bit 63 for the flags */
static int reg_bit(unsigned int reg)
{
	return reg == X86_REG_EFLAGS ? 63 : perf_reg(reg);
}

static bool x86_decode_regs_touched(struct decoder *d, const uint8_t *code, size_t len,
				    uint64_t ip, uint64_t *read, uint64_t *written)
{
	const cs_insn *insn = decode_one(d, code, len, ip);

	return insn && cs_regs_masks(d, insn, reg_bit, read, written);
}

static const struct decode_ops x86_ops = {
	.free = cs_decoder_free,
	.insn = x86_decode_insn,
	.access = x86_decode_access,
	.memory = x86_decode_memory,
	.reg_flow = x86_decode_reg_flow,
	.regs_touched = x86_decode_regs_touched,
};

/* The kernel's x86 uprobes refuse an instruction with a LOCK prefix or
 * an ES, CS, SS or DS segment override among its legacy prefixes
 * (arch/x86/kernel/uprobes.c, is_prefix_bad()). */
static bool x86_uprobe_refuses(const uint8_t *code, size_t len)
{
	for (size_t i = 0; i < len && i < 15; i++) {
		switch (code[i]) {
		case 0xf0: case 0x26: case 0x2e: case 0x36: case 0x3e:
			return true;
		case 0x66: case 0x67: case 0xf2: case 0xf3: case 0x64: case 0x65:
			continue;        /* other legacy prefixes */
		default:
			return false;
		}
	}
	return false;
}

const struct decode_arch decode_arch_x86_64 = {
	.elf_machine = EM_X86_64,
	.name = "x86-64",
	.new_decoder = decoder_new_x86_64,
	.ops = &x86_ops,
	.insn_width = 0,
	.perf_regs_mask = X86_64_REGS_MASK,
	.perf_regs_names = "ax,bx,cx,dx,si,di,bp,sp,ip,flags,cs,ss,"
			   "r8,r9,r10,r11,r12,r13,r14,r15",
	.user_end = 0x0000800000000000ULL,
	.perf_reg_of_dwarf = perf_reg_of_dwarf,
	.n_dwarf_regs = ARRAY_SIZE(perf_reg_of_dwarf),
	.perf_ip = PERF_REG_X86_IP,
	.perf_sp = PERF_REG_X86_SP,
	.perf_fp = PERF_REG_X86_BP,
	.dwarf_sp = 7,
	.dwarf_fp = 6,
	.perf_go_g = PERF_REG_X86_R14,
	.uprobe_refuses = x86_uprobe_refuses,
};
