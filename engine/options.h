/* options.h - what a command asks of the engine: the options it parsed.
 *
 * cli/options.c fills this from the command line (options_parse); the
 * session (engine/session.h) and its modes read it and nothing of the
 * command line itself.  A command sets what it takes; the rest keep the
 * defaults options_parse() gives them.
 */
#ifndef CONTEND_ENGINE_OPTIONS_H
#define CONTEND_ENGINE_OPTIONS_H

#include <stdbool.h>
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

#endif
