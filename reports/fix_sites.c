/* fix_sites.c - which lines a run-time fix can act on (fix_sites.h). */
#include "reports/fix_sites.h"

#include <inttypes.h>
#include <string.h>

#include "common/util.h"
#include "reports/alloc_text.h"

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
