/* session_output.c - the report of a filled line table, built and written
 * (session.h): what run, attach and the commands that read recorded data
 * share once sampling is over. */
#include "cli/session.h"

#include "cli/progress.h"
#include "common/safe_file.h"
#include "common/util.h"
#include "detector/thread_names.h"
#include "detector/watch.h"
#include "reports/format.h"
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

void session_name_threads(struct report *r, const struct thread_names *names)
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

int session_print_report(const struct report *r, const struct options *opt)
{
	struct out_file *of;
	char *why = NULL;
	int ret = 0;

	/* run and check: stderr (or --log-fd) unless -o; the others stdout */
	of = opt->output ? out_file_open(opt->output, &why) : out_file_open_fd(opt->report_fd, &why);
	if (!of) {
		error("%s", why);
		free(why);
		return 2;
	}
	opt->format->print(r, out_file_stream(of),
			   &(struct format_flags){ .full = opt->annotate_full });
	if (out_file_commit(of, &why) < 0) {
		error("%s", why);
		ret = 2;
	}
	free(why);
	return ret;
}

int session_output_progress(const struct options *opt, const struct run_facts *hdr,
			 struct line_table *lines, struct symbolizer *sym,
			 const struct thread_names *names, const struct session_hooks *hooks,
			 struct confirm *confirm, const struct proc_creds *reader,
			 struct progress *prog)
{
	struct data_types *dt = data_types_new();
	struct report *r;
	int ret;

	if (prog)
		progress_phase(prog, "building the report: classifying lines, naming data "
			       "and code, advice");
	if (confirm)
		confirm_merge_evidence(confirm, lines);
	r = report_build(hdr, lines, &opt->classify, opt->top, sym, dt);
	if (confirm) {
		confirm_fill_report(confirm, r, sym);
		report_confirm_locks(r);
	}
	session_name_threads(r, names);
	r->source_reader = reader;
	if (prog)
		progress_phase_end(prog);
	if (hooks && hooks->report)
		ret = hooks->report(hooks->ctx, r, opt);
	else
		ret = session_print_report(r, opt);
	report_free(r);
	data_types_free(dt);
	return ret;
}

int session_output(const struct options *opt, const struct run_facts *hdr,
		   struct line_table *lines, struct symbolizer *sym,
		   const struct thread_names *names, const struct session_hooks *hooks,
		   struct confirm *confirm, const struct proc_creds *reader)
{
	struct progress prog;   /* report -i, check -i: say so if it takes long */
	int ret;

	progress_init(&prog, opt->quiet);
	ret = session_output_progress(opt, hdr, lines, sym, names, hooks, confirm, reader, &prog);
	progress_release(&prog);
	return ret;
}
