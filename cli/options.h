/* options.h - command-line options of every contend command, in one place.
 *
 * options_parse() fills struct options for the command named in argv[0]
 * (after "contend") and dies with a usage message (exit 2) on bad input.
 * The target command, if any, is what follows "--".
 */
#ifndef CONTEND_OPTIONS_H
#define CONTEND_OPTIONS_H

#include <stdbool.h>
#include <stdio.h>
#include <sys/types.h>
#include "detector/classify.h"
#include "printers/format.h"

enum fail_on { FAIL_ON_ANY, FAIL_ON_FALSE, FAIL_ON_TRUE };

#define DEFAULT_FREQ 1000      /* Hz per thread; see bench/overhead */
#define DEFAULT_LDLAT 30        /* cycles, as perf mem */
#define DEFAULT_WINDOW_PERIODS 10
#define CONTINUOUS_FREQ 99      /* Hz per thread, attach --interval; bench/continuous.sh */
#define CONTINUOUS_KEEP 24

struct options {
	const char *command;         /* "run", "attach", ... */
	unsigned freq;
	const char *output;          /* -o, NULL = report_fd */
	const char *fix_root;        /* fix --root: the patch's paths are under it */
	const char *verify_build;    /* fix --verify BUILD-CMD, NULL: no verify */
	unsigned verify_runs;        /* fix --verify-runs N (default 5) */
	int report_fd;               /* where the report goes without -o: stdout, but
					stderr for run and check (the target owns
					stdout, as for perf stat), or --log-fd N */
	const struct report_format *format;  /* --format, or annotate for --annotate */
	unsigned top;                /* 0 = all */
	unsigned line_size;
	double window_ms;            /* interleaving window; 0 = from freq */
	struct classify_config classify;
	const char *backend;         /* auto, pebs, ibs, spe, soft */
	unsigned ldlat;              /* --ldlat: PEBS/SPE load latency threshold, cycles */
	bool callchain;
	unsigned unwind_method;      /* --call-graph=METHOD: unwind_method_find() */
	pid_t pid;                   /* attach -p */
	bool system_wide;            /* attach/record -a: every process */
	pid_t *pids;                 /* -p PID,PID,... (2 or more; else NULL, 0): */
	unsigned n_pids;             /*   sampled as -a is (system_wide set, pid 0) */
	char *cgroup;                /* -a -G: only processes in this cgroup ("/a/b"), or NULL */
	pid_t *tids;                 /* attach -t TID,... (owned) */
	unsigned n_tids;
	double duration;             /* attach: seconds, 0 = until Ctrl-C/exit */
	double delay;                /* run --delay: seconds of warm-up not sampled */
	bool quiet;
	const char *input;           /* report/check -i FILE */
	bool annotate;               /* report --annotate */
	bool annotate_full;          /* --full: whole source files */
	bool confirm;                /* watchpoints on the top lines (default; --no-confirm) */
	bool alloc_sites;            /* run/record: preload the allocation shim (--no-alloc-sites) */
	bool price_probe;            /* sessions: time transfers first (--no-price-probe) */
	unsigned measure_fix;        /* run --measure-fix[=N]: timed runs of each, 0: off (fix_run.h) */
	bool confirm_set;            /* --confirm or --no-confirm given: no default */
	enum fail_on fail_on;        /* check --fail-on */
	bool fail_on_latent;         /* check --fail-on latent: latent pairs fail too */
	const char **allow;          /* check --allow SYMBOL|TYPE.member (repeatable) */
	unsigned n_allow;
	const char *baseline;        /* check --baseline FILE (a JSON report) */
	const char *symfs;           /* report/check --symfs DIR: where binaries are */
	double interval;             /* top -i: seconds between refreshes */
	double span;                 /* top --span: seconds the window holds */
	unsigned iterations;         /* top -n: refreshes, then quit; 0 = no end */
	bool batch;                  /* top --batch: plain tables, no screen */
	bool report_on_quit;         /* top --report: the session's report at the end */
	bool continuous;             /* attach --interval: a profile per interval (continuous.h) */
	unsigned keep;               /* attach --keep: newest profiles kept (default 24) */
	bool freq_set, format_set;   /* -F, --format given */
	char **argv;                 /* target command, NULL-terminated */
	int argc;
};

void options_parse(struct options *o, int argc, char **argv);
/* `contend fix --help` (cmd_fix.c): a printf format taking the default -F */
extern const char usage_fix[];
void options_usage(const char *command, int status) __attribute__((noreturn));
/* The --help text of command, to f. */
void options_usage_write(FILE *f, const char *command);

/* getopt_long refused an option (it returned c, '?' or ':', with opterr
 * 0 and argv[optind - 1] the word): one line, "unknown option '--freqq'
 * (did you mean '--freq'?)" or "option '-p' needs a value", and the
 * command's --help; exits 2. */
struct option;
/* The i-th long option command takes ("freq", ...), NULL past the last:
 * what the tests compare its --help and contend.1 with. */
const char *options_of_command(const char *command, unsigned i);

void options_refuse(const char *command, int c, const struct option *longopts, char **argv);

/* The format --format NAME asks for where use (format.h) says; dies
 * naming the formats there are when there is none. */
const struct report_format *options_format(const char *name, unsigned use);

#endif
