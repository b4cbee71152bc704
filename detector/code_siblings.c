/* code_siblings.c - accesses through the same pointer (code_siblings.h). */
#include "detector/code_siblings.h"

#include <stdlib.h>

#include "common/util.h"
#include "detector/watch.h"
#include "symbolize/decode.h"
#include "symbolize/symbolizer.h"

/* a larger function is not read: a line's planning decodes the function
 * of each of its hot sites, about 0.6 us an instruction */
#define MAX_FUNC_BYTES (16 * 1024)

/* Where mem (at its instruction) would access, given that anchor, at
 * its own, accessed addr; false if not through the same pointer. */
static bool same_pointer(const struct insn_mem *anchor, uint64_t addr,
			 const struct insn_mem *mem, uint64_t *at)
{
	if (!mem->access || mem->stack || mem->index >= 0)
		return false;
	if (anchor->rip_relative || mem->rip_relative) {
		*at = (uint64_t)mem->disp;
		return anchor->rip_relative && mem->rip_relative;
	}
	*at = addr - (uint64_t)anchor->disp + (uint64_t)mem->disp;
	return mem->base >= 0 && mem->base == anchor->base;
}

static bool word_taken(const struct code_sibling *out, unsigned n, uint64_t word)
{
	for (unsigned i = 0; i < n; i++)
		if (out[i].addr / WATCH_WORD == word)
			return true;
	return false;
}

unsigned code_siblings(struct symbolizer *sym, struct decoder_set *decs, pid_t pid,
		       uint64_t ip, uint64_t addr, uint64_t line, unsigned line_size,
		       struct code_sibling *out, unsigned max)
{
	struct func_info fi;
	struct insn_mem anchor, mem;
	struct decoder *dec;
	uint8_t *code;
	size_t len, off = 0;
	unsigned n = 0;

	if (!(code = symbolizer_function_code(sym, pid, ip, MAX_FUNC_BYTES, &fi, &len)))
		return 0;
	if (!(dec = decoder_set_get(decs, symbolizer_machine(sym, pid, fi.start)))) {
		free(code);
		return 0;
	}
	if (ip - fi.start >= len ||
	    !decoder_memory(dec, code + (ip - fi.start), len - (ip - fi.start), ip, &anchor) ||
	    !anchor.access || anchor.stack || anchor.index >= 0 ||
	    (anchor.base < 0 && !anchor.rip_relative)) {
		free(code);
		return 0;
	}
	while (off < len && n < max) {
		struct insn_info ii;
		uint64_t at;

		if (!decoder_insn(dec, code + off, len - off, fi.start + off, &ii) || !ii.length)
			break;
		if (fi.start + off != ip &&
		    decoder_memory(dec, code + off, len - off, fi.start + off, &mem) &&
		    same_pointer(&anchor, addr, &mem, &at) && at >= line && at - line < line_size &&
		    at / WATCH_WORD != addr / WATCH_WORD && !word_taken(out, n, at / WATCH_WORD))
			out[n++] = (struct code_sibling){
				.addr = at, .writes = mem.writes,
				.site = { .ip = fi.start + off, .alt = fi.start + off + ii.length } };
		off += ii.length;
	}
	free(code);
	return n;
}
