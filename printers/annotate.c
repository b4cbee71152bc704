/* annotate.c - contended accesses on their source lines, like perf annotate
 * but for source: each file that holds a contended access, its hot lines
 * marked in a margin with the share of samples, the sampled reads and
 * writes, the data, the threads and the code it contends with.  Only the
 * hot lines and ANNOTATE_CONTEXT lines around them, unless full.
 *
 * The first half builds and walks the marks (annotate.h, shared with the
 * HTML page); the second half is the --annotate text.
 */
#include "printers/printers.h"
#include "reports/report.h"
#include "printers/annotate.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/safe_file.h"
#include "common/escape.h"
#include "common/util.h"

#define TAB_WIDTH 8
#define MAX_MEMBER_WIDTH 20
#define MAX_THREADS_WIDTH 16
#define MAX_PARTNER_WIDTH 34
#define MAX_TIDS 2              /* listed in a margin, then "+N" */

static uint64_t max_u64(uint64_t a, uint64_t b)
{
	return a > b ? a : b;
}

/* An instruction is a load, a store or both: its samples are the larger. */
static uint64_t site_samples(const struct report_site *s)
{
	return max_u64(s->reads, s->writes);
}

static bool has_source(const struct report_site *s)
{
	return s->file && *s->file && s->line > 0;
}

static bool same_source(const struct report_site *s, const char *path, int lineno)
{
	return has_source(s) && s->line == lineno && !strcmp(s->file, path);
}

/* ------------------------------------------------------------------ */
/* building the marks */

struct file_acc {
	struct annotate_file f;
	size_t alloc;
};

struct build {
	struct file_acc *files;
	size_t n, alloc;
};

static struct file_acc *file_for(struct build *b, const char *path)
{
	for (size_t i = 0; i < b->n; i++)
		if (!strcmp(b->files[i].f.path, path))
			return &b->files[i];
	ALLOC_GROW(b->files, b->n + 1, b->alloc);
	memset(&b->files[b->n], 0, sizeof(b->files[b->n]));
	b->files[b->n].f.path = path;
	return &b->files[b->n++];
}

static struct annotate_mark *mark_for(struct file_acc *fa, const struct report_range *rr,
				      int lineno)
{
	struct annotate_file *f = &fa->f;

	for (unsigned i = 0; i < f->n_marks; i++)
		if (f->marks[i].range == rr && f->marks[i].lineno == lineno)
			return &f->marks[i];
	ALLOC_GROW(f->marks, f->n_marks + 1, fa->alloc);
	memset(&f->marks[f->n_marks], 0, sizeof(f->marks[f->n_marks]));
	f->marks[f->n_marks].range = rr;
	f->marks[f->n_marks].lineno = lineno;
	return &f->marks[f->n_marks++];
}

static bool disjoint(const struct report_range *x, const struct report_range *y)
{
	return x->offset + x->size <= y->offset || y->offset + y->size <= x->offset;
}

static bool has_thread(const struct report_range *rr, uint32_t tid)
{
	for (unsigned i = 0; i < rr->n_threads; i++)
		if (rr->threads[i].tid == tid)
			return true;
	return false;
}

/* Some thread uses p but not x: a thread never contends with itself. */
static bool other_thread(const struct report_range *p, const struct report_range *x)
{
	for (unsigned i = 0; i < p->n_threads; i++)
		if (!has_thread(x, p->threads[i].tid))
			return true;
	return false;
}

/*
 * The range x contends with: for false sharing the busiest range on
 * disjoint bytes, used by another thread, that writes while x is touched
 * (or is touched while x writes); for true sharing x itself, which other
 * threads use too; NULL for a range no other thread disturbs.
 */
static const struct report_range *partner_range(const struct report_line *l,
						const struct report_range *x)
{
	const struct report_range *best = NULL;

	for (unsigned i = 0; i < l->n_ranges; i++) {
		const struct report_range *p = &l->ranges[i];

		if (p == x || !disjoint(p, x) || !other_thread(p, x))
			continue;
		if (!((x->false_victim && p->false_writer) || (x->false_writer && p->false_victim)))
			continue;
		if (!best || p->reads + p->writes > best->reads + best->writes)
			best = p;
	}
	if (best)
		return best;
	return x->true_shared ? x : NULL;
}

/* p's busiest site, preferably one elsewhere than the mark's own line. */
static const struct report_site *partner_site(const struct report_range *p,
					      const char *path, int lineno)
{
	for (unsigned i = 0; i < p->n_sites; i++) {
		const struct report_site *s = &p->sites[i];

		if (!same_source(s, path, lineno))
			return s;
	}
	return p->n_sites ? &p->sites[0] : NULL;
}

static bool side_has_thread_of(const struct report_pair_side *side,
			       const struct report_range *rr)
{
	for (unsigned i = 0; i < side->n_tids; i++)
		if (has_thread(rr, side->tids[i]))
			return true;
	return false;
}

/* The other side of the heaviest pair rr's threads take part in at path:lineno. */
static const struct report_pair_side *partner_side(const struct report_line *l,
						   const struct report_range *rr,
						   const char *path, int lineno)
{
	for (unsigned i = 0; i < l->n_pairs; i++) {
		const struct report_pair *p = &l->pairs[i];

		if (same_source(&p->a.site, path, lineno) && side_has_thread_of(&p->a, rr))
			return &p->b;
		if (same_source(&p->b.site, path, lineno) && side_has_thread_of(&p->b, rr))
			return &p->a;
	}
	return NULL;
}

static void add_range(struct build *b, struct annotation *a, const struct report_line *l,
		      unsigned rank, const struct report_range *rr)
{
	const struct report_range *p = partner_range(l, rr);

	for (unsigned i = 0; i < rr->n_sites; i++) {
		const struct report_site *s = &rr->sites[i];
		struct file_acc *fa;
		struct annotate_mark *m;

		if (!has_source(s)) {
			a->sites_without_source++;
			continue;
		}
		fa = file_for(b, s->file);
		m = mark_for(fa, rr, s->line);
		if (!m->line) {
			m->line = l;
			m->rank = rank;
			m->partner_side = partner_side(l, rr, s->file, s->line);
			if (!m->partner_side) {
				m->partner = p;
				m->partner_site = p ? partner_site(p, s->file, s->line) : NULL;
			}
		}
		m->samples += site_samples(s);
		m->reads += s->reads;
		m->writes += s->writes;
		fa->f.samples += site_samples(s);
	}
}

static int cmp_mark(const void *a, const void *b)
{
	const struct annotate_mark *x = a, *y = b;

	if (x->lineno != y->lineno)
		return x->lineno < y->lineno ? -1 : 1;
	if (x->samples != y->samples)
		return x->samples > y->samples ? -1 : 1;
	if (x->rank != y->rank)
		return x->rank < y->rank ? -1 : 1;
	return (x->range->offset > y->range->offset) - (x->range->offset < y->range->offset);
}

static int cmp_file(const void *a, const void *b)
{
	const struct annotate_file *x = a, *y = b;

	if (x->samples != y->samples)
		return x->samples > y->samples ? -1 : 1;
	return strcmp(x->path, y->path);
}

void annotation_build(struct annotation *a, const struct report *r,
		      const struct report_line *only)
{
	struct build b = { 0 };

	memset(a, 0, sizeof(*a));
	a->total_samples = r->samples;
	a->source_reader = r->source_reader;
	for (unsigned i = 0; i < r->n_lines; i++) {
		const struct report_line *l = &r->lines[i];

		if (only && l != only)
			continue;
		for (unsigned g = 0; g < l->n_ranges; g++)
			add_range(&b, a, l, i + 1, &l->ranges[g]);
	}
	a->files = xcalloc(b.n ? b.n : 1, sizeof(*a->files));
	a->n_files = b.n;
	for (size_t i = 0; i < b.n; i++) {
		struct annotate_file *f = &b.files[i].f;

		sort_items(f->marks, f->n_marks, sizeof(*f->marks), cmp_mark);
		a->files[i] = *f;
	}
	sort_items(a->files, a->n_files, sizeof(*a->files), cmp_file);
	free(b.files);
}

void annotation_release(struct annotation *a)
{
	for (unsigned i = 0; i < a->n_files; i++)
		free(a->files[i].marks);
	free(a->files);
	memset(a, 0, sizeof(*a));
}

/* ------------------------------------------------------------------ */
/* walking the files */

/*
 * Is source line x within ANNOTATE_CONTEXT of a mark?  next is the first
 * mark at or after the line being read (n), and x is n-1, n or n+1: the
 * nearest marks are then next-1 and next.
 */
static bool near_mark(const struct annotate_file *f, unsigned next, int x)
{
	if (next > 0 && abs(x - f->marks[next - 1].lineno) <= ANNOTATE_CONTEXT)
		return true;
	return next < f->n_marks && abs(f->marks[next].lineno - x) <= ANNOTATE_CONTEXT;
}

/* In view: near a mark, or the one line between two hunks (not worth a gap). */
static bool in_view(const struct annotate_file *f, unsigned next, int n)
{
	return near_mark(f, next, n) || (near_mark(f, next, n - 1) && near_mark(f, next, n + 1));
}

/* Marks from next on that share a line number; returns how many. */
static unsigned marks_at(const struct annotate_file *f, unsigned next, int n)
{
	unsigned k = next;

	while (k < f->n_marks && f->marks[k].lineno == n)
		k++;
	return k - next;
}

/* Marked lines without their text: an unreadable file, or past its end. */
static void walk_marks_only(const struct annotate_file *f, unsigned next, bool gap_first,
			    const struct annotate_ops *ops, void *ctx)
{
	while (next < f->n_marks) {
		unsigned n = marks_at(f, next, f->marks[next].lineno);

		if (gap_first)
			ops->gap(ctx, f);
		gap_first = false;
		ops->line(ctx, f, f->marks[next].lineno, NULL, &f->marks[next], n);
		next += n;
	}
}

/* The file a DWARF line names is the target's choice: never anything but
 * a regular file (a FIFO would hang us, a device would act), never through
 * a symlink, and only one the target's user could read (reader), or a
 * root contend would show any file it names.  *error: the reason, NULL
 * when opened; the caller frees it. */
static FILE *open_source(const char *path, const struct proc_creds *reader, char **error)
{
	size_t n = strlen(path);
	char *why = NULL;
	FILE *fp = NULL;
	int fd;

	fd = safe_open_read(path, reader ? &(struct read_policy){ .reader = reader } : NULL,
			    &why);
	if (fd >= 0 && !(fp = fdopen(fd, "r"))) {
		why = xasprintf("%s: %s", path, strerror(errno));
		close(fd);
	}
	if (why) {
		/* "PATH: reason": the renderer names the file already */
		*error = xstrdup(!strncmp(why, path, n) && !strncmp(why + n, ": ", 2) ?
				 why + n + 2 : why);
		free(why);
	}
	return fp;
}

/* A source file is the target's: however large (a sparse 100 GB file) or
 * however long its lines, reading it is bounded. */
#define ANNOTATE_MAX_LINE 4096                  /* bytes of a line shown */
#define ANNOTATE_MAX_BYTES ((size_t)64 << 20)   /* bytes of a file read */

/*
 * The next line of fp into buf (at most ANNOTATE_MAX_LINE bytes of it,
 * "..." marking the rest dropped), without its line end; *read counts
 * the bytes consumed.  False at the end of the file, or past
 * ANNOTATE_MAX_BYTES (then *cut).
 */
static bool next_line(FILE *fp, char *buf, size_t *read, bool *cut)
{
	size_t len = 0;
	bool any = false, long_line = false;
	int c;

	while ((c = getc_unlocked(fp)) != EOF) {
		any = true;
		if (++*read > ANNOTATE_MAX_BYTES) {
			*cut = true;
			return false;
		}
		if (c == '\n')
			break;
		if (len < ANNOTATE_MAX_LINE)
			buf[len++] = (char)c;
		else
			long_line = true;
	}
	while (len > 0 && buf[len - 1] == '\r')
		len--;
	buf[len] = '\0';
	if (long_line)
		strcpy(buf + len, " ...");
	return any;
}

static void walk_file(const struct annotate_file *f, const struct proc_creds *reader,
		      bool full, const struct annotate_ops *ops, void *ctx)
{
	char *error = NULL;
	FILE *fp = open_source(f->path, reader, &error);
	char *text = xmalloc(ANNOTATE_MAX_LINE + sizeof(" ..."));
	char *cut_note = NULL;
	size_t read = 0;
	bool cut = false;
	unsigned next = 0;
	int n = 0, shown = 0;     /* the line read, the last one shown */

	ops->file_begin(ctx, f, fp ? NULL : error);
	free(error);
	if (!fp) {
		free(text);
		walk_marks_only(f, 0, false, ops, ctx);
		ops->file_end(ctx, f, 0, NULL);
		return;
	}
	while (next_line(fp, text, &read, &cut)) {
		unsigned here;

		n++;
		/* past the last hunk there is nothing left to show */
		if (!full && next == f->n_marks && n > shown + 1)
			break;
		here = marks_at(f, next, n);
		if (full || in_view(f, next, n)) {
			if (shown && shown != n - 1)
				ops->gap(ctx, f);
			ops->line(ctx, f, n, text, &f->marks[next], here);
			shown = n;
		}
		next += here;
	}
	free(text);
	fclose(fp);
	if (cut)
		cut_note = xasprintf("read only its first %zu MiB (line %d): the rest is not shown, "
				     "%u mark%s with it", ANNOTATE_MAX_BYTES >> 20, n,
				     f->n_marks - next, f->n_marks - next == 1 ? "" : "s");
	else
		walk_marks_only(f, next, shown > 0, ops, ctx);
	ops->file_end(ctx, f, cut ? 0 : f->n_marks - next, cut_note);
	free(cut_note);
}

void annotate_walk(const struct annotation *a, bool full,
		   const struct annotate_ops *ops, void *ctx)
{
	for (unsigned i = 0; i < a->n_files; i++)
		walk_file(&a->files[i], a->source_reader, full, ops, ctx);
}

/* ------------------------------------------------------------------ */
/* the pieces of a margin */

double annotate_percent(const struct annotation *a, const struct annotate_mark *m)
{
	return a->total_samples ? 100.0 * (double)m->samples / (double)a->total_samples : 0.0;
}

char *annotate_member(const struct annotate_mark *m)
{
	if (m->range->member)
		return xstrdup(m->range->member);
	/* untyped: where in the line, as the report's offset column says */
	return xasprintf("line+%u", m->range->offset);
}

/* "T1235,T1236+2": at most MAX_TIDS thread ids, then how many more. */
struct tid_list {
	struct strbuf sb;
	unsigned listed, more;
};

static void tid_list_add(struct tid_list *t, uint32_t tid)
{
	char buf[TID_LABEL_MAX];

	if (t->listed == MAX_TIDS) {
		t->more++;
		return;
	}
	strbuf_addf(&t->sb, "%sT%s", t->listed++ ? "," : "", tid_label(buf, tid));
}

static char *tid_list_finish(struct tid_list *t)
{
	if (t->more)
		strbuf_addf(&t->sb, "+%u", t->more);
	return strbuf_detach(&t->sb);
}

char *annotate_threads(const struct annotate_mark *m)
{
	struct tid_list t = { STRBUF_INIT };

	for (unsigned i = 0; i < m->range->n_threads; i++)
		tid_list_add(&t, m->range->threads[i].tid);
	return tid_list_finish(&t);
}

/*
 * The partner's threads that are not the mark's: a pair's side may hold
 * the mark's own thread too (it also ran the partner's code against
 * another thread's access here).
 */
static char *partner_threads(const struct annotate_mark *m)
{
	struct tid_list t = { STRBUF_INIT };

	if (m->partner_side) {
		for (unsigned i = 0; i < m->partner_side->n_tids; i++)
			if (!has_thread(m->range, m->partner_side->tids[i]))
				tid_list_add(&t, m->partner_side->tids[i]);
	} else {
		for (unsigned i = 0; i < m->partner->n_threads; i++)
			if (!has_thread(m->range, m->partner->threads[i].tid))
				tid_list_add(&t, m->partner->threads[i].tid);
	}
	return tid_list_finish(&t);
}

/* "increment:42", "false_sharing.c:42", "libfoo.so+0x1234". */
static char *site_name(const struct report_site *s)
{
	if (has_source(s))
		return xasprintf("%s:%d", s->function ? s->function : basename_of(s->file),
				 s->line);
	if (s->function)
		return xstrdup(s->function);
	if (s->module)
		return xasprintf("%s+0x%" PRIx64, s->module, s->module_off);
	return xasprintf("0x%" PRIx64, report_code_addr(s->ip));
}

char *annotate_partner(const struct annotate_mark *m)
{
	const struct report_site *site = m->partner_side ? &m->partner_side->site :
					 m->partner_site;
	struct strbuf sb = STRBUF_INIT;
	char *what, *tids;

	if (!m->partner_side && !m->partner)
		return xstrdup("");
	if (site)
		what = site_name(site);
	else if (m->partner != m->range)     /* a range without code sites */
		what = m->partner->member ? xstrdup(m->partner->member) :
		       xasprintf("line+%u", m->partner->offset);
	else
		what = xstrdup("");
	tids = partner_threads(m);
	strbuf_addf(&sb, "<->%s%s", *what ? " " : "", what);
	if (*tids)
		strbuf_addf(&sb, " (%s)", tids);
	free(what);
	free(tids);
	return strbuf_detach(&sb);
}

/* ------------------------------------------------------------------ */
/* the --annotate text */

struct margin {
	double percent;
	char *rw, *member, *threads, *partner;
};

struct text {
	FILE *out;
	const struct annotation *a;
	struct margin *margins;         /* of the current file, by mark */
	int rw, member, threads, partner, lineno;  /* column widths */
	int width;                      /* of the whole margin */
	bool full;
};

static int min_int(int a, int b)
{
	return a < b ? a : b;
}

static int max_int(int a, int b)
{
	return a > b ? a : b;
}

static int digits(uint64_t v)
{
	int n = 1;

	for (; v >= 10; v /= 10)
		n++;
	return n;
}

/* s (names from the target: escaped) in exactly width columns: cut with
 * "..." or padded with blanks. */
static void put_field(FILE *out, const char *raw, int width)
{
	struct strbuf esc = STRBUF_INIT;
	const char *s = escape_text(&esc, raw);
	int len = strlen(s);

	if (len > width && width > 3)
		fprintf(out, "%.*s...", width - 3, s);
	else
		fprintf(out, "%-*s", width, s);
	strbuf_release(&esc);
}

static void text_file_begin(void *ctx, const struct annotate_file *f, const char *error)
{
	struct strbuf esc = STRBUF_INIT;
	struct text *t = ctx;
	int rw_digits = 1;

	t->margins = xcalloc(f->n_marks, sizeof(*t->margins));
	t->member = t->threads = t->partner = 0;
	for (unsigned i = 0; i < f->n_marks; i++)
		rw_digits = max_int(rw_digits, digits(max_u64(f->marks[i].reads,
							      f->marks[i].writes)));
	for (unsigned i = 0; i < f->n_marks; i++) {
		const struct annotate_mark *m = &f->marks[i];
		struct margin *g = &t->margins[i];

		g->percent = annotate_percent(t->a, m);
		g->rw = xasprintf("R %*" PRIu64 " W %*" PRIu64, rw_digits, m->reads,
				  rw_digits, m->writes);
		g->member = annotate_member(m);
		g->threads = annotate_threads(m);
		g->partner = annotate_partner(m);
		t->member = max_int(t->member, strlen(g->member));
		t->threads = max_int(t->threads, strlen(g->threads));
		t->partner = max_int(t->partner, strlen(g->partner));
	}
	t->rw = 2 * rw_digits + 5;   /* "R 400 W 390" */
	t->member = min_int(t->member, MAX_MEMBER_WIDTH);
	t->threads = min_int(t->threads, MAX_THREADS_WIDTH);
	t->partner = min_int(t->partner, MAX_PARTNER_WIDTH);
	/* "  41.2%  " rw "  " member "  " threads "  " partner */
	t->width = 10 + t->rw + 2 + t->member + 2 + t->threads + 2 + t->partner;
	/* whole files run past the last mark: room for most of them */
	t->lineno = max_int(t->full ? 4 : 3,
			    digits(f->marks[f->n_marks - 1].lineno + ANNOTATE_CONTEXT));

	fprintf(t->out, "== %s", escape_text(&esc, f->path));
	strbuf_release(&esc);
	if (error)
		fprintf(t->out, ": cannot read it (%s)", error);
	else
		fprintf(t->out, "   %.1f%% of samples", t->a->total_samples ?
			100.0 * (double)f->samples / (double)t->a->total_samples : 0.0);
	fputc('\n', t->out);
}

/* Source text (the target's: escape_source_line()) with tabs expanded. */
static void put_code(FILE *out, const char *text)
{
	struct strbuf esc = STRBUF_INIT;
	int col = 0;

	for (const char *s = escape_source_line(&esc, text); *s; s++) {
		if (*s == '\t') {
			int to = (col / TAB_WIDTH + 1) * TAB_WIDTH;

			fprintf(out, "%*s", to - col, "");
			col = to;
		} else {
			fputc(*s, out);
			col++;
		}
	}
	strbuf_release(&esc);
}

static void put_margin(struct text *t, const struct margin *g)
{
	fprintf(t->out, "  %5.1f%%  %s  ", g->percent, g->rw);
	put_field(t->out, g->member, t->member);
	fputs("  ", t->out);
	put_field(t->out, g->threads, t->threads);
	fputs("  ", t->out);
	put_field(t->out, g->partner, t->partner);
}

/*
 * The first mark beside the code, the others (other data or threads on
 * the same source line) on lines of their own under it.
 */
static void text_line(void *ctx, const struct annotate_file *f, int lineno,
		      const char *text, const struct annotate_mark *marks, unsigned n_marks)
{
	struct text *t = ctx;

	for (unsigned i = 0; i < (n_marks ? n_marks : 1); i++) {
		if (n_marks)
			put_margin(t, &t->margins[&marks[i] - f->marks]);
		else
			fprintf(t->out, "%*s", t->width, "");
		if (i == 0)
			fprintf(t->out, " | %*d |", t->lineno, lineno);
		else
			fprintf(t->out, " | %*s |", t->lineno, "");
		if (i == 0 && text && *text) {
			fputc(' ', t->out);
			put_code(t->out, text);
		}
		fputc('\n', t->out);
	}
}

static void text_gap(void *ctx, const struct annotate_file *f)
{
	struct text *t = ctx;

	fprintf(t->out, "%*s | %*s |\n", t->width, "", t->lineno, "...");
}

static void text_file_end(void *ctx, const struct annotate_file *f, unsigned n_beyond_eof,
			  const char *cut)
{
	struct text *t = ctx;

	if (cut)
		fprintf(t->out, "   (file cut: %s)\n", cut);
	if (n_beyond_eof)
		fprintf(t->out, "   (%u mark%s past the end of the file: it changed since the build?)\n",
			n_beyond_eof, n_beyond_eof == 1 ? " is" : "s are");
	for (unsigned i = 0; i < f->n_marks; i++) {
		free(t->margins[i].rw);
		free(t->margins[i].member);
		free(t->margins[i].threads);
		free(t->margins[i].partner);
	}
	free(t->margins);
	t->margins = NULL;
	fputc('\n', t->out);
}

static void text_header(const struct report *r, FILE *out)
{
	struct strbuf esc = STRBUF_INIT;

	fprintf(out, "# contend annotate: %s backend, %u Hz, %" PRIu64 " samples\n",
		r->backend ? r->backend : "unknown", r->freq, r->samples);
	if (r->command) {
		fputs("# command: ", out);
		put_code(out, r->command);
		fputc('\n', out);
	}
	for (unsigned i = 0; i < r->n_lines; i++) {
		const struct report_line *l = &r->lines[i];
		const char *kind = sharing_kind_name(l->kind);

		fprintf(out, "# #%u  ", i + 1);
		for (; *kind; kind++)
			fputc(toupper((unsigned char)*kind), out);
		fprintf(out, "  %s", l->object ? escape_text(&esc, l->object) : "?");
		if (l->type_name)
			fprintf(out, " (%s)", escape_text(&esc, l->type_name));
		fprintf(out, "  score %.3f\n", l->score);
	}
	fputs("# margin: share of all samples, sampled reads and writes, the data, its threads,\n"
	      "#         <-> the code it contends with (and that code's other threads)\n\n", out);
	strbuf_release(&esc);
}

void report_print_annotate(const struct report *r, FILE *out, bool full)
{
	static const struct annotate_ops ops = {
		.file_begin = text_file_begin, .line = text_line,
		.gap = text_gap, .file_end = text_file_end,
	};
	struct annotation a;
	struct text t = { .out = out, .full = full };

	if (!r->n_lines) {
		fprintf(out, "no contended cache lines found (%u line%s touched by >= 2 threads)\n",
			r->n_candidates, r->n_candidates == 1 ? "" : "s");
		report_print_latent_annotate(r, out);
		return;
	}
	text_header(r, out);
	annotation_build(&a, r, NULL);
	t.a = &a;
	annotate_walk(&a, full, &ops, &t);
	if (!a.n_files)
		fputs("no contended access has a source line: is the program built with -g?\n", out);
	else if (a.sites_without_source)
		fprintf(out, "# not shown: %u code site%s without a source line (no debug info)\n",
			a.sites_without_source, a.sites_without_source == 1 ? "" : "s");
	annotation_release(&a);
	report_print_latent_annotate(r, out);
}
