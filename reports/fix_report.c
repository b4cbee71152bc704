/* fix_report.c - which lines a run-time fix can act on, and the measured
 * gain in words (fix_report.h). */
#include "reports/fix_report.h"

#include <inttypes.h>
#include <string.h>

#include "common/escape.h"
#include "common/util.h"
#include "reports/alloc_text.h"

#define FIX_TEXT_WIDTH 100
#define FIX_INDENT "   "

/* Why the shim cannot fix line l by moving its site's blocks apart, or
 * NULL when it can.  Caller frees. */
static char *why_not_fixable(const struct report_line *l)
{
	const struct report_alloc *a = l->alloc;
	char *call, *why;

	if (l->kind == SHARING_TRUE)
		return xstrdup("true sharing: threads write the same bytes, which no placement "
			       "separates");
	if (!a)
		return xstrdup("not in a tracked heap block");
	if (a->blocks_on_line < 2) {
		call = alloc_call_text(a);
		why = xasprintf("lies in one block (%s in %s): moving blocks apart cannot pull "
				"apart data inside one; rebuild with the proposed layout", call,
				a->site ? a->site : "unknown code");
		free(call);
		return why;
	}
	if (!a->blocks_private)
		return xstrdup("threads share data inside one of its blocks");
	if (!a->blocks_one_site && a->blocks_on_line > 2)
		return xstrdup("its blocks come from several allocation sites");
	if (a->walked)
		return xstrdup("its block was read from the heap: no allocation site is known");
	if (!strcmp(a->call, "realloc"))
		return xstrdup("its blocks come from realloc, which the shim does not place");
	if (!a->site_ino)
		return xstrdup("the file its allocation call is in is not known");
	return NULL;
}

static int site_index(struct report_fix_run *fr, const struct report_alloc *a)
{
	unsigned i;

	for (i = 0; i < fr->n_sites; i++)
		if (fr->sites[i].dev == a->site_dev && fr->sites[i].ino == a->site_ino &&
		    fr->sites[i].off == a->site_off)
			return (int)i;
	if (i == ARRAY_SIZE(fr->sites))
		return -1;
	fr->sites[i] = (struct report_fix_site){
		.name = xstrdup(a->site ? a->site : "unknown code"),
		.call = alloc_call_text(a),
		.dev = a->site_dev, .ino = a->site_ino, .off = a->site_off,
	};
	fr->n_sites++;
	return (int)i;
}

void fix_choose_sites(const struct report *r, unsigned line_size, struct report_fix_run *fr,
		      int *site_of)
{
	struct strbuf sb = STRBUF_INIT;

	fr->align = line_size;
	for (unsigned i = 0; i < r->n_lines; i++) {
		const struct report_line *l = &r->lines[i];
		char *why = why_not_fixable(l);

		site_of[i] = why ? -1 : site_index(fr, l->alloc);
		if (!why && site_of[i] < 0)
			why = xstrdup("more allocation sites than one run fixes");
		if (why)
			strbuf_addf(&sb, "%sline #%u %s", sb.len ? "; " : "", i + 1, why);
		free(why);
	}
	fr->not_fixable = sb.len ? strbuf_detach(&sb) : NULL;
	strbuf_release(&sb);
}

void fix_report_release(struct report_fix_run *fr)
{
	for (unsigned i = 0; i < fr->n_sites; i++) {
		free(fr->sites[i].name);
		free(fr->sites[i].call);
	}
	free(fr->not_fixable);
	free(fr->not_measured);
	free(fr->noise);
}

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
