/* latent_advice.c - where a latent pair can lie, and the advice on it
 * (latent.h).
 *
 * The placements count the start addresses the object can have: at the
 * type's alignment, at malloc's 16 bytes for a heap object, and at the
 * alignment its allocation asked for (aligned_alloc(64, ...)) where the
 * allocation record says so, or a global's declaration (_Alignas(64) on
 * the variable, not its type).  That last one is what holds today; the
 * others are what a change of allocator, build or type would give.  The
 * advice says which: an array that an aligned allocation or declaration
 * keeps line-aligned is told to keep it and to give the type the
 * alignment, not that nothing keeps it aligned.
 */
#include "reports/latent.h"

#include <inttypes.h>

#include "common/util.h"
#include "reports/advice.h"
#include "reports/alloc_text.h"

#define MALLOC_ALIGN 16

uint64_t latent_alloc_align(const struct report_latent *lt)
{
	const struct report_alloc *a = lt->alloc;

	if (!a || a->walked || !a->align || a->align & (a->align - 1))
		return 0;
	if (a->align <= lt->type_align || (lt->heap && a->align <= MALLOC_ALIGN))
		return 0;               /* says nothing the others do not */
	return a->align;
}

uint64_t latent_decl_align(const struct report_latent *lt)
{
	uint64_t a = lt->decl_align;

	if (lt->heap || !a || a & (a - 1) || a <= lt->type_align)
		return 0;
	return a;
}

/* Whose alignment holds the object today: the allocation's or the
 * declaration's (PLACEMENT_TYPE: neither says more than the type). */
static enum placement_basis kept_basis(const struct report_latent *lt)
{
	if (latent_alloc_align(lt))
		return PLACEMENT_ALLOCATION;
	return latent_decl_align(lt) ? PLACEMENT_DECLARATION : PLACEMENT_TYPE;
}

static void add_placement(struct report_latent *lt, unsigned L, uint64_t align,
			  enum placement_basis basis)
{
	struct report_placement *p = &lt->placements[lt->n_placements];
	uint64_t first = lt->a.addr & ~(align - 1);

	if (lt->n_placements >= REPORT_LATENT_PLACEMENTS || !align || align & (align - 1))
		return;
	/* offsets from any multiple of align: the count only rotates */
	p->line_size = L;
	p->align = align;
	p->basis = basis;
	p->sharing = advice_shared_placements(align, L, lt->a.addr - first, lt->a.size,
					      lt->b.addr - first, lt->b.size, &p->total);
	lt->n_placements++;
}

void latent_fill_placements(struct report_latent *lt)
{
	uint64_t alloc_align = latent_alloc_align(lt), decl_align = latent_decl_align(lt);

	lt->n_placements = 0;
	for (unsigned L = 64; L <= 128; L *= 2) {
		if (alloc_align)
			add_placement(lt, L, alloc_align, PLACEMENT_ALLOCATION);
		else if (decl_align)
			add_placement(lt, L, decl_align, PLACEMENT_DECLARATION);
		/* malloc's next: where a heap array lies is the usual luck */
		if (lt->heap && lt->type_align < MALLOC_ALIGN)
			add_placement(lt, L, MALLOC_ALIGN, PLACEMENT_MALLOC);
		add_placement(lt, L, lt->type_align, PLACEMENT_TYPE);
	}
}

const char *latent_placement_whose(const struct report_latent *lt,
				   const struct report_placement *p)
{
	switch (p->basis) {
	case PLACEMENT_ALLOCATION:
		return lt->alloc && lt->alloc->call && !strcmp(lt->alloc->call, "aligned_alloc") ?
			" (aligned_alloc's)" : " (the allocation's)";
	case PLACEMENT_MALLOC:
		return " (malloc's)";
	case PLACEMENT_DECLARATION:
		return " (the declaration's)";
	case PLACEMENT_TYPE:
		break;
	}
	return " (the type's)";
}

static const struct report_placement *placement(const struct report_latent *lt, unsigned L,
						enum placement_basis basis)
{
	for (unsigned i = 0; i < lt->n_placements; i++)
		if (lt->placements[i].line_size == L && lt->placements[i].basis == basis)
			return &lt->placements[i];
	return NULL;
}

/*
 * The allocation keeps the object where the report needs it: the block is
 * aligned to at least a line, and an array's elements start a whole
 * number of elements into it (element 0 at the block's start), an object
 * a whole number of lines.  An array placed 32 bytes into a 64-aligned
 * block is not kept line-aligned by it.  A global's declaration aligns
 * the variable itself: the object starts where it does.
 */
static bool kept_by_allocation(const struct report_latent *lt, unsigned L)
{
	uint64_t into;

	if (!lt->alloc)
		return latent_decl_align(lt) >= L;
	if (latent_alloc_align(lt) < L || lt->object_start < lt->alloc->start)
		return false;
	into = lt->object_start - lt->alloc->start;
	return into % (lt->type_size ? lt->type_size : L) == 0;
}

/* "(plain malloc or new would put them on one line in 2 of 4 placements)":
 * what leaving the allocation's alignment costs; "" if nothing. */
static char *without_it(const struct report_latent *lt, unsigned L, enum advice_lang lang)
{
	const struct report_placement *m = placement(lt, L, PLACEMENT_MALLOC);
	const struct report_placement *t = placement(lt, L, PLACEMENT_TYPE);

	if (m && m->sharing)
		return xasprintf(" (plain malloc%s would put them on one line in %u of %u "
				 "placements)", lang == ADVICE_CXX ? " or new" : "", m->sharing,
				 m->total);
	if (t && t->sharing)
		return xasprintf(" (at the type's %" PRIu64 "-byte alignment they would share "
				 "a line in %u of %u placements)", t->align, t->sharing,
				 t->total);
	return xstrdup("");
}

/* "; on 128-byte lines (or with adjacent-line prefetch) they still share
 * a line in 1 of 2 placements at 64-byte alignment: pad struct slot to 128
 * bytes and align it to 128 where that matters"; "" where the kept
 * alignment parts them on 128-byte lines too. */
static char *wider_lines(const struct report_latent *lt, const char *type)
{
	const struct report_placement *p = placement(lt, 128, kept_basis(lt));
	char *fix, *out;

	if (!p || !p->sharing)
		return xstrdup("");
	fix = lt->type_size ? xasprintf("pad %s to %" PRIu64 " bytes and align it to 128", type,
					(lt->type_size + 127) / 128 * 128) :
			      xstrdup("align both to 128");
	out = xasprintf("; on 128-byte lines (or with adjacent-line prefetch) they still share "
			"a line in %u of %u placements at %" PRIu64 "-byte alignment: %s where "
			"that matters", p->sharing, p->total, p->align, fix);
	free(fix);
	return out;
}

/* "_Alignas(64) on the struct's first member", "#[repr(align(64))] on the
 * struct": how the type carries an alignment, in lang. */
static char *type_align_text(enum advice_lang lang, unsigned L, const char *first)
{
	if (lang == ADVICE_RUST)
		return xasprintf("#[repr(align(%u))] on the struct", L);
	return xasprintf("%s(%u) on %s", lang == ADVICE_CXX ? "alignas" : "_Alignas", L, first);
}

/* "_Alignas(64) on it": a member that must start a line; a Rust field
 * takes no alignment, its type does. */
static char *member_align_text(enum advice_lang lang, unsigned L)
{
	if (lang == ADVICE_RUST)
		return xasprintf("a #[repr(align(%u))] wrapper type for it", L);
	return xasprintf("%s(%u) on it", lang == ADVICE_CXX ? "alignas" : "_Alignas", L);
}

/* What keeps the object aligned: "aligned_alloc(64, 192)", or a global's
 * "_Alignas(64) on the declaration of slots". */
static char *keeper_text(const struct report_latent *lt, enum advice_lang lang)
{
	if (lt->alloc)
		return alloc_call_text(lt->alloc);
	if (lang == ADVICE_RUST)
		return xasprintf("the alignment of %s's type (%" PRIu64 ")",
				 lt->object ? lt->object : "the variable", lt->decl_align);
	return xasprintf("%s(%" PRIu64 ") on the declaration of %s",
			 lang == ADVICE_CXX ? "alignas" : "_Alignas", lt->decl_align,
			 lt->object ? lt->object : "the variable");
}

/* An aligned allocation or declaration keeps the array line-aligned: that
 * is what parts the two today; say so, and how the type can carry it. */
static char *kept_advice(const struct report_latent *lt, const char *type, unsigned L,
			 enum advice_lang lang)
{
	char *call = keeper_text(lt, lang), *without = without_it(lt, L, lang);
	char *wider = wider_lines(lt, type), *reach, *out;
	char *carry = type_align_text(lang, L, "the struct's first member");
	char *carry_own = type_align_text(lang, L, "its first member");
	char *on_it = member_align_text(lang, L);

	/* in C malloc ignores the type's alignment; in C++17 new honours it,
	 * and Rust's Box, Arc and Vec always do */
	if (lang == ADVICE_CXX)
		reach = xstrdup("new and std::vector honour it from C++17, so no allocation "
				"call has to");
	else if (lang == ADVICE_RUST)
		reach = xstrdup("Box, Arc, Vec and statics honour it, so no allocation call "
				"has to");
	else if (lt->alloc)
		reach = xasprintf("static and automatic arrays honour it; malloc does not, so "
				  "keep %s on the heap", lt->alloc->call);
	else
		reach = xstrdup("every static and automatic array of it then starts a line; "
				"malloc does not honour it");
	if (lt->type_size && lt->type_size % L == 0)
		out = xasprintf("%s is %" PRIu64 " bytes, a multiple of the %u-byte line, and "
				"%s keeps the array line-aligned: that alignment is what keeps "
				"the two apart now, so keep it%s; to carry the alignment with the "
				"type, put %s (%s)%s", type,
				lt->type_size, L, call, without, carry, reach, wider);
	else if (lt->type_size)
		out = xasprintf("pad %s from %" PRIu64 " to %" PRIu64 " bytes (cost +%" PRIu64
				" bytes per element); %s keeps the array aligned to %u: keep "
				"it%s, or carry the alignment with the type: %s (%s)%s",
				type, lt->type_size, (lt->type_size + L - 1) / L * L,
				(lt->type_size + L - 1) / L * L - lt->type_size, call, L,
				without, carry_own, reach, wider);
	else
		out = xasprintf("start %s on its own %u-byte line (%s), away from %s: "
				"at most %u bytes of padding; %s aligns the object to %u "
				"already: keep it%s%s",
				lt->b.member ? lt->b.member : "the second range", L, on_it,
				lt->a.member ? lt->a.member : "the first", L - 1, call, L,
				without, wider);
	free(carry);
	free(carry_own);
	free(on_it);
	free(call);
	free(without);
	free(wider);
	free(reach);
	return out;
}

/* "but nothing keeps the array line-aligned", or what the record says:
 * claims only what the allocation record or the type shows. */
static char *not_kept(const struct report_latent *lt, unsigned L)
{
	const struct report_alloc *a = lt->alloc;
	char *call, *out;

	if (lt->heap && (!a || a->walked))
		return xstrdup("but no allocation record shows the array line-aligned");
	if (!a && latent_decl_align(lt))
		return xasprintf("but the array is not kept line-aligned (its declaration aligns "
				 "it to %" PRIu64 " bytes only)", lt->decl_align);
	if (!a || !a->align)
		return xstrdup("but nothing keeps the array line-aligned");
	call = alloc_call_text(a);
	out = xasprintf("but the array is not kept line-aligned (%s aligns the block to %"
			PRIu64 " bytes%s)", call, a->align,
			latent_alloc_align(lt) >= L ? ", and the array does not start a line of it" :
			" only");
	free(call);
	return out;
}

char *latent_advice(const struct report_latent *lt, unsigned L, enum advice_lang lang)
{
	const char *type = lt->type_name ? lt->type_name : "the element";
	char *heap = lang == ADVICE_CXX ? xasprintf("new and std::vector align it from C++17, "
						    "aligned_alloc(%u, ...) what malloc "
						    "allocates", L) :
		     lang == ADVICE_RUST ? xstrdup("Box, Arc and Vec align it") :
		     xasprintf("aligned_alloc(%u, ...) on the heap", L);
	char *carry = type_align_text(lang, L, "the struct's first member");
	char *carry_own = type_align_text(lang, L, "its first member");
	char *advice, *but;

	if ((lt->alloc || !lt->heap) && kept_by_allocation(lt, L)) {
		free(heap);
		free(carry);
		free(carry_own);
		return kept_advice(lt, type, L, lang);
	}
	if (lt->type_size && lt->type_size % L == 0) {
		but = not_kept(lt, L);
		advice = xasprintf("%s is %" PRIu64 " bytes, a multiple of the %u-byte line, %s: "
				   "align it to %u bytes (%s; %s), so that each element starts a "
				   "line", type, lt->type_size, L, but, L, carry, heap);
		free(but);
	} else if (lt->type_size) {
		advice = xasprintf("pad %s from %" PRIu64 " to %" PRIu64 " bytes and align "
				   "the array to %u (%s; %s): cost +%"
				   PRIu64 " bytes per element", type, lt->type_size,
				   (lt->type_size + L - 1) / L * L, L, carry_own, heap,
				   (lt->type_size + L - 1) / L * L - lt->type_size);
	} else {
		char *on_it = member_align_text(lang, L);

		advice = xasprintf("start %s on its own %u-byte line (%s, and the "
				   "object aligned to %u), away from %s: at most %u bytes of "
				   "padding", lt->b.member ? lt->b.member : "the second range", L,
				   on_it, L, lt->a.member ? lt->a.member : "the first", L - 1);
		free(on_it);
	}
	free(heap);
	free(carry);
	free(carry_own);
	return advice;
}

char *latent_site_text(const struct report_site *s)
{
	const char *file = s->file ? basename_of(s->file) : NULL;

	if (s->function && file)
		return xasprintf("%s (%s:%d)", s->function, file, s->line);
	if (s->function)
		return xstrdup(s->function);
	if (s->module)
		return xasprintf("%s+0x%" PRIx64, s->module, s->module_off);
	return xasprintf("0x%" PRIx64, s->ip);
}
