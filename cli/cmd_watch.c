/* cmd_watch.c - contend watch: exact counts on chosen words of a process.
 *
 *   contend watch -p PID [options] ADDR|SYMBOL[+OFF]...
 *
 * Each argument names a byte; the 8-byte word holding it is watched
 * (watch.h) in every thread of the process, two words at a time, the
 * words of one cache line together.  The report has one line per cache
 * line watched: the exact reads and writes of every thread on every word,
 * the code that made them and the sharing they add up to.
 */
#include <dirent.h>
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli/commands.h"
#include "cli/options.h"
#include "engine/session.h"
#include "engine/target_access.h"
#include "detector/thread_names.h"
#include "common/util.h"
#include "common/procfs.h"
#include "common/safe_file.h"
#include "detector/instruments.h"
#include "detector/watch.h"
#include "printers/format.h"
#include "reports/report.h"
#include "reports/report_finish.h"
#include "reports/watch_report.h"
#include "symbolize/symbolizer.h"

static const char usage_watch[] =
	"usage: contend watch -p PID [options] ADDR|SYMBOL[+OFF]...\n"
	"\n"
	"Count every read and write of the 8-byte words holding the given\n"
	"bytes, per thread, with hardware watchpoints (two words at a time in\n"
	"every thread, more in turn), and sample the code that made them.  The\n"
	"process runs on as before; each access costs it a trap while armed.\n"
	"\n"
	"  ADDR                   0x... (or decimal); SYMBOL: an ELF symbol of the\n"
	"                         program or a library; +OFF: bytes further on\n"
	"  -p, --pid PID          the process\n"
	"  -w, --window-ms MS     armed time per word group (default %.0f)\n"
	"  -d, --duration S       go on rotating over the words for S seconds\n"
	"                         (default: watch each group once)\n"
	"      --max-rate N       hits per second per thread above which a window\n"
	"                         ends early (default %.0f; 0: no cap)\n"
	"      --line-size N      64 (default) or 128\n"
	"  -o, --output FILE      write the report to FILE\n"
	"      --format FMT       text (default) or json\n"
	"  -q, --quiet            no progress messages\n"
	"\n"
	"Exit status: 0 report written; 2 error (no such process or symbol,\n"
	"permissions, no free debug register).\n"
	"\n"
	"Examples:\n"
	"  contend watch -p $(pidof server) counters counters+8\n"
	"  contend watch -p 1234 -w 500 0x7f3a2c001060\n";

struct watch_opts {
	pid_t pid;
	double duration;
	unsigned line_size;
	const char *output;
	const struct report_format *format;
	bool quiet;
	struct watch_config cfg;
	char **what;
	int n_what;
};

static volatile sig_atomic_t stop_requested;

static void on_stop(int sig)
{
	(void)sig;
	stop_requested = 1;
}

static void __attribute__((noreturn)) usage(int status)
{
	struct watch_config d;

	watch_config_default(&d);
	fprintf(status ? stderr : stdout, usage_watch, d.window_s * 1000, d.max_hits_per_s);
	exit(status);
}

static double number(const char *opt, const char *s, double lo, double hi)
{
	char *end;
	double v = strtod(s, &end);

	/* written so that NaN fails too: every comparison with it is false */
	if (!*s || *end || !(v >= lo && v <= hi))
		die("%s: '%s' is not a number in %g..%g", opt, s, lo, hi);
	return v;
}

static void parse(struct watch_opts *o, int argc, char **argv)
{
	enum { OPT_MAX_RATE = 256, OPT_LINE_SIZE, OPT_FORMAT };
	static const struct option longopts[] = {
		{ "pid", required_argument, NULL, 'p' },
		{ "window-ms", required_argument, NULL, 'w' },
		{ "duration", required_argument, NULL, 'd' },
		{ "max-rate", required_argument, NULL, OPT_MAX_RATE },
		{ "line-size", required_argument, NULL, OPT_LINE_SIZE },
		{ "output", required_argument, NULL, 'o' },
		{ "format", required_argument, NULL, OPT_FORMAT },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	memset(o, 0, sizeof(*o));
	o->format = report_format_find("text", FORMAT_FOR_WATCH);
	o->line_size = 64;
	watch_config_default(&o->cfg);
	o->cfg.stop = &stop_requested;
	optind = 1;
	opterr = 0;      /* options_refuse() says it, in one line */
	while ((c = getopt_long(argc, argv, ":p:w:d:o:qh", longopts, NULL)) != -1) {
		switch (c) {
		case 'p':
			o->pid = (pid_t)number("-p", optarg, 1, 0x3fffffff);
			break;
		case 'w':
			o->cfg.window_s = number("--window-ms", optarg, 1, 600000) / 1000;
			break;
		case 'd':
			o->duration = number("-d", optarg, 0.001, 1e7);
			break;
		case OPT_MAX_RATE:
			o->cfg.max_hits_per_s = number("--max-rate", optarg, 0, 1e12);
			break;
		case OPT_LINE_SIZE:
			o->line_size = (unsigned)number("--line-size", optarg, 64, 128);
			if (o->line_size != 64 && o->line_size != 128)
				die("--line-size: must be 64 or 128");
			break;
		case 'o':
			o->output = optarg;
			break;
		case OPT_FORMAT:
			o->format = options_format(optarg, FORMAT_FOR_WATCH);
			break;
		case 'q':
			o->quiet = true;
			break;
		case 'h':
			usage(0);
		default:
			options_refuse("watch", c, longopts, argv);
		}
	}
	o->what = argv + optind;
	o->n_what = argc - optind;
	if (!o->pid)
		die("no process given (usage: contend watch -p PID ADDR|SYMBOL[+OFF]...)");
	if (!o->n_what)
		die("nothing to watch given (usage: contend watch -p PID ADDR|SYMBOL[+OFF]...)");
}

/* ADDR, SYMBOL, ADDR+OFF or SYMBOL+OFF to an address; dies if unknown. */
static uint64_t resolve(struct symbolizer *sym, pid_t pid, const char *what)
{
	const char *plus = strrchr(what, '+');
	char *name = plus ? xasprintf("%.*s", (int)(plus - what), what) : xstrdup(what);
	uint64_t base, off = 0;
	struct data_symbol ds;
	char *end;

	if (plus) {
		off = strtoull(plus + 1, &end, 0);
		if (!plus[1] || *end)
			die("'%s': '%s' is not an offset", what, plus + 1);
	}
	base = strtoull(name, &end, 0);
	if (!*name || *end) {
		if (!symbolizer_find_symbol(sym, pid, name, &ds))
			die("no symbol '%s' in process %d (nor in its libraries)", name, (int)pid);
		base = ds.start;
	}
	free(name);
	if (!symbolizer_find_mapping(sym, pid, base + off))
		die("'%s' (0x%" PRIx64 ") is not mapped in process %d", what, base + off, (int)pid);
	return base + off;
}

/* The words to watch, grouped by cache line in the order given. */
static unsigned collect_lines(const struct watch_opts *o, const uint64_t *addrs,
			      struct watch_line_words *lines)
{
	unsigned n = 0;

	for (int i = 0; i < o->n_what; i++) {
		uint64_t word = addrs[i] & ~(uint64_t)(WATCH_WORD - 1);
		uint64_t line = addrs[i] & ~(uint64_t)(o->line_size - 1);
		struct watch_line_words *lw = NULL;
		bool dup = false;

		for (unsigned k = 0; k < n; k++)
			if (lines[k].line == line)
				lw = &lines[k];
		if (!lw) {
			lw = &lines[n++];
			memset(lw, 0, sizeof(*lw));
			lw->pid = (uint32_t)o->pid;
			lw->line = line;
		}
		for (unsigned k = 0; k < lw->n_words; k++)
			dup |= lw->words[k] == word;
		if (!dup)
			lw->words[lw->n_words++] = word;
	}
	return n;
}

static void nap(double s)
{
	struct timespec ts = { (time_t)s, (long)((s - (time_t)s) * 1e9) };

	if (s > 0)
		nanosleep(&ts, NULL);
}

/* Run one window; false if the process is gone or it could not be armed
 * (*ret says which). */
static bool one_window(const struct watch_opts *o, struct watch *w,
		       const struct watch_window *win, unsigned n_win, int *ret)
{
	int err = watch_arm(w, win);

	if (err < 0) {
		if (err == -ESRCH && !watch_windows_run(w))
			error("no such process: %d", (int)o->pid);
		*ret = err == -ESRCH && watch_windows_run(w) ? 0 : 2;
		return false;
	}
	if (!watch_windows_run(w) && !o->quiet)
		fprintf(stderr, "contend: watching %u word%s of process %d in %u threads%s\n",
			win->n_words, win->n_words == 1 ? "" : "s", (int)o->pid,
			watch_armed_threads(w), n_win > 1 ? ", in turn with the others" : "");
	while (watch_poll(w, 5))
		;
	watch_disarm(w);
	if (!process_alive(o->pid)) {
		if (!o->quiet)
			fprintf(stderr, "contend: process %d exited\n", (int)o->pid);
		return false;
	}
	return true;
}

/*
 * Run the windows in turn, once or for o->duration, resting between them
 * so that the words are armed at most cfg.duty of the time.  Returns 0,
 * or 2 if no window could be armed.
 */
static int run_windows(const struct watch_opts *o, struct watch *w,
		       const struct watch_window *win, unsigned n_win, double *elapsed)
{
	double t0 = monotonic_s();
	int ret = 0;

	for (unsigned pass = 0; !stop_requested; pass++) {
		for (unsigned i = 0; i < n_win && !stop_requested; i++) {
			double t = monotonic_s();
			bool last = o->duration <= 0 && i + 1 == n_win;

			if (o->duration > 0 && t - t0 >= o->duration)
				goto done;
			if (!one_window(o, w, &win[i], n_win, &ret))
				goto done;
			if (!last)
				nap(watch_rest_s(monotonic_s() - t, &o->cfg));
		}
		if (o->duration <= 0)
			break;
	}
done:
	*elapsed = monotonic_s() - t0;
	return ret;
}

static void read_thread_names(pid_t pid, struct thread_names *names)
{
	char path[64];
	struct dirent *de;
	DIR *d;

	snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
	d = opendir(path);
	if (!d)
		return;
	while ((de = readdir(d))) {
		char file[sizeof(path) + sizeof(de->d_name) + 8], comm[32] = "";
		FILE *f;

		if (de->d_name[0] < '0' || de->d_name[0] > '9')
			continue;
		snprintf(file, sizeof(file), "%s/%s/comm", path, de->d_name);
		f = fopen(file, "r");
		if (!f)
			continue;
		if (fgets(comm, sizeof(comm), f)) {
			comm[strcspn(comm, "\n")] = '\0';
			thread_names_set(names, (uint32_t)atoi(de->d_name), comm);
		}
		fclose(f);
	}
	closedir(d);
}

static int output(const struct watch_opts *o, struct watch *w, struct symbolizer *sym,
		  const struct thread_names *names, char *command, double elapsed)
{
	struct report *r = xcalloc(1, sizeof(*r));
	struct out_file *of;
	char *why = NULL;
	int ret = 0;

	r->command = command;
	r->backend = xstrdup("watch");
	r->backend_note = xstrdup("hardware watchpoints: exact counts of every user-mode "
				  "access to the watched words while armed");
	r->duration = elapsed;
	watch_report_lines(w, o->line_size, r, sym);
	report_name_threads(r, names);
	of = out_file_open(o->output ? o->output : "-", &why);
	if (of) {
		o->format->print(r, out_file_stream(of), NULL);
		if (out_file_commit(of, &why) < 0)
			of = NULL;
	}
	if (!of) {
		error("%s", why);
		ret = 2;
	}
	free(why);
	report_free(r);
	return ret;
}

/* The watch counts every access to a word, which only a watchpoint can:
 * where the self-test finds them dead (instruments.h), say so instead of
 * printing zeros. */
static void watchpoints_work_here(void)
{
	struct instruments in;
	char *why;

	instruments_test(&in, DEFAULT_FREQ);
	if (instrument_works(&in, INSTRUMENT_WATCHPOINTS))
		return;
	why = instrument_result_text(&in, INSTRUMENT_WATCHPOINTS);
	die("contend watch counts with hardware watchpoints, and here they are %s; "
	    "'contend run' and 'contend attach --confirm' confirm lines by uprobes on their "
	    "code instead", why);
}

int cmd_watch(int argc, char **argv)
{
	struct watch_opts o;
	struct symbolizer *sym;
	struct thread_names names = { 0 };
	struct watch_line_words *lines;
	struct watch_window *win;
	struct sigaction sa = { .sa_handler = on_stop };
	struct watch *w;
	uint64_t *addrs;
	char *command;
	unsigned n_lines, n_win;
	double elapsed = 0;
	char *why = NULL;
	int ret;

	parse(&o, argc, argv);
	if (!process_alive(o.pid))
		die("no such process: %d", (int)o.pid);
	if (o.output && out_file_check_early(o.output, &why) < 0)
		die("%s", why);   /* before the watchpoints, not after */
	target_check_access(o.pid, "watch");
	watchpoints_work_here();
	sym = symbolizer_new();
	if (symbolizer_load_proc_maps(sym, o.pid) < 0) {
		if (errno == EACCES || errno == EPERM)
			die("not permitted to watch process %d: run as its user or as root, "
			    "or grant CAP_SYS_PTRACE", (int)o.pid);
		die("cannot read /proc/%d/maps: %s", (int)o.pid, strerror(errno));
	}

	addrs = xcalloc(o.n_what, sizeof(*addrs));
	for (int i = 0; i < o.n_what; i++)
		addrs[i] = resolve(sym, o.pid, o.what[i]);
	lines = xcalloc(o.n_what, sizeof(*lines));
	n_lines = collect_lines(&o, addrs, lines);
	n_win = watch_plan(lines, n_lines, WATCH_WORDS_PER_WINDOW, &win);

	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	command = process_cmdline(o.pid);
	read_thread_names(o.pid, &names);
	w = watch_new(&o.cfg);
	ret = run_windows(&o, w, win, n_win, &elapsed);
	read_thread_names(o.pid, &names);
	signal(SIGINT, SIG_DFL);
	signal(SIGTERM, SIG_DFL);
	signal(SIGHUP, SIG_DFL);
	if (!ret || watch_windows_run(w))
		ret = output(&o, w, sym, &names, command, elapsed) ? 2 : ret;
	else
		free(command);

	watch_free(w);
	free(win);
	free(lines);
	free(addrs);
	thread_names_release(&names);
	symbolizer_free(sym);
	return ret;
}
