/* fix_patch.c - the fix as a patch to the project's own source
 * (fix_patch.h).  This file decides what to change per report line; the
 * files' reading is fix_source.c's and the diff fix_diff.c's. */
#include "reports/fix_patch.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "common/util.h"
#include "reports/fix_source.h"

#define SEMICOLON_REACH 20      /* lines a member's declaration may span */
#define FIX_FILES_MAX 64        /* source files read for one report */
#define LCS_MAX_LINES 2000      /* a longer span is replaced whole */

/* An edit not yet in the report (all line numbers are the file's own). */
struct pending {
	const struct fix_source *src;
	unsigned line, n_old;
	char *new_text;
};

struct pending_set {
	struct pending *e;
	unsigned n, alloc;
	struct strbuf caveat;
};

struct fix_ctx {
	struct report *r;
	char *root_opt;                 /* --root, or NULL */
	struct fix_source *files;       /* read so far; path NULL: unreadable */
	char **why;                     /* ... and why */
	unsigned n_files, alloc_files, alloc_why, alloc_edits;
};

/* --- files --------------------------------------------------------------- */

static const struct fix_source *source_of(struct fix_ctx *c, const char *path, char **why)
{
	struct fix_source s;
	char *err = NULL;

	for (unsigned i = 0; i < c->n_files; i++) {
		if (c->files[i].path && !strcmp(c->files[i].path, path))
			return &c->files[i];
		if (!c->files[i].path && !strcmp(c->why[i] + strlen(c->why[i]) + 1, path)) {
			*why = xstrdup(c->why[i]);
			return NULL;
		}
	}
	if (c->n_files >= FIX_FILES_MAX) {
		*why = xasprintf("more than %u source files to patch", FIX_FILES_MAX);
		return NULL;
	}
	if (fix_source_read(path, c->r->source_reader, &s, &err) < 0)
		memset(&s, 0, sizeof(s));
	ALLOC_GROW(c->files, c->n_files + 1, c->alloc_files);
	ALLOC_GROW(c->why, c->n_files + 1, c->alloc_why);
	c->files[c->n_files] = s;
	/* the reason, then the path it is for */
	c->why[c->n_files] = err ? xasprintf("%s%c%s", err, '\0', path) : NULL;
	free(err);
	if (!s.path) {
		*why = xstrdup(c->why[c->n_files++]);
		return NULL;
	}
	return &c->files[c->n_files++];
}

/* --- words --------------------------------------------------------------- */

/* Names from the target go into a C comment: no comment end, no control. */
static void add_comment_safe(struct strbuf *sb, const char *s)
{
	for (; s && *s; s++) {
		if (s[0] == '*' && s[1] == '/')
			strbuf_add(sb, "* ", 2);
		else
			strbuf_addch(sb, (unsigned char)*s < 0x20 || *s == 0x7f ? '?' : *s);
	}
}

static void add_threads(struct strbuf *sb, const struct report_line *rl)
{
	for (unsigned i = 0; i < rl->n_threads && i < 4; i++) {
		strbuf_addf(sb, "%s%u", i ? ", " : "", rl->threads[i].tid);
		if (rl->threads[i].comm) {
			strbuf_addch(sb, ' ');
			strbuf_addch(sb, '(');
			add_comment_safe(sb, rl->threads[i].comm);
			strbuf_addch(sb, ')');
		}
	}
	if (rl->n_threads > 4)
		strbuf_addf(sb, " and %u more", rl->n_threads - 4);
}

/* "/ * contend: WHAT; false sharing on OBJECT by threads ...; predicted
 * gain 2.1x * /", indented as `like` is; WHAT that names the threads
 * (the proposal's "written by threads ...") is not followed by them. */
static void add_comment_line(struct strbuf *sb, const char *like, const char *what,
			     const struct report_line *rl)
{
	size_t indent = strspn(like, " \t");

	strbuf_add(sb, like, indent);
	strbuf_addf(sb, "/* contend: ");
	add_comment_safe(sb, what);
	strbuf_addf(sb, "; %s on ", sharing_kind_name(rl->kind));
	add_comment_safe(sb, rl->object ? rl->object : "?");
	if (!strstr(what, "thread")) {
		strbuf_addf(sb, " by threads ");
		add_threads(sb, rl);
	}
	if (rl->predicted_gain > 1.005)
		strbuf_addf(sb, "; predicted gain %.1fx", rl->predicted_gain);
	strbuf_addf(sb, " */\n");
}

static const char *align_word(const struct report_line *rl)
{
	return rl->cxx ? "alignas" : "_Alignas";
}

static bool already_aligned(const char *line)
{
	return strstr(line, "_Alignas") || strstr(line, "alignas(") || strstr(line, "aligned(");
}

static void pending_add(struct pending_set *ps, const struct fix_source *src, unsigned line,
			unsigned n_old, char *text)
{
	ALLOC_GROW(ps->e, ps->n + 1, ps->alloc);
	ps->e[ps->n++] = (struct pending){ src, line, n_old, text };
}

static void pending_release(struct pending_set *ps)
{
	for (unsigned i = 0; i < ps->n; i++)
		free(ps->e[i].new_text);
	free(ps->e);
	strbuf_release(&ps->caveat);
	memset(ps, 0, sizeof(*ps));
}

/* A run of changed lines: old lines from `at` on replaced by `text`. */
struct change_run {
	unsigned at, n_old;
	struct strbuf text;
	bool open;
};

static void run_flush(struct pending_set *ps, const struct fix_source *src,
		      struct change_run *run)
{
	if (run->open)
		pending_add(ps, src, run->at, run->n_old, strbuf_detach(&run->text));
	strbuf_release(&run->text);
	run->open = false;
	run->n_old = 0;
}

static void run_open(struct change_run *run, unsigned at)
{
	if (!run->open) {
		run->open = true;
		run->at = at;
	}
}

/*
 * Replace lines [first, last] of src with the lines of text, as the
 * smallest edits: a longest common subsequence of the two keeps what
 * both have, so a member moved to the end is one line out and one in.
 */
static void pending_replace(struct pending_set *ps, const struct fix_source *src,
			    unsigned first, unsigned last, const char *text)
{
	char **nl = NULL;
	unsigned n_new = 0, alloc = 0, n_old = last - first + 1, w, i = 0, j = 0;
	struct change_run run = { .text = STRBUF_INIT };
	unsigned *lcs;

	for (const char *p = text; *p; ) {
		size_t n = strchr(p, '\n') ? (size_t)(strchr(p, '\n') - p) + 1 : strlen(p);

		ALLOC_GROW(nl, n_new + 1, alloc);
		nl[n_new++] = xasprintf("%.*s", (int)n, p);
		p += n;
	}
	if (n_old > LCS_MAX_LINES || n_new > LCS_MAX_LINES) {
		pending_add(ps, src, first, n_old, xstrdup(text));
		goto out;
	}
	w = n_new + 1;
	lcs = xcalloc((size_t)(n_old + 1) * w, sizeof(*lcs));
#define SAME(a, b) (!strcmp(fix_source_line(src, first + (a)), nl[b]))
	for (unsigned a = n_old; a-- > 0; )
		for (unsigned b = n_new; b-- > 0; )
			lcs[a * w + b] = SAME(a, b) ? lcs[(a + 1) * w + b + 1] + 1 :
				lcs[(a + 1) * w + b] > lcs[a * w + b + 1] ?
				lcs[(a + 1) * w + b] : lcs[a * w + b + 1];
	while (i < n_old || j < n_new) {
		if (i < n_old && j < n_new && SAME(i, j)) {
			run_flush(ps, src, &run);
			i++, j++;
		} else if (j < n_new && (i == n_old || lcs[i * w + j + 1] >= lcs[(i + 1) * w + j])) {
			run_open(&run, first + i);
			strbuf_addf(&run.text, "%s", nl[j++]);
		} else {
			run_open(&run, first + i);
			run.n_old++;
			i++;
		}
	}
#undef SAME
	run_flush(ps, src, &run);
	free(lcs);
out:
	for (unsigned k = 0; k < n_new; k++)
		free(nl[k]);
	free(nl);
}

/* --- a struct's members -------------------------------------------------- */

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

static bool pad_row(const struct report_layout_row *row)
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
			if (pad_row(row))
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
		add_comment_line(sb, l, m->row->comment ? m->row->comment : "a line of its own", rl);
		strbuf_add(sb, l, indent);
		strbuf_addf(sb, "%s(%u) %s", align_word(rl), rl->line_size, l + indent);
	}
}

static bool is_header(const char *path)
{
	const char *dot = strrchr(path, '.');

	return dot && (!strcmp(dot, ".h") || !strcmp(dot, ".hh") || !strcmp(dot, ".hpp") ||
		       !strcmp(dot, ".hxx") || !strcmp(dot, ".H"));
}

/* The struct's tag as code spells it in sizeof: "Klass" of "struct Klass". */
static const char *type_tag(const char *name)
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
	const char *tag = type_tag(rl->struct_name);
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
		pending_add(ps, src, k, 1, updated);
		strbuf_addf(&lines, "%s%u", lines.len ? ", " : "", k);
	}
	if (lines.len)
		strbuf_addf(caveat, "%sthe static assertions on its layout (line %s) are set to the "
			    "new offsets: if they pin a file format or an ABI, do not apply this",
			    caveat->len ? "; " : "", lines.buf);
	strbuf_release(&lines);
}

static char *fix_struct(struct fix_ctx *c, struct report_line *rl, struct pending_set *ps)
{
	const struct fix_source *src;
	struct member_block *b, *order;
	struct strbuf sb = STRBUF_INIT;
	unsigned n = 0;
	char *why = NULL;
	bool moved = false;

	if (!(src = source_of(c, rl->struct_decl.file, &why)))
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
		pending_replace(ps, src, b[0].decl, b[n - 1].end, strbuf_str(&sb));
		layout_caveats(rl, src, ps);
	}
	strbuf_release(&sb);
	free(order);
	free(b);
	return why;
}

/* --- a global array of scalars ------------------------------------------- */

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
			pending_add(ps, src, lines[i], 1, strbuf_detach(&sb));
		strbuf_release(&sb);
		i = j;
	}
}

static const struct report_layout_row *wrapped_row(const struct report_layout *p)
{
	for (unsigned i = 0; i < p->n_rows; i++)
		if (p->rows[i].member && !pad_row(&p->rows[i]) && p->rows[i].type_name)
			return &p->rows[i];
	return NULL;
}

static char *declare_wrapped(const struct report_line *rl, const char *l, unsigned name_at,
			     const struct report_layout_row *row)
{
	struct strbuf sb = STRBUF_INIT;
	size_t indent = strspn(l, " \t");
	const char *tag = type_tag(rl->advice.proposed.title);

	add_comment_line(&sb, l, "each element on a line of its own", rl);
	strbuf_add(&sb, l, indent);
	strbuf_addf(&sb, "struct %s {\n", tag);
	strbuf_add(&sb, l, indent);
	strbuf_addf(&sb, "\t%s(%u) %s %s;\n", align_word(rl), rl->line_size, row->type_name,
		    row->member);
	strbuf_add(&sb, l, indent);
	strbuf_addf(&sb, "};\n");
	strbuf_add(&sb, l, indent);
	storage_words(&sb, l + indent, name_at - indent);
	strbuf_addf(&sb, "struct %s %s", tag, l + name_at);
	return strbuf_detach(&sb);
}

static char *fix_scalar_array(struct fix_ctx *c, struct report_line *rl, struct pending_set *ps)
{
	const struct report_layout_row *row = wrapped_row(&rl->advice.proposed);
	const char *name = rl->variable, *l;
	const struct fix_source *src;
	unsigned *lines = NULL, *ends = NULL, n, at = 0, decl = rl->variable_decl.line;
	struct strbuf bare = STRBUF_INIT;
	char *why = NULL;

	if (!row || !rl->advice.proposed.title)
		return xstrdup("the proposal has no element to wrap");
	if (!(src = source_of(c, rl->variable_decl.file, &why)))
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

		pending_add(ps, src, decl, 1, declare_wrapped(rl, l, name_at, row));
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
static void fix_allocation(struct fix_ctx *c, const struct report_line *rl,
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
	if (!strcmp(a->call, "malloc") && (src = source_of(c, a->file, &why))) {
		n = fix_source_uses(src, "malloc", &lines, &ends);
		for (unsigned i = 0; i < n; i++)
			if (lines[i] == a->line) {
				uses++;
				at = ends[i];
			}
		if (uses == 1 && fix_source_line(src, a->line)[at] == '(') {
			const char *l = fix_source_line(src, a->line);

			pending_add(ps, src, a->line, 1,
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

/* --- into the report ----------------------------------------------------- */

static bool edits_overlap(unsigned a, unsigned na, unsigned b, unsigned nb)
{
	na = na ? na : 1;
	nb = nb ? nb : 1;
	return a < b + nb && b < a + na;
}

static char *old_lines(const struct fix_source *src, unsigned line, unsigned n)
{
	struct strbuf sb = STRBUF_INIT;

	for (unsigned k = line; k < line + n; k++)
		strbuf_addf(&sb, "%s", fix_source_line(src, k));
	return strbuf_detach(&sb);
}

/* Where edit e is in the report already: its index, or -1 if new; -2
 * when it overlaps another (*why). */
static int find_edit(const struct report_patch *p, const struct pending *e, char **why)
{
	for (unsigned i = 0; i < p->n_edits; i++) {
		const struct report_edit *x = &p->edits[i];

		if (strcmp(x->source, e->src->path) ||
		    !edits_overlap(x->line, x->n_old, e->line, e->n_old))
			continue;
		if (x->line == e->line && x->n_old == e->n_old && !strcmp(x->new_text, e->new_text))
			return (int)i;
		*why = xasprintf("its change to %s:%u overlaps another line's patch",
				 basename_of(x->source), e->line);
		return -2;
	}
	return -1;
}

static char *commit(struct fix_ctx *c, struct report_line *rl, struct pending_set *ps)
{
	struct report_patch *p = &c->r->patch;
	int *at = xcalloc(ps->n + 1, sizeof(*at));
	char *why = NULL, **rel = xcalloc(ps->n + 1, sizeof(*rel));

	for (unsigned i = 0; i < ps->n && !why; i++) {
		if (!p->root)
			p->root = fix_project_root(ps->e[i].src->path, c->root_opt);
		if (!(rel[i] = fix_relative_path(ps->e[i].src->path, p->root)))
			why = xasprintf("%s is not under the project root %s (--root)",
					ps->e[i].src->path, p->root);
		else
			at[i] = find_edit(p, &ps->e[i], &why);
	}
	for (unsigned i = 0; i < ps->n && !why; i++) {
		const struct pending *e = &ps->e[i];

		if (at[i] == -1) {
			ALLOC_GROW(p->edits, p->n_edits + 1, c->alloc_edits);
			p->edits[p->n_edits] = (struct report_edit){
				.path = rel[i], .source = xstrdup(e->src->path), .line = e->line,
				.n_old = e->n_old, .old_text = old_lines(e->src, e->line, e->n_old),
				.new_text = xstrdup(e->new_text),
			};
			rel[i] = NULL;
			at[i] = (int)p->n_edits++;
		}
		rl->fix.edits = xrealloc(rl->fix.edits, (rl->fix.n_edits + 1) * sizeof(unsigned));
		rl->fix.edits[rl->fix.n_edits++] = (unsigned)at[i];
	}
	for (unsigned i = 0; i < ps->n; i++)
		free(rel[i]);
	free(rel);
	free(at);
	return why;
}

/* --- per line ------------------------------------------------------------ */

static char *no_patch_why(const struct report_line *rl)
{
	const char *advice = rl->advice.summary ? rl->advice.summary : "";

	if (rl->kind == SHARING_TRUE)
		return xasprintf("true sharing: the threads write the same bytes, and no padding "
				 "parts them; %s", advice);
	if (!rl->advice.proposed.title || !rl->advice.proposed.n_rows)
		return xasprintf("no layout was proposed%s%s", *advice ? ": " : "", advice);
	if (rl->rust || rl->go)
		return xasprintf("contend writes patches for C and C++ declarations; this type "
				 "is %s: %s", rl->rust ? "Rust" : "Go", advice);
	return NULL;
}

static void fix_line(struct fix_ctx *c, struct report_line *rl)
{
	struct pending_set ps = { .caveat = STRBUF_INIT };
	const struct report_layout *p = &rl->advice.proposed;
	char *why = no_patch_why(rl), *decl = NULL;

	if (!why && rl->struct_decl.file && rl->struct_name && p->title &&
	    !strcmp(type_tag(p->title), type_tag(rl->struct_name))) {
		why = fix_struct(c, rl, &ps);
		if (!why)
			fix_allocation(c, rl, &ps);
		decl = xasprintf("%s (%s:%u)", rl->struct_name, basename_of(rl->struct_decl.file),
				 rl->struct_decl.line);
	} else if (!why && rl->variable && rl->variable_decl.file && p->style == LAYOUT_PLAIN) {
		why = fix_scalar_array(c, rl, &ps);
		decl = xasprintf("%s (%s:%u)", rl->variable, basename_of(rl->variable_decl.file),
				 rl->variable_decl.line);
	} else if (!why) {
		why = xstrdup("DWARF names no declaration of its struct or variable to patch");
	}
	if (!why && !ps.n)
		why = xstrdup("its declaration has the proposed layout already");
	if (!why)
		why = commit(c, rl, &ps);
	if (why) {
		rl->fix.none_why = why;
		free(rl->fix.edits);
		rl->fix.edits = NULL;
		rl->fix.n_edits = 0;
	} else {
		struct strbuf sb = STRBUF_INIT;

		strbuf_addf(&sb, "%s: %s", decl, rl->advice.summary ? rl->advice.summary :
			    "padded to the line");
		if (rl->advice.cost_bytes > 0)
			strbuf_addf(&sb, " (costs %ld bytes)", rl->advice.cost_bytes);
		rl->fix.summary = strbuf_detach(&sb);
		rl->fix.caveat = ps.caveat.len ? xstrdup(ps.caveat.buf) : NULL;
	}
	free(decl);
	pending_release(&ps);
}

/* --- the diff ------------------------------------------------------------ */

static int cmp_edit(const void *a, const void *b)
{
	const struct report_edit *x = *(const struct report_edit *const *)a;
	const struct report_edit *y = *(const struct report_edit *const *)b;
	int c = strcmp(x->path, y->path);

	return c ? c : x->line < y->line ? -1 : x->line > y->line;
}

static void build_diff(struct fix_ctx *c)
{
	struct report_patch *p = &c->r->patch;
	const struct report_edit **order = xcalloc(p->n_edits + 1, sizeof(*order));
	struct strbuf sb = STRBUF_INIT;

	for (unsigned i = 0; i < p->n_edits; i++)
		order[i] = &p->edits[i];
	sort_items(order, p->n_edits, sizeof(*order), cmp_edit);
	for (unsigned i = 0; i < p->n_edits; ) {
		const struct fix_source *src;
		unsigned first = i;
		char *why = NULL, *diff;

		while (i < p->n_edits && !strcmp(order[i]->path, order[first]->path))
			i++;
		src = source_of(c, order[first]->source, &why);
		free(why);
		if (!src)
			continue;       /* read once already: cannot happen */
		diff = fix_unified_diff(src, order[first]->path, order + first, i - first);
		strbuf_addf(&sb, "%s", diff);
		free(diff);
	}
	p->diff = sb.len ? strbuf_detach(&sb) : NULL;
	strbuf_release(&sb);
	free(order);
}

void fix_patch_build(struct report *r, const char *root)
{
	struct fix_ctx c = { .r = r, .root_opt = root ? xstrdup(root) : NULL };

	if (r->patch.built)
		return;
	r->patch.built = true;
	for (unsigned i = 0; i < r->n_lines; i++)
		fix_line(&c, &r->lines[i]);
	if (r->patch.n_edits)
		build_diff(&c);
	for (unsigned i = 0; i < c.n_files; i++) {
		fix_source_release(&c.files[i]);
		free(c.why[i]);
	}
	free(c.files);
	free(c.why);
	free(c.root_opt);
}

static void line_fix_release(struct report_line_fix *f)
{
	free(f->summary);
	free(f->caveat);
	free(f->none_why);
	free(f->edits);
	memset(f, 0, sizeof(*f));
}

void report_patch_release(struct report *r)
{
	struct report_patch *p = &r->patch;

	for (unsigned i = 0; i < r->n_lines; i++)
		line_fix_release(&r->lines[i].fix);
	for (unsigned i = 0; i < p->n_edits; i++) {
		free(p->edits[i].path);
		free(p->edits[i].source);
		free(p->edits[i].old_text);
		free(p->edits[i].new_text);
	}
	free(p->edits);
	free(p->root);
	free(p->diff);
	memset(p, 0, sizeof(*p));
}
