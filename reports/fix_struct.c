/* fix_struct.c - the fix of a struct's layout as edits of its
 * declaration (fix_patch.h): its members in the proposal's order, the
 * line-aligned ones with _Alignas/alignas, and the static assertions of
 * its layout set to the new offsets. */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "reports/fix_internal.h"
#include "reports/fix_source.h"

#define SEMICOLON_REACH 20      /* lines a member's declaration may span */

/* A member as its source has it: its declaration [decl, end] and the
 * comment lines above it from start. */
struct member_block {
	const char *name;
	unsigned start, decl, end;
	const struct report_layout_row *row;    /* the proposal's, once placed */
};

static int cmp_block_decl(const void *a, const void *b)
{
	const struct member_block *x = a, *y = b;

	return x->decl < y->decl ? -1 : x->decl > y->decl;
}

static unsigned member_decl_line(const struct report_line *rl, const char *name)
{
	for (unsigned i = 0; i < rl->n_members; i++)
		if (rl->members[i].name && !strcmp(rl->members[i].name, name))
			return rl->members[i].decl_line;
	return 0;
}

/* The struct's named members in source order, with their extents; NULL
 * and *why when the source does not declare them one per line. */
static struct member_block *member_blocks(const struct report_line *rl,
					  const struct fix_source *src, unsigned *n_out,
					  char **why)
{
	const struct report_layout *cur = &rl->advice.current;
	struct member_block *b = xcalloc(cur->n_rows + 1, sizeof(*b));
	unsigned n = 0;

	for (unsigned i = 0; i < cur->n_rows; i++) {
		const struct report_layout_row *row = &cur->rows[i];

		if (!row->member || row->base)
			continue;
		b[n].name = row->member;
		b[n].decl = member_decl_line(rl, row->member);
		if (!b[n].decl || b[n].decl <= rl->struct_decl.line || b[n].decl > src->n_lines) {
			*why = xasprintf("DWARF gives no source line for member %s", row->member);
			goto fail;
		}
		n++;
	}
	sort_items(b, n, sizeof(*b), cmp_block_decl);
	for (unsigned i = 0; i < n; i++) {
		unsigned bound = i + 1 < n ? b[i + 1].decl - 1 : b[i].decl + SEMICOLON_REACH;
		bool named = false;

		if (i + 1 < n && b[i + 1].decl == b[i].decl) {
			*why = xasprintf("members %s and %s are declared on one line (%u): "
					 "declare them apart to patch them", b[i].name,
					 b[i + 1].name, b[i].decl);
			goto fail;
		}
		for (b[i].end = b[i].decl; b[i].end < bound &&
		     !strchr(fix_source_line(src, b[i].end), ';'); b[i].end++)
			;
		for (unsigned k = b[i].decl; k <= b[i].end; k++)
			named |= fix_line_names(fix_source_line(src, k), b[i].name);
		if (!named || !strchr(fix_source_line(src, b[i].end), ';')) {
			*why = xasprintf("line %u does not declare member %s as DWARF says "
					 "(the source changed since the build?)", b[i].decl, b[i].name);
			goto fail;
		}
		b[i].start = i ? b[i - 1].end + 1 : b[i].decl;
	}
	*n_out = n;
	return b;
fail:
	free(b);
	return NULL;
}

bool fix_pad_row(const struct report_layout_row *row)
{
	return row->member && !strncmp(row->member, "pad", 3) &&
	       row->type_name && !strncmp(row->type_name, "char", 4);
}

/* The blocks in the proposal's order (each given its row); false and
 * *why when the proposal names what the source does not have. */
static bool proposal_order(const struct report_line *rl, struct member_block *b, unsigned n,
			   struct member_block *out, char **why)
{
	const struct report_layout *p = &rl->advice.proposed;
	unsigned k = 0;

	for (unsigned i = 0; i < p->n_rows; i++) {
		const struct report_layout_row *row = &p->rows[i];
		unsigned j;

		if (!row->member || row->base)
			continue;
		for (j = 0; j < n && (b[j].row || strcmp(b[j].name, row->member)); j++)
			;
		if (j == n) {
			if (fix_pad_row(row))
				continue;      /* the alignment pads */
			*why = xasprintf("the proposal's member %s is not in the source", row->member);
			return false;
		}
		b[j].row = row;
		out[k++] = b[j];
	}
	if (k != n) {
		*why = xstrdup("the proposal leaves a member out");
		return false;
	}
	return true;
}

static bool preprocessor_between(const struct fix_source *src, unsigned from, unsigned to)
{
	for (unsigned k = from; k <= to; k++) {
		const char *l = fix_source_line(src, k);

		if (l[strspn(l, " \t")] == '#')
			return true;
	}
	return false;
}

static bool already_aligned(const char *line)
{
	return strstr(line, "_Alignas") || strstr(line, "alignas(") || strstr(line, "aligned(");
}

/* One block's lines, its declaration aligned when its row says so. */
static void block_text(struct strbuf *sb, const struct report_line *rl,
		       const struct fix_source *src, const struct member_block *m)
{
	for (unsigned k = m->start; k <= m->end; k++) {
		const char *l = fix_source_line(src, k);
		size_t indent = strspn(l, " \t");

		if (k != m->decl || !m->row->line_aligned || already_aligned(l)) {
			strbuf_addf(sb, "%s", l);
			continue;
		}
		fix_comment_line(sb, l, m->row->comment ? m->row->comment : "a line of its own", rl);
		strbuf_add(sb, l, indent);
		strbuf_addf(sb, "%s(%u) %s", fix_align_word(rl), rl->line_size, l + indent);
	}
}

static bool is_header(const char *path)
{
	const char *dot = strrchr(path, '.');

	return dot && (!strcmp(dot, ".h") || !strcmp(dot, ".hh") || !strcmp(dot, ".hpp") ||
		       !strcmp(dot, ".hxx") || !strcmp(dot, ".H"));
}

/* The struct's tag as code spells it in sizeof: "Klass" of "struct Klass". */
const char *fix_type_tag(const char *name)
{
	static const char *const keywords[] = { "struct ", "class ", "union " };

	for (unsigned i = 0; name && i < ARRAY_SIZE(keywords); i++)
		if (!strncmp(name, keywords[i], strlen(keywords[i])))
			return name + strlen(keywords[i]);
	return name;
}

/* --- assertions on the layout ------------------------------------------- */

struct cursor { const char *p; };

static bool take(struct cursor *c, const char *word)
{
	const char *p = c->p + strspn(c->p, " \t");
	size_t n = strlen(word);

	if (strncmp(p, word, n) || (isalnum((unsigned char)word[n - 1]) &&
				    (isalnum((unsigned char)p[n]) || p[n] == '_')))
		return false;
	c->p = p + n;
	return true;
}

static bool take_type(struct cursor *c, const char *tag)
{
	(void)(take(c, "struct") || take(c, "class") || take(c, "union"));
	return take(c, tag);
}

/* At "offsetof(TAG, MEMBER) == N" or "sizeof(TAG) == N": the member
 * (NULL for sizeof) and where N starts and ends; false if not that. */
static bool assertion_at(const char *at, const char *tag, char *member, size_t size,
			 const char **num, const char **num_end)
{
	struct cursor c = { at };
	bool is_size = take(&c, "sizeof");
	size_t n;

	if ((!is_size && !take(&c, "offsetof")) || !take(&c, "(") || !take_type(&c, tag))
		return false;
	*member = '\0';
	if (!is_size) {
		if (!take(&c, ","))
			return false;
		c.p += strspn(c.p, " \t");
		n = strspn(c.p, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_");
		if (!n || n >= size)
			return false;
		copy_bytes(member, c.p, n);
		member[n] = '\0';
		c.p += n;
	}
	if (!take(&c, ")") || !take(&c, "=="))
		return false;
	*num = c.p + strspn(c.p, " \t");
	*num_end = *num + strspn(*num, "0123456789");
	return *num_end > *num;
}

static long proposed_value(const struct report_layout *p, const char *member)
{
	if (!*member)
		return (long)p->size;
	for (unsigned i = 0; i < p->n_rows; i++)
		if (p->rows[i].member && !strcmp(p->rows[i].member, member))
			return (long)p->rows[i].offset;
	return -1;
}

/* The line with its assertions on the layout set to the proposal's
 * values, or NULL when none changes. */
static char *assertions_updated(const struct report_line *rl, const char *l, const char *tag)
{
	struct strbuf sb = STRBUF_INIT;
	const char *from = l, *num, *end;
	char member[256];
	bool changed = false;

	for (const char *p = l; *p; p++) {
		long v;

		if ((p > l && (isalnum((unsigned char)p[-1]) || p[-1] == '_')) ||
		    !assertion_at(p, tag, member, sizeof(member), &num, &end) ||
		    (v = proposed_value(&rl->advice.proposed, member)) < 0 ||
		    strtol(num, NULL, 10) == v)
			continue;
		strbuf_add(&sb, from, (size_t)(num - from));
		strbuf_addf(&sb, "%ld", v);
		from = p = end;
		changed = true;
		p--;
	}
	if (!changed) {
		strbuf_release(&sb);
		return NULL;
	}
	strbuf_addf(&sb, "%s", from);
	return strbuf_detach(&sb);
}

/* What other code may assume of the layout is said; static assertions
 * that pin it (sizeof, offsetof) are set to the new layout, and said:
 * the patch would not build otherwise, and a reviewer sees them change. */
static void layout_caveats(const struct report_line *rl, const struct fix_source *src,
			   struct pending_set *ps)
{
	const char *tag = fix_type_tag(rl->struct_name);
	struct strbuf *caveat = &ps->caveat, lines = STRBUF_INIT;

	if (rl->advice.current.size != rl->advice.proposed.size)
		strbuf_addf(caveat, "%schanges sizeof(%s) from %lu to %lu", caveat->len ? "; " : "",
			    rl->struct_name, (unsigned long)rl->advice.current.size,
			    (unsigned long)rl->advice.proposed.size);
	if (is_header(src->path))
		strbuf_addf(caveat, "%sit is declared in a header (%s): check that no file format, "
			    "ABI or other build relies on its layout", caveat->len ? "; " : "",
			    basename_of(src->path));
	for (unsigned k = 1; tag && k <= src->n_lines; k++) {
		const char *l = fix_source_line(src, k);
		char *updated;

		if (!strstr(l, "static_assert") && !strstr(l, "_Static_assert"))
			continue;
		if (!(updated = assertions_updated(rl, l, tag)))
			continue;
		fix_pending_add(ps, src, k, 1, updated);
		strbuf_addf(&lines, "%s%u", lines.len ? ", " : "", k);
	}
	if (lines.len)
		strbuf_addf(caveat, "%sthe static assertions on its layout (line %s) are set to the "
			    "new offsets: if they pin a file format or an ABI, do not apply this",
			    caveat->len ? "; " : "", lines.buf);
	strbuf_release(&lines);
}

char *fix_struct(struct fix_ctx *c, struct report_line *rl, struct pending_set *ps)
{
	const struct fix_source *src;
	struct member_block *b, *order;
	struct strbuf sb = STRBUF_INIT;
	unsigned n = 0;
	char *why = NULL;
	bool moved = false;

	if (!(src = fix_source_of(c, rl->struct_decl.file, &why)))
		return why;
	if (!(b = member_blocks(rl, src, &n, &why)))
		return why;
	/* to the closing brace: GNU C puts the attribute after it */
	for (unsigned k = rl->struct_decl.line, closed = 0; k <= b[n - 1].end + SEMICOLON_REACH &&
	     !closed; k++) {
		closed = k > b[n - 1].end && strchr(fix_source_line(src, k), '}');
		if (strstr(fix_source_line(src, k), "packed")) {
			free(b);
			return xasprintf("%s is packed: its layout is a format's; pad it by hand",
					 rl->struct_name);
		}
	}
	order = xcalloc(n, sizeof(*order));
	if (proposal_order(rl, b, n, order, &why)) {
		for (unsigned i = 0; i < n; i++)
			moved |= order[i].decl != b[i].decl;
		if (moved && preprocessor_between(src, b[0].decl, b[n - 1].end))
			why = xstrdup("preprocessor lines lie between its members: move them by hand");
	}
	if (!why) {
		/* the blocks tile [first declaration, last one's end]: in any
		 * order they are the same lines */
		for (unsigned i = 0; i < n; i++)
			block_text(&sb, rl, src, &order[i]);
		fix_pending_replace(ps, src, b[0].decl, b[n - 1].end, strbuf_str(&sb));
		layout_caveats(rl, src, ps);
	}
	strbuf_release(&sb);
	free(order);
	free(b);
	return why;
}
