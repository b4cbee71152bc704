/* decode.h - machine-code decoding for the soft backend.
 *
 * A decoder turns the bytes of one instruction plus a register set into the
 * memory access that instruction makes: effective address, size and kind.
 * It is architecture-neutral at this interface: decode.c holds one row per
 * architecture (struct decode_arch), and each row's file implements it;
 * decode_x86.c does x86-64 and decode_arm64.c AArch64, both with Capstone.
 * Registers use perf's numbering for the architecture (for x86-64, enum
 * perf_event_x86_regs: AX=0 ... SS=11, R8=16 ... R15=23; for AArch64,
 * X0..X30=0..30, SP=31, PC=32).
 *
 * Two uses:
 *  - decoder_insn(): length and control-flow facts, for walking a function
 *    from its start to find instruction boundaries and branch targets;
 *  - decoder_access(): the access of one instruction.  With 'after' set the
 *    registers are the state after the instruction retired (the timer
 *    sample landed on the next instruction): an instruction that wrote its
 *    own base or index register is then refused with DECODE_CLOBBERED.
 */
#ifndef CONTEND_DECODE_H
#define CONTEND_DECODE_H

#include <elf.h>                 /* EM_*, for decoder_new_for_machine() */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* perf registers a sample holds: AArch64's X0..X30, SP and PC are 33
 * (x86-64 uses 24).  Users: perf_session.c keeps the sampled ones below
 * it, unwind.c sizes its DWARF array by it (n_dwarf_regs <= it). */
#define DECODE_MAX_REGS 33

struct regs {
	uint64_t val[DECODE_MAX_REGS];   /* perf register numbering */
	uint64_t mask;                   /* bit n set: val[n] is valid */
};

enum decode_status {
	DECODE_OK = 0,
	DECODE_INVALID,       /* bytes do not decode */
	DECODE_NO_MEMORY,     /* instruction has no memory operand */
	DECODE_NOT_ACCESS,    /* lea, nop with memory operand, prefetch: touches no memory */
	DECODE_STACK,         /* push/pop/call/ret or RSP-based: thread-private */
	DECODE_CLOBBERED,     /* wrote its own base/index register (after=true) */
	DECODE_SEGMENT,       /* fs:/gs: relative (TLS), base unknown */
	DECODE_NO_REGS,       /* a needed register was not sampled */
	DECODE_UNSUPPORTED,   /* string ops, gathers, vsib, ... */
	DECODE__COUNT
};
const char *decode_status_name(enum decode_status s);   /* short, for reports */

struct insn_info {
	uint8_t length;
	bool falls_through;   /* false for jmp, ret, ud2, hlt */
	bool is_call;
	bool is_fence;        /* orders memory, touches none of the program's */
	bool has_target;      /* direct branch or call */
	uint64_t target;
};

struct decoded_access {
	uint64_t addr;
	uint8_t size;
	uint8_t kind;         /* enum access_kind (sample.h) */
	int8_t base_reg;      /* DWARF register number of the base register, -1 if none */
	int64_t base_off;     /* addr - base register value (0 if no base) */
};

struct decoder;
struct decode_ops;                             /* decode_arch.h */

/* An architecture: its decoder and the register facts that go with it. */
struct decode_arch {
	unsigned elf_machine;                  /* EM_* */
	const char *name;
	struct decoder *(*new_decoder)(void);  /* NULL if the disassembler fails */
	const struct decode_ops *ops;          /* what decoder_*() dispatch to */
	/* Every instruction is this many bytes (AArch64: 4), so the one
	 * before ip is at ip - insn_width; 0: variable length (x86), found
	 * only by decoding the function from its start. */
	unsigned insn_width;
	uint64_t perf_regs_mask;               /* user registers to sample */
	const char *perf_regs_names;           /* the same, as perf record --user-regs= */
	/* The first address above user space (x86-64: 47 bits; AArch64: 52,
	 * the most a kernel with 52-bit VAs hands out): a computed address
	 * at or above it is a misdecode, or the kernel's. */
	uint64_t user_end;
	const uint8_t *perf_reg_of_dwarf;      /* DWARF register n -> perf number, */
	unsigned n_dwarf_regs;                 /* ... for n below this (<= DECODE_MAX_REGS) */
	int perf_ip, perf_sp, perf_fp;         /* what frame-pointer unwinding reads */
	int dwarf_sp, dwarf_fp;                /* the same, DWARF-numbered */
	/* The register Go's internal ABI keeps the running goroutine (its g)
	 * in, perf-numbered (amd64: R14, arm64: R28); -1 if none. */
	int perf_go_g;
	/* Would the kernel's uprobes refuse the instruction at code[0..len)
	 * (x86: a LOCK or segment prefix; AArch64: an exclusive load or
	 * store)?  Raw bytes: no decoder needed. */
	bool (*uprobe_refuses)(const uint8_t *code, size_t len);
};
/* NULL for an architecture without a decoder. */
const struct decode_arch *decode_arch_for_machine(unsigned elf_machine);
/* arch->uprobe_refuses(), false where the row has none. */
bool decode_uprobe_refuses(const struct decode_arch *arch, const uint8_t *code, size_t len);
/* Could a user-space access of arch touch addr?  Not the null page, not
 * at or above user_end. */
bool decode_user_address(const struct decode_arch *arch, uint64_t addr);
const struct decode_arch *decode_arch_native(void);    /* of this build */
/* The user registers to sample here (perf_regs_mask), 0 if unknown. */
uint64_t decode_native_regs_mask(void);
/* The same as perf record's --user-regs= takes them ("ax,bx,..."). */
const char *decode_native_regs_names(void);

/* NULL for an architecture without a decoder, or if its disassembler
 * fails to open; decoder_unavailable() says which (NULL: neither). */
struct decoder *decoder_new_for_machine(unsigned elf_machine);
struct decoder *decoder_new_native(void);
const char *decoder_unavailable(unsigned elf_machine);
void decoder_free(struct decoder *d);
/* The row d decodes for. */
const struct decode_arch *decoder_arch(const struct decoder *d);

/*
 * Decoders opened on first use, one per architecture, for code of
 * whichever architecture its binary is: a report of a recording made on
 * another machine reads that machine's code.  Zero-initialise; EM_NONE
 * (code in no ELF file: JIT, or unknown) asks for the native decoder.
 */
#define DECODE_MAX_ARCHES 4
struct decoder_set {
	struct decoder *dec[DECODE_MAX_ARCHES];   /* by row of decode.c */
	bool failed[DECODE_MAX_ARCHES];           /* tried, did not open */
};
/* NULL for an architecture without a row, or if it fails to open. */
struct decoder *decoder_set_get(struct decoder_set *ds, unsigned elf_machine);
void decoder_set_release(struct decoder_set *ds);   /* frees the decoders */

/* Decode one instruction at code[0..len) that lives at address ip.
 * Returns false if the bytes are not a valid instruction. */
bool decoder_insn(struct decoder *d, const uint8_t *code, size_t len,
		  uint64_t ip, struct insn_info *out);

enum decode_status decoder_access(struct decoder *d, const uint8_t *code,
				  size_t len, uint64_t ip,
				  const struct regs *regs, bool after,
				  struct decoded_access *out);

/* An instruction's memory operand as written, without registers: for
 * telling whether a loop's stores all go to one line (store_stream.h). */
struct insn_mem {
	bool access;          /* touches memory (push and call included) */
	bool writes;          /* stores (store, RMW, atomic, push, call) */
	bool stack;           /* push, pop, call, ret, or an rsp-based operand */
	bool rip_relative;    /* a global: disp is then the absolute address */
	int base, index;      /* perf register numbers, -1 if none */
	int64_t disp;
	uint8_t size;
};
/* False if the bytes are not a valid instruction. */
bool decoder_memory(struct decoder *d, const uint8_t *code, size_t len,
		    uint64_t ip, struct insn_mem *out);

/*
 * How one instruction set one register, for following a pointer back to
 * the load that produced it (detector/pointer_origin.h).  Registers here
 * are DWARF numbers, as in decoded_access.  Only the shapes pointers take
 * are told apart; any other write ends the trail (FLOW_OTHER), and so does
 * a call for the registers a callee may clobber.
 */
enum reg_flow_kind {
	FLOW_NONE,            /* the register is not written */
	FLOW_LOAD,            /* reg = the 8 bytes at mem */
	FLOW_ADDRESS,         /* reg = mem's address (lea) */
	FLOW_COPY,            /* reg = src_reg */
	FLOW_ADD_IMM,         /* reg += imm (add, sub) */
	FLOW_ADD_REG,         /* reg += src_reg */
	FLOW_ADD_LOAD,        /* reg += the 8 bytes at mem */
	FLOW_OTHER,           /* written another way */
};

struct mem_ref {
	int8_t base_reg;      /* DWARF number; -1: none, or rip */
	int8_t index_reg;     /* -1: none */
	uint8_t scale;
	int64_t disp;         /* the address itself when absolute */
	bool absolute;        /* rip-relative, or no base register */
};

struct reg_flow {
	enum reg_flow_kind kind;
	int8_t src_reg;       /* FLOW_COPY, FLOW_ADD_REG */
	int64_t imm;          /* FLOW_ADD_IMM */
	struct mem_ref mem;   /* FLOW_LOAD, FLOW_ADDRESS, FLOW_ADD_LOAD */
};

/* What the instruction at ip did to dwarf_reg; false if the bytes do
 * not decode. */
bool decoder_reg_flow(struct decoder *d, const uint8_t *code, size_t len,
		      uint64_t ip, int dwarf_reg, struct reg_flow *out);

/* Does the value the instruction at code[0] (at ip) loads decide a
 * conditional branch within the next DECODE_STEER_WINDOW instructions of
 * straight-line code: compared or tested, directly or through registers
 * it was copied or computed into, and the flags or the register read by
 * the branch?  (A check like "if (cache == mine)", whose outcome flips
 * whenever another thread stores its own value there: mispredictions
 * the samples of the load do not show.)  False if it cannot tell. */
#define DECODE_STEER_WINDOW 16
bool decoder_value_steers_branch(struct decoder *d, const uint8_t *code, size_t len,
				 uint64_t ip);

/* Longest instruction of the architecture (bytes to fetch for one). */
#define DECODE_MAX_INSN 15

#endif
