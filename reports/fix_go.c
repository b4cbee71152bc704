/* fix_go.c - the fix of a Go struct's layout as edits (fix_patch.h): the
 * proposal's `_ [N]byte` pad fields between the fields (Go aligns no
 * type), in the fields' order there.
 *
 * Go's DWARF gives a type no source line, so the declaration is looked
 * for by name: `type NAME struct {` in the .go files of the line's code
 * sites, then in the other .go files of their directories (a package is
 * one directory).  The struct's fields must each have a line of their
 * own, and it must have no pad field yet; else no patch, and why.
 */
#include <ctype.h>
#include <dirent.h>
#include <stdlib.h>
#include <string.h>

#include "reports/fix_internal.h"
#include "reports/fix_source.h"

/* "type NAME struct {" at line, NAME a whole word */
static bool declares_type(const char *line, const char *name)
{
	const char *p = line + strspn(line, " \t");
	size_t n = strlen(name);

	if (strncmp(p, "type", 4) || !isspace((unsigned char)p[4]))
		return false;
	p += 4 + strspn(p + 4, " \t");
	if (strncmp(p, name, n) || !isspace((unsigned char)p[n]))
		return false;
	p += n + strspn(p + n, " \t");
	if (strncmp(p, "struct", 6))
		return false;
	p += 6 + strspn(p + 6, " \t");
	return *p == '{';
}

/* The field a body line declares (its first word), or NULL; *why when it
 * declares two. */
static char *field_of(const char *line, char **why)
{
	const char *p = line + strspn(line, " \t");
	size_t n = 0;

	while (isalnum((unsigned char)p[n]) || p[n] == '_')
		n++;
	if (!n || p[n] == '.' || !isspace((unsigned char)p[n]))
		return NULL;    /* a comment, an embedded type, the closing brace */
	if (p[n + strspn(p + n, " \t")] == ',') {
		*why = xasprintf("fields are declared together on one line (%.*s, ...): declare "
				 "them apart to patch them", (int)n, p);
		return NULL;
	}
	return xasprintf("%.*s", (int)n, p);
}

static void add_pad(struct strbuf *sb, uint64_t bytes, const struct report_line *rl)
{
	fix_comment_line(sb, "\t", "the pad keeps the next field a line apart", rl);
	strbuf_addf(sb, "\t_ [%lu]byte\n", (unsigned long)bytes);
}

/* The new body: the proposal's fields, each with the lines above it that
 * are not fields (comments), and the pads. */
static char *new_body(const struct report_line *rl, const struct fix_source *src,
		      unsigned open, unsigned close, char **why)
{
	const struct report_layout *p = &rl->advice.proposed;
	struct strbuf sb = STRBUF_INIT;
	bool aligned = false;

	for (unsigned i = 0; i < p->n_rows && !*why; i++) {
		const struct report_layout_row *row = &p->rows[i];
		unsigned start = open + 1, found = 0;

		if (!row->member)
			continue;
		aligned |= row->line_aligned;
		if (row->line_aligned && row->padding_before)
			add_pad(&sb, row->padding_before, rl);
		for (unsigned k = open + 1; k < close && !found && !*why; k++) {
			char *f = field_of(fix_source_line(src, k), why);

			if (f && !strcmp(f, row->member))
				found = k;
			else if (f)
				start = k + 1;
			free(f);
		}
		if (!found && !*why)
			*why = xasprintf("field %s is not in the declaration at %s:%u", row->member,
					 basename_of(src->path), open);
		for (unsigned k = start; found && k <= found; k++)
			strbuf_addf(&sb, "%s", fix_source_line(src, k));
	}
	/* the lines after the last field (a trailing comment) stay last */
	for (unsigned k = close - 1, last = 0; !*why && k > open && !last; k--) {
		char *f = field_of(fix_source_line(src, k), why);

		last = f ? k : 0;
		free(f);
		for (unsigned t = last + 1; last && t < close; t++)
			strbuf_addf(&sb, "%s", fix_source_line(src, t));
	}
	if (aligned && p->tail_padding)
		add_pad(&sb, p->tail_padding, rl);
	if (*why) {
		strbuf_release(&sb);
		return NULL;
	}
	return strbuf_detach(&sb);
}

char *fix_go_struct(struct fix_ctx *c, struct report_line *rl, struct pending_set *ps)
{
	const char *dot = strrchr(rl->struct_name, '.');
	const char *name = dot ? dot + 1 : rl->struct_name;
	char *why = NULL, *body;
	const struct fix_source *src = NULL;
	unsigned close = 0, open = fix_find_type(c, rl, ".go", declares_type, name, &src, &close);

	if (!open)
		return xasprintf("no `type %s struct {` in the Go files of its code", name);
	for (unsigned k = open + 1; k < close; k++) {
		char *f = field_of(fix_source_line(src, k), &why);

		if (f && !strcmp(f, "_"))
			why = xasprintf("%s has a pad field already (line %u): pad it by hand", name, k);
		free(f);
		if (why)
			return why;
	}
	if (!(body = new_body(rl, src, open, close, &why)))
		return why;
	fix_pending_replace(ps, src, open + 1, close - 1, body);
	free(body);
	strbuf_addf(&ps->caveat, "changes the size of %s from %lu to %lu bytes; Go aligns no type: "
		    "the pads part the fields where the struct starts a line (Go's allocator puts "
		    "objects of 64 bytes and more at multiples of 64)", rl->struct_name,
		    (unsigned long)rl->advice.current.size, (unsigned long)rl->advice.proposed.size);
	return NULL;
}
