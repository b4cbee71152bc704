/* decode_arch.h - what an architecture's decoder file provides, for
 * decode.c and the decoder files only (nothing else includes it).
 *
 * A decoder starts with struct decoder, which names its row; the row's
 * operations get the decoder back and reach their own state with
 * container_of().  decode.c's public functions (decode.h) only dispatch.
 */
#ifndef CONTEND_DECODE_ARCH_H
#define CONTEND_DECODE_ARCH_H

#include <capstone/capstone.h>

#include "symbolize/decode.h"

struct decoder {
	const struct decode_arch *arch;
};

/* Every decoder here is Capstone's: a handle in detail mode and one
 * instruction buffer that every call reuses (decode_capstone.c). */
struct cs_decoder {
	struct decoder base;
	csh cs;
	cs_insn *insn;
};

/* NULL if Capstone cannot open the architecture. */
struct decoder *cs_decoder_new(const struct decode_arch *arch, cs_arch cs_arch, cs_mode mode);
void cs_decoder_free(struct decoder *d);
/* The one instruction in code[0..len) at ip, valid until the next call;
 * NULL if the bytes do not decode. */
const cs_insn *cs_decoder_one(struct decoder *d, const uint8_t *code, size_t len, uint64_t ip);
static inline csh cs_handle(const struct decoder *d)
{
	return ((const struct cs_decoder *)d)->cs;
}

struct decode_ops {
	void (*free)(struct decoder *d);
	bool (*insn)(struct decoder *d, const uint8_t *code, size_t len,
		     uint64_t ip, struct insn_info *out);
	enum decode_status (*access)(struct decoder *d, const uint8_t *code,
				     size_t len, uint64_t ip,
				     const struct regs *regs, bool after,
				     struct decoded_access *out);
	bool (*memory)(struct decoder *d, const uint8_t *code, size_t len,
		       uint64_t ip, struct insn_mem *out);
	bool (*reg_flow)(struct decoder *d, const uint8_t *code, size_t len,
			 uint64_t ip, int dwarf_reg, struct reg_flow *out);
	/* The registers the instruction reads and writes, as bit masks of
	 * perf numbers, with DECODE_FLAGS_BIT for the condition flags. */
	bool (*regs_touched)(struct decoder *d, const uint8_t *code, size_t len,
			     uint64_t ip, uint64_t *read, uint64_t *written);
};

#define DECODE_FLAGS_BIT (1ULL << 63)

/* cs_regs_access() of the instruction as masks of reg_bit(): false if
 * Capstone cannot say. */
bool cs_regs_masks(struct decoder *d, const cs_insn *insn, int (*reg_bit)(unsigned int reg),
		   uint64_t *read, uint64_t *written);

/* Defined by each architecture's decoder file. */
extern const struct decode_arch decode_arch_x86_64;
extern const struct decode_arch decode_arch_aarch64;

#endif
