/* fix_report.c - a run-time fix's measured gain in words (fix_report.h). */
#include "printers/printers.h"
#include "reports/report.h"
#include "printers/fix_report.h"

#include <inttypes.h>
#include <string.h>

#include "common/escape.h"
#include "common/util.h"

#define FIX_TEXT_WIDTH 100
#define FIX_INDENT "   "

/* "main x.c:97" or "main x.c:97 and main y.c:12" */
static void add_sites(struct strbuf *sb, const struct report_fix_run *fr)
{
	for (unsigned i = 0; i < fr->n_sites; i++)
		strbuf_addf(sb, "%s%s", i == 0 ? "" : i + 1 == fr->n_sites ? " and " : ", ",
			    fr->sites[i].name);
}

char *fix_line_text(const struct report_line *l)
{
	const struct report_fix_run *fr = l->measured;
	struct strbuf sb = STRBUF_INIT;

	if (!fr || fr->not_measured)
		return NULL;
	strbuf_addf(&sb, "measured gain %.2fx (fixed by aligning allocations of ", fr->gain);
	add_sites(&sb, fr);
	strbuf_addf(&sb, " to %u bytes, ", fr->align);
	if (fr->runs == 1)
		strbuf_addf(&sb, "one run each");
	else
		strbuf_addf(&sb, "median of %u runs each", fr->runs);
	if (fr->noisy)
		strbuf_addf(&sb, "; noisy: %s", fr->noise ? fr->noise : "");
	strbuf_addf(&sb, ")");
	return strbuf_detach(&sb);
}

/* words of text, escaped, wrapped at FIX_TEXT_WIDTH after col columns */
static void print_wrapped(FILE *out, int col, const char *text, const char *cont)
{
	struct strbuf esc = STRBUF_INIT;
	char *copy = xstrdup(escape_text(&esc, text)), *save = NULL;
	bool first = true;

	for (char *w = strtok_r(copy, " ", &save); w; w = strtok_r(NULL, " ", &save)) {
		int len = (int)strlen(w);

		if (!first && col + 1 + len > FIX_TEXT_WIDTH)
			col = fprintf(out, "\n%s", cont) - 1;
		else if (!first)
			col += fprintf(out, " ");
		col += fprintf(out, "%s", w);
		first = false;
	}
	fputc('\n', out);
	free(copy);
	strbuf_release(&esc);
}

void fix_print_line_text(const struct report_line *l, FILE *out)
{
	char *text = fix_line_text(l);

	if (!text)
		return;
	print_wrapped(out, fprintf(out, FIX_INDENT), text, FIX_INDENT "    ");
	free(text);
}

void fix_print_header_text(const struct report *r, FILE *out)
{
	const struct report_fix_run *fr = r->fix_run;
	struct strbuf sb = STRBUF_INIT;

	if (!fr)
		return;
	if (fr->n_sites) {
		strbuf_addf(&sb, "allocations of ");
		for (unsigned i = 0; i < fr->n_sites; i++)
			strbuf_addf(&sb, "%s%s (%s)", i ? ", " : "", fr->sites[i].name,
				    fr->sites[i].call);
		strbuf_addf(&sb, " aligned to %u bytes and padded to a multiple of it", fr->align);
		if (!fr->not_measured)
			strbuf_addf(&sb, ", %" PRIu64 " block%s a run", fr->blocks_fixed,
				    fr->blocks_fixed == 1 ? "" : "s");
		strbuf_addf(&sb, ";");
	}
	if (fr->not_measured) {
		strbuf_addf(&sb, "%snot measured: %s", sb.len ? " " : "", fr->not_measured);
	} else {
		strbuf_addf(&sb, " %u run%s each, unsampled, alternating: wall %.2f s -> %.2f s "
			    "(%.2fx", fr->runs, fr->runs == 1 ? "" : "s", fr->wall_plain,
			    fr->wall_fixed, fr->gain);
		if (fr->runs > 1)
			strbuf_addf(&sb, ", pairs %.2fx..%.2fx", fr->gain_min, fr->gain_max);
		strbuf_addf(&sb, "); cpu %.2f s -> %.2f s (%.2fx)", fr->cpu_plain, fr->cpu_fixed,
			    fr->cpu_gain);
		if (fr->noisy)
			strbuf_addf(&sb, "; noisy: %s", fr->noise ? fr->noise : "");
	}
	print_wrapped(out, fprintf(out, "# fix run: "), strbuf_str(&sb), "#   ");
	strbuf_reset(&sb);
	if (fr->not_fixable) {
		strbuf_addf(&sb, "not fixable at run time: %s", fr->not_fixable);
		print_wrapped(out, fprintf(out, "# fix run: "), strbuf_str(&sb), "#   ");
	}
	strbuf_release(&sb);
}

void fix_print_line_html(const struct report_line *l, FILE *out,
			 void (*esc)(FILE *out, const char *s))
{
	char *text = fix_line_text(l);

	if (!text)
		return;
	fputs(" &middot; <b>", out);
	esc(out, text);
	fputs("</b>", out);
	free(text);
}
