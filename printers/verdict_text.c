/* verdict_text.c - a report's answer in one line (verdict_text.h). */
#include "printers/printers.h"
#include "printers/verdict_text.h"

#include <ctype.h>
#include <stdlib.h>

#include "common/escape.h"
#include "common/util.h"
#include "reports/report.h"

char *report_verdict_line(const struct report *r)
{
	const struct report_line *l = r->n_lines ? &r->lines[0] : NULL;
	struct strbuf sb = STRBUF_INIT, esc = STRBUF_INIT;
	char *object;

	if (!l && r->inconclusive) {
		strbuf_addf(&sb, "contend: inconclusive: %s", escape_text(&esc, r->inconclusive));
	} else if (!l) {
		strbuf_addf(&sb, "contend: no contended cache lines (%u line%s touched by >= 2 "
			    "threads)", r->n_candidates, r->n_candidates == 1 ? "" : "s");
	} else {
		if (r->n_lines == 1)
			strbuf_addf(&sb, "contend: 1 contended line: ");
		else
			strbuf_addf(&sb, "contend: %u contended lines; the top one: ", r->n_lines);
		for (const char *k = sharing_kind_name(l->kind); *k; k++)
			strbuf_addch(&sb, (char)toupper((unsigned char)*k));
		object = report_line_title(l);
		if (*object)
			strbuf_addf(&sb, " on %s", escape_text(&esc, object));
		free(object);
		if (l->predicted_gain > 1.005)
			strbuf_addf(&sb, ", fixing it: %s~%.1fx", report_gain_floor_word(l->gain_note),
				    l->predicted_gain);
	}
	strbuf_release(&esc);
	return strbuf_detach(&sb);
}
