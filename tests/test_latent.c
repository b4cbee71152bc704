/* test_latent.c - latent false sharing's placements and advice on
 * hand-built pairs (reports/latent.h), and the heap-block sentence every
 * printer shares (reports/alloc_text.h).
 *
 * The pair is latent_slots' with --shift 0: [0].sum at 40 and [1].count
 * at 72 of an array of 64-byte struct slot (aligned to 8), 24 bytes
 * apart, on two lines where the array starts a line.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/util.h"
#include "reports/alloc_text.h"
#include "printers/printers.h"
#include "reports/latent.h"
#include "tap.h"

#define BLOCK 0x55d77fb11040ull

static char *callers[] = { "__libc_start_call_main" };

static struct report_alloc block(const char *call, uint64_t align, uint64_t size)
{
	return (struct report_alloc){
		.start = BLOCK, .size = size, .call = call, .align = align, .tid = 25311,
		.site = "main latent_slots.c:103", .freed = true,
		.callers = callers, .n_callers = 1,
	};
}

/* The pair at element 0's offset shift into the block a (NULL: untracked). */
static struct report_latent slots(struct report_alloc *a, uint64_t shift,
				  uint64_t elem_size, uint64_t type_align)
{
	uint64_t start = BLOCK + shift;

	return (struct report_latent){
		.object = "struct slot[] at [heap]+0x40", .type_name = "struct slot",
		.object_start = start, .type_size = elem_size, .type_align = type_align,
		.heap = true, .alloc = a,
		.a = { .tid = 1, .addr = start + 40, .size = 8, .member = "[0].sum", .writes = 600 },
		.b = { .tid = 2, .addr = start + elem_size + 8, .size = 8, .member = "[1].count",
		       .writes = 150 },
		.gap = elem_size - 40,
	};
}

static bool placement_is(const struct report_latent *lt, unsigned i, unsigned L,
			 uint64_t align, unsigned sharing, unsigned total,
			 enum placement_basis basis)
{
	const struct report_placement *p = &lt->placements[i];

	if (i < lt->n_placements && p->line_size == L && p->align == align &&
	    p->sharing == sharing && p->total == total && p->basis == basis)
		return true;
	fprintf(stderr, "# placement %u: want %u/%u at %lu on %u (%d), have", i,
		sharing, total, (unsigned long)align, L, basis);
	for (unsigned k = 0; k < lt->n_placements; k++)
		fprintf(stderr, " %u/%u@%lu/%u(%d)", lt->placements[k].sharing,
			lt->placements[k].total, (unsigned long)lt->placements[k].align,
			lt->placements[k].line_size, lt->placements[k].basis);
	fputc('\n', stderr);
	return false;
}

static bool has(const char *text, const char *part)
{
	if (text && strstr(text, part))
		return true;
	fprintf(stderr, "# no \"%s\" in \"%s\"\n", part, text ? text : "(null)");
	return false;
}

/* aligned_alloc(64, ...) keeps the array line-aligned: the placements at
 * its alignment, and advice that says so instead of "nothing keeps it". */
static void test_aligned_alloc(void)
{
	struct report_alloc a = block("aligned_alloc", 64, 192);
	struct report_latent lt = slots(&a, 0, 64, 8);
	char *text, *advice;

	CHECK_EQ_U64(latent_alloc_align(&lt), 64, "aligned_alloc(64): its alignment counts");
	latent_fill_placements(&lt);
	CHECK_EQ_U64(lt.n_placements, 6, "six placements");
	CHECK(placement_is(&lt, 0, 64, 64, 0, 1, PLACEMENT_ALLOCATION) &&
	      placement_is(&lt, 1, 64, 16, 2, 4, PLACEMENT_MALLOC) &&
	      placement_is(&lt, 2, 64, 8, 4, 8, PLACEMENT_TYPE) &&
	      placement_is(&lt, 3, 128, 64, 1, 2, PLACEMENT_ALLOCATION) &&
	      placement_is(&lt, 4, 128, 16, 6, 8, PLACEMENT_MALLOC) &&
	      placement_is(&lt, 5, 128, 8, 12, 16, PLACEMENT_TYPE),
	      "aligned_alloc(64): 0 of 1 on 64-byte lines, 1 of 2 on 128");
	text = latent_placements_text(&lt);
	CHECK_STR(text, "0 of 1 placements at 64-byte alignment (aligned_alloc's), 2 of 4 at "
		  "16-byte alignment (malloc's), 4 of 8 at 8-byte alignment (the type's) on "
		  "64-byte lines; 1 of 2 placements at 64-byte alignment (aligned_alloc's), 6 "
		  "of 8 at 16-byte alignment (malloc's), 12 of 16 at 8-byte alignment (the "
		  "type's) on 128-byte lines", "placements in words");
	free(text);

	advice = latent_advice(&lt, 64, ADVICE_C);
	CHECK(has(advice, "struct slot is 64 bytes, a multiple of the 64-byte line, and "
		  "aligned_alloc(64, 192) keeps the array line-aligned: that alignment is what "
		  "keeps the two apart now, so keep it (plain malloc would put them on one line "
		  "in 2 of 4 placements)") &&
	      has(advice, "_Alignas(64) on the struct's first member") &&
	      has(advice, "malloc does not, so keep aligned_alloc on the heap") &&
	      has(advice, "they still share a line in 1 of 2 placements at 64-byte alignment: "
		  "pad struct slot to 128 bytes and align it to 128"),
	      "aligned_alloc(64): keep it, _Alignas, 128");
	CHECK(!strstr(advice, "nothing keeps"), "aligned_alloc(64): not \"nothing keeps\": %s",
	      advice);
	free(advice);

	advice = latent_advice(&lt, 64, ADVICE_CXX);
	CHECK(has(advice, "plain malloc or new would put them on one line in 2 of 4") &&
	      has(advice, "alignas(64) on the struct's first member (new and std::vector "
		  "honour it from C++17"), "C++: new, alignas");
	free(advice);

	/* Rust: the struct carries the alignment, and Box, Arc and Vec keep it */
	advice = latent_advice(&lt, 64, ADVICE_RUST);
	CHECK(has(advice, "put #[repr(align(64))] on the struct (Box, Arc, Vec and statics "
		  "honour it, so no allocation call has to)") && !has(advice, "_Alignas") &&
	      !has(advice, "alignas("), "Rust: #[repr(align)]: %s", advice);
	free(advice);
}

/* Where the record says no alignment, nothing is claimed from where the
 * block happens to start. */
static void test_unaligned_blocks(void)
{
	struct report_alloc m = block("malloc", 0, 192), w = block(NULL, 0, 192);
	struct report_latent lt = slots(&m, 0, 64, 8);
	char *advice;

	latent_fill_placements(&lt);
	CHECK(lt.n_placements == 4 && placement_is(&lt, 0, 64, 16, 2, 4, PLACEMENT_MALLOC) &&
	      placement_is(&lt, 1, 64, 8, 4, 8, PLACEMENT_TYPE),
	      "malloc: malloc's and the type's only");
	advice = latent_advice(&lt, 64, ADVICE_C);
	CHECK(has(advice, "but nothing keeps the array line-aligned: align it to 64 bytes "
		  "(_Alignas(64) on the struct's first member; aligned_alloc(64, ...) on the "
		  "heap)"), "malloc: nothing keeps it aligned");
	free(advice);

	/* read from the heap under attach: 64-aligned by address, no record */
	w.walked = true;
	w.usable = 200;
	lt = slots(&w, 0, 64, 8);
	CHECK_EQ_U64(latent_alloc_align(&lt), 0, "walked: no alignment from the address");
	latent_fill_placements(&lt);
	CHECK_EQ_U64(lt.n_placements, 4, "walked: no allocation placement");
	advice = latent_advice(&lt, 64, ADVICE_C);
	CHECK(has(advice, "but no allocation record shows the array line-aligned"),
	      "walked: says what is unknown");
	free(advice);

	/* untracked */
	lt = slots(NULL, 0, 64, 8);
	latent_fill_placements(&lt);
	CHECK_EQ_U64(lt.n_placements, 4, "untracked: four placements");
	advice = latent_advice(&lt, 64, ADVICE_C);
	CHECK(has(advice, "no allocation record shows"), "untracked: unknown");
	free(advice);
}

/* The recorded alignment counts only where it says more, and keeps the
 * array aligned only where the array starts a line of the block. */
static void test_other_alignments(void)
{
	struct report_alloc a = block("aligned_alloc", 64, 256);
	struct report_latent lt = slots(&a, 32, 64, 8);
	char *advice, *text;

	/* 32 bytes into a 64-aligned block: one line now, whatever the heap */
	latent_fill_placements(&lt);
	CHECK(placement_is(&lt, 0, 64, 64, 1, 1, PLACEMENT_ALLOCATION),
	      "shifted 32: 1 of 1 at the allocation's alignment");
	advice = latent_advice(&lt, 64, ADVICE_C);
	CHECK(has(advice, "but the array is not kept line-aligned (aligned_alloc(64, 256) "
		  "aligns the block to 64 bytes, and the array does not start a line of it)"),
	      "shifted 32: not kept aligned");
	free(advice);

	a = block("aligned_alloc", 32, 192);
	lt = slots(&a, 0, 64, 8);
	latent_fill_placements(&lt);
	CHECK(placement_is(&lt, 0, 64, 32, 1, 2, PLACEMENT_ALLOCATION),
	      "aligned_alloc(32): 1 of 2");
	advice = latent_advice(&lt, 64, ADVICE_C);
	CHECK(has(advice, "(aligned_alloc(32, 192) aligns the block to 32 bytes only)"),
	      "aligned_alloc(32): only 32");
	free(advice);

	a = block("aligned_alloc", 16, 192);
	lt = slots(&a, 0, 64, 8);
	CHECK_EQ_U64(latent_alloc_align(&lt), 0, "aligned_alloc(16): malloc's already");

	/* a type aligned to the line says it all */
	a = block("aligned_alloc", 64, 192);
	lt = slots(&a, 0, 64, 64);
	CHECK_EQ_U64(latent_alloc_align(&lt), 0, "type aligned to 64: the type's already");

	/* posix_memalign(128): apart on 128-byte lines too */
	a = block("posix_memalign", 128, 192);
	lt = slots(&a, 0, 64, 8);
	latent_fill_placements(&lt);
	CHECK(placement_is(&lt, 0, 64, 128, 0, 1, PLACEMENT_ALLOCATION) &&
	      placement_is(&lt, 3, 128, 128, 0, 1, PLACEMENT_ALLOCATION),
	      "posix_memalign(128): 0 of 1 on both");
	text = latent_placements_text(&lt);
	CHECK(has(text, "0 of 1 placements at 128-byte alignment (the allocation's)"),
	      "posix_memalign: the allocation's");
	free(text);
	advice = latent_advice(&lt, 64, ADVICE_C);
	CHECK(has(advice, "posix_memalign(128, 192) keeps the array line-aligned") &&
	      has(advice, "keep posix_memalign on the heap") &&
	      !strstr(advice, "128-byte lines"), "posix_memalign(128): no 128 clause: %s",
	      advice);
	free(advice);

	/* 48-byte elements in an aligned block: the padding, and keep it */
	a = block("aligned_alloc", 64, 192);
	lt = slots(&a, 0, 48, 8);
	latent_fill_placements(&lt);
	advice = latent_advice(&lt, 64, ADVICE_C);
	CHECK(has(advice, "pad struct slot from 48 to 64 bytes (cost +16 bytes per element); "
		  "aligned_alloc(64, 192) keeps the array aligned to 64: keep it"),
	      "48-byte elements: pad, keep the alignment");
	free(advice);
	/* the pair in elements 1 and 2: still the array of the block's start */
	lt = slots(&a, 48, 48, 8);
	latent_fill_placements(&lt);
	advice = latent_advice(&lt, 64, ADVICE_C);
	CHECK(has(advice, "aligned_alloc(64, 192) keeps the array aligned to 64: keep it"),
	      "48-byte elements 1 and 2: kept");
	free(advice);
	/* 16 bytes in: no element of an array at the block's start */
	lt = slots(&a, 16, 48, 8);
	latent_fill_placements(&lt);
	advice = latent_advice(&lt, 64, ADVICE_C);
	CHECK(has(advice, "pad struct slot from 48 to 64 bytes and align the array to 64"),
	      "48-byte elements 16 bytes in: not kept");
	free(advice);

	/* one object (a struct, not an array) at the block's start */
	lt = slots(&a, 0, 64, 8);
	lt.type_size = 0;
	latent_fill_placements(&lt);
	advice = latent_advice(&lt, 64, ADVICE_C);
	CHECK(has(advice, "start [1].count on its own 64-byte line (_Alignas(64) on it), away "
		  "from [0].sum: at most 63 bytes of padding; aligned_alloc(64, 192) aligns the "
		  "object to 64 already: keep it (plain malloc would put them on one line in 2 "
		  "of 4 placements)"), "one object: kept");
	free(advice);
}

/* C++17's aligned new (new of an alignas(64) type, or new
 * (std::align_val_t(64))): spelled as the code calls it, and its
 * alignment keeps the array as aligned_alloc's does. */
static void test_aligned_new(void)
{
	struct report_alloc a = block("operator new[]", 64, 192);
	struct report_latent lt = slots(&a, 0, 64, 8);
	char *s = alloc_sentence(&a), *advice;

	CHECK_STR(s, "operator new[](192, std::align_val_t(64)) = 192 bytes at 0x55d77fb11040, "
		  "allocated in main latent_slots.c:103 <- __libc_start_call_main by thread 25311, "
		  "freed before the end", "aligned new: the sentence");
	free(s);
	CHECK_EQ_U64(latent_alloc_align(&lt), 64, "aligned new(64): its alignment counts");
	latent_fill_placements(&lt);
	CHECK(placement_is(&lt, 0, 64, 64, 0, 1, PLACEMENT_ALLOCATION),
	      "aligned new(64): 0 of 1 at the allocation's alignment");
	advice = latent_advice(&lt, 64, ADVICE_CXX);
	CHECK(has(advice, "operator new[](192, std::align_val_t(64)) keeps the array "
		  "line-aligned: that alignment is what keeps the two apart now, so keep it "
		  "(plain malloc or new would put them on one line in 2 of 4 placements)"),
	      "aligned new(64): keep it");
	free(advice);
}

/* One sentence for the heap block, raw: each printer escapes it. */
static void test_alloc_sentence(void)
{
	struct report_alloc a = block("aligned_alloc", 64, 192);
	char *s = alloc_sentence(&a);

	CHECK_STR(s, "aligned_alloc(64, 192) = 192 bytes at 0x55d77fb11040, allocated in main "
		  "latent_slots.c:103 <- __libc_start_call_main by thread 25311, freed before "
		  "the end", "alloc sentence: callers right after the site");
	free(s);
	a.site = "ma\x1bin x.c:1";
	a.n_callers = 0;
	a.freed = false;
	s = alloc_sentence(&a);
	CHECK_STR(s, "aligned_alloc(64, 192) = 192 bytes at 0x55d77fb11040, allocated in "
		  "ma\x1bin x.c:1 by thread 25311", "alloc sentence: raw names, no callers");
	free(s);
}

static char *render(const struct report *r, void (*print)(const struct report *, FILE *))
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	if (!f)
		die("open_memstream failed");
	print(r, f);
	fclose(f);
	return buf;
}

/* Each format shows the allocation's placements and the heap block, the
 * site escaped its way (a name from the target). */
static void test_printers(void)
{
	struct report_alloc a = block("aligned_alloc", 64, 192);
	struct report_latent lt = slots(&a, 0, 64, 8);
	struct report r = { .line_size = 64, .latent = &lt, .n_latent = 1 };
	char *out;

	a.site = "main<b> latent_slots.c:103";
	latent_fill_placements(&lt);
	lt.advice = latent_advice(&lt, 64, ADVICE_C);
	out = render(&r, report_print_text);
	CHECK(has(out, "   heap block: aligned_alloc(64, 192) = 192 bytes at 0x55d77fb11040, "
		  "allocated in main<b>\n") &&
	      has(out, "   they share a line in 0 of 1 placements at 64-byte alignment "
		  "(aligned_alloc's), 2 of 4 at 16-byte") &&
	      has(out, "   advice: struct slot is 64 bytes, a multiple of the 64-byte line, and "
		  "aligned_alloc(64, 192) keeps") && !strstr(out, "nothing keeps"),
	      "text: heap block, placements, advice");
	free(out);
	out = render(&r, report_print_json);
	CHECK(has(out, "\"allocation_align\": 64") &&
	      has(out, "{ \"line_size\": 64, \"align\": 64, \"sharing\": 0, \"total\": 1, "
		  "\"alignment_of\": \"allocation\" }") &&
	      has(out, "\"alignment_of\": \"malloc\"") && has(out, "\"name\": \"main<b> latent"),
	      "JSON: allocation_align, alignment_of");
	free(out);
	out = render(&r, report_print_html);
	CHECK(has(out, "heap block: aligned_alloc(64, 192) = 192 bytes at 0x55d77fb11040, "
		  "allocated in main&lt;b&gt; latent_slots.c:103 &lt;- __libc_start_call_main by "
		  "thread 25311") &&
	      has(out, "0 of 1 placements at 64-byte alignment (aligned_alloc&#39;s)") &&
	      has(out, "aligned_alloc(64, 192) keeps the array line-aligned"),
	      "HTML: heap block escaped, placements, advice");
	free(out);
	free(lt.advice);
}

/* A global declared _Alignas(64) (on the variable, not its type): the
 * declaration keeps the array line-aligned, as an aligned allocation
 * would; the advice says to keep it, not that nothing keeps it. */
static void test_declared_alignment(void)
{
	struct report_latent lt = slots(NULL, 0, 64, 8);
	struct report r = { .line_size = 64, .latent = &lt, .n_latent = 1 };
	char *text, *advice, *out;

	lt.heap = false;
	lt.object = "slots";
	lt.decl_align = 64;
	CHECK_EQ_U64(latent_decl_align(&lt), 64, "_Alignas(64) on the variable counts");
	CHECK_EQ_U64(latent_alloc_align(&lt), 0, "... and is no allocation's");
	latent_fill_placements(&lt);
	CHECK(lt.n_placements == 4 &&
	      placement_is(&lt, 0, 64, 64, 0, 1, PLACEMENT_DECLARATION) &&
	      placement_is(&lt, 1, 64, 8, 4, 8, PLACEMENT_TYPE) &&
	      placement_is(&lt, 2, 128, 64, 1, 2, PLACEMENT_DECLARATION) &&
	      placement_is(&lt, 3, 128, 8, 12, 16, PLACEMENT_TYPE),
	      "declared 64: 0 of 1 on 64-byte lines, 1 of 2 on 128; no malloc's");
	text = latent_placements_text(&lt);
	CHECK(has(text, "0 of 1 placements at 64-byte alignment (the declaration's), 4 of 8 "
		  "at 8-byte alignment (the type's) on 64-byte lines"), "declared: in words");
	free(text);
	advice = latent_advice(&lt, 64, ADVICE_C);
	CHECK(has(advice, "struct slot is 64 bytes, a multiple of the 64-byte line, and "
		  "_Alignas(64) on the declaration of slots keeps the array line-aligned: that "
		  "alignment is what keeps the two apart now, so keep it (at the type's 8-byte "
		  "alignment they would share a line in 4 of 8 placements)") &&
	      has(advice, "put _Alignas(64) on the struct's first member") &&
	      !strstr(advice, "nothing keeps"), "declared 64: keep it");
	lt.advice = advice;
	out = render(&r, report_print_json);
	CHECK(has(out, "\"declaration_align\": 64") &&
	      has(out, "\"alignment_of\": \"declaration\""), "JSON: declaration_align");
	free(out);
	free(advice);
	lt.advice = NULL;

	advice = latent_advice(&lt, 64, ADVICE_CXX);
	CHECK(has(advice, "alignas(64) on the declaration of slots keeps the array line-aligned"),
	      "C++: alignas");
	free(advice);

	/* _Alignas(32): half a line, not kept */
	lt.decl_align = 32;
	latent_fill_placements(&lt);
	CHECK(placement_is(&lt, 0, 64, 32, 1, 2, PLACEMENT_DECLARATION), "declared 32: 1 of 2");
	advice = latent_advice(&lt, 64, ADVICE_C);
	CHECK(has(advice, "but the array is not kept line-aligned (its declaration aligns it "
		  "to 32 bytes only)"), "declared 32: only 32");
	free(advice);

	/* none: as before */
	lt.decl_align = 0;
	latent_fill_placements(&lt);
	advice = latent_advice(&lt, 64, ADVICE_C);
	CHECK(has(advice, "but nothing keeps the array line-aligned"), "undeclared: nothing");
	free(advice);
}

int main(void)
{
	test_aligned_alloc();
	test_unaligned_blocks();
	test_other_alignments();
	test_alloc_sentence();
	test_aligned_new();
	test_printers();
	test_declared_alignment();
	return test_done();
}
