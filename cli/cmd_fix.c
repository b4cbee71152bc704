/* cmd_fix.c - `contend fix`: the fix as a patch (reports/fix_patch.h),
 * of a command sampled as `contend run` samples it or of a data file, and
 * with --verify, proven on a scratch copy of the project (fix_verify.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/commands.h"
#include "cli/fix_verify.h"
#include "cli/options.h"
#include "engine/session.h"
#include "common/util.h"
#include "printers/format.h"
#include "reports/report.h"

const char usage_fix[] =
	"usage: contend fix [options] [--verify BUILD-CMD] (-- CMD [ARGS...] | -i FILE [-- CMD])\n"
	"\n"
	"Sample CMD as 'contend run' does (or read a data file written by 'contend\n"
	"record') and write the fix of each contended line as a unified diff of\n"
	"the project's own source, where DWARF declares the struct, the array or\n"
	"the allocation: apply it with 'patch -p1' or 'git apply' in the project\n"
	"root it names.  True sharing gets no patch: the '# ' lines before the\n"
	"diff say what to change instead, and what to check before applying.\n"
	"\n"
	"  -o, --output FILE      write the patch to FILE (default: standard output)\n"
	"      --format FMT       patch (default), or text, json, html, sarif (the\n"
	"                         patch as data: JSON's \"fix\", SARIF's \"fixes\")\n"
	"      --root DIR         the project root the diff's paths are relative to\n"
	"                         (default: the nearest directory above the source\n"
	"                         holding .git, else the source's own directory)\n"
	"      --verify BUILD-CMD apply the patch in a scratch copy of the root, run\n"
	"                         BUILD-CMD there (sh -c), run CMD and the rebuilt CMD\n"
	"                         in turn, unsampled, and sample the rebuilt one: say\n"
	"                         the measured ratio and whether each line is gone.\n"
	"                         CMD must be a file under the root.  The project's\n"
	"                         own tree is never written\n"
	"      --verify-runs N    runs of each program for the ratio (default 5)\n"
	"  -i, --input FILE       a data file instead of sampling (with --verify,\n"
	"                         give the command after --)\n"
	"      --symfs DIR        with -i: where the recorded binaries are\n"
	"  -F, --freq HZ          sampling rate per thread (default %u)\n"
	"  --top, --line-size, --min-score, --window-ms, -D, -g, -b, --ldlat,\n"
	"  --confirm, --no-confirm, --no-alloc-sites, --no-price-probe, --annotate,\n"
	"  --full, -q: as for run\n"
	"\n"
	"Exit status: 0 patch written (and, with --verify, built and every patched\n"
	"line gone); 1 the target failed, or --verify found the patch failing;\n"
	"2 usage or I/O error.\n"
	"\n"
	"Examples:\n"
	"  contend fix -- ./bench -t 4 > contend.patch\n"
	"  contend fix --verify 'make' -- ./build/bench -t 4\n"
	"  contend fix -i contend.data -o contend.patch\n";

/* The report hook: print the patch (or the report with it), then verify. */
static int print_and_verify(void *ctx, const struct report *r, const struct options *opt)
{
	int ret = session_print_report(r, opt);

	(void)ctx;
	if (ret || !opt->verify_build)
		return ret;
	return fix_verify(r, opt);
}

int cmd_fix(int argc, char **argv)
{
	struct session_hooks hooks = { .report = print_and_verify };
	struct options opt;

	options_parse(&opt, argc, argv);
	if (!opt.format_set)
		opt.format = report_format_find("patch", FORMAT_FOR_REPORT);
	if (opt.verify_build && !opt.argv)
		die("--verify: give the command to verify after --");
	if (opt.input)
		return report_data_file(&opt, &hooks);
	if (!opt.argv)
		die("fix: give a command after -- (or -i FILE); see 'contend fix --help'");
	return session_run(&opt, &hooks);
}
