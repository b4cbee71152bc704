/* latent_text.c - latent false sharing in words: the text report's
 * section and the sentences the other formats reuse (latent.h).
 */

#include <inttypes.h>
#include <stdlib.h>

#include "printers/printers.h"
#include "common/escape.h"
#include "common/util.h"
#include "reports/report.h"

#define INDENT "   "
#define TEXT_WIDTH 100          /* as text.c's */

char *latent_placements_text(const struct report_latent *lt)
{
	struct strbuf sb = STRBUF_INIT;

	for (unsigned i = 0; i < lt->n_placements; i++) {
		const struct report_placement *p = &lt->placements[i];
		bool first = !i || lt->placements[i - 1].line_size != p->line_size;
		bool last = i + 1 == lt->n_placements ||
			    lt->placements[i + 1].line_size != p->line_size;

		strbuf_addf(&sb, "%s%u of %u%s at %" PRIu64 "-byte alignment%s",
			    first ? (i ? "; " : "") : ", ", p->sharing, p->total,
			    first ? " placements" : "", p->align, latent_placement_whose(lt, p));
		if (last)
			strbuf_addf(&sb, " on %u-byte lines", p->line_size);
	}
	return strbuf_detach(&sb);
}

static const char *access_word(const struct report_latent_side *s)
{
	return s->writes ? "writes" : "reads";
}

char *latent_summary(const struct report_latent *lt)
{
	return xasprintf("%s (thread %" PRIu32 " %s) and %s (thread %" PRIu32 " %s) of %s, "
			 "%" PRIu64 " bytes apart",
			 lt->a.member ? lt->a.member : "?", lt->a.tid, access_word(&lt->a),
			 lt->b.member ? lt->b.member : "?", lt->b.tid, access_word(&lt->b),
			 lt->object ? lt->object : "?", lt->gap);
}

char *latent_message(const struct report_latent *lt)
{
	char *summary = latent_summary(lt), *placements = latent_placements_text(lt);
	char *message = xasprintf("latent false sharing: %s; they share a line in %s: %s",
				  summary, placements, lt->advice ? lt->advice : "");

	free(summary);
	free(placements);
	return message;
}

static void print_side(const struct report_latent_side *s, FILE *out)
{
	struct strbuf em = STRBUF_INIT, es = STRBUF_INIT;
	char *site = latent_site_text(&s->site);

	fprintf(out, INDENT "%-6" PRIu64 "%-5u %-22s %-7" PRIu32 " %6" PRIu64 " %6" PRIu64
		"  %s\n", s->offset, s->size, escape_text(&em, s->member ? s->member : "?"),
		s->tid, s->reads, s->writes, escape_text(&es, site));
	free(site);
	strbuf_release(&em);
	strbuf_release(&es);
}

/* title, then text (escaped) in words wrapped at TEXT_WIDTH, continued
 * lines indented under the text's first column */
static void print_wrapped(const char *title, const char *text, FILE *out)
{
	struct strbuf sb = STRBUF_INIT;
	const char *p = escape_text(&sb, text);
	int start = (int)strlen(INDENT) + (int)strlen(title), col = start;

	fprintf(out, INDENT "%s", title);
	while (*p) {
		size_t n = strcspn(p, " ");

		if (col > start && col + 1 + (int)n > TEXT_WIDTH) {
			fprintf(out, "\n%*s", start, "");
			col = start;
		} else if (col > start) {
			fputc(' ', out);
			col++;
		}
		col += fprintf(out, "%.*s", (int)n, p);
		p += n;
		p += strspn(p, " ");
	}
	fputc('\n', out);
	strbuf_release(&sb);
}

static void print_latent(const struct report_latent *lt, unsigned rank,
			 unsigned line_size, FILE *out)
{
	struct strbuf eo = STRBUF_INIT;
	char *placements = latent_placements_text(lt);

	fprintf(out, "== latent #%u  LATENT FALSE SHARING  %s  pid %" PRIu32 "\n", rank,
		escape_text(&eo, lt->object ? lt->object : "?"), lt->pid);
	fprintf(out, INDENT "%.1f%% of samples   %" PRIu64 " bytes apart, on different "
		"%u-byte lines here\n", 100.0 * lt->share, lt->gap, line_size);
	if (lt->alloc) {
		char *sentence = alloc_sentence(lt->alloc);

		print_wrapped(ALLOC_SENTENCE_TITLE, sentence, out);
		free(sentence);
	}
	fprintf(out, INDENT "offset size  member                 thread   reads writes  code\n");
	print_side(&lt->a, out);
	print_side(&lt->b, out);
	print_wrapped("they share a line in ", placements, out);
	print_wrapped("advice: ", lt->advice ? lt->advice : "", out);
	free(placements);
	strbuf_release(&eo);
}

void report_print_latent_text(const struct report *r, FILE *out)
{
	if (!r->n_latent)
		return;
	fprintf(out, "\n-- latent false sharing: %u pair%s less than a line apart, on two lines "
		"only by this placement --\n", r->n_latent,
		r->n_latent == 1 ? "" : "s");
	for (unsigned i = 0; i < r->n_latent; i++) {
		fputc('\n', out);
		print_latent(&r->latent[i], i + 1, r->line_size, out);
	}
}

/* "f.c:60: " at the site, escaped as check's locations are */
static void print_location_prefix(const struct report_site *s, const char *object, FILE *out)
{
	struct strbuf loc = STRBUF_INIT;

	if (s && s->file && s->line > 0)
		fprintf(out, "%s:%d: ", escape_location_path(&loc, s->file), s->line);
	else if (s && s->module)
		fprintf(out, "%s+0x%" PRIx64 ": ", escape_location_path(&loc, s->module),
			s->module_off);
	else
		fprintf(out, "%s: ", escape_location_path(&loc, object ? object : "?"));
	strbuf_release(&loc);
}

void report_print_latent_annotate(const struct report *r, FILE *out)
{
	struct strbuf sb = STRBUF_INIT;

	if (r->n_minor || r->n_latent)
		fputs("\n# minor and latent sharing (not marked above):\n", out);
	for (unsigned i = 0; i < r->n_minor; i++) {
		const struct report_line *l = &r->minor[i];
		const struct report_range *at = NULL;
		char *message = report_violation_message(l, NULL);

		print_location_prefix(report_violation_site(l, &at), l->object, out);
		fprintf(out, "minor: %s\n", escape_text(&sb, message));
		strbuf_reset(&sb);
		free(message);
	}
	for (unsigned i = 0; i < r->n_latent; i++) {
		const struct report_latent *lt = &r->latent[i];
		const struct report_latent_side *w = lt->a.writes ? &lt->a : &lt->b;
		char *message = latent_message(lt);

		print_location_prefix(&w->site, lt->object, out);
		fprintf(out, "%s\n", escape_text(&sb, message));
		strbuf_reset(&sb);
		free(message);
	}
	strbuf_release(&sb);
}
