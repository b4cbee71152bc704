/* advice_text.c - a layout's rows as C text (Rust's, for a Rust type).
 *
 * Two styles (report.h): pahole's view of a struct, with each member's
 * offset and size, holes, cacheline boundaries and (for the current
 * layout) the threads writing and reading it; and the bare C of a padded
 * element or variable.  Everything printed comes from the rows and the
 * layout's fields, so the text and the data cannot disagree.  The names
 * in it (types, members, variables) come from the target's DWARF: each is
 * escaped (common/escape.h) as it goes in, so that the text, printed as
 * is by every format, holds no control character but its own newlines
 * and tabs.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "reports/advice_internal.h"
#include "common/escape.h"
#include "symbolize/data_types.h"

/* Split a C type for a declaration of name: "Klass *[8]" -> type "Klass *",
 * declarator "name[8]"; "void (*)(int)" -> "void", "(*name)(int)";
 * "struct { long v[2]; }[4]" -> "struct { long v[2]; }", "name[4]" (what
 * is inside a struct body declares its own members). */
void split_declaration(const char *type, const char *name,
		       char **type_out, char **decl_out)
{
	const char *body_end = strrchr(type, '}');
	const char *rest = body_end ? body_end : type;
	const char *fp = strstr(rest, "(*)");
	const char *arr = strchr(rest, '[');
	const char *cut = fp ? fp : arr;
	size_t n;

	if (!cut) {
		*type_out = xstrdup(type);
		*decl_out = xstrdup(name);
		return;
	}
	n = (size_t)(cut - type);
	while (n && type[n - 1] == ' ')
		n--;
	*type_out = xasprintf("%.*s", (int)n, type);
	if (fp)
		*decl_out = xasprintf("(*%s)%s", name, fp + 3);
	else
		*decl_out = xasprintf("%s%s", name, arr);
}

/* ---- Rust ------------------------------------------------------------- */

/*
 * A Rust struct is laid out as rustc likes unless it is #[repr(C)], and a
 * field takes no alignment of its own: the proposal's order and offsets
 * hold under #[repr(C, align(L))], with each hole before a field that
 * starts a line spelled as a padding field (_pad1: [u8; 56]).  The
 * current layout is shown as rustc placed it.  Rust reads C's block
 * comments, so the pahole columns stay.
 */

/* Is s one or more "[N]" to its end? */
static bool array_dims(const char *s)
{
	size_t k;

	do {
		if (*s != '[' || !(k = strspn(s + 1, "0123456789")) || s[1 + k] != ']')
			return false;
		s += k + 2;
	} while (*s);
	return true;
}

char *rust_type_name(const char *t)
{
	const char *open = strchr(t, '[');
	size_t n = strlen(t);

	/* C's "T[2][3]" (2 of 3 of T) is [[T; 3]; 2]; Rust's own "[u8; 4]"
	 * and a slice "&[u8]" are no C arrays */
	while (open && !array_dims(open))
		open = strchr(open + 1, '[');
	if (open && open > t) {
		const char *close = strchr(open, ']');
		char *elem = xasprintf("%.*s%s", (int)(open - t), t, close + 1);
		char *inner = rust_type_name(elem), *out;

		out = xasprintf("[%s; %.*s]", inner, (int)(close - open - 1), open + 1);
		free(elem);
		free(inner);
		return out;
	}
	if (n > 2 && !strcmp(t + n - 2, " *")) {
		char *pointee = xasprintf("%.*s", (int)(n - 2), t);
		char *inner = rust_type_name(pointee), *out = xasprintf("*mut %s", inner);

		free(pointee);
		free(inner);
		return out;
	}
	return xstrdup(t);
}

/* "#[repr(C, align(64))]": a proposal's order and padding hold only in C's
 * layout; the current layout is rustc's own, no attribute. */
static void rust_repr(struct strbuf *sb, const struct report_layout *lay)
{
	bool line_aligned = false;

	for (unsigned i = 0; i < lay->n_rows; i++)
		line_aligned |= lay->rows[i].line_aligned;
	if (line_aligned)
		strbuf_addf(sb, "#[repr(C, align(%" PRIu64 "))]\n", lay->align);
	else if (!lay->annotated)
		strbuf_addf(sb, "#[repr(C)]\n");
}

/* ---- pahole-style layouts --------------------------------------------- */

struct decl {
	char *type, *declarator;
};

static const char *alignas_word(const struct report_layout *lay)
{
	return lay->cxx ? "alignas" : "_Alignas";
}

static void print_annotation(struct strbuf *sb, const struct report_layout *lay,
			     const struct report_layout_row *row)
{
	char buf[TID_LABEL_MAX];

	if (!lay->annotated || (!row->accesses && !row->n_writers &&
				!row->n_readers))
		return;
	if (row->n_writers) {
		strbuf_addf(sb, "  W:");
		for (unsigned i = 0; i < row->n_writers; i++)
			strbuf_addf(sb, " %s", tid_label(buf, row->writers[i]));
	}
	if (row->n_readers) {
		strbuf_addf(sb, "  R:");
		for (unsigned i = 0; i < row->n_readers; i++)
			strbuf_addf(sb, " %s", tid_label(buf, row->readers[i]));
	}
	/* from the counts, not row->share: the percentage rounds as ever */
	if (lay->accesses)
		strbuf_addf(sb, "  %.0f%%",
			    100.0 * (double)row->accesses /
			    (double)lay->accesses);
}

/* Cacheline boundary k of an instance that starts line_off bytes into a
 * line lies at struct offset k * L - line_off; this is the last one at or
 * before off (0: none). */
static uint64_t last_boundary(uint64_t off, unsigned L, uint64_t line_off)
{
	return (off + line_off) / L;
}

/* A row as the two columns: C's type and declarator ("_Alignas(64) long",
 * "hits;"), or Rust's name and type ("hits:", "AtomicU64,"). */
static struct decl row_decl(const struct report_layout *lay,
			    const struct report_layout_row *row)
{
	struct strbuf et = STRBUF_INIT, em = STRBUF_INIT;
	struct decl d;
	char *type, *decl;

	if (row->base) {
		/* a base class is no declaration: it stays first, as the
		 * class head says (": Base") */
		d.type = xasprintf("/* base class %s */", row->type_name ?
				   escape_text(&et, row->type_name) : "?");
		d.declarator = xstrdup("");
	} else if (lay->go) {
		d.type = xstrdup(row->member ? escape_text(&em, row->member) : "_");
		d.declarator = xstrdup(row->type_name ? escape_text(&et, row->type_name) : "?");
	} else if (lay->rust) {
		type = rust_type_name(row->type_name ? row->type_name : "?");
		d.type = xasprintf("%s:", row->member ? escape_text(&em, row->member) : "_");
		d.declarator = xasprintf("%s,", escape_text(&et, type));
		free(type);
	} else {
		split_declaration(row->type_name ? escape_text(&et, row->type_name) : "?",
				  row->member ? escape_text(&em, row->member) : "<anonymous>",
				  &type, &decl);
		d.declarator = xasprintf("%s;", decl);
		d.type = row->line_aligned ?
			xasprintf("%s(%u) %s", alignas_word(lay), lay->line_size, type) :
			xstrdup(type);
		free(type);
		free(decl);
	}
	strbuf_release(&et);
	strbuf_release(&em);
	return d;
}

/* Each row's columns, with the widths of the two. */
static struct decl *make_decls(const struct report_layout *lay, int *tw,
			       int *nw)
{
	struct decl *d = xcalloc(lay->n_rows ? lay->n_rows : 1, sizeof(*d));
	int n;

	*tw = *nw = 0;
	for (unsigned i = 0; i < lay->n_rows; i++) {
		d[i] = row_decl(lay, &lay->rows[i]);
		if (lay->rows[i].base)     /* a comment: may run into the columns */
			continue;
		if ((n = (int)strlen(d[i].type)) > *tw)
			*tw = n;
		if ((n = (int)strlen(d[i].declarator)) > *nw)
			*nw = n;
	}
	return d;
}

static void free_decls(struct decl *d, unsigned n)
{
	for (unsigned i = 0; i < n; i++) {
		free(d[i].type);
		free(d[i].declarator);
	}
	free(d);
}

static void print_elided(struct strbuf *sb, unsigned *hidden)
{
	if (*hidden)
		strbuf_addf(sb, "\t/* ... %u member%s not shown ... */\n",
			    *hidden, *hidden == 1 ? "" : "s");
	*hidden = 0;
}

/* Go's "type stats struct {" for "struct main.stats": the package is
 * the one the code is in. */
static char *go_head(const struct report_layout *lay)
{
	struct strbuf esc = STRBUF_INIT;
	const char *name = lay->title, *dot;
	char *head;

	if (!strncmp(name, "struct ", 7))
		name += 7;
	if ((dot = strrchr(name, '.')))
		name = dot + 1;
	head = xasprintf("type %s struct {", *name ? escape_text(&esc, name) : "padded");
	strbuf_release(&esc);
	return head;
}

/* Whether a proposal: some row starts a line of its own. */
static bool has_line_aligned_row(const struct report_layout *lay)
{
	for (unsigned i = 0; i < lay->n_rows; i++)
		if (lay->rows[i].line_aligned)
			return true;
	return false;
}

/* "struct Counters {", "class Counters : public Base {"; a base class
 * aligned to a line's start can carry no alignas of its own: the class
 * does, "struct alignas(64) Counters : Base {". */
static char *class_head(const struct report_layout *lay, uint8_t default_access)
{
	struct strbuf sb = STRBUF_INIT, esc = STRBUF_INIT;
	const char *title = escape_text(&esc, lay->title), *name = strchr(title, ' ');
	const char *sep = " : ";

	if (lay->n_rows && lay->rows[0].base && lay->rows[0].line_aligned && name)
		strbuf_addf(&sb, "%.*s %s(%u)%s", (int)(name - title), title,
			    alignas_word(lay), lay->line_size, name);
	else
		strbuf_addf(&sb, "%s", title);
	for (unsigned i = 0; i < lay->n_rows; i++) {
		const struct report_layout_row *row = &lay->rows[i];

		if (!row->base)
			continue;
		strbuf_addf(&sb, "%s%s%s%s", sep, row->access && row->access != default_access ?
			    member_access_name(row->access) : "",
			    row->access && row->access != default_access ? " " : "",
			    row->type_name ? escape_text(&esc, row->type_name) : "?");
		sep = ", ";
	}
	strbuf_addf(&sb, " {");
	strbuf_release(&esc);
	return strbuf_detach(&sb);
}

/* pahole's view: members with offset and size, holes, line boundaries. */
/* The struct's first line, pahole's size and align comment after it;
 * widens *tw and *nw for Rust's padding fields. */
static void print_layout_head(struct strbuf *sb, const struct report_layout *lay,
			      const char *head, int *tw, int *nw)
{
	if (lay->rust) {
		rust_repr(sb, lay);
		/* room for the padding fields' "_pad1:" and "[u8; 56]," */
		*tw = *tw < 7 ? 7 : *tw;
		*nw = *nw < 10 ? 10 : *nw;
	}
	if (lay->go)    /* and Go's "_" and "[56]byte" */
		*nw = *nw < 9 ? 9 : *nw;
	if (lay->go)    /* Go aligns by its fields alone: no align to state */
		strbuf_addf(sb, "%-*s /* size %" PRIu64, 8 + *tw + 1 + *nw, head, lay->size);
	else
		strbuf_addf(sb, "%-*s /* size %" PRIu64 ", align %" PRIu64,
			    8 + *tw + 1 + *nw, head, lay->size, lay->align);
	if (!lay->placed)
		strbuf_addf(sb, " (where it starts in a line is unknown)");
	else if (lay->line_offset)
		strbuf_addf(sb, " (this instance starts at line offset %"
			    PRIu64 ")", lay->line_offset);
	strbuf_addf(sb, " */\n");
}

/* The hole before row: a comment, or in Rust a field (none aligns itself). */
static void print_hole(struct strbuf *sb, const struct report_layout *lay,
		       const struct report_layout_row *row, int tw, int nw, unsigned *n_pads)
{
	if ((lay->rust || lay->go) && row->line_aligned) {
		char *name = lay->go ? xstrdup("_") : xasprintf("_pad%u:", ++*n_pads);
		char *type = lay->go ? xasprintf("[%" PRIu64 "]byte", row->padding_before) :
				       xasprintf("[u8; %" PRIu64 "],", row->padding_before);

		strbuf_addf(sb, "\t%-*s %-*s /* %5" PRIu64 " %5" PRIu64 " */\n", tw, name,
			    nw, type, row->offset - row->padding_before, row->padding_before);
		free(name);
		free(type);
	} else {
		strbuf_addf(sb, "\t/* XXX %" PRIu64 " bytes hole */\n", row->padding_before);
	}
}

/* The last cache-line boundary at or before off, pahole's way; the number
 * of the next boundary to print. */
static uint64_t print_boundary(struct strbuf *sb, const struct report_layout *lay, uint64_t off)
{
	unsigned L = lay->line_size;
	uint64_t k = last_boundary(off, L, lay->line_offset);
	uint64_t b = k * L - lay->line_offset;

	strbuf_addf(sb, "\t/* --- cacheline %" PRIu64 " boundary (%" PRIu64 " bytes)", k, b);
	if (b < off)
		strbuf_addf(sb, " was %" PRIu64 " bytes ago", off - b);
	strbuf_addf(sb, " --- */\n");
	return k + 1;
}

static void print_pahole(struct strbuf *sb, const struct report_layout *lay)
{
	unsigned L = lay->line_size;
	int tw, nw;
	struct decl *d = make_decls(lay, &tw, &nw);
	uint64_t end = 0, k = 1;      /* next boundary to print */
	unsigned hidden = 0;
	struct strbuf esc = STRBUF_INIT;
	/* C++: the members' access as declared, a label where it changes */
	uint8_t access = !strncmp(lay->title, "class ", 6) ? MEMBER_PRIVATE : MEMBER_PUBLIC;
	char *head = lay->go ? go_head(lay) : class_head(lay, access);
	unsigned n_pads = 0;

	print_layout_head(sb, lay, head, &tw, &nw);
	free(head);

	for (unsigned i = 0; i < lay->n_rows; i++) {
		const struct report_layout_row *row = &lay->rows[i];
		uint64_t off = row->offset;

		if (row->hidden) {
			hidden++;
			if (off + row->size > end)
				end = off + row->size;
			continue;
		}
		if (hidden) {
			print_elided(sb, &hidden);
			/* boundaries inside the elided run go with it */
			if (end && last_boundary(end - 1, L, lay->line_offset) >= k)
				k = last_boundary(end - 1, L, lay->line_offset) + 1;
		}
		if (row->padding_before)
			print_hole(sb, lay, row, tw, nw, &n_pads);
		/* like pahole, only the last boundary crossed is shown */
		if (lay->placed && last_boundary(off, L, lay->line_offset) >= k)
			k = print_boundary(sb, lay, off);
		if (lay->cxx && !lay->rust && !row->base && row->access && row->access != access) {
			access = row->access;
			strbuf_addf(sb, "%s:\n", member_access_name(access));
		}
		if (row->comment)
			strbuf_addf(sb, "\t/* %s */\n", escape_text(&esc, row->comment));
		strbuf_addf(sb, "\t%-*s %-*s /* %5" PRIu64 " %5" PRIu64 " */",
			    tw, d[i].type, nw, d[i].declarator, off, row->size);
		print_annotation(sb, lay, row);
		strbuf_addch(sb, '\n');
		if (off + row->size > end)
			end = off + row->size;
	}
	print_elided(sb, &hidden);
	if (lay->tail_padding && lay->go && has_line_aligned_row(lay)) {
		char *type = xasprintf("[%" PRIu64 "]byte", lay->tail_padding);

		strbuf_addf(sb, "\t%-*s %-*s /* %5" PRIu64 " %5" PRIu64 " */\n", tw, "_", nw, type,
			    lay->size - lay->tail_padding, lay->tail_padding);
		free(type);
	} else if (lay->tail_padding) {
		strbuf_addf(sb, "\t/* XXX %" PRIu64 " bytes tail padding */\n",
			    lay->tail_padding);
	}
	strbuf_addf(sb, lay->rust || lay->go ? "}\n" : "};\n");
	free_decls(d, lay->n_rows);
	strbuf_release(&esc);
}

/* ---- bare C ------------------------------------------------------------ */

/* "#[repr(C, align(64))]\nstruct padded_u64 {\n\tv: u64,\n}": the alignment
 * rounds the size up, no pad field needed; an anonymous one is Padded. */
static void print_plain_rust(struct strbuf *sb, const struct report_layout *lay)
{
	struct strbuf esc = STRBUF_INIT, em = STRBUF_INIT;

	rust_repr(sb, lay);
	strbuf_addf(sb, "%s {\n", !strcmp(lay->title, "struct") ? "struct Padded" :
		    escape_text(&esc, lay->title));
	for (unsigned i = 0; i < lay->n_rows; i++) {
		const struct report_layout_row *row = &lay->rows[i];
		char *type = rust_type_name(row->type_name ? row->type_name : "?");

		strbuf_addf(sb, "\t%s: ", row->member ? escape_text(&em, row->member) : "_");
		strbuf_addf(sb, "%s,\n", escape_text(&esc, type));
		free(type);
	}
	strbuf_addf(sb, "}\n");
	if (lay->declares)
		strbuf_addf(sb, "/* %s: Padded */\n", escape_text(&esc, lay->declares));
	if (lay->closing_comment)
		strbuf_addf(sb, "%s\n", escape_text(&esc, lay->closing_comment));
	strbuf_release(&esc);
	strbuf_release(&em);
}

/* "type padded struct {\n\tv uint64\n\t_ [56]byte\n}": Go aligns no type,
 * so the pad field is what keeps the next datum off the line. */
static void print_plain_go(struct strbuf *sb, const struct report_layout *lay)
{
	struct strbuf esc = STRBUF_INIT, et = STRBUF_INIT;
	char *head = go_head(lay);
	uint64_t used = 0;

	strbuf_addf(sb, "%s\n", head);
	for (unsigned i = 0; i < lay->n_rows; i++) {
		const struct report_layout_row *row = &lay->rows[i];

		strbuf_addf(sb, "\t%s %s\n", row->member ? escape_text(&esc, row->member) : "v",
			    row->type_name ? escape_text(&et, row->type_name) : "?");
		used = row->offset + row->size;
	}
	if (lay->size > used)
		strbuf_addf(sb, "\t_ [%" PRIu64 "]byte\n", lay->size - used);
	strbuf_addf(sb, "}\n");
	if (lay->declares)
		strbuf_addf(sb, "/* %s: use the padded type */\n", escape_text(&esc, lay->declares));
	free(head);
	strbuf_release(&esc);
	strbuf_release(&et);
}

/* "struct padded_long {\n\t_Alignas(64) long v;\n\tchar pad[56];\n};" */
static void print_plain(struct strbuf *sb, const struct report_layout *lay)
{
	struct strbuf esc = STRBUF_INIT, et = STRBUF_INIT, em = STRBUF_INIT;

	strbuf_addf(sb, "%s {\n", escape_text(&esc, lay->title));
	for (unsigned i = 0; i < lay->n_rows; i++) {
		const struct report_layout_row *row = &lay->rows[i];
		char *type, *decl;

		split_declaration(row->type_name ? escape_text(&et, row->type_name) : "?",
				  row->member ? escape_text(&em, row->member) : "<anonymous>",
				  &type, &decl);
		strbuf_addf(sb, "\t");
		if (row->line_aligned)
			strbuf_addf(sb, "%s(%u) ", alignas_word(lay),
				    lay->line_size);
		strbuf_addf(sb, "%s %s;\n", type, decl);
		free(type);
		free(decl);
	}
	if (lay->pad_member && lay->tail_padding)
		strbuf_addf(sb, "\tchar pad[%" PRIu64 "];\n", lay->tail_padding);
	strbuf_addf(sb, "}");
	if (lay->declares)
		strbuf_addf(sb, " %s", escape_text(&esc, lay->declares));
	strbuf_addf(sb, ";");
	if (lay->closing_comment)
		strbuf_addf(sb, "\t%s", escape_text(&esc, lay->closing_comment));
	strbuf_addch(sb, '\n');
	strbuf_release(&esc);
	strbuf_release(&et);
	strbuf_release(&em);
}

/* Comment lines (before, after) that hold names: each line escaped, its
 * newline kept. */
static void add_comment_lines(struct strbuf *sb, const char *text)
{
	struct strbuf line = STRBUF_INIT, esc = STRBUF_INIT;

	while (*text) {
		const char *nl = strchrnul(text, '\n');

		strbuf_reset(&line);
		strbuf_add(&line, text, (size_t)(nl - text));
		strbuf_addf(sb, "%s", escape_source_line(&esc, strbuf_str(&line)));
		if (*nl)
			strbuf_addch(sb, '\n');
		text = *nl ? nl + 1 : nl;
	}
	strbuf_release(&line);
	strbuf_release(&esc);
}

char *advice_layout_text(const struct report_layout *lay)
{
	struct strbuf sb = STRBUF_INIT;

	if (!lay->title)
		return NULL;
	if (lay->before)
		add_comment_lines(&sb, lay->before);
	if (lay->style == LAYOUT_PLAIN && lay->rust)
		print_plain_rust(&sb, lay);
	else if (lay->style == LAYOUT_PLAIN && lay->go)
		print_plain_go(&sb, lay);
	else if (lay->style == LAYOUT_PLAIN)
		print_plain(&sb, lay);
	else
		print_pahole(&sb, lay);
	if (lay->after)
		add_comment_lines(&sb, lay->after);
	return strbuf_detach(&sb);
}

/* ---- C++ --------------------------------------------------------------- */

/* s with every from replaced by to; s is freed. */
static char *replace_all(char *s, const char *from, const char *to)
{
	struct strbuf sb = STRBUF_INIT;
	const char *p = s, *hit;

	if (!s || !strstr(s, from))
		return s;
	while ((hit = strstr(p, from))) {
		strbuf_add(&sb, p, (size_t)(hit - p));
		strbuf_add(&sb, to, strlen(to));
		p = hit + strlen(from);
	}
	strbuf_add(&sb, p, strlen(p));
	free(s);
	return strbuf_detach(&sb);
}

/* The advice is written in C; a C++ program wants alignas, and its new
 * aligns over-aligned types by itself (C++17). */
char *respell_for_cxx(char *s)
{
	s = replace_all(s, "_Alignas(", "alignas(");
	s = replace_all(s, "sizeof(struct ", "sizeof(");
	s = replace_all(s, "sizeof(class ", "sizeof(");
	return replace_all(s, "/* malloc aligns to 16 bytes only: allocate with ",
			   "/* new aligns it (C++17); malloc to 16 bytes only: use ");
}

/* Every string a layout prints, so that the text reads as if respelled
 * whole (a padded member's type carries _Alignas). */
void layout_respell_for_cxx(struct report_layout *lay)
{
	char **texts[] = { &lay->title, &lay->before, &lay->declares,
			   &lay->closing_comment, &lay->after };

	lay->cxx = true;
	for (size_t i = 0; i < ARRAY_SIZE(texts); i++)
		*texts[i] = respell_for_cxx(*texts[i]);
	for (unsigned i = 0; i < lay->n_rows; i++) {
		lay->rows[i].type_name = respell_for_cxx(lay->rows[i].type_name);
		lay->rows[i].comment = respell_for_cxx(lay->rows[i].comment);
	}
}

/* ---- ownership --------------------------------------------------------- */

void advice_layout_release(struct report_layout *lay)
{
	for (unsigned i = 0; i < lay->n_rows; i++) {
		struct report_layout_row *row = &lay->rows[i];

		free(row->member);
		free(row->type_name);
		free(row->comment);
		free(row->writers);
		free(row->readers);
	}
	free(lay->rows);
	free(lay->title);
	free(lay->before);
	free(lay->declares);
	free(lay->closing_comment);
	free(lay->after);
	memset(lay, 0, sizeof(*lay));
}

void advice_release(struct report_advice *a)
{
	free(a->summary);
	free(a->layout_now);
	free(a->layout_proposed);
	advice_layout_release(&a->current);
	advice_layout_release(&a->proposed);
	memset(a, 0, sizeof(*a));
}

const char *report_member_access(unsigned access)
{
	return member_access_name(access);
}

const char *report_layout_title(const struct report_layout *lay)
{
	if (lay->title && (lay->go || lay->rust) && !strncmp(lay->title, "struct ", 7))
		return lay->title + 7;
	return lay->title;
}
