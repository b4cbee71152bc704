/* fix_array.c - the fix of a global array of scalars (a padded element
 * struct, `.v` after each indexed use) and of a malloc of line-aligned
 * elements (aligned_alloc), as edits (fix_patch.h). */
#include <ctype.h>
#include <string.h>

#include "reports/fix_internal.h"
#include "reports/fix_source.h"

/* The storage-class words of a declaration's text before its name. */
static void storage_words(struct strbuf *sb, const char *from, size_t len)
{
	static const char *const kept[] = {
		"static", "extern", "_Thread_local", "__thread", "thread_local",
	};

	for (size_t i = 0; i < len; ) {
		size_t j = i;

		while (j < len && (isalnum((unsigned char)from[j]) || from[j] == '_'))
			j++;
		for (unsigned k = 0; j > i && k < ARRAY_SIZE(kept); k++)
			if (strlen(kept[k]) == j - i && !strncmp(from + i, kept[k], j - i))
				strbuf_addf(sb, "%s ", kept[k]);
		i = j > i ? j : i + 1;
	}
}

/* Each name[...] on the lines of uses becomes name[...].member; the uses
 * without an index are listed in *bare. */
static void index_uses(struct pending_set *ps, const struct fix_source *src, unsigned decl,
		       const unsigned *lines, const unsigned *ends, unsigned n,
		       const char *member, struct strbuf *bare)
{
	for (unsigned i = 0; i < n; ) {
		const char *l = fix_source_line(src, lines[i]);
		struct strbuf sb = STRBUF_INIT;
		unsigned from = 0, j = i;
		bool changed = false;

		for (; j < n && lines[j] == lines[i]; j++) {
			unsigned open = ends[j] + (unsigned)strspn(l + ends[j], " \t");
			unsigned close = l[open] == '[' ? fix_bracket_end(l, open) : 0;

			if (lines[j] == decl)
				continue;
			if (!close) {
				strbuf_addf(bare, "%s%u", bare->len ? ", " : "", lines[j]);
				continue;
			}
			strbuf_add(&sb, l + from, close - from);
			strbuf_addf(&sb, ".%s", member);
			from = close;
			changed = true;
		}
		strbuf_addf(&sb, "%s", l + from);
		if (changed)
			fix_pending_add(ps, src, lines[i], 1, strbuf_detach(&sb));
		strbuf_release(&sb);
		i = j;
	}
}

static const struct report_layout_row *wrapped_row(const struct report_layout *p)
{
	for (unsigned i = 0; i < p->n_rows; i++)
		if (p->rows[i].member && !fix_pad_row(&p->rows[i]) && p->rows[i].type_name)
			return &p->rows[i];
	return NULL;
}

static char *declare_wrapped(const struct report_line *rl, const char *l, unsigned name_at,
			     const struct report_layout_row *row)
{
	struct strbuf sb = STRBUF_INIT;
	size_t indent = strspn(l, " \t");
	const char *tag = fix_type_tag(rl->advice.proposed.title);

	fix_comment_line(&sb, l, "each element on a line of its own", rl);
	strbuf_add(&sb, l, indent);
	strbuf_addf(&sb, "struct %s {\n", tag);
	strbuf_add(&sb, l, indent);
	strbuf_addf(&sb, "\t%s(%u) %s %s;\n", fix_align_word(rl), rl->line_size, row->type_name,
		    row->member);
	strbuf_add(&sb, l, indent);
	strbuf_addf(&sb, "};\n");
	strbuf_add(&sb, l, indent);
	storage_words(&sb, l + indent, name_at - indent);
	strbuf_addf(&sb, "struct %s %s", tag, l + name_at);
	return strbuf_detach(&sb);
}

char *fix_scalar_array(struct fix_ctx *c, struct report_line *rl, struct pending_set *ps)
{
	const struct report_layout_row *row = wrapped_row(&rl->advice.proposed);
	const char *name = rl->variable, *l;
	const struct fix_source *src;
	unsigned *lines = NULL, *ends = NULL, n, at = 0, decl = rl->variable_decl.line;
	struct strbuf bare = STRBUF_INIT;
	char *why = NULL;

	if (!row || !rl->advice.proposed.title)
		return xstrdup("the proposal has no element to wrap");
	/* these names go into code: DWARF's, so the target's */
	if (!fix_code_name(row->type_name) || !fix_code_name(row->member) ||
	    !fix_code_name(rl->advice.proposed.title))
		return xstrdup("its type's name is not one to write into code");
	if (!(src = fix_source_of(c, rl->variable_decl.file, &why)))
		return why;
	n = fix_source_uses(src, name, &lines, &ends);
	for (unsigned i = 0; i < n && !at; i++)
		if (lines[i] == decl)
			at = ends[i];
	l = fix_source_line(src, decl);
	if (!at || l[at + strspn(l + at, " \t")] != '[')
		why = xasprintf("line %u does not declare the array %s as DWARF says", decl, name);
	else if (strcspn(l + at, "=,") < strcspn(l + at, ";"))
		why = xasprintf("%s is declared with an initializer or beside another name "
				"(line %u): wrap its elements by hand", name, decl);
	if (!why) {
		unsigned name_at = at - (unsigned)strlen(name);
		struct strbuf storage = STRBUF_INIT;

		fix_pending_add(ps, src, decl, 1, declare_wrapped(rl, l, name_at, row));
		index_uses(ps, src, decl, lines, ends, n, row->member, &bare);
		storage_words(&storage, l, name_at);
		if (bare.len)
			strbuf_addf(&ps->caveat, "%s is used without an index on line(s) %s: "
				    "those uses need .%s or a cast", name, bare.buf, row->member);
		if (!strstr(strbuf_str(&storage), "static"))
			strbuf_addf(&ps->caveat, "%s%s is not static: uses in other files need "
				    ".%s too", ps->caveat.len ? "; " : "", name, row->member);
		strbuf_release(&storage);
	}
	strbuf_release(&bare);
	free(lines);
	free(ends);
	return why;
}

/* --- the allocation ------------------------------------------------------ */

/* malloc aligns to 16: the elements aligned to the line need their block
 * aligned too.  A call on a line of its own is rewritten; else said. */
void fix_allocation(struct fix_ctx *c, const struct report_line *rl,
			   struct pending_set *ps)
{
	const struct report_alloc *a = rl->alloc;
	const struct fix_source *src;
	unsigned *lines = NULL, *ends = NULL, n, at = 0, uses = 0;
	char *why = NULL;

	if (!a || a->walked || !a->call || a->align >= rl->line_size || !a->file || !a->line)
		return;
	if (!strncmp(a->call, "operator new", 12))
		return;         /* C++17's new aligns an aligned type itself */
	if (!strcmp(a->call, "malloc") && (src = fix_source_of(c, a->file, &why))) {
		n = fix_source_uses(src, "malloc", &lines, &ends);
		for (unsigned i = 0; i < n; i++)
			if (lines[i] == a->line) {
				uses++;
				at = ends[i];
			}
		if (uses == 1 && fix_source_line(src, a->line)[at] == '(') {
			const char *l = fix_source_line(src, a->line);

			fix_pending_add(ps, src, a->line, 1,
				    xasprintf("%.*saligned_alloc(%u, %s", (int)(at - strlen("malloc")), l,
					      rl->line_size, l + at + 1));
			free(lines);
			free(ends);
			return;
		}
		free(lines);
		free(ends);
	}
	free(why);
	strbuf_addf(&ps->caveat, "%sthe block from %s at %s:%u is aligned to %lu bytes only: "
		    "allocate it with aligned_alloc(%u, ...)", ps->caveat.len ? "; " : "",
		    a->call, basename_of(a->file), a->line,
		    (unsigned long)(a->align ? a->align : 16), rl->line_size);
}
