#include "options.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

static const char usage_run[] =
	"usage: contend run [options] -- CMD [ARGS...]\n"
	"\n"
	"Run CMD, sample every thread it creates, and report the cache lines\n"
	"its threads contend on (false sharing, true sharing).\n"
	"\n"
	"  -F, --freq HZ          sampling rate per thread (default %u)\n"
	"  -o, --output FILE      write the report to FILE\n"
	"      --format FMT       text (default) or json\n"
	"      --top N            print at most N lines (default 10, 0 = all)\n"
	"      --line-size N      cache line size: 64 (default) or 128\n"
	"      --min-score X      report lines whose score is at least X (default 0.005)\n"
	"      --window-ms MS     interleaving window (default 2.5 sample periods)\n"
	"  -b, --backend NAME     soft (default; the only backend on machines without a PMU)\n"
	"  -q, --quiet            no progress messages\n"
	"\n"
	"Exit status: 0 report written; 1 the target failed (non-zero exit or\n"
	"killed by a signal; the report is still written); 2 contend could not\n"
	"do its job (usage, permissions, command not found).\n"
	"\n"
	"Examples:\n"
	"  contend run -- ./myprog -t 8\n"
	"  contend run --format json -o report.json -- ./myprog\n";

static const char usage_attach[] =
	"usage: contend attach -p PID [-d SECONDS] [-t TID,...] [options]\n"
	"\n"
	"Sample a running process (every thread, and threads created while\n"
	"attached) for SECONDS, until Ctrl-C, or until it exits; then detach,\n"
	"leaving it running exactly as before, and report.\n"
	"\n"
	"  -p, --pid PID          the process\n"
	"  -d, --duration SECONDS how long to sample (default: until Ctrl-C)\n"
	"  -t, --tid TID,...      only these threads\n"
	"  -F, -o, --format, --top, --line-size, --min-score, --window-ms: as for run\n"
	"\n"
	"Examples:\n"
	"  contend attach -p $(pidof server) -d 10\n"
	"  contend attach -p 1234 -t 1240,1241 -d 5 --format json -o r.json\n";

void options_usage(const char *command, int status)
{
	FILE *f = status ? stderr : stdout;
	if (command && !strcmp(command, "run"))
		fprintf(f, usage_run, DEFAULT_FREQ);
	else if (command && !strcmp(command, "attach"))
		fputs(usage_attach, f);
	else
		fprintf(f, "see 'contend --help'\n");
	exit(status);
}

static unsigned parse_uint(const char *opt, const char *s, unsigned lo, unsigned hi)
{
	char *end;
	unsigned long v = strtoul(s, &end, 10);
	if (!*s || *end || v < lo || v > hi)
		die("%s: '%s' is not a number in %u..%u", opt, s, lo, hi);
	return (unsigned)v;
}

static double parse_double(const char *opt, const char *s, double lo, double hi)
{
	char *end;
	double v = strtod(s, &end);
	if (!*s || *end || v < lo || v > hi)
		die("%s: '%s' is not a number in %g..%g", opt, s, lo, hi);
	return v;
}

static void parse_tids(struct options *o, const char *list)
{
	char *copy = xstrdup(list), *save = NULL;
	size_t alloc = 0;
	for (char *tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		ALLOC_GROW(o->tids, o->n_tids + 1, alloc);
		o->tids[o->n_tids++] = (pid_t)parse_uint("-t", tok, 1, 0x3fffffff);
	}
	free(copy);
}

enum {
	OPT_FORMAT = 256, OPT_TOP, OPT_LINE_SIZE, OPT_MIN_SCORE, OPT_WINDOW,
	OPT_ANNOTATE, OPT_FULL, OPT_CONFIRM, OPT_FAIL_ON, OPT_ALLOW, OPT_BASELINE,
};

void options_parse(struct options *o, int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "freq", required_argument, NULL, 'F' },
		{ "output", required_argument, NULL, 'o' },
		{ "format", required_argument, NULL, OPT_FORMAT },
		{ "top", required_argument, NULL, OPT_TOP },
		{ "line-size", required_argument, NULL, OPT_LINE_SIZE },
		{ "min-score", required_argument, NULL, OPT_MIN_SCORE },
		{ "window-ms", required_argument, NULL, OPT_WINDOW },
		{ "backend", required_argument, NULL, 'b' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "pid", required_argument, NULL, 'p' },
		{ "duration", required_argument, NULL, 'd' },
		{ "tid", required_argument, NULL, 't' },
		{ "input", required_argument, NULL, 'i' },
		{ "call-graph", no_argument, NULL, 'g' },
		{ "annotate", no_argument, NULL, OPT_ANNOTATE },
		{ "full", no_argument, NULL, OPT_FULL },
		{ "confirm", no_argument, NULL, OPT_CONFIRM },
		{ "fail-on", required_argument, NULL, OPT_FAIL_ON },
		{ "allow", required_argument, NULL, OPT_ALLOW },
		{ "baseline", required_argument, NULL, OPT_BASELINE },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	memset(o, 0, sizeof(*o));
	o->command = argv[0];
	o->freq = DEFAULT_FREQ;
	o->format = FORMAT_TEXT;
	o->top = 10;
	o->line_size = 64;
	o->backend = "soft";
	classify_config_default(&o->classify);

	optind = 1;
	while ((c = getopt_long(argc, argv, "+F:o:b:qhp:d:t:i:g", longopts, NULL)) != -1) {
		switch (c) {
		case 'F':
			o->freq = parse_uint("-F", optarg, 1, 100000);
			break;
		case 'o':
			o->output = optarg;
			break;
		case OPT_FORMAT:
			if (!strcmp(optarg, "text"))
				o->format = FORMAT_TEXT;
			else if (!strcmp(optarg, "json"))
				o->format = FORMAT_JSON;
			else if (!strcmp(optarg, "html"))
				o->format = FORMAT_HTML;
			else
				die("--format: '%s' is not one of: text, json, html", optarg);
			break;
		case OPT_TOP:
			o->top = parse_uint("--top", optarg, 0, 1000000);
			break;
		case OPT_LINE_SIZE:
			o->line_size = parse_uint("--line-size", optarg, 64, 128);
			if (o->line_size != 64 && o->line_size != 128)
				die("--line-size: must be 64 or 128");
			break;
		case OPT_MIN_SCORE:
			o->classify.min_score = parse_double("--min-score", optarg, 0, 1);
			o->min_score_set = true;
			break;
		case OPT_WINDOW:
			o->window_ms = parse_double("--window-ms", optarg, 0.001, 10000);
			break;
		case 'b':
			if (strcmp(optarg, "soft") && strcmp(optarg, "auto"))
				die("--backend: '%s' is not available (available: soft, auto)", optarg);
			o->backend = optarg;
			break;
		case 'q':
			o->quiet = true;
			break;
		case 'p':
			o->pid = (pid_t)parse_uint("-p", optarg, 1, 0x3fffffff);
			break;
		case 'd':
			o->duration = parse_double("-d", optarg, 0.001, 1e7);
			break;
		case 't':
			parse_tids(o, optarg);
			break;
		case 'i':
			o->input = optarg;
			break;
		case 'g':
			o->callchain = true;
			break;
		case OPT_ANNOTATE:
			o->annotate = true;
			break;
		case OPT_FULL:
			o->annotate_full = true;
			break;
		case OPT_CONFIRM:
			o->confirm = true;
			break;
		case OPT_FAIL_ON:
			if (!strcmp(optarg, "any"))
				o->fail_on = FAIL_ON_ANY;
			else if (!strcmp(optarg, "false-sharing"))
				o->fail_on = FAIL_ON_FALSE;
			else if (!strcmp(optarg, "true-sharing"))
				o->fail_on = FAIL_ON_TRUE;
			else
				die("--fail-on: '%s' is not one of: false-sharing, true-sharing, any", optarg);
			break;
		case OPT_ALLOW:
			o->allow = xrealloc(o->allow, (o->n_allow + 1) * sizeof(*o->allow));
			o->allow[o->n_allow++] = optarg;
			break;
		case OPT_BASELINE:
			o->baseline = optarg;
			break;
		case 'h':
			options_usage(o->command, 0);
		default:
			options_usage(o->command, 2);
		}
	}
	if (optind < argc) {
		o->argv = argv + optind;
		o->argc = argc - optind;
	}
}
