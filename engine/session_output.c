/* session_output.c - the report of a filled line table, built and written
 * (session.h): what run, attach and the commands that read recorded data
 * share once sampling is over. */
#include "engine/session.h"

#include "engine/progress.h"
#include "common/safe_file.h"
#include "common/util.h"
#include "printers/format.h"
#include "reports/fix_patch.h"
#include "reports/report.h"
#include "reports/report_finish.h"

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
	struct report *r;
	int ret;

	if (prog)
		progress_phase(prog, "building the report: classifying lines, naming data "
			       "and code, advice");
	r = report_finish(&(struct report_inputs){
		.facts = hdr, .lines = lines, .cfg = &opt->classify, .top = opt->top,
		.sym = sym, .confirm = confirm, .merge_watch = true, .fill_watch = true,
		.names = names,
	});
	r->source_reader = reader;
	fix_patch_build(r, opt->fix_root);
	if (prog)
		progress_phase_end(prog);
	if (hooks && hooks->report)
		ret = hooks->report(hooks->ctx, r, opt);
	else
		ret = session_print_report(r, opt);
	report_free(r);
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
