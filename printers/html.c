/* html.c - the report as one self-contained HTML page, for code review.
 *
 * No network and no script: inline CSS, and per contended line an inline
 * SVG picture of the cache line (bytes across, one row per thread, cells
 * coloured by read/write and shaded by samples, members along the top),
 * the accesses, the advice and the annotated source (annotate.h).  Every
 * string from the report goes through html_esc(): a member, a path or a
 * command line may hold any character.
 */
#include "printers/printers.h"
#include "reports/report.h"

#include <ctype.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "printers/annotate.h"
#include "printers/fix_report.h"
#include "printers/html_internal.h"
#include "printers/html_style.h"
#include "printers/site_group.h"
#include "config.h"
#include "common/util.h"

#define MAX_THREADS_SHOWN 8     /* per range in the access table */
#define MAX_SITES_SHOWN 4       /* per range */


static void print_pids(const struct report_line *l, FILE *out);

/* ------------------------------------------------------------------ */
/* escaping */

/* s as HTML text or attribute value: markup and control characters escaped. */
void html_esc(FILE *out, const char *s)
{
	for (; *s; s++) {
		unsigned char c = *s;

		switch (c) {
		case '&':  fputs("&amp;", out); break;
		case '<':  fputs("&lt;", out); break;
		case '>':  fputs("&gt;", out); break;
		case '"':  fputs("&quot;", out); break;
		case '\'': fputs("&#39;", out); break;
		default:
			/* controls are not allowed in HTML text; tabs and newlines are */
			if ((c < 0x20 && c != '\t' && c != '\n') || c == 0x7f)
				fputs("&#xfffd;", out);
			else
				fputc(c, out);
		}
	}
}

__attribute__((format(printf, 2, 3)))
static void escf(FILE *out, const char *fmt, ...)
{
	struct strbuf sb = STRBUF_INIT;
	va_list ap;

	va_start(ap, fmt);
	strbuf_vaddf(&sb, fmt, ap);
	va_end(ap);
	html_esc(out, strbuf_str(&sb));
	strbuf_release(&sb);
}

static double percent(uint64_t part, uint64_t all)
{
	return all ? 100.0 * (double)part / (double)all : 0.0;
}

/* "FALSE SHARING" in a coloured pill. */
static void badge(FILE *out, enum sharing_kind kind)
{
	fprintf(out, "<span class=\"badge %s\">", sharing_kind_id(kind));
	for (const char *s = sharing_kind_name(kind); *s; s++)
		fputc(toupper((unsigned char)*s), out);
	fputs("</span>", out);
}

/* ------------------------------------------------------------------ */
/* header and ranking */

/* how the target ended, or that perf sampled it */
static void print_target_status(const struct report *r, FILE *out)
{
	if (r->target == TARGET_ATTACHED_RUNNING)
		fprintf(out, "attached %.2f s, still running", r->duration);
	else if (r->target == TARGET_ATTACHED_EXITED)
		fprintf(out, "attached, exited after %.2f s", r->duration);
	else if (r->target == TARGET_PERF_FILE)
		fprintf(out, "sampled by perf, %.2f s", r->duration);
	else if (r->target_status >= 0)
		fprintf(out, "exit %d, %.2f s", r->target_status, r->duration);
	else
		fprintf(out, "killed by signal %d, %.2f s", -r->target_status, r->duration);
}

static void print_facts(const struct report *r, FILE *out)
{
	char *instruments;
	uint64_t dropped = 0, all = r->typed + r->untyped;

	for (unsigned i = 0; i < r->n_dropped; i++)
		dropped += r->dropped[i].n;
	fputs("<table class=\"facts\">\n", out);
	if (r->command) {
		fputs("<tr><th>command</th><td><code>", out);
		html_esc(out, r->command);
		fputs("</code> <span class=\"dim\">", out);
		print_target_status(r, out);
		fputs("</span></td></tr>\n", out);
	}
	fputs("<tr><th>backend</th><td>", out);
	escf(out, "%s, %u Hz per thread", r->backend ? r->backend : "unknown", r->freq);
	if (r->backend_note) {
		fputs(" <span class=\"dim\">(", out);
		html_esc(out, r->backend_note);
		fputs(")</span>", out);
	}
	fputs("</td></tr>\n", out);
	if (r->jit_note) {
		fputs("<tr><th>JIT code</th><td>", out);
		html_esc(out, r->jit_note);
		fputs("</td></tr>\n", out);
	}
	if ((instruments = report_instruments_note(r))) {
		fputs("<tr><th>instruments</th><td>", out);
		html_esc(out, instruments);
		fputs("</td></tr>\n", out);
		free(instruments);
	}
	if (r->watch_note || r->watch_windows) {
		fputs("<tr><th>confirmation</th><td>", out);
		if (r->watch_note)
			html_esc(out, r->watch_note);
		else
			escf(out, "%s, %u windows, %.3f s in all; exact counts%s",
			     report_watch_instrument(r), r->watch_windows, r->watch_armed_s,
			     r->watch_by_code ? " of that code" : "");
		fputs("</td></tr>\n", out);
	}
	if (r->n_lines || r->n_minor) {
		char *price = report_price_text(r);

		fputs("<tr><th>transfer price</th><td>", out);
		html_esc(out, price);
		fputs("</td></tr>\n", out);
		free(price);
	}
	fprintf(out, "<tr><th>samples</th><td>%" PRIu64 ", %" PRIu64
		" decoded accesses (%.1f%%), %" PRIu64 " dropped", r->samples, r->decoded,
		percent(r->decoded, r->samples), dropped);
	for (unsigned i = 0; i < r->n_dropped; i++) {
		fputs(i ? ", " : " <span class=\"dim\">(", out);
		escf(out, "%s %" PRIu64, r->dropped[i].what, r->dropped[i].n);
	}
	fprintf(out, "%s</td></tr>\n", r->n_dropped ? ")</span>" : "");
	fprintf(out, "<tr><th>lines</th><td>%u contended, %u touched by &ge; 2 threads; "
		"line size %u bytes</td></tr>\n", r->n_lines, r->n_candidates, r->line_size);
	if (all) {
		fprintf(out, "<tr><th>types</th><td>%.1f%% of the accesses on contended lines "
			"have a DWARF type", percent(r->typed, all));
		for (unsigned i = 0; i < r->n_untyped_why; i++) {
			fputs(i ? ", " : " <span class=\"dim\">(untyped: ", out);
			escf(out, "%s %" PRIu64, r->untyped_why[i].what, r->untyped_why[i].n);
		}
		fprintf(out, "%s</td></tr>\n", r->n_untyped_why ? ")</span>" : "");
	}
	fputs("</table>\n", out);
}

/* "counters" and "long[64]", or "[heap]+0x2a0" and "stats: struct stats". */
static void print_object(const struct report_line *l, FILE *out)
{
	const char *object = l->object ? l->object : "";

	fputs("<span class=\"mono\"><b>", out);
	html_esc(out, object);
	fputs("</b>", out);
	if (l->variable && strncmp(object, l->variable, strlen(l->variable))) {
		fputs(" <span class=\"dim\">", out);
		escf(out, "%s: %s", l->variable, l->type_name ? l->type_name : "?");
		fputs("</span>", out);
	} else if (l->type_name) {
		fputs(" <span class=\"dim\">", out);
		html_esc(out, l->type_name);
		fputs("</span>", out);
	}
	fputs("</span>", out);
}

static void print_ranking(const struct report *r, FILE *out)
{
	fputs("<h2>Contended lines</h2>\n<table class=\"grid\"><thead><tr><th>#</th>"
	      "<th>kind</th><th>object</th><th class=\"num\">score</th>"
	      "<th class=\"num\">samples</th><th class=\"num\">threads</th>"
	      "<th>address</th></tr></thead>\n<tbody>\n", out);
	for (unsigned i = 0; i < r->n_lines; i++) {
		const struct report_line *l = &r->lines[i];

		fprintf(out, "<tr><td><a href=\"#rank-%u\">#%u</a></td><td>", i + 1, i + 1);
		badge(out, l->kind);
		fputs("</td><td>", out);
		print_object(l, out);
		fprintf(out, "</td><td class=\"num\">%.3f</td><td class=\"num\">%" PRIu64
			"</td><td class=\"num\">%u</td><td class=\"mono dim\">0x%" PRIx64,
			l->score, l->samples, l->n_threads, l->addr);
		print_pids(l, out);
		fputs("</td></tr>\n", out);
	}
	fputs("</tbody></table>\n", out);
}

/* Minor lines: real sharing at little cost, after the contended ones. */
static void print_minor(const struct report *r, FILE *out)
{
	if (!r->n_minor)
		return;
	fputs("<h2>Minor sharing</h2>\n<p class=\"dim\">Shared for real, but at a cost below "
	      "the thresholds of a contended line; ranked low.</p>\n<table class=\"grid\">"
	      "<thead><tr><th>#</th><th>kind</th><th>object</th><th>members</th>"
	      "<th class=\"num\">score</th><th class=\"num\">samples</th>"
	      "<th class=\"num\">threads</th><th>confirmation</th><th>address</th></tr></thead>\n"
	      "<tbody>\n", out);
	for (unsigned i = 0; i < r->n_minor; i++) {
		const struct report_line *l = &r->minor[i];

		fprintf(out, "<tr><td>minor #%u</td><td>", i + 1);
		badge(out, l->kind);
		fputs("</td><td>", out);
		print_object(l, out);
		fputs("</td><td class=\"mono\">", out);
		for (unsigned k = 0; k < l->n_ranges; k++) {
			fputs(k ? ", " : "", out);
			html_esc(out, l->ranges[k].member ? l->ranges[k].member : "?");
		}
		fprintf(out, "</td><td class=\"num\">%.4f</td><td class=\"num\">%" PRIu64
			"</td><td class=\"num\">%u</td><td>%s</td><td class=\"mono dim\">0x%"
			PRIx64 " pid %" PRIu32 "</td></tr>\n", l->score, l->samples, l->n_threads,
			!l->confirmed_checked ? "not counted" : l->confirmed ? "confirmed" :
			"not confirmed", l->addr, l->pid);
	}
	fputs("</tbody></table>\n", out);
}

static void print_latent_side(const struct report_latent_side *s, FILE *out)
{
	char *site = latent_site_text(&s->site);

	fputs("<td class=\"mono\">", out);
	html_esc(out, s->member ? s->member : "?");
	fprintf(out, " <span class=\"dim\">+%" PRIu64 ", %u bytes, thread %" PRIu32 " %s, "
		"in</span> ", s->offset, s->size, s->tid, s->writes ? "writes" : "reads");
	html_esc(out, site);
	fputs("</td>", out);
	free(site);
}

/* Its heap block, under the object's name. */
static void print_latent_alloc(const struct report_alloc *a, FILE *out)
{
	char *sentence;

	if (!a)
		return;
	sentence = alloc_sentence(a);
	fputs("<br><span class=\"dim\">" ALLOC_SENTENCE_TITLE, out);
	html_esc(out, sentence);
	fputs("</span>", out);
	free(sentence);
}

/* Latent false sharing: one placement away from a contended line. */
static void print_latent(const struct report *r, FILE *out)
{
	if (!r->n_latent)
		return;
	fputs("<h2>Latent false sharing</h2>\n<p class=\"dim\">Ranges of one object that "
	      "different threads use, less than a line apart: here on different lines, on "
	      "one line if the object started elsewhere.</p>\n<table class=\"grid\"><thead>"
	      "<tr><th>#</th><th>object</th><th>first range</th><th>second range</th>"
	      "<th class=\"num\">apart</th><th>placements sharing a line</th>"
	      "<th>advice</th></tr></thead>\n<tbody>\n", out);
	for (unsigned i = 0; i < r->n_latent; i++) {
		const struct report_latent *lt = &r->latent[i];
		char *placements = latent_placements_text(lt);

		fprintf(out, "<tr><td>latent #%u</td><td>", i + 1);
		html_esc(out, lt->object ? lt->object : "?");
		print_latent_alloc(lt->alloc, out);
		fputs("</td>", out);
		print_latent_side(&lt->a, out);
		print_latent_side(&lt->b, out);
		fprintf(out, "<td class=\"num\">%" PRIu64 " bytes</td><td>", lt->gap);
		html_esc(out, placements);
		fputs("</td><td class=\"advice\">", out);
		html_esc(out, lt->advice ? lt->advice : "");
		fputs("</td></tr>\n", out);
		free(placements);
	}
	fputs("</tbody></table>\n", out);
}

/* ------------------------------------------------------------------ */
/* accesses, advice */

static void print_role(const struct report_range *rr, FILE *out)
{
	const char *sep = "";

	if (rr->true_shared) {
		fputs("true-shared", out);
		sep = ", ";
	}
	if (rr->false_writer || rr->false_victim)
		fprintf(out, "%sfalse (%s)", sep, rr->false_writer ? "writer" : "victim");
	else if (!rr->true_shared)
		fputs("&ndash;", out);
}

/* "function file.c:42", or module+offset, or the bare address. */
static void print_code(const struct report_site *s, FILE *out)
{
	if (s->function)
		html_esc(out, s->function);
	else if (s->module)
		escf(out, "%s+0x%" PRIx64, s->module, s->module_off);
	else
		fprintf(out, "0x%" PRIx64, report_code_addr(s->ip));
	if (s->file) {
		fputs(" <span class=\"dim\">", out);
		escf(out, "%s:%d", basename_of(s->file), s->line);
		fputs("</span>", out);
	}
}

/* A source line's sites (site_group.h): their counts, the first's name. */
static void print_site(const struct site_group *g, FILE *out)
{
	const struct report_site *s = g->site;

	fprintf(out, "<div><span class=\"dim\">%" PRIu64 " R %" PRIu64 " W</span> ",
		g->reads, g->writes);
	print_code(s, out);
	if (s->via) {
		fputs(" <span class=\"dim\">(via ", out);
		html_esc(out, s->via);
		fputs(")</span>", out);
	}
	if (s->inlined_into) {
		fputs(" <span class=\"dim\">(inlined into ", out);
		html_esc(out, s->inlined_into);
		fputs(")</span>", out);
	}
	fputs("</div>", out);
}

/* " pid 42", or " pids 42,43" on a line processes share. */
static void print_pids(const struct report_line *l, FILE *out)
{
	if (l->n_pids < 2) {
		fprintf(out, " pid %" PRIu32, l->pid);
		return;
	}
	fputs(" pids ", out);
	for (unsigned i = 0; i < l->n_pids; i++)
		fprintf(out, "%s%" PRIu32, i ? "," : "", l->pids[i]);
	if (l->obj_ino)
		fputs(" (shared memory)", out);
}

static void print_range(const struct report_range *rr, bool with_pid, FILE *out)
{
	unsigned threads = rr->n_threads < MAX_THREADS_SHOWN ? rr->n_threads : MAX_THREADS_SHOWN;
	struct site_group *g;
	unsigned n_groups = site_groups(rr->sites, rr->n_sites, &g);
	unsigned sites = n_groups < MAX_SITES_SHOWN ? n_groups : MAX_SITES_SHOWN;

	fprintf(out, "<tr><td class=\"num mono\">%u</td><td class=\"num mono\">%u</td>"
		"<td class=\"mono\">", rr->offset, rr->size);
	html_esc(out, rr->member ? rr->member : "?");
	fputs("</td><td>", out);
	print_role(rr, out);
	fputs("</td><td class=\"mono\">", out);
	for (unsigned k = 0; k < threads; k++) {
		const struct report_thread *t = &rr->threads[k];

		fputs("<div>", out);
		if (with_pid)
			fprintf(out, "P%" PRIu32 " ", t->pid);
		fprintf(out, "T%" PRIu32 " <span class=\"dim\">R %" PRIu64 " W %" PRIu64
			"</span></div>", t->tid, t->reads, t->writes);
	}
	if (rr->n_threads > threads)
		fprintf(out, "<div class=\"dim\">%u more</div>", rr->n_threads - threads);
	fputs("</td><td class=\"mono\">", out);
	for (unsigned k = 0; k < sites; k++)
		print_site(&g[k], out);
	if (n_groups > sites)
		fprintf(out, "<div class=\"dim\">%u more</div>", n_groups - sites);
	fputs("</td></tr>\n", out);
	free(g);
}

static void print_accesses(const struct report_line *l, FILE *out)
{
	fputs("<h3>Accesses</h3>\n<table class=\"grid\"><thead><tr><th class=\"num\">offset</th>"
	      "<th class=\"num\">size</th><th>member</th><th>role</th><th>threads</th>"
	      "<th>code</th></tr></thead>\n<tbody>\n", out);
	for (unsigned g = 0; g < l->n_ranges; g++)
		print_range(&l->ranges[g], l->n_pids > 1, out);
	fputs("</tbody></table>\n", out);
}

/* "T1235,T1236  increment  false_sharing_counters.c:77" */
static void print_pair_side(const struct report_pair_side *side, FILE *out)
{
	const struct report_site *s = &side->site;
	char buf[TID_LABEL_MAX];

	fputs("<td class=\"mono nowrap\"><b>", out);
	for (unsigned i = 0; i < side->n_tids; i++)
		fprintf(out, "%sT%s", i ? "," : "", tid_label(buf, side->tids[i]));
	fputs("</b> ", out);
	print_code(s, out);
	fputs("</td>", out);
}

/* Who contends with whom: pairs of code sites in different threads. */
static void print_pairs(const struct report_line *l, FILE *out)
{
	if (!l->n_pairs)
		return;
	fputs("<h3>Contending pairs</h3>\n<table class=\"grid\"><thead><tr><th>kind</th>"
	      "<th class=\"num\">concurrent</th><th>threads and code</th><th></th>"
	      "<th>threads and code</th></tr></thead>\n<tbody>\n", out);
	for (unsigned i = 0; i < l->n_pairs; i++) {
		const struct report_pair *p = &l->pairs[i];

		fprintf(out, "<tr><td>%s</td><td class=\"num\">%" PRIu64 "</td>",
			sharing_kind_id(p->kind), p->weight);
		print_pair_side(&p->a, out);
		fputs("<td class=\"dim nowrap\">&lt;-&gt;</td>", out);
		print_pair_side(&p->b, out);
		fputs("</tr>\n", out);
	}
	fputs("</tbody></table>\n", out);
}

/* A layout of the advice, printed from its rows; nothing if none. */
static void print_layout(const char *title, const struct report_layout *lay,
			 FILE *out)
{
	char *text = advice_layout_text(lay);

	if (!text)
		return;
	fputs("<div><h4>", out);
	html_esc(out, title);
	fputs("</h4><pre>", out);
	html_esc(out, text);
	fputs("</pre></div>\n", out);
	free(text);
}

static void print_advice(const struct report_line *l, FILE *out)
{
	const struct report_advice *a = &l->advice;

	if (!a->summary)
		return;
	fputs("<h3>Advice</h3>\n<p class=\"advice\">", out);
	html_esc(out, a->summary);
	fputs("</p>\n", out);
	if (a->current.title || a->proposed.title) {
		fputs("<div class=\"layouts\">\n", out);
		print_layout("layout now", &a->current, out);
		print_layout("proposed", &a->proposed, out);
		fputs("</div>\n", out);
	}
	if (a->cost_bytes || a->placements_total) {
		fputs("<p class=\"dim\">", out);
		if (a->cost_bytes)
			fprintf(out, "cost: %+ld bytes", a->cost_bytes);
		if (a->cost_bytes && a->placements_total)
			fputs(" &middot; ", out);
		if (a->placements_total)
			fprintf(out, "%u of %u start offsets put the contending members on one line",
				a->placements_sharing, a->placements_total);
		fputs("</p>\n", out);
	}
}

/* ------------------------------------------------------------------ */
/* annotated source */

struct html_src {
	FILE *out;
	const struct annotation *a;
};

static void src_file_begin(void *ctx, const struct annotate_file *f, const char *error)
{
	struct html_src *h = ctx;

	fputs("<div class=\"file\"><div class=\"path\">", h->out);
	html_esc(h->out, f->path);
	fprintf(h->out, " <span class=\"dim\">%.1f%% of samples</span></div>\n",
		percent(f->samples, h->a->total_samples));
	if (error) {
		fputs("<p class=\"note\" style=\"padding:0 10px\">cannot read it: ", h->out);
		html_esc(h->out, error);
		fputs("</p>\n", h->out);
	}
	fputs("<table class=\"src\">\n", h->out);
}

static void src_margin(struct html_src *h, const struct annotate_mark *m)
{
	double pct = annotate_percent(h->a, m);
	char *member = annotate_member(m), *threads = annotate_threads(m);
	char *partner = annotate_partner(m);

	/* the share as a bar behind the number */
	fprintf(h->out, "<td class=\"pct\" style=\"background:linear-gradient(90deg,"
		"#ffcecb %.1f%%,transparent %.1f%%)\">%.1f%%</td>", pct, pct, pct);
	fprintf(h->out, "<td>R %" PRIu64 " W %" PRIu64 "</td><td class=\"mem\">",
		m->reads, m->writes);
	html_esc(h->out, member);
	fputs("</td><td>", h->out);
	html_esc(h->out, threads);
	fputs("</td><td class=\"ptr\">", h->out);
	html_esc(h->out, partner);
	fputs("</td>", h->out);
	free(member);
	free(threads);
	free(partner);
}

static void src_line(void *ctx, const struct annotate_file *f, int lineno,
		     const char *text, const struct annotate_mark *marks, unsigned n_marks)
{
	struct html_src *h = ctx;

	fprintf(h->out, "<tr%s>", n_marks ? " class=\"hot\"" : "");
	if (n_marks)
		src_margin(h, &marks[0]);
	else
		fputs("<td colspan=\"5\"></td>", h->out);
	fprintf(h->out, "<td class=\"ln\">%d</td><td class=\"code\"", lineno);
	if (n_marks > 1)
		fprintf(h->out, " rowspan=\"%u\"", n_marks);
	fputc('>', h->out);
	html_esc(h->out, text ? text : "");
	fputs("</td></tr>\n", h->out);
	for (unsigned i = 1; i < n_marks; i++) {
		fputs("<tr class=\"hot\">", h->out);
		src_margin(h, &marks[i]);
		fputs("<td class=\"ln\"></td></tr>\n", h->out);
	}
}

static void src_gap(void *ctx, const struct annotate_file *f)
{
	struct html_src *h = ctx;

	fputs("<tr class=\"gap\"><td colspan=\"5\"></td><td class=\"ln\">&#8943;</td>"
	      "<td></td></tr>\n", h->out);
}

static void src_file_end(void *ctx, const struct annotate_file *f, unsigned n_beyond_eof,
			 const char *cut)
{
	struct html_src *h = ctx;

	fputs("</table>\n", h->out);
	if (cut) {
		fputs("<p class=\"note\" style=\"padding:0 10px\">file cut: ", h->out);
		html_esc(h->out, cut);
		fputs("</p>\n", h->out);
	}
	if (n_beyond_eof)
		fprintf(h->out, "<p class=\"note\" style=\"padding:0 10px\">%u marked line%s "
			"past the end of the file: has it changed since the build?</p>\n",
			n_beyond_eof, n_beyond_eof == 1 ? " is" : "s are");
	fputs("</div>\n", h->out);
}

static void print_source(const struct report *r, const struct report_line *l, FILE *out)
{
	static const struct annotate_ops ops = {
		.file_begin = src_file_begin, .line = src_line,
		.gap = src_gap, .file_end = src_file_end,
	};
	struct annotation a;
	struct html_src h = { .out = out, .a = &a };

	annotation_build(&a, r, l);
	fputs("<h3>Source</h3>\n", out);
	if (a.n_files)
		fputs("<p class=\"legend\" style=\"margin-bottom:6px\">share of all samples, "
		      "sampled reads and writes, the data, its threads, &lt;-&gt; the code it "
		      "contends with (and that code&#39;s other threads)</p>\n", out);
	annotate_walk(&a, false, &ops, &h);
	if (!a.n_files && r->jit_note)
		/* a JVM: its methods are named by the perf map, without lines */
		fputs("<p class=\"note\">no source lines: JIT-compiled code (the JVM's "
		      "perf map names methods, not lines)</p>\n", out);
	else if (!a.n_files)
		fputs("<p class=\"note\">no source lines: the code has no debug info "
		      "(build with -g)</p>\n", out);
	else if (a.sites_without_source)
		fprintf(out, "<p class=\"note\">not shown: %u code site%s without a source "
			"line</p>\n", a.sites_without_source,
			a.sites_without_source == 1 ? "" : "s");
	annotation_release(&a);
}

/* ------------------------------------------------------------------ */

/* The heap block the line lies in: its allocation, escaped (the site's
 * names are the target's). */
static void print_alloc(const struct report_line *l, FILE *out)
{
	char *sentence;

	if (!l->alloc)
		return;
	sentence = alloc_sentence(l->alloc);
	fputs("<p class=\"alloc\">" ALLOC_SENTENCE_TITLE "<span class=\"mono\">", out);
	html_esc(out, sentence);
	fputs("</span></p>\n", out);
	free(sentence);
}

/* What the exact counts said of the line, or that none were taken. */
static void print_confirmation(const struct report_line *l, FILE *out)
{
	char *why;

	fputs("<p class=\"stats\">", out);
	if (!l->confirmed_checked) {
		fputs("<span class=\"dim\">not confirmed: its words were not counted "
		      "(see the confirmation row above)</span></p>\n", out);
		return;
	}
	if (l->confirmed) {
		escf(out, "confirmed: %s by exact counts%s", sharing_kind_name(l->watch_kind),
		     l->watch_by_code ? " of uprobes on its code" : " of watchpoints");
	} else {
		why = watch_not_confirmed_why(l);
		escf(out, "not confirmed by %s: %s",
		     l->watch_by_code ? "uprobes on its code" : "watchpoints", why);
		free(why);
	}
	escf(out, " (%u word%s, %.3f s)", l->n_words, l->n_words == 1 ? "" : "s",
	     l->watch_window_s);
	fputs("</p>\n", out);
}

static void print_line(const struct report *r, const struct report_line *l, unsigned rank,
		       FILE *out)
{
	fprintf(out, "<section class=\"line\" id=\"rank-%u\">\n<h2>#%u ", rank, rank);
	badge(out, l->kind);
	fputc(' ', out);
	print_object(l, out);
	fprintf(out, " <span class=\"mono dim\" style=\"font-size:12.5px;font-weight:400\">"
		"line 0x%" PRIx64, l->addr);
	print_pids(l, out);
	fputs("</span></h2>\n", out);
	fprintf(out, "<p class=\"stats\">score <b>%.3f</b> &middot; %.1f%% of samples &middot; "
		"%.1f%% concurrent", l->score, 100.0 * l->share, 100.0 * l->concurrent_frac);
	if (l->typed + l->untyped)
		fprintf(out, " &middot; typed %.0f%%", percent(l->typed, l->typed + l->untyped));
	if (l->gain_unknown) {
		fputs(" &middot; fixing it: gain ", out);
		html_esc(out, l->gain_unknown);
	}
	if (l->predicted_gain > 0)
		fprintf(out, " &middot; fixing it: %s %.1f&times; faster",
			l->gain_note ? "at least" : "about", l->predicted_gain);
	if (l->predicted_gain > 0 && !l->gain_note && l->gain_high > 0 &&
	    l->gain_high - l->gain_low >= 0.05)
		fprintf(out, " (%.1f&ndash;%.1f&times;)", l->gain_low, l->gain_high);
	if (l->predicted_gain > 0 && l->gain_note) {
		fputs(" (", out);
		html_esc(out, l->gain_note);
		fputc(')', out);
	}
	if (l->kind == SHARING_MIXED && l->gain_all_note &&
	    l->predicted_gain_all > l->predicted_gain + 0.05) {
		fprintf(out, " &middot; with the true sharing removed too: at least %.1f&times; (",
			l->predicted_gain_all);
		html_esc(out, l->gain_all_note);
		fputc(')', out);
	}
	fix_print_line_html(l, out, html_esc);
	fputs("</p>\n", out);
	print_confirmation(l, out);
	print_alloc(l, out);
	html_print_picture(l, rank, out);
	print_accesses(l, out);
	print_pairs(l, out);
	print_advice(l, out);
	print_source(r, l, out);
	fputs("</section>\n", out);
}

void report_print_html(const struct report *r, FILE *out)
{
	fputs("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
	      "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
	      "<title>contend", out);
	if (r->command) {
		fputs(": ", out);
		html_esc(out, r->command);
	}
	fprintf(out, "</title>\n<style>\n%s</style>\n</head>\n<body>\n<header>\n"
		"<h1>contend report</h1>\n", html_style);
	print_facts(r, out);
	fputs("</header>\n<main>\n", out);
	if (!r->n_lines) {
		fprintf(out, "<p class=\"advice\">No contended cache lines found (%u line%s "
			"touched by &ge; 2 threads).</p>\n", r->n_candidates,
			r->n_candidates == 1 ? "" : "s");
	} else {
		print_ranking(r, out);
		for (unsigned i = 0; i < r->n_lines; i++)
			print_line(r, &r->lines[i], i + 1, out);
	}
	print_minor(r, out);
	print_latent(r, out);
	fprintf(out, "</main>\n<footer>contend %s</footer>\n</body>\n</html>\n",
		PACKAGE_VERSION);
}
