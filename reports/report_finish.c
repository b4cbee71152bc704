/* report_finish.c - a filled line table to the report model (report_finish.h). */
#include "reports/report_finish.h"

#include "common/util.h"
#include "detector/thread_names.h"
#include "detector/watch.h"
#include "reports/report.h"
#include "reports/watch_report.h"
#include "symbolize/data_types.h"

static void name_threads(struct report_thread *t, unsigned n, const struct thread_names *names)
{
	for (unsigned i = 0; i < n; i++) {
		const char *c = thread_names_get(names, t[i].tid);
		if (c && !t[i].comm)
			t[i].comm = xstrdup(c);
	}
}

void report_name_threads(struct report *r, const struct thread_names *names)
{
	if (!names)
		return;
	for (unsigned i = 0; i < r->n_lines; i++) {
		struct report_line *l = &r->lines[i];
		name_threads(l->threads, l->n_threads, names);
		for (unsigned g = 0; g < l->n_ranges; g++)
			name_threads(l->ranges[g].threads, l->ranges[g].n_threads, names);
		for (unsigned k = 0; k < l->n_words; k++)
			name_threads(l->words[k].threads, l->words[k].n_threads, names);
	}
}

struct report *report_finish(const struct report_inputs *in)
{
	struct data_types *dt = in->sym ? data_types_new() : NULL;
	struct report *r;

	if (in->confirm && in->merge_watch)
		confirm_merge_evidence(in->confirm, in->lines);
	r = report_build(in->facts, in->lines, in->cfg, in->top, in->sym, dt);
	if (in->confirm && in->fill_watch) {
		confirm_fill_report(in->confirm, r, in->sym);
		report_confirm_locks(r);
	}
	report_name_threads(r, in->names);
	data_types_free(dt);
	return r;
}
