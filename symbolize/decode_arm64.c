/* decode_arm64.c - AArch64 decoding with Capstone's ARM64 mode, behind
 * decode.h.
 *
 * Every instruction is 4 bytes.  Each call decodes one instruction into
 * struct a64_mem (its memory access as written: base, index with its
 * extend and shift, displacement, writeback, size, kind, the registers it
 * loads), and the operations of decode.h read that.
 *
 * Capstone 4.0.2 (Debian's) predates ARMv8.1: it does not know the LSE
 * atomics (LDADD, LDCLR, LDEOR, LDSET, LD[SU]MAX/MIN, SWP, CAS, CASP and
 * their ST* aliases) nor LDAPR; decode_lse() reads their encodings (Arm
 * ARM C4.1.94, "Atomic memory operations" and "Compare and swap").
 *
 * Writeback: with 'after' set the registers are those after the
 * instruction retired, and a pre- or post-indexed access has moved its
 * base.  The base it used is recomputed (pre-index: base - disp, post-
 * index: base - imm or - Xm); an access that loaded into its own base or
 * index register is refused with DECODE_CLOBBERED.
 *
 * Kinds: exclusive loads and stores (LDXR/STXR, LDAXR/STLXR, pairs) are
 * the two halves of an atomic read-modify-write and count as ACCESS_ATOMIC,
 * as x86's locked instructions do; so do the LSE atomics.  LDAR/LDAPR are
 * loads, STLR a store.
 */
#include "symbolize/decode.h"

#include <stdlib.h>
#include <string.h>
#include <capstone/capstone.h>

#include "common/access.h"
#include "common/util.h"
#include "symbolize/decode_arch.h"

/* perf's AArch64 user registers (arch/arm64/include/uapi/asm/perf_regs.h),
 * spelt here because the host's <asm/perf_regs.h> is the host's. */
enum {
	A64_PERF_X0 = 0,
	A64_PERF_FP = 29,         /* x29 */
	A64_PERF_LR = 30,         /* x30 */
	A64_PERF_SP = 31,
	A64_PERF_PC = 32,
	A64_PERF_NREGS = 33,
};
#define A64_ZR (-2)               /* xzr/wzr: reads as zero, never sampled */

static struct decoder *decoder_new_aarch64(void)
{
	return cs_decoder_new(&decode_arch_aarch64, CS_ARCH_ARM64, CS_MODE_ARM);
}

/* Fixed 4-byte instructions: one word, never more. */
static const cs_insn *decode_one(struct decoder *d, const uint8_t *code,
				 size_t len, uint64_t ip)
{
	if (!code || len < 4)
		return NULL;
	return cs_decoder_one(d, code, 4, ip);
}

static uint32_t word_at(const uint8_t *code)
{
	return (uint32_t)code[0] | (uint32_t)code[1] << 8 |
	       (uint32_t)code[2] << 16 | (uint32_t)code[3] << 24;
}

/* --- registers --------------------------------------------------------- */

/* The perf register of a general-purpose register (either width), A64_ZR
 * for the zero register, -1 for others (vector, flags). */
static int perf_reg(unsigned int reg)
{
	if (reg >= ARM64_REG_X0 && reg <= ARM64_REG_X28)
		return A64_PERF_X0 + (int)(reg - ARM64_REG_X0);
	if (reg >= ARM64_REG_W0 && reg <= ARM64_REG_W30)
		return A64_PERF_X0 + (int)(reg - ARM64_REG_W0);
	switch (reg) {
	case ARM64_REG_X29: return A64_PERF_FP;
	case ARM64_REG_X30: return A64_PERF_LR;
	case ARM64_REG_SP: case ARM64_REG_WSP: return A64_PERF_SP;
	case ARM64_REG_XZR: case ARM64_REG_WZR: return A64_ZR;
	}
	return -1;
}

static uint64_t perf_bit(int perf)
{
	return perf >= 0 ? 1ULL << perf : 0;
}

/* Bytes a register holds (a scalar load or store moves that many). */
static unsigned reg_bytes(unsigned int reg)
{
	if ((reg >= ARM64_REG_W0 && reg <= ARM64_REG_W30) || reg == ARM64_REG_WZR ||
	    reg == ARM64_REG_WSP || (reg >= ARM64_REG_S0 && reg <= ARM64_REG_S31))
		return 4;
	if (reg >= ARM64_REG_B0 && reg <= ARM64_REG_B31)
		return 1;
	if (reg >= ARM64_REG_H0 && reg <= ARM64_REG_H31)
		return 2;
	if ((reg >= ARM64_REG_Q0 && reg <= ARM64_REG_Q31) ||
	    (reg >= ARM64_REG_V0 && reg <= ARM64_REG_V31))
		return 16;
	return 8;   /* X, XZR, SP, D */
}

/* AAPCS64's DWARF numbers x0..x30 = 0..30, sp = 31 are perf's: the
 * identity.  The PC has no DWARF number (unwind.c sets it apart). */
static const uint8_t perf_reg_of_dwarf[] = {
	0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15,
	16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, A64_PERF_SP,
};

/* X0..X30, SP and PC: perf's PERF_REGS_MASK for arm64. */
#define AARCH64_REGS_MASK ((1ULL << A64_PERF_NREGS) - 1)

/* --- one instruction's memory access ----------------------------------- */

enum a64_writeback { WB_NONE, WB_PRE, WB_POST_IMM, WB_POST_REG };

struct a64_mem {
	bool access;              /* touches memory */
	bool prefetch;            /* names memory, loads nothing (prfm) */
	bool literal;             /* pc-relative: disp is the address */
	uint8_t kind;             /* enum access_kind */
	uint8_t size;             /* bytes moved, all registers together */
	int base, index;          /* perf numbers; index -1: none */
	unsigned ext, shift;      /* the index's ARM64_EXT_* and left shift */
	int64_t disp;             /* the offset before any writeback */
	enum a64_writeback wb;
	int64_t post_imm;         /* WB_POST_IMM */
	int post_reg;             /* WB_POST_REG: perf number */
	uint64_t loaded;          /* perf registers the access writes (not the base) */
	int data[2];              /* loaded general registers, in order; -1 */
	uint8_t data_bytes;       /* of one of them */
};

static void a64_mem_init(struct a64_mem *m)
{
	memset(m, 0, sizeof(*m));
	m->base = m->index = m->post_reg = -1;
	m->data[0] = m->data[1] = -1;
}

/* --- LSE atomics and LDAPR: not in Capstone 4 -------------------------- */

/* Atomic memory operations: size 111 0 00 A R 1 Rs o3 opc 00 Rn Rt
 * (LDADD..LDUMIN for o3=0, SWP for o3=1 opc=000, LDAPR for o3=1 opc=100
 * A=1 R=0 Rs=11111); compare and swap: size 0010001 L 1 Rs o0 11111 Rn Rt,
 * and its pair: 0 sz 0010000 L 1 Rs o0 11111 Rn Rt. */
static bool decode_lse(uint32_t w, struct a64_mem *m)
{
	unsigned rt = w & 31, rn = (w >> 5) & 31, rs = (w >> 16) & 31;
	unsigned size = w >> 30;
	int t = rt == 31 ? A64_ZR : (int)rt, s = rs == 31 ? A64_ZR : (int)rs;

	a64_mem_init(m);
	m->access = true;
	m->base = (int)rn;        /* Rn = 31 is sp here */
	m->kind = ACCESS_ATOMIC;
	m->data_bytes = (uint8_t)(1u << size);
	m->size = m->data_bytes;
	if ((w & 0x3f200c00) == 0x38200000) {
		unsigned o3 = (w >> 15) & 1, opc = (w >> 12) & 7;
		bool acquire = (w >> 23) & 1, release = (w >> 22) & 1;

		if (o3 && opc == 4 && acquire && !release && rs == 31) {
			m->kind = ACCESS_LOAD;                /* ldapr */
		} else if (o3 && opc != 0) {
			return false;
		}
		m->data[0] = t;
		m->loaded = perf_bit(t);
		return true;
	}
	if ((w & 0x3fa07c00) == 0x08a07c00) {                 /* cas */
		m->data[0] = s;
		m->loaded = perf_bit(s);
		return true;
	}
	if ((w & 0xbfa07c00) == 0x08207c00) {                 /* casp */
		if (rs % 2 || rt % 2)
			return false;
		m->data_bytes = (w >> 30) & 1 ? 8 : 4;
		m->size = (uint8_t)(2 * m->data_bytes);
		m->data[0] = s;
		m->data[1] = s == A64_ZR ? A64_ZR : s + 1;
		m->loaded = perf_bit(m->data[0]) | perf_bit(m->data[1]);
		return true;
	}
	return false;
}

/* --- Capstone's instructions ------------------------------------------- */

enum a64_class {
	C_NONE, C_LOAD, C_STORE, C_EXCL_LOAD, C_EXCL_STORE, C_VEC_LOAD, C_VEC_STORE,
	C_VEC_LOAD_REPL, C_PREFETCH,
};

static enum a64_class insn_class(unsigned int id)
{
	switch (id) {
	case ARM64_INS_LDR: case ARM64_INS_LDRB: case ARM64_INS_LDRH:
	case ARM64_INS_LDRSB: case ARM64_INS_LDRSH: case ARM64_INS_LDRSW:
	case ARM64_INS_LDUR: case ARM64_INS_LDURB: case ARM64_INS_LDURH:
	case ARM64_INS_LDURSB: case ARM64_INS_LDURSH: case ARM64_INS_LDURSW:
	case ARM64_INS_LDTR: case ARM64_INS_LDTRB: case ARM64_INS_LDTRH:
	case ARM64_INS_LDTRSB: case ARM64_INS_LDTRSH: case ARM64_INS_LDTRSW:
	case ARM64_INS_LDP: case ARM64_INS_LDNP: case ARM64_INS_LDPSW:
	case ARM64_INS_LDAR: case ARM64_INS_LDARB: case ARM64_INS_LDARH:
		return C_LOAD;
	case ARM64_INS_STR: case ARM64_INS_STRB: case ARM64_INS_STRH:
	case ARM64_INS_STUR: case ARM64_INS_STURB: case ARM64_INS_STURH:
	case ARM64_INS_STTR: case ARM64_INS_STTRB: case ARM64_INS_STTRH:
	case ARM64_INS_STP: case ARM64_INS_STNP:
	case ARM64_INS_STLR: case ARM64_INS_STLRB: case ARM64_INS_STLRH:
		return C_STORE;
	case ARM64_INS_LDXR: case ARM64_INS_LDXRB: case ARM64_INS_LDXRH:
	case ARM64_INS_LDAXR: case ARM64_INS_LDAXRB: case ARM64_INS_LDAXRH:
	case ARM64_INS_LDXP: case ARM64_INS_LDAXP:
		return C_EXCL_LOAD;
	case ARM64_INS_STXR: case ARM64_INS_STXRB: case ARM64_INS_STXRH:
	case ARM64_INS_STLXR: case ARM64_INS_STLXRB: case ARM64_INS_STLXRH:
	case ARM64_INS_STXP: case ARM64_INS_STLXP:
		return C_EXCL_STORE;
	case ARM64_INS_LD1: case ARM64_INS_LD2: case ARM64_INS_LD3: case ARM64_INS_LD4:
		return C_VEC_LOAD;
	case ARM64_INS_LD1R: case ARM64_INS_LD2R: case ARM64_INS_LD3R: case ARM64_INS_LD4R:
		return C_VEC_LOAD_REPL;
	case ARM64_INS_ST1: case ARM64_INS_ST2: case ARM64_INS_ST3: case ARM64_INS_ST4:
		return C_VEC_STORE;
	case ARM64_INS_PRFM: case ARM64_INS_PRFUM:
		return C_PREFETCH;
	}
	return C_NONE;
}

/* Bytes per register when the mnemonic says (b, h, sw), else 0: the
 * register's width decides. */
static unsigned fixed_bytes(unsigned int id)
{
	switch (id) {
	case ARM64_INS_LDRB: case ARM64_INS_LDRSB: case ARM64_INS_LDURB:
	case ARM64_INS_LDURSB: case ARM64_INS_LDTRB: case ARM64_INS_LDTRSB:
	case ARM64_INS_STRB: case ARM64_INS_STURB: case ARM64_INS_STTRB:
	case ARM64_INS_LDARB: case ARM64_INS_STLRB: case ARM64_INS_LDXRB:
	case ARM64_INS_LDAXRB: case ARM64_INS_STXRB: case ARM64_INS_STLXRB:
		return 1;
	case ARM64_INS_LDRH: case ARM64_INS_LDRSH: case ARM64_INS_LDURH:
	case ARM64_INS_LDURSH: case ARM64_INS_LDTRH: case ARM64_INS_LDTRSH:
	case ARM64_INS_STRH: case ARM64_INS_STURH: case ARM64_INS_STTRH:
	case ARM64_INS_LDARH: case ARM64_INS_STLRH: case ARM64_INS_LDXRH:
	case ARM64_INS_LDAXRH: case ARM64_INS_STXRH: case ARM64_INS_STLXRH:
		return 2;
	case ARM64_INS_LDRSW: case ARM64_INS_LDURSW: case ARM64_INS_LDTRSW:
	case ARM64_INS_LDPSW:
		return 4;
	}
	return 0;
}

static bool is_pair(unsigned int id)
{
	switch (id) {
	case ARM64_INS_LDP: case ARM64_INS_LDNP: case ARM64_INS_LDPSW:
	case ARM64_INS_STP: case ARM64_INS_STNP:
	case ARM64_INS_LDXP: case ARM64_INS_LDAXP:
	case ARM64_INS_STXP: case ARM64_INS_STLXP:
		return true;
	}
	return false;
}

/* Bytes of one vector register as arranged (8B..1D: 8, 16B..2D: 16). */
static unsigned vas_bytes(arm64_vas vas)
{
	switch (vas) {
	case ARM64_VAS_8B: case ARM64_VAS_4H: case ARM64_VAS_2S: case ARM64_VAS_1D:
		return 8;
	default:
		return 16;
	}
}

/* Bytes of one element, of an arrangement or of a lane. */
static unsigned element_bytes(arm64_vas vas, arm64_vess vess)
{
	switch (vess) {
	case ARM64_VESS_B: return 1;
	case ARM64_VESS_H: return 2;
	case ARM64_VESS_S: return 4;
	case ARM64_VESS_D: return 8;
	default: break;
	}
	switch (vas) {
	case ARM64_VAS_8B: case ARM64_VAS_16B: return 1;
	case ARM64_VAS_4H: case ARM64_VAS_8H: return 2;
	case ARM64_VAS_2S: case ARM64_VAS_4S: return 4;
	case ARM64_VAS_1D: case ARM64_VAS_2D: return 8;
	default: return 16;
	}
}

/* LD1..LD4 / ST1..ST4 / LD1R..LD4R: the bytes of all registers listed. */
static unsigned vector_size(enum a64_class c, const cs_arm64 *a, int mem_at)
{
	unsigned n = 0, each = 0;

	for (int i = 0; i < mem_at; i++) {
		const cs_arm64_op *op = &a->operands[i];

		if (op->type != ARM64_OP_REG)
			continue;
		n++;
		if (op->vess != ARM64_VESS_INVALID || c == C_VEC_LOAD_REPL)
			each = element_bytes(op->vas, op->vess);   /* one lane each */
		else
			each = vas_bytes(op->vas);
	}
	return n * each;
}

static uint8_t clamp_size(unsigned size)
{
	return size > 64 ? 64 : size ? (uint8_t)size : 8;
}

/* The memory access of a Capstone-decoded instruction. */
static void capstone_mem(const cs_insn *insn, struct a64_mem *m)
{
	const cs_arm64 *a = &insn->detail->arm64;
	enum a64_class c = insn_class(insn->id);
	int mem_at = -1, first_data;
	unsigned n_data = 0, fixed;

	a64_mem_init(m);
	if (c == C_NONE)
		return;
	for (int i = 0; i < a->op_count; i++)
		if (a->operands[i].type == ARM64_OP_MEM) {
			mem_at = i;
			break;
		}
	if (mem_at < 0) {
		/* ldr x0, label: a pc-relative literal, the address an immediate */
		if ((c != C_LOAD && c != C_PREFETCH) || !a->op_count ||
		    a->operands[a->op_count - 1].type != ARM64_OP_IMM)
			return;
		m->literal = true;
		m->disp = a->operands[a->op_count - 1].imm;
	} else {
		const cs_arm64_op *op = &a->operands[mem_at];

		m->base = perf_reg(op->mem.base);
		m->index = op->mem.index != ARM64_REG_INVALID ? perf_reg(op->mem.index) : -1;
		m->ext = op->ext;
		m->shift = op->shift.type == ARM64_SFT_LSL ? op->shift.value : 0;
		m->disp = op->mem.disp;
		if (a->writeback) {
			const cs_arm64_op *post = mem_at + 1 < a->op_count ?
						  &a->operands[mem_at + 1] : NULL;

			m->wb = WB_PRE;
			if (post && post->type == ARM64_OP_IMM) {
				m->wb = WB_POST_IMM;
				m->post_imm = post->imm;
			} else if (post && post->type == ARM64_OP_REG) {
				m->wb = WB_POST_REG;
				m->post_reg = perf_reg(post->reg);
			}
		}
	}
	m->access = true;
	if (c == C_PREFETCH) {
		m->prefetch = true;
		return;
	}
	m->kind = c == C_STORE || c == C_VEC_STORE ? ACCESS_STORE :
		  c == C_EXCL_LOAD || c == C_EXCL_STORE ? ACCESS_ATOMIC : ACCESS_LOAD;
	if (c == C_VEC_LOAD || c == C_VEC_STORE || c == C_VEC_LOAD_REPL) {
		m->size = clamp_size(vector_size(c, a, mem_at < 0 ? a->op_count : mem_at));
		return;
	}
	/* the data registers: those before the address, but a store
	 * exclusive's first is its status */
	first_data = c == C_EXCL_STORE ? 1 : 0;
	for (int i = 0; i < (mem_at < 0 ? a->op_count : mem_at); i++) {
		const cs_arm64_op *op = &a->operands[i];
		int perf;

		if (op->type != ARM64_OP_REG)
			continue;
		perf = perf_reg(op->reg);
		if (op->access & CS_AC_WRITE)
			m->loaded |= perf_bit(perf);
		if (i < first_data)
			continue;
		if (n_data < 2)
			m->data[n_data] = perf;
		if (!n_data)
			m->data_bytes = (uint8_t)reg_bytes(op->reg);
		n_data++;
	}
	fixed = fixed_bytes(insn->id);
	if (fixed)
		m->data_bytes = (uint8_t)fixed;
	m->size = clamp_size(m->data_bytes * (is_pair(insn->id) ? 2u : 1u));
}

/* One instruction: Capstone's, else an LSE atomic.  False if neither. */
static bool decode_mem(struct decoder *d, const uint8_t *code, size_t len,
		       uint64_t ip, struct a64_mem *m)
{
	const cs_insn *insn = decode_one(d, code, len, ip);

	if (insn) {
		capstone_mem(insn, m);
		return true;
	}
	return code && len >= 4 && decode_lse(word_at(code), m);
}

/* --- control flow ------------------------------------------------------ */

static bool a64_decode_insn(struct decoder *d, const uint8_t *code, size_t len,
		       uint64_t ip, struct insn_info *out)
{
	const cs_insn *insn = decode_one(d, code, len, ip);
	const cs_arm64 *a;
	struct a64_mem m;

	memset(out, 0, sizeof(*out));
	out->length = 4;
	out->falls_through = true;
	if (!insn)
		return code && len >= 4 && decode_lse(word_at(code), &m);
	a = &insn->detail->arm64;
	switch (insn->id) {
	case ARM64_INS_B:
		out->falls_through = a->cc != ARM64_CC_INVALID && a->cc != ARM64_CC_AL;
		break;
	case ARM64_INS_BL: case ARM64_INS_BLR:
		out->is_call = true;
		break;
	case ARM64_INS_BR: case ARM64_INS_RET: case ARM64_INS_ERET:
	case ARM64_INS_BRK: case ARM64_INS_HLT:
		out->falls_through = false;
		return true;
	case ARM64_INS_CBZ: case ARM64_INS_CBNZ: case ARM64_INS_TBZ: case ARM64_INS_TBNZ:
		break;
	case ARM64_INS_DMB: case ARM64_INS_DSB:
		out->is_fence = true;
		return true;
	default:
		return true;
	}
	if (a->op_count && a->operands[a->op_count - 1].type == ARM64_OP_IMM) {
		out->has_target = true;
		out->target = (uint64_t)a->operands[a->op_count - 1].imm;
	}
	return true;
}

/* --- effective address ------------------------------------------------- */

static enum decode_status reg_value(const struct regs *regs, int perf, uint64_t *val)
{
	if (perf == A64_ZR) {
		*val = 0;
		return DECODE_OK;
	}
	if (perf < 0)
		return DECODE_UNSUPPORTED;
	if (!(regs->mask & (1ULL << perf)))
		return DECODE_NO_REGS;
	*val = regs->val[perf];
	return DECODE_OK;
}

/* The index register's contribution: extended, then shifted. */
static uint64_t index_offset(const struct a64_mem *m, uint64_t v)
{
	switch (m->ext) {
	case ARM64_EXT_UXTW: v = (uint32_t)v; break;
	case ARM64_EXT_SXTW: v = (uint64_t)(int64_t)(int32_t)v; break;
	default: break;   /* lsl, uxtx, sxtx: all 64 bits */
	}
	return v << m->shift;
}

/* The base register as the access used it: after a writeback, undone. */
static enum decode_status access_base(const struct a64_mem *m, const struct regs *regs,
				      bool after, uint64_t *base)
{
	enum decode_status st = reg_value(regs, m->base, base);
	uint64_t step;

	if (st != DECODE_OK || !after)
		return st;
	switch (m->wb) {
	case WB_NONE:
		break;
	case WB_PRE:
		*base -= (uint64_t)m->disp;
		break;
	case WB_POST_IMM:
		*base -= (uint64_t)m->post_imm;
		break;
	case WB_POST_REG:
		if ((st = reg_value(regs, m->post_reg, &step)) != DECODE_OK)
			return st;
		*base -= step;
		break;
	}
	return DECODE_OK;
}

static enum decode_status a64_decode_access(struct decoder *d, const uint8_t *code,
				       size_t len, uint64_t ip,
				       const struct regs *regs, bool after,
				       struct decoded_access *out)
{
	uint64_t base, index = 0, address_regs;
	enum decode_status st;
	struct a64_mem m;

	if (!decode_mem(d, code, len, ip, &m))
		return DECODE_INVALID;
	if (!m.access)
		return DECODE_NO_MEMORY;
	if (m.prefetch)
		return DECODE_NOT_ACCESS;
	if (m.literal) {
		out->addr = (uint64_t)m.disp;
		out->base_reg = -1;
		out->base_off = 0;
		goto done;
	}
	if (m.base == A64_PERF_SP)
		return DECODE_STACK;
	/* loaded into a register the address needs: its old value is gone
	 * (with writeback the architecture does not even say which wins) */
	address_regs = perf_bit(m.base) | perf_bit(m.index) |
		       (m.wb == WB_POST_REG ? perf_bit(m.post_reg) : 0);
	if (after && (m.loaded & address_regs))
		return DECODE_CLOBBERED;
	if ((st = access_base(&m, regs, after, &base)) != DECODE_OK)
		return st;
	if (m.index != -1 && (st = reg_value(regs, m.index, &index)) != DECODE_OK)
		return st;
	out->base_off = m.disp + (int64_t)index_offset(&m, index);
	out->addr = base + (uint64_t)out->base_off;
	out->base_reg = (int8_t)m.base;       /* DWARF = perf for x0..x30 */
done:
	out->size = m.size;
	out->kind = m.kind;
	return DECODE_OK;
}

/* --- the operand as written -------------------------------------------- */

static bool a64_decode_memory(struct decoder *d, const uint8_t *code, size_t len,
			 uint64_t ip, struct insn_mem *out)
{
	struct a64_mem m;

	memset(out, 0, sizeof(*out));
	out->base = out->index = -1;
	if (!decode_mem(d, code, len, ip, &m))
		return false;
	if (!m.access || m.prefetch)
		return true;
	out->access = true;
	out->writes = access_kind_writes(m.kind);
	out->stack = m.base == A64_PERF_SP;
	out->rip_relative = m.literal;
	out->base = m.base >= 0 ? m.base : -1;
	out->index = m.index >= 0 ? m.index : -1;
	out->disp = m.disp;
	out->size = m.size;
	return true;
}

/* --- how a register got its value -------------------------------------- */

/* AAPCS64: a call may leave anything in x0..x18 and the link register. */
static bool call_clobbers(int dwarf)
{
	return (dwarf >= 0 && dwarf <= 18) || dwarf == A64_PERF_LR;
}

static bool is_x_reg(unsigned int reg)
{
	return (reg >= ARM64_REG_X0 && reg <= ARM64_REG_X28) ||
	       reg == ARM64_REG_X29 || reg == ARM64_REG_X30 || reg == ARM64_REG_SP;
}

static bool writes_reg(struct decoder *d, const cs_insn *insn, int dwarf)
{
	const cs_arm64 *a = &insn->detail->arm64;
	cs_regs rd, wr;
	uint8_t n_rd, n_wr;

	if ((insn->id == ARM64_INS_BL || insn->id == ARM64_INS_BLR) && call_clobbers(dwarf))
		return true;
	if (cs_regs_access(cs_handle(d), insn, rd, &n_rd, wr, &n_wr) != CS_ERR_OK)
		return true;
	for (int i = 0; i < n_wr; i++)
		if (perf_reg(wr[i]) == dwarf)
			return true;
	for (int i = 0; i < a->op_count; i++)
		if (a->operands[i].type == ARM64_OP_REG &&
		    (a->operands[i].access & CS_AC_WRITE) &&
		    perf_reg(a->operands[i].reg) == dwarf)
			return true;
	return false;
}

/* A load of 8 bytes into dwarf: its address (before any writeback). */
static bool load_flow(const struct a64_mem *m, int dwarf, struct reg_flow *out)
{
	int which = m->data[0] == dwarf ? 0 : m->data[1] == dwarf ? 1 : -1;

	if (which < 0 || m->data_bytes != 8 || m->kind == ACCESS_STORE || m->prefetch)
		return false;
	if (m->wb != WB_NONE && m->base == dwarf)
		return false;
	out->kind = FLOW_LOAD;
	out->mem.index_reg = -1;
	out->mem.scale = 1;
	if (m->literal) {
		out->mem.base_reg = -1;
		out->mem.absolute = true;
		out->mem.disp = m->disp;
		return true;
	}
	/* a 32-bit index extended is no plain base + index * scale */
	if (m->index >= 0 && (m->ext == ARM64_EXT_UXTW || m->ext == ARM64_EXT_SXTW))
		return false;
	out->mem.base_reg = (int8_t)m->base;
	out->mem.index_reg = (int8_t)(m->index >= 0 ? m->index : -1);
	out->mem.scale = (uint8_t)(1u << m->shift);
	out->mem.disp = m->disp + (which ? m->data_bytes : 0);
	return true;
}

/* add/sub/mov/adr/adrp into a 64-bit register. */
static void arith_flow(const cs_insn *insn, int dwarf, struct reg_flow *out)
{
	const cs_arm64 *a = &insn->detail->arm64;
	const cs_arm64_op *dst = &a->operands[0], *src = &a->operands[1];
	const cs_arm64_op *third = a->op_count > 2 ? &a->operands[2] : NULL;
	bool sub = insn->id == ARM64_INS_SUB;

	if (a->op_count < 2 || dst->type != ARM64_OP_REG || !is_x_reg(dst->reg))
		return;
	switch (insn->id) {
	case ARM64_INS_ADR: case ARM64_INS_ADRP:
		if (src->type != ARM64_OP_IMM)
			return;
		out->kind = FLOW_ADDRESS;
		out->mem.absolute = true;
		out->mem.disp = src->imm;
		return;
	case ARM64_INS_MOV:
		if (a->op_count == 2 && src->type == ARM64_OP_REG && is_x_reg(src->reg)) {
			out->kind = FLOW_COPY;
			out->src_reg = (int8_t)perf_reg(src->reg);
		}
		return;
	case ARM64_INS_ADD: case ARM64_INS_SUB:
		break;
	default:
		return;
	}
	if (!third || src->type != ARM64_OP_REG || !is_x_reg(src->reg) || a->update_flags)
		return;
	if (third->type == ARM64_OP_IMM) {
		int64_t imm = third->imm << (third->shift.type == ARM64_SFT_LSL ?
					     third->shift.value : 0);

		imm = sub ? -imm : imm;
		if (perf_reg(src->reg) == dwarf) {
			out->kind = FLOW_ADD_IMM;
			out->imm = imm;
		} else {                      /* x0 = x1 + imm: an address */
			out->kind = FLOW_ADDRESS;
			out->mem.base_reg = (int8_t)perf_reg(src->reg);
			out->mem.disp = imm;
		}
		return;
	}
	if (sub || third->type != ARM64_OP_REG || !is_x_reg(third->reg) ||
	    third->ext != ARM64_EXT_INVALID ||
	    (third->shift.type != ARM64_SFT_INVALID && third->shift.type != ARM64_SFT_LSL))
		return;
	if (perf_reg(src->reg) == dwarf && !third->shift.value) {
		out->kind = FLOW_ADD_REG;
		out->src_reg = (int8_t)perf_reg(third->reg);
	} else {                              /* x0 = x1 + x2 << s */
		out->kind = FLOW_ADDRESS;
		out->mem.base_reg = (int8_t)perf_reg(src->reg);
		out->mem.index_reg = (int8_t)perf_reg(third->reg);
		out->mem.scale = (uint8_t)(1u << third->shift.value);
	}
}

static bool a64_decode_reg_flow(struct decoder *d, const uint8_t *code, size_t len,
			   uint64_t ip, int dwarf_reg, struct reg_flow *out)
{
	const cs_insn *insn = decode_one(d, code, len, ip);
	struct a64_mem m;

	memset(out, 0, sizeof(*out));
	out->src_reg = -1;
	out->mem.base_reg = out->mem.index_reg = -1;
	out->mem.scale = 1;
	out->kind = FLOW_NONE;
	if (!insn) {
		if (!code || len < 4 || !decode_lse(word_at(code), &m))
			return false;
		if (dwarf_reg >= 0 && (m.loaded & perf_bit(dwarf_reg)))
			out->kind = load_flow(&m, dwarf_reg, out) ? FLOW_LOAD : FLOW_OTHER;
		return true;
	}
	if (dwarf_reg < 0 || dwarf_reg >= A64_PERF_PC || !writes_reg(d, insn, dwarf_reg))
		return true;
	out->kind = FLOW_OTHER;
	capstone_mem(insn, &m);
	if (m.access && m.base == dwarf_reg && !(m.loaded & perf_bit(dwarf_reg)) &&
	    (m.wb == WB_PRE || m.wb == WB_POST_IMM)) {
		out->kind = FLOW_ADD_IMM;          /* the writeback: base += step */
		out->imm = m.wb == WB_PRE ? m.disp : m.post_imm;
		return true;
	}
	if (m.access) {
		if (!load_flow(&m, dwarf_reg, out))
			out->kind = FLOW_OTHER;
		return true;
	}
	arith_flow(insn, dwarf_reg, out);
	return true;
}

/* perf_reg() of a general-purpose register (the zero register is no
 * register), bit 63 for NZCV */
static int reg_bit(unsigned int reg)
{
	int perf = perf_reg(reg);

	return reg == ARM64_REG_NZCV ? 63 : perf >= 0 ? perf : -1;
}

static bool a64_decode_regs_touched(struct decoder *d, const uint8_t *code, size_t len,
				    uint64_t ip, uint64_t *read, uint64_t *written)
{
	const cs_insn *insn = cs_decoder_one(d, code, len, ip);

	if (!insn || !cs_regs_masks(d, insn, reg_bit, read, written))
		return false;
	/* Capstone 4 lists cmp's, cmn's and tst's first operand as written:
	 * they only read their operands and set the flags */
	switch (insn->id) {
	case ARM64_INS_CMP: case ARM64_INS_CMN: case ARM64_INS_TST:
	case ARM64_INS_CCMP: case ARM64_INS_CCMN:
		*read |= *written & ~DECODE_FLAGS_BIT;
		*written &= DECODE_FLAGS_BIT;
		break;
	}
	return true;
}

static const struct decode_ops arm64_ops = {
	.free = cs_decoder_free,
	.insn = a64_decode_insn,
	.access = a64_decode_access,
	.memory = a64_decode_memory,
	.reg_flow = a64_decode_reg_flow,
	.regs_touched = a64_decode_regs_touched,
};

/* The kernel's arm64 probes refuse exclusive loads and stores (a trap
 * between them would clear the exclusive monitor): the load/store
 * exclusive class, bits 29-24 = 001000, which holds LDAR and STLR too:
 * they are probed after they ran, as the exclusives are. */
static bool arm64_uprobe_refuses(const uint8_t *code, size_t len)
{
	uint32_t insn;

	if (len < 4)
		return false;
	insn = (uint32_t)code[0] | (uint32_t)code[1] << 8 | (uint32_t)code[2] << 16 |
	       (uint32_t)code[3] << 24;
	return (insn & 0x3f000000u) == 0x08000000u;
}

const struct decode_arch decode_arch_aarch64 = {
	.elf_machine = EM_AARCH64,
	.name = "AArch64",
	.new_decoder = decoder_new_aarch64,
	.ops = &arm64_ops,
	.insn_width = 4,
	.perf_regs_mask = AARCH64_REGS_MASK,
	.perf_regs_names = "x0,x1,x2,x3,x4,x5,x6,x7,x8,x9,x10,x11,x12,x13,x14,x15,"
			   "x16,x17,x18,x19,x20,x21,x22,x23,x24,x25,x26,x27,x28,x29,lr,sp,pc",
	.user_end = 1ULL << 52,
	.perf_reg_of_dwarf = perf_reg_of_dwarf,
	.n_dwarf_regs = ARRAY_SIZE(perf_reg_of_dwarf),
	.perf_ip = A64_PERF_PC,
	.perf_sp = A64_PERF_SP,
	.perf_fp = A64_PERF_FP,
	.dwarf_sp = 31,
	.dwarf_fp = 29,
	.perf_go_g = 28,   /* x28 */
	.uprobe_refuses = arm64_uprobe_refuses,
};
