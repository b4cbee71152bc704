/* Unit tests for detector/code_siblings.c, on this process's own code:
 * touch() stores o->cache and loads o->supers and o->far[10] through the
 * one pointer; from the store, the load of supers (same line) is a
 * sibling, far[10] (the next line) is not, nor is the store itself. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/util.h"
#include "detector/code_siblings.h"
#include "symbolize/decode.h"
#include "symbolize/symbolizer.h"
#include "tests/tap.h"

struct obj {
	long pad0, cache, supers;
	long far[20];
};

static struct obj the_obj __attribute__((aligned(64)));

static __attribute__((noinline)) long touch(struct obj *o, long v)
{
	long s = o->supers;

	o->cache = v;
	return s + o->far[10];
}

/* touch()'s store through its pointer: the first store not to the stack */
static uint64_t store_in(struct symbolizer *sym, struct decoder_set *decs, pid_t pid)
{
	struct func_info fi;
	struct decoder *dec;
	uint8_t code[4096];
	size_t len, off = 0;

	if (!symbolizer_function(sym, pid, (uintptr_t)touch, &fi) || fi.end <= fi.start ||
	    !(dec = decoder_set_get(decs, symbolizer_machine(sym, pid, fi.start))))
		return 0;
	len = symbolizer_read(sym, pid, fi.start, code, fi.end - fi.start < sizeof(code) ?
			      fi.end - fi.start : sizeof(code));
	while (off < len) {
		struct insn_info ii;
		struct insn_mem mem;

		if (!decoder_insn(dec, code + off, len - off, fi.start + off, &ii) || !ii.length)
			return 0;
		if (decoder_memory(dec, code + off, len - off, fi.start + off, &mem) &&
		    mem.access && mem.writes && !mem.stack && mem.index < 0 && mem.base >= 0)
			return fi.start + off;
		off += ii.length;
	}
	return 0;
}

int main(void)
{
	struct symbolizer *sym = symbolizer_new();
	struct decoder_set decs = { 0 };
	struct code_sibling out[8];
	pid_t pid = getpid();
	uint64_t line = (uintptr_t)&the_obj, ip;
	struct func_info fi;
	unsigned n;

	warnings_quiet = true;
	symbolizer_load_proc_maps(sym, pid);
	CHECK(touch(&the_obj, 1) == 0, "touch() runs");
	ip = store_in(sym, &decs, pid);
	CHECK(ip, "touch() stores through its pointer");
	symbolizer_function(sym, pid, (uintptr_t)touch, &fi);
	n = ip ? code_siblings(sym, &decs, pid, ip, (uintptr_t)&the_obj.cache, line, 64,
			       out, ARRAY_SIZE(out)) : 0;
	CHECK_EQ_U64(n, 1, "one sibling on the line");
	CHECK(n >= 1 && out[0].addr == (uintptr_t)&the_obj.supers && !out[0].writes,
	      "the load of supers: 0x%" PRIx64 " (want %p)", n ? out[0].addr : 0,
	      (void *)&the_obj.supers);
	CHECK(n >= 1 && out[0].site.ip >= fi.start && out[0].site.ip < fi.end &&
	      out[0].site.ip != ip && out[0].site.alt > out[0].site.ip,
	      "its instruction is touch()'s, the next one its alt");
	n = ip ? code_siblings(sym, &decs, pid, ip, (uintptr_t)&the_obj.cache, line, 64,
			       out, 0) : 1;
	CHECK_EQ_U64(n, 0, "max 0: none");
	CHECK_EQ_U64(code_siblings(sym, &decs, pid, 0x10, 0x1000, 0x1000, 64, out, 8), 0,
		     "no function at 0x10");
	decoder_set_release(&decs);
	symbolizer_free(sym);
	return test_done();
}
