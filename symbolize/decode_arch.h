/* decode_arch.h - what an architecture's decoder file provides, for
 * decode.c and the decoder files only (nothing else includes it).
 *
 * A decoder starts with struct decoder, which names its row; the row's
 * operations get the decoder back and reach their own state with
 * container_of().  decode.c's public functions (decode.h) only dispatch.
 */
#ifndef CONTEND_DECODE_ARCH_H
#define CONTEND_DECODE_ARCH_H

#include "symbolize/decode.h"

struct decoder {
	const struct decode_arch *arch;
};

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
};

/* Defined by each architecture's decoder file. */
extern const struct decode_arch decode_arch_x86_64;
extern const struct decode_arch decode_arch_aarch64;

#endif
