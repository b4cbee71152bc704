/* fix_patch.c - the fix as a patch to the project's own source
 * (fix_patch.h).  This file chooses each line's shape, keeps the edits,
 * words their comments and puts them in the report; the shapes are
 * fix_struct.c, fix_array.c, fix_java.c and fix_go.c (fix_internal.h), the files'
 * reading fix_source.c's and the diff fix_diff.c's. */
#include "reports/fix_patch.h"

#include <ctype.h>
#include <dirent.h>
#include <stdlib.h>
#include <string.h>

#include "common/access.h"
#include "common/util.h"
#include "reports/fix_internal.h"
#include "reports/fix_source.h"

#define FIX_FILES_MAX 64        /* source files read for one report */
#define FIX_BYTES_MAX (64u << 20)  /* ... and their bytes, all together */
#define LCS_MAX_LINES 2000      /* a longer span is replaced whole */

/* --- files --------------------------------------------------------------- */

const struct fix_source *fix_source_of(struct fix_ctx *c, const char *path, char **why)
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
	/* memory bounded by what one report reads, whatever DWARF names */
	if (c->n_files >= FIX_FILES_MAX || c->bytes >= FIX_BYTES_MAX) {
		*why = xasprintf("more source than contend reads for one report (%u files, %u MiB)",
				 FIX_FILES_MAX, FIX_BYTES_MAX >> 20);
		return NULL;
	}
	if (fix_source_read(path, c->r->source_reader, &s, &err) < 0)
		memset(&s, 0, sizeof(s));
	for (unsigned k = 0; k < s.n_lines; k++)
		c->bytes += strlen(s.lines[k]);
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

static bool has_ext(const char *path, const char *ext)
{
	size_t n = strlen(path), e = strlen(ext);

	return n > e && !strcmp(path + n - e, ext);
}

unsigned fix_candidate_files(const struct report_line *rl, const char *ext, char **files,
			     unsigned max)
{
	unsigned n = 0;

	for (unsigned i = 0; i < rl->n_ranges; i++)
		for (unsigned k = 0; k < rl->ranges[i].n_sites; k++) {
			const char *f = rl->ranges[i].sites[k].file;
			unsigned j;

			for (j = 0; f && j < n && strcmp(files[j], f); j++)
				;
			if (f && has_ext(f, ext) && f[0] == '/' && j == n && n < max)
				files[n++] = xstrdup(f);
		}
	for (unsigned i = 0, sites = n; i < sites; i++) {
		char *dir = xasprintf("%.*s", (int)(strrchr(files[i], '/') - files[i]), files[i]);
		DIR *d = opendir(dir);
		struct dirent *e;

		while (d && (e = readdir(d)) && n < max) {
			char *f = xasprintf("%s/%s", dir, e->d_name);
			unsigned j;

			for (j = 0; j < n && strcmp(files[j], f); j++)
				;
			if (e->d_type == DT_REG && has_ext(f, ext) && j == n)
				files[n++] = f;
			else
				free(f);
		}
		if (d)
			closedir(d);
		free(dir);
	}
	return n;
}

#define TYPE_FILES_MAX 32       /* files of a package looked at */

unsigned fix_find_type(struct fix_ctx *c, const struct report_line *rl, const char *ext,
		       bool (*declares)(const char *line, const char *name), const char *name,
		       const struct fix_source **src, unsigned *close)
{
	char *files[TYPE_FILES_MAX];
	unsigned n = fix_candidate_files(rl, ext, files, TYPE_FILES_MAX), open = 0;

	for (unsigned i = 0; i < n && !open; i++) {
		char *err = NULL;

		*src = fix_source_of(c, files[i], &err);
		free(err);
		for (unsigned k = 1; *src && k <= (*src)->n_lines && !open; k++)
			if (declares(fix_source_line(*src, k), name))
				open = k;
	}
	for (unsigned i = 0; i < n; i++)
		free(files[i]);
	for (*close = open + 1; open && *close <= (*src)->n_lines; ++*close) {
		const char *l = fix_source_line(*src, *close);

		if (l[strspn(l, " \t")] == '}')
			break;
	}
	return open;
}

/* --- words --------------------------------------------------------------- */

bool fix_code_name(const char *name)
{
	return name && *name && strlen(name) < 256 &&
	       strspn(name, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
		      "_ *&[]:<>,") == strlen(name);
}

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
		unsigned tid = rl->threads[i].tid;

		/* a goroutine as the text report names it: "g3" */
		if (tid_is_goroutine(tid))
			strbuf_addf(sb, "%sg%u", i ? ", " : "", tid - GOROUTINE_TID_BASE + 1);
		else
			strbuf_addf(sb, "%s%u", i ? ", " : "", tid);
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
void fix_comment_line(struct strbuf *sb, const char *like, const char *what,
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
	if (rl->predicted_gain > 1.005)      /* a floor says so, as the report does */
		strbuf_addf(sb, "; predicted gain %s%.1fx", report_gain_floor_word(rl->gain_note),
			    rl->predicted_gain);
	strbuf_addf(sb, " */\n");
}

const char *fix_align_word(const struct report_line *rl)
{
	return rl->cxx ? "alignas" : "_Alignas";
}

void fix_pending_add(struct pending_set *ps, const struct fix_source *src, unsigned line,
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
		fix_pending_add(ps, src, run->at, run->n_old, strbuf_detach(&run->text));
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
void fix_pending_replace(struct pending_set *ps, const struct fix_source *src,
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
		fix_pending_add(ps, src, first, n_old, xstrdup(text));
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

/* A diff's "--- a/PATH" line ends at a newline, and its name at a tab. */
static bool printable_path(const char *path)
{
	for (const unsigned char *p = (const unsigned char *)path; *p; p++)
		if (*p < 0x20 || *p == 0x7f)
			return false;
	return true;
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
		else if (!printable_path(rel[i]))
			why = xstrdup("its source file's name holds control characters: a diff "
				      "cannot name it");
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
	if (rl->java)
		return NULL;    /* the JVM lays it out: no proposal, a Java patch */
	if (rl->rust && !rl->struct_name)
		return xasprintf("built without debug info, the binary names no struct to patch "
				 "(build with -g or debug = 1): %s", advice);
	if (!rl->advice.proposed.title || !rl->advice.proposed.n_rows)
		return xasprintf("no layout was proposed%s%s", *advice ? ": " : "", advice);
	return NULL;
}

static void fix_line(struct fix_ctx *c, struct report_line *rl)
{
	struct pending_set ps = { .caveat = STRBUF_INIT };
	const struct report_layout *p = &rl->advice.proposed;
	char *why = no_patch_why(rl), *decl = NULL;

	if (!why && rl->java) {
		why = fix_java_fields(c, rl, &ps);
		decl = xstrdup(rl->type_name ? rl->type_name : "?");
	} else if (!why && rl->rust) {
		why = fix_rust_struct(c, rl, &ps);
		decl = xstrdup(rl->struct_name);
	} else if (!why && rl->go && rl->struct_name) {
		why = fix_go_struct(c, rl, &ps);
		decl = xstrdup(rl->struct_name);
	} else if (!why && rl->struct_decl.file && rl->struct_name && p->title &&
	    !strcmp(fix_type_tag(p->title), fix_type_tag(rl->struct_name))) {
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
		src = fix_source_of(c, order[first]->source, &why);
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
