/* alloc_type.c - which variable the caller keeps a new block in (alloc_type.h). */
#include "symbolize/alloc_type.h"

#include <stdlib.h>
#include <string.h>

#include "common/hashmap.h"
#include "common/util.h"
#include "symbolize/decode.h"
#include "symbolize/symbolizer.h"

/* DWARF registers followed: x86-64's 17 general ones (0 = rax, the
 * return register). */
#define FOLLOWED_REGS 17
#define RETURN_REG 0

struct type_answer {
	enum data_types_miss miss;
	const struct dt_pointer *ptr;
};

struct alloc_types {
	struct symbolizer *sym;
	struct data_types *dt;
	struct decoder *dec;
	struct hashmap cache;         /* (pid, ret) -> struct type_answer * */
};

struct cache_key {
	uint32_t pid, pad;
	uint64_t ret;
};

struct alloc_types *alloc_types_new(struct symbolizer *sym, struct data_types *dt)
{
	struct decoder *dec = decoder_new_native();
	struct alloc_types *at;

	if (!dec || decode_arch_native()->elf_machine != EM_X86_64) {
		decoder_free(dec);
		return NULL;   /* the register numbers below are x86-64's */
	}
	at = xcalloc(1, sizeof(*at));
	at->sym = sym;
	at->dt = dt;
	at->dec = dec;
	hashmap_init(&at->cache, sizeof(struct cache_key));
	return at;
}

void alloc_types_free(struct alloc_types *at)
{
	if (!at)
		return;
	hashmap_release(&at->cache, free);
	decoder_free(at->dec);
	free(at);
}

/* Which registers hold the value after the instruction: a copy adds its
 * destination, any other write takes the register out. */
static uint32_t next_holders(struct alloc_types *at, const uint8_t *code, size_t len,
			     uint64_t ip, uint32_t holders)
{
	uint32_t out = holders;

	for (int r = 0; r < FOLLOWED_REGS; r++) {
		struct reg_flow f;

		if (!decoder_reg_flow(at->dec, code, len, ip, r, &f))
			return 0;
		if (f.kind == FLOW_NONE)
			continue;
		if (f.kind == FLOW_COPY && f.src_reg >= 0 && f.src_reg < FOLLOWED_REGS &&
		    (holders >> f.src_reg & 1))
			out |= 1u << r;
		else
			out &= ~(1u << r);
	}
	return out;
}

static enum data_types_miss follow(struct alloc_types *at, pid_t pid, uint64_t ret,
				   const struct dt_pointer **out)
{
	uint8_t code[ALLOC_TYPE_INSNS * DECODE_MAX_INSN];
	struct Dwfl_Module *mod;
	enum data_types_miss miss = DT_NO_VARIABLE;
	uint32_t holders = 1u << RETURN_REG;
	uint64_t bias, ip = ret;
	size_t len, at_byte = 0;

	mod = symbolizer_module(at->sym, pid, ret, &bias);
	if (!mod)
		return DT_NO_DWARF;
	len = symbolizer_read(at->sym, pid, ret, code, sizeof(code));
	for (int n = 0; n < ALLOC_TYPE_INSNS && holders; n++) {
		struct insn_info info;

		for (int r = 0; r < FOLLOWED_REGS; r++) {
			enum data_types_miss m;

			if (!(holders >> r & 1))
				continue;
			m = data_types_register_pointer(at->dt, mod, bias, ip, r, out);
			if (m == DT_HIT)
				return DT_HIT;
			if (m == DT_NO_DWARF)
				return m;
		}
		/* a jump or a call ends the trail; a conditional branch is
		 * followed where it falls through: after "if (!p) die()"
		 * the compiler tests the value and branches away to the error
		 * path before the variable that keeps it begins */
		if (at_byte >= len ||
		    !decoder_insn(at->dec, code + at_byte, len - at_byte, ip, &info) ||
		    !info.falls_through || info.is_call)
			break;
		holders = next_holders(at, code + at_byte, len - at_byte, ip, holders);
		at_byte += info.length;
		ip += info.length;
	}
	return miss;
}

enum data_types_miss alloc_type_at(struct alloc_types *at, pid_t pid, uint64_t ret,
				   const struct dt_pointer **out)
{
	struct cache_key k = { .pid = (uint32_t)pid, .ret = ret };
	struct type_answer *a = hashmap_get(&at->cache, &k);

	if (!a) {
		a = xcalloc(1, sizeof(*a));
		a->miss = follow(at, pid, ret, &a->ptr);
		hashmap_put(&at->cache, &k, a);
	}
	*out = a->miss == DT_HIT ? a->ptr : NULL;
	return a->miss;
}
