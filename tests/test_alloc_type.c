/* test_alloc_type.c - the type of a heap block, from the code that
 * allocated it, and the calls that inlined that code.
 *
 * tests/fixture_alloc_wrapper (-O2, mapped into a made-up process, never
 * run) calls calloc in zalloc(), inlined into counters_new(), inlined
 * into main(), whose variable c keeps the block as struct counters *.
 * Right after the call the code tests the pointer and branches away to
 * the error path; main's c begins only after that branch, so the type is
 * found only by following the branch's fall-through.
 */
#include <stdlib.h>
#include <string.h>

#include "tap.h"
#include "elf_fixture.h"
#include "common/util.h"
#include "symbolize/alloc_type.h"
#include "symbolize/data_types.h"
#include "symbolize/decode.h"
#include "symbolize/symbolizer.h"

#define PID 4242
#define LOAD_BASE 0x555555554000ULL

/* The return address of main's first call (calloc), 0 if none found. */
static uint64_t first_call_return(struct symbolizer *sym, uint64_t fn)
{
	struct decoder *dec = decoder_new_native();
	uint8_t code[512];
	size_t len = symbolizer_read(sym, PID, fn, code, sizeof(code)), at = 0;
	uint64_t ret = 0;

	while (dec && at < len) {
		struct insn_info info;

		if (!decoder_insn(dec, code + at, len - at, fn + at, &info) || !info.length)
			break;
		at += info.length;
		if (info.is_call) {
			ret = fn + at;
			break;
		}
	}
	decoder_free(dec);
	return ret;
}

/* The line holding a marker comment in the fixture's source. */
static int marker_line(const char *src, const char *marker)
{
	FILE *f = fopen(src, "r");
	char buf[512];
	int n = 0, found = 0;

	while (f && fgets(buf, sizeof(buf), f) && !found) {
		n++;
		if (strstr(buf, marker))
			found = n;
	}
	if (f)
		fclose(f);
	return found;
}

int main(void)
{
	const char *top = getenv("top_builddir"), *srcdir = getenv("top_srcdir");
	char *path = xasprintf("%s/tests/fixture_alloc_wrapper", top ? top : ".");
	char *src = xasprintf("%s/tests/fixture_alloc_wrapper.c", srcdir ? srcdir : "..");
	struct symbolizer *sym;
	struct data_types *dt;
	struct alloc_types *at;
	const struct dt_pointer *p = NULL;
	struct data_attribution whole;
	struct source_loc in[4];
	struct elf_file f;
	uint64_t fn, ret;
	unsigned n;

	if (access(path, R_OK) || !elf_file_open(&f, path)) {
		free(path);
		free(src);
		return test_skip("tests/fixture_alloc_wrapper not built");
	}
	sym = symbolizer_new();
	dt = data_types_new();
	elf_fixture_map(&f, sym, PID, LOAD_BASE, path);
	fn = elf_fixture_symbol(&f, LOAD_BASE, "main");
	ret = fn ? first_call_return(sym, fn) : 0;
	CHECK(fn && ret, "main and its first call");
	at = alloc_types_new(sym, dt);
	CHECK(at, "a decoder for this machine");

	if (at && ret) {
		CHECK_EQ_U64(alloc_type_at(at, PID, ret, &p), DT_HIT,
			     "the block's type past the if (!p) branch");
		CHECK(p && data_types_through_pointer(dt, p, 0, false, 0x1000, 0, &whole) ==
			   DT_HIT && whole.type_name && !strcmp(whole.type_name, "struct counters"),
		      "struct counters");
		CHECK(whole.variable && !strcmp(whole.variable, "c"), "kept in main's c");
	}

	n = ret ? symbolizer_inline_callers(sym, PID, ret - 1, in, 4) : 0;
	CHECK_EQ_U64(n, 2, "calloc's call was inlined twice");
	CHECK(n == 2 && in[0].function && !strcmp(in[0].function, "counters_new") &&
	      in[0].line == marker_line(src, "COUNTERS_NEW_LINE"),
	      "zalloc was called in counters_new");
	CHECK(n == 2 && in[1].function && !strcmp(in[1].function, "main") &&
	      in[1].line == marker_line(src, "MAIN_LINE") && in[1].file &&
	      strstr(in[1].file, "fixture_alloc_wrapper.c"),
	      "counters_new was called in main");

	alloc_types_free(at);
	data_types_free(dt);
	symbolizer_free(sym);
	elf_file_close(&f);
	free(path);
	free(src);
	return test_done();
}
