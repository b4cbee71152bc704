/* advice_proposal.c - the proposed layout: which members move where.
 *
 * Writer groups each start a line of their own after the members nobody
 * writes on the line; or the whole instance starts a line; or the slots
 * of an array member threads split between them are padded to lines.  A
 * proposal keeps the members' order inside each group and moves blocks
 * of overlapping members (unions, bitfields) as one.  Sizes and costs
 * come from alignment bounds (advice_layout.c), never flattered.
 */
#include <ctype.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "reports/advice_internal.h"
#include "reports/alloc_text.h"
#include "common/escape.h"

/* "unsigned long" -> "unsigned_long", "struct stats" -> "stats",
 * "void *" -> "void_ptr" */
static char *type_tag(const char *type)
{
	struct strbuf sb = STRBUF_INIT;

	if (!strncmp(type, "struct ", 7))
		type += 7;
	for (const char *p = type; *p; p++) {
		if (isalnum((unsigned char)*p) || *p == '_') {
			strbuf_addch(&sb, *p);
			continue;
		}
		if (sb.len && sb.buf[sb.len - 1] != '_')
			strbuf_addch(&sb, '_');
		if (*p == '*')
			strbuf_addf(&sb, "ptr");
	}
	while (sb.len && sb.buf[sb.len - 1] == '_')
		sb.buf[--sb.len] = '\0';
	if (!sb.len)
		strbuf_addf(&sb, "elem");
	return strbuf_detach(&sb);
}
/* ---- proposed layouts ------------------------------------------------ */

/* Where a block goes: a line-aligned one on a line's start. */
static uint64_t block_align(const struct block *b, unsigned L)
{
	return b->line_aligned && L > b->align ? L : b->align;
}

/* Blocks of members, which are adv->members or a changed copy of them. */
static struct block *make_blocks(const struct advisor *adv,
				 const struct report_member *members,
				 unsigned *n_out)
{
	const struct report_line *l = adv->line;
	struct block *blk = xcalloc(adv->n_members ? adv->n_members : 1,
				    sizeof(*blk));
	unsigned n = 0;

	for (unsigned i = 0; i < adv->n_members; i++) {
		const struct report_member *m = &members[i];
		uint64_t a = align_bound(m->offset, m->size, l->struct_align);
		struct block *b = n ? &blk[n - 1] : NULL;

		if (!b || m->offset < b->start ||
		    m->offset >= b->start + b->size) {
			b = &blk[n++];
			*b = (struct block){ .first = i, .start = m->offset,
					     .group = -1 };
		}
		b->n++;
		if (m->offset + m->size > b->start + b->size)
			b->size = m->offset + m->size - b->start;
		if (a > b->align)
			b->align = a;
		if (b->group < 0)
			b->group = adv->mi[i].group;
	}
	*n_out = n;
	return blk;
}

/* Lays out blocks in the given order; returns sizeof, *align gets alignof. */
static uint64_t place_blocks(struct block *blk, const unsigned *order,
			     unsigned n, unsigned L, uint64_t *align)
{
	uint64_t off = 0;

	for (unsigned i = 0; i < n; i++) {
		struct block *b = &blk[order[i]];
		uint64_t a = block_align(b, L);

		if (a > *align)
			*align = a;
		off = round_up(off, a);
		b->new_start = off;
		off += b->size;
	}
	return round_up(off, *align);
}

/* Writer groups last, each starting a line of its own: nothing follows a
 * group but another group or the tail padding that rounds the struct to
 * whole lines, so only the groups pay for alignment. */
void propose_groups(struct advisor *adv, struct proposal *p)
{
	unsigned k = 0;

	p->members = adv->members;
	p->blk = make_blocks(adv, p->members, &p->n);
	p->order = xcalloc(p->n ? p->n : 1, sizeof(*p->order));
	for (unsigned i = 0; i < p->n; i++)
		if (p->blk[i].group < 0)
			p->order[k++] = i;
	for (unsigned g = 0; g < adv->n_groups; g++) {
		bool first = true;

		for (unsigned i = 0; i < p->n; i++) {
			if (p->blk[i].group != (int)g)
				continue;
			p->blk[i].line_aligned = first;
			first = false;
			p->order[k++] = i;
		}
	}
	p->align = adv->line->struct_align;
	p->size = place_blocks(p->blk, p->order, p->n, adv->L, &p->align);
}

/* Same order, the whole instance on lines of its own. */
void propose_aligned(struct advisor *adv, struct proposal *p)
{
	p->members = adv->members;
	p->blk = make_blocks(adv, p->members, &p->n);
	p->order = xcalloc(p->n ? p->n : 1, sizeof(*p->order));
	for (unsigned i = 0; i < p->n; i++) {
		p->order[i] = i;
		p->blk[i].group = -1;   /* no group gets a line of its own */
	}
	if (p->n)
		p->blk[0].line_aligned = true;
	p->align = adv->line->struct_align;
	p->size = place_blocks(p->blk, p->order, p->n, adv->L, &p->align);
}

void proposal_release(struct proposal *p)
{
	free(p->blk);
	free(p->order);
}

/* The proposal as rows: each block at its new start, a writer group's
 * first member line-aligned under a comment naming its writers. */
void proposal_layout(struct advisor *adv, const struct proposal *p,
		     struct report_layout *lay)
{
	char *owned = NULL;
	int last_group = -1;

	lay->style = LAYOUT_PAHOLE;
	lay->title = xstrdup(layout_title(adv, &owned));
	lay->cxx = adv->line->cxx;
	lay->rust = adv->line->rust;
	lay->go = adv->line->go;
	lay->line_size = adv->L;
	lay->size = p->size;
	lay->align = p->align;
	lay->placed = true;         /* _Alignas puts it at a line's start */
	lay->rows = xcalloc(adv->n_members ? adv->n_members : 1,
			    sizeof(*lay->rows));
	for (unsigned i = 0; i < p->n; i++) {
		const struct block *b = &p->blk[p->order[i]];

		for (unsigned j = b->first; j < b->first + b->n; j++) {
			const struct report_member *m = &p->members[j];
			struct report_layout_row *row = &lay->rows[lay->n_rows++];
			bool first = j == b->first;

			row->member = m->name ? xstrdup(m->name) : NULL;
			row->type_name = m->type_name ? xstrdup(m->type_name) : NULL;
			row->access = m->access;
			row->base = m->base;
			row->offset = b->new_start + m->offset - b->start;
			row->size = m->size;
			row->line_aligned = b->line_aligned && first;
			/* the block's alignment is its first member's */
			row->align = first ? block_align(b, adv->L) :
				     align_bound(m->offset, m->size,
						 adv->line->struct_align);
			row->hidden = adv->mi[j].hidden;
			if (first && b->group >= 0 && b->group != last_group)
				row->comment = group_comment(adv, b->group);
		}
		if (b->group >= 0)
			last_group = b->group;
	}
	layout_measure(lay);
	if (adv->heap && p->align > 16 && heap_align_note(adv->line)) {
		layout_add_after(lay, "%s", heap_align_note(adv->line));
	} else if (adv->heap && p->align > 16) {
		char *block = alloc_align_advice(adv->line->alloc, p->align, lay->title,
						   adv->is_array);
		struct strbuf et = STRBUF_INIT;
		char many[24] = "n";

		if (adv->n_elems)
			snprintf(many, sizeof(many), "%" PRIu64, adv->n_elems);

		if (block)
			layout_add_after(lay, "%s", block);
		else
			layout_add_after(lay, "/* malloc aligns to 16 bytes only: allocate "
					 "with aligned_alloc(%" PRIu64 ", %s%ssizeof(%s)) */\n",
					 p->align, adv->is_array ? many : "",
					 adv->is_array ? " * " : "", escape_text(&et, lay->title));
		free(block);
		strbuf_release(&et);
	}
	free(owned);
}

const char *heap_align_note(const struct report_line *line)
{
	const char *call = line->alloc ? line->alloc->call : NULL;

	if (line->rust)
		return RUST_HEAP_ALIGN_NOTE;
	if (line->go)
		return GO_HEAP_ALIGN_NOTE;
	if (line->cxx && call && !strncmp(call, "operator new", 12))
		return CXX_NEW_ALIGN_NOTE;
	if (line->cxx && line->alloc && line->alloc->walked)
		return CXX_WALKED_ALIGN_NOTE;
	return NULL;
}

/* An array of scalars ("long counters[64]") padded element by element:
 * the element a struct of one line-aligned member and padding to the
 * line's end. */
uint64_t padded_element_layout(struct advisor *adv, struct report_layout *lay)
{
	uint64_t esz = adv->elem_size, padded = round_up(esz, adv->L);
	char *tag = type_tag(adv->elem_type);

	lay->style = LAYOUT_PLAIN;
	lay->title = xasprintf("struct padded_%s", tag);
	lay->cxx = adv->line->cxx;
	lay->rust = adv->line->rust;
	lay->go = adv->line->go;
	lay->line_size = adv->L;
	lay->size = padded;
	lay->align = adv->L;
	lay->placed = true;
	lay->pad_member = true;
	lay->rows = xcalloc(1, sizeof(*lay->rows));
	lay->n_rows = 1;
	lay->rows[0] = (struct report_layout_row){
		.member = xstrdup("v"), .type_name = xstrdup(adv->elem_type),
		.size = esz, .align = adv->L, .line_aligned = true,
	};
	layout_measure(lay);
	free(tag);
	return padded;
}

/* A scalar variable wrapped in a struct that starts a line: its
 * alignment rounds the size up to the line, no pad member needed. */
uint64_t padded_scalar_layout(struct advisor *adv, struct report_layout *lay)
{
	const struct report_line *l = adv->line;
	uint64_t padded = round_up(adv->elem_size, adv->L);

	lay->style = LAYOUT_PLAIN;
	lay->title = xstrdup("struct");
	lay->cxx = l->cxx;
	lay->rust = l->rust;
	lay->go = l->go;
	lay->line_size = adv->L;
	lay->size = padded;
	lay->align = adv->L;
	lay->placed = true;
	lay->declares = xstrdup(l->variable);
	lay->closing_comment = xasprintf("/* was %s %s; use %s.v: +%" PRIu64
					 " bytes */", l->type_name, l->variable,
					 l->variable, padded - adv->elem_size);
	lay->rows = xcalloc(1, sizeof(*lay->rows));
	lay->n_rows = 1;
	lay->rows[0] = (struct report_layout_row){
		.member = xstrdup("v"), .type_name = xstrdup(l->type_name),
		.size = adv->elem_size, .align = adv->L, .line_aligned = true,
	};
	layout_measure(lay);
	return padded - adv->elem_size;
}

/* "long" -> "struct { _Alignas(64) long v; }[4]": an array whose
 * elements each start a line; the alignment rounds each one's size up to
 * whole lines, so no pad member is needed. */
char *padded_array_type(const char *elem_type, uint64_t n, unsigned L)
{
	char *type, *decl, *padded;

	split_declaration(elem_type, "v", &type, &decl);
	padded = xasprintf("struct { _Alignas(%u) %s %s; }[%" PRIu64 "]", L,
			   type, decl, n);
	free(type);
	free(decl);
	return padded;
}

/* The struct as it is, but for the split member, whose elements are
 * padded to lines of their own (members: a copy with that one changed). */
void propose_split_member(struct advisor *adv,
			  const struct report_member *members,
			  struct proposal *p)
{
	p->members = members;
	p->blk = make_blocks(adv, members, &p->n);
	p->order = xcalloc(p->n ? p->n : 1, sizeof(*p->order));
	for (unsigned i = 0; i < p->n; i++) {
		struct block *b = &p->blk[i];

		p->order[i] = i;
		b->group = -1;          /* no writer group is moved */
		if ((int)b->first <= adv->split_member &&
		    adv->split_member < (int)(b->first + b->n) && b->align < adv->L)
			b->align = adv->L;
	}
	p->align = adv->line->struct_align;
	p->size = place_blocks(p->blk, p->order, p->n, adv->L, &p->align);
}
