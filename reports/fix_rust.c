/* fix_rust.c - the fix of a Rust struct's layout as edits (fix_patch.h):
 * the proposal's `#[repr(C, align(64))]` on the struct, its fields in the
 * proposal's order with `_padN: [u8; N]` fields between them (a field
 * cannot align itself), and `_padN: [0; N]` in each struct literal.
 *
 * rustc's DWARF gives a type no source line, and a binary without -g no
 * type at all: the declaration is looked for by name, `struct NAME {` in
 * the .rs files of the line's code sites and their directories.  A struct
 * with a repr already, fields declared together, or a literal that is a
 * pattern or uses `..` is left alone; what the patch could not reach
 * (`Self { .. }`, literals in other files) the compiler will name, and
 * the caveat says so.
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "reports/fix_internal.h"
#include "reports/fix_source.h"

#define RS_PADS_MAX 16

struct rs_pad {
	unsigned index;                 /* _pad1, _pad2, ... */
	uint64_t bytes;
};

static bool ident_char(char c)
{
	return isalnum((unsigned char)c) || c == '_';
}

/* "[pub[(...)] ]struct NAME {" at line */
static bool declares_struct(const char *line, const char *name)
{
	const char *p = line + strspn(line, " \t");
	size_t n = strlen(name);

	if (!strncmp(p, "pub", 3) && !ident_char(p[3])) {
		p += 3;
		if (*p == '(')
			p = strchr(p, ')') ? strchr(p, ')') + 1 : p;
		p += strspn(p, " \t");
	}
	if (strncmp(p, "struct", 6) || !isspace((unsigned char)p[6]))
		return false;
	p += 6 + strspn(p + 6, " \t");
	if (strncmp(p, name, n) || ident_char(p[n]))
		return false;
	p += n + strspn(p + n, " \t");
	return *p == '{';
}

/* The field a body line declares ("hits" of "pub hits: AtomicU64,"), or
 * NULL. */
static char *field_of(const char *line)
{
	const char *p = line + strspn(line, " \t"), *name;
	size_t n;

	if (!strncmp(p, "pub", 3) && !ident_char(p[3])) {
		p += 3;
		if (*p == '(' && strchr(p, ')'))
			p = strchr(p, ')') + 1;
		p += strspn(p, " \t");
	}
	for (name = p, n = 0; ident_char(p[n]); n++)
		;
	if (!n || isdigit((unsigned char)*name))
		return NULL;
	p += n + strspn(p + n, " \t");
	return *p == ':' && p[1] != ':' ? xasprintf("%.*s", (int)n, name) : NULL;
}

static char *new_body(const struct report_line *rl, const struct fix_source *src,
		      unsigned open, unsigned close, struct rs_pad *pads, unsigned *n_pads,
		      char **why)
{
	const struct report_layout *p = &rl->advice.proposed;
	struct strbuf sb = STRBUF_INIT;

	for (unsigned i = 0; i < p->n_rows && !*why; i++) {
		const struct report_layout_row *row = &p->rows[i];
		unsigned found = 0;

		if (!row->member || fix_pad_row(row) || !strncmp(row->member, "_pad", 4))
			continue;
		if (row->line_aligned && row->padding_before && *n_pads < RS_PADS_MAX) {
			pads[*n_pads] = (struct rs_pad){ *n_pads + 1, row->padding_before };
			fix_comment_line(&sb, fix_source_line(src, open + 1),
					 "the pad keeps the next field a line apart", rl);
			strbuf_addf(&sb, "%.*s_pad%u: [u8; %lu],\n",
				    (int)strspn(fix_source_line(src, open + 1), " \t"),
				    fix_source_line(src, open + 1), pads[*n_pads].index,
				    (unsigned long)row->padding_before);
			++*n_pads;
		}
		for (unsigned k = open + 1; k < close && !found; k++) {
			char *f = field_of(fix_source_line(src, k));

			if (f && !strcmp(f, row->member))
				found = k;
			free(f);
		}
		if (!found)
			*why = xasprintf("field %s is not declared on a line of its own in %s",
					 row->member, basename_of(src->path));
		else
			strbuf_addf(&sb, "%s", fix_source_line(src, found));
	}
	if (*why) {
		strbuf_release(&sb);
		return NULL;
	}
	return strbuf_detach(&sb);
}

/* Each literal `NAME {` in src that builds the struct gets the pads. */
static unsigned add_to_literals(struct pending_set *ps, const struct fix_source *src,
				const char *name, unsigned decl, const struct rs_pad *pads,
				unsigned n_pads)
{
	unsigned *lines = NULL, *ends = NULL, n = fix_source_uses(src, name, &lines, &ends);
	unsigned done = 0;

	for (unsigned i = 0; i < n; i++) {
		const char *l = fix_source_line(src, lines[i]);
		const char *brace = l + ends[i] + strspn(l + ends[i], " \t");
		const char *before = l + ends[i] - strlen(name);
		struct strbuf sb = STRBUF_INIT;

		/* one use a line: two would be two edits of it */
		if (lines[i] == decl || *brace != '{' || strstr(brace, "..") ||
		    (i + 1 < n && lines[i + 1] == lines[i]) || (i && lines[i - 1] == lines[i]))
			continue;
		/* not a declaration, an impl, a fn's return type, a pattern */
		while (before > l && isspace((unsigned char)before[-1]))
			before--;
		if ((before - l >= 2 && !strncmp(before - 2, "->", 2)) ||
		    (before - l >= 4 && (!strncmp(before - 4, "impl", 4) || !strncmp(before - 4, "enum", 4))) ||
		    (before - l >= 3 && !strncmp(before - 3, "for", 3)) ||
		    (before - l >= 6 && !strncmp(before - 6, "struct", 6)) ||
		    strstr(brace, "=>"))
			continue;
		strbuf_add(&sb, l, (size_t)(brace - l) + 1);
		for (unsigned k = 0; k < n_pads; k++)
			strbuf_addf(&sb, " _pad%u: [0; %lu],", pads[k].index,
				    (unsigned long)pads[k].bytes);
		strbuf_addf(&sb, "%s", brace + 1);
		fix_pending_add(ps, src, lines[i], 1, strbuf_detach(&sb));
		done++;
	}
	free(lines);
	free(ends);
	return done;
}

char *fix_rust_struct(struct fix_ctx *c, struct report_line *rl, struct pending_set *ps)
{
	const char *colons = strrchr(rl->struct_name, ':');
	const char *name = colons ? colons + 1 : rl->struct_name;
	char *why = NULL, *body;
	const struct fix_source *src = NULL;
	unsigned close = 0, open = fix_find_type(c, rl, ".rs", declares_struct, name, &src, &close);
	struct rs_pad pads[RS_PADS_MAX];
	unsigned n_pads = 0, literals = 0;

	if (!open)
		return xasprintf("no `struct %s {` in the Rust files of its code (built without "
				 "-g, a binary names no source: build with debuginfo)", name);
	if (open > 1 && strstr(fix_source_line(src, open - 1), "#[repr"))
		return xasprintf("struct %s has a repr already (line %u): lay it out by hand", name,
				 open - 1);
	if (!(body = new_body(rl, src, open, close, pads, &n_pads, &why)))
		return why;
	{
		struct strbuf attr = STRBUF_INIT;
		const char *l = fix_source_line(src, open);

		fix_comment_line(&attr, l, "each writer's field on a line of its own", rl);
		strbuf_add(&attr, l, strspn(l, " \t"));
		strbuf_addf(&attr, "#[repr(C, align(%u))]\n", rl->line_size);
		fix_pending_add(ps, src, open, 0, strbuf_detach(&attr));
	}
	fix_pending_replace(ps, src, open + 1, close - 1, body);
	free(body);
	if (n_pads)
		literals = add_to_literals(ps, src, name, open, pads, n_pads);
	strbuf_addf(&ps->caveat, "changes the size of %s from %lu to %lu bytes and fixes its field "
		    "order (repr(C)); %u struct literal(s) here gain the pad fields: a `Self { .. }` "
		    "literal or one in another file needs them too (the compiler names it)",
		    name, (unsigned long)rl->advice.current.size,
		    (unsigned long)rl->advice.proposed.size, literals);
	return NULL;
}
