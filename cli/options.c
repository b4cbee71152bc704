#include "cli/options.h"

#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/cache_line.h"
#include "detector/backend.h"
#include "symbolize/unwind.h"
#include "common/util.h"

static const char usage_run[] =
	"usage: contend run [options] -- CMD [ARGS...]\n"
	"\n"
	"Run CMD, sample every thread it creates, and report the cache lines\n"
	"its threads contend on (false sharing, true sharing).\n"
	"\n"
	"  -F, --freq HZ          sampling rate per thread (default %u)\n"
	"  -o, --output FILE      write the report to FILE (- for standard output);\n"
	"                         without -o it goes to standard error, which the\n"
	"                         program's output does not mix into a pipe\n"
	"      --log-fd N         write the report to file descriptor N instead\n"
	"      --format FMT       text (default), json, html (one self-contained page),\n"
	"                         sarif (SARIF 2.1.0, for code review), pprof\n"
	"                         (gzipped profile.proto, for go tool pprof) or\n"
	"                         patch (the fix as a unified diff: contend fix)\n"
	"      --annotate         source files with the contended lines marked\n"
	"      --full             with --annotate: whole files, not just the hot lines\n"
	"      --top N            print at most N lines (default 10, 0 = all)\n"
	"      --line-size N      cache line size: 64 (default) or 128\n"
	"      --min-score X      report lines whose score is at least X (default 0.005)\n"
	"      --window-ms MS     interleaving window (default 10 sample periods, >= 10 ms)\n"
	"  -D, --delay MS         do not count the first MS milliseconds, as perf's -D\n"
	"                         (a JVM's warm-up); 500ms and 5s say the unit\n"
	"  -g, --call-graph[=M]   unwind sampled stacks: call chains of each code site.\n"
	"                         M: dwarf (libdw's unwinder, the default) or libunwind\n"
	"      --no-confirm       do not confirm with watchpoints (--confirm: do, the\n"
	"                         default).  By default, after\n"
	"                         0.2 s, the top lines' hottest words (and lines several\n"
	"                         threads load heavily: timer samples rarely see stores)\n"
	"                         are watched for short windows with hardware\n"
	"                         watchpoints; their exact per-thread reads and writes\n"
	"                         feed the report.  Once, after 0.5 s, the stores near\n"
	"                         the hot code get execute breakpoints for 20 ms\n"
	"                         windows: a store too rare for the timer to sample\n"
	"                         then gets watched too\n"
	"      --no-alloc-sites   do not track heap allocations.  By default run preloads\n"
	"                         libcontend-alloc.so into the command, to name heap\n"
	"                         objects by the call that allocated them\n"
	"      --no-price-probe   do not time the machine's cache-line transfers\n"
	"                         (0.3 s of two CPUs once sampling ends):\n"
	"                         predict gains at the reference price instead\n"
	"      --measure-fix[=N]  where a line lies in separate heap blocks of one\n"
	"                         allocation site, run CMD again N times (default 1)\n"
	"                         as is and N times with that site's blocks aligned\n"
	"                         to the line, unsampled, and report the measured gain\n"
	"  -b, --backend NAME     the sampling backend: %s\n"
	"                         (auto, the default: the CPU's hardware backend if it\n"
	"                         can run, else soft); see 'contend backends'\n"
	"      --ldlat CYCLES     pebs/spe: sample loads slower than this (default 30)\n"
	"  -q, --quiet            no progress messages\n"
	"\n"
	"Exit status: 0 report written; 1 the target failed (non-zero exit or\n"
	"killed by a signal; the report is still written); 2 contend could not\n"
	"do its job (usage, permissions, command not found).\n"
	"\n"
	"Examples:\n"
	"  contend run -- ./myprog -t 8\n"
	"  contend run --format json -o report.json -- ./myprog\n"
	"  contend run -q --format json --log-fd 3 -- ./myprog 3>&1 >/dev/null | jq .\n";

static const char usage_attach[] =
	"usage: contend attach (-p PID | -a) [-d SECONDS] [-t TID,...] [options]\n"
	"\n"
	"Sample a running process (every thread, and threads created while\n"
	"attached) for SECONDS, until Ctrl-C, or until it exits; then detach,\n"
	"leaving it running exactly as before, and report.\n"
	"\n"
	"  -p, --pid PID[,PID...] the process; several are sampled as -a samples,\n"
	"                         kept to the list (its privilege needed too)\n"
	"  -a, --all-cpus         every process on the machine (per-CPU events;\n"
	"                         needs CAP_PERFMON or kernel.perf_event_paranoid <= 0)\n"
	"  -G, --cgroup CGROUP    with -a: only the processes in CGROUP or below it\n"
	"                         (/system.slice/docker-ID.scope, or its /sys/fs/cgroup path)\n"
	"  -d, --duration SECONDS how long to sample (default: until Ctrl-C)\n"
	"  -t, --tid TID,...      only these threads\n"
	"      --confirm          confirm with watchpoints, as run does, also on a\n"
	"                         virtual machine, where attach does not by default:\n"
	"                         a hypervisor can turn a watchpoint's trap into a\n"
	"                         SIGTRAP that kills the process (about once in 10^7\n"
	"                         watched accesses; the report's header says so)\n"
	"      --no-alloc-sites   do not read the process's glibc heap, after\n"
	"                         sampling, for the blocks its lines lie in\n"
	"  -F, -g, -o, --format, --top, --line-size, --min-score, --window-ms, -D,\n"
	"  --annotate, --full, -q, --no-confirm, --no-price-probe, -b, --ldlat: as\n"
	"  for run (the probe\n"
	"  runs beside the process: where it keeps both CPUs busy, it says so\n"
	"  and the gains are priced at the reference)\n"
	"\n"
	"Continuous: one profile per interval, for a fleet's profiler (docs/pprof.md):\n"
	"      --interval SECONDS write the report of every SECONDS alone to\n"
	"                         -o DIR/contend-PID-TIME.EXT (pprof unless --format says;\n"
	"                         -F %u unless given), until -d, Ctrl-C or the exit\n"
	"      --keep N           keep the newest N profiles written (default %u)\n"
	"\n"
	"Examples:\n"
	"  contend attach -p $(pidof server) -d 10\n"
	"  contend attach -p 1234 -t 1240,1241 -d 5 --format json -o r.json\n"
	"  contend attach -p $(pidof server) --interval 60 -o /var/lib/contend\n"
	"  contend attach -a -d 3\n";

static const char usage_record[] =
	"usage: contend record [-o FILE] [-F HZ] (-- CMD [ARGS...] | (-p PID | -a) [-d SECONDS])\n"
	"\n"
	"Sample like 'contend run' (a command) or 'contend attach' (-p PID), and\n"
	"write the samples, threads and mappings (with build-ids) to a data file\n"
	"instead of reporting; 'contend report' and 'contend check -i' read it,\n"
	"here or on another machine with the same binaries.\n"
	"\n"
	"  -o, --output FILE      the data file (default contend.data)\n"
	"  -F, --freq HZ          sampling rate per thread (default %u)\n"
	"  -p, -a, -G, -d, -t     as for attach\n"
	"      --no-confirm       as for run (the watchpoints' exact counts are\n"
	"                         stored for report to confirm the lines with)\n"
	"      --no-alloc-sites   as for run (with a command: its heap blocks are\n"
	"                         stored for report to name)\n"
	"      --no-price-probe   as for run (the prices are stored for report)\n"
	"  -g, -D, -b, --ldlat, --confirm: as for run (-g: the call chains are\n"
	"                         stored for report)\n"
	"  -q, --quiet            no progress messages\n"
	"\n"
	"Exit status: as for run (1: the target failed; the file is still written).\n"
	"\n"
	"Examples:\n"
	"  contend record -- ./myprog -t 8 && contend report\n"
	"  contend record -o server.data -p $(pidof server) -d 10\n";

static const char usage_report[] =
	"usage: contend report [-i FILE] [--symfs DIR] [options]\n"
	"\n"
	"Report on a data file written by 'contend record', as 'contend run'\n"
	"would have.  Binaries are opened at their recorded paths when the\n"
	"build-id there matches, else searched by build-id under --symfs DIR\n"
	"and in the current directory.\n"
	"\n"
	"  -i, --input FILE       the data file (default contend.data; - for stdin)\n"
	"      --symfs DIR        where to look for the recorded binaries\n"
	"  -o, --format, --top, --line-size, --min-score, --window-ms, --annotate,\n"
	"  --full, -q: as for run\n"
	"  -g, --call-graph       say so when the file holds no call chains (record -g)\n"
	"\n"
	"Exit status: 0 report written; 2 unreadable or corrupt file.\n"
	"\n"
	"Examples:\n"
	"  contend report --line-size 128\n"
	"  contend report -i ci.data --symfs build/ --format json -o r.json\n";

static const char usage_check[] =
	"usage: contend check [rules] [-o REPORT.json] (-- CMD [ARGS...] | -i FILE)\n"
	"\n"
	"For CI: run CMD (or read a data file) and fail if a contended cache line\n"
	"breaks the rules.  Each violation is one line, 'file:line: false sharing\n"
	"on ...', at the code that writes the line most.\n"
	"\n"
	"  --fail-on KIND[,latent] false-sharing, true-sharing or any (default);\n"
	"                         latent: latent false sharing fails too\n"
	"  --min-score X          ignore lines scoring below X (default 0.005)\n"
	"  --allow NAME           accept lines of this variable, type or\n"
	"                         TYPE.member (repeatable)\n"
	"  --baseline FILE        a JSON report of an accepted run: fail only on\n"
	"                         new lines, a changed kind, or a score up by 50%%\n"
	"  -o, --output FILE      write the JSON report there (a CI artefact)\n"
	"      --log-fd N         the violations and the verdict go to file\n"
	"                         descriptor N (default: standard error)\n"
	"      --format FMT       -o in this format instead: sarif (the violations,\n"
	"                         for code scanning), html, pprof\n"
	"  -i, --input FILE       judge a data file of 'contend record'\n"
	"  --symfs DIR, -F, --line-size, --window-ms, --no-alloc-sites, --no-confirm,\n"
	"  --no-price-probe, -q: as for run and report\n"
	"\n"
	"Exit status: 0 pass; 1 some line breaks the rules; 2 usage or\n"
	"environment error, or the target failed.\n"
	"\n"
	"Examples:\n"
	"  contend check --fail-on false-sharing -- ./tests/stress\n"
	"  contend check --baseline main.json -o pr.json -- ./bench\n"
	"  contend check --format sarif -o contention.sarif -- ./bench\n";

static const char usage_stat[] =
	"usage: contend stat [options] (-- CMD [ARGS...] | -p PID [-d SECONDS])\n"
	"\n"
	"Triage before the hunt: run CMD (or attach to PID), count, and say whether\n"
	"contention is likely.  Per process and per thread: CPI, memory-ordering\n"
	"machine clears, HITM loads (a line modified in another core), L3 misses and\n"
	"dTLB walks per 1000 instructions, from the CPU's counters (events per CPU\n"
	"model through libpfm4); task-clock, context switches and page faults; and\n"
	"the sampler's share of accesses on contended lines (sampled alongside, as\n"
	"'contend run' does).  Counters that cannot be read (no PMU in a virtual\n"
	"machine, perf_event_paranoid) are listed with the reason, and the verdict\n"
	"then comes from the samples.  The thresholds and their sources are printed.\n"
	"\n"
	"  -p, --pid PID          attach to this process instead of running CMD\n"
	"  -d, --duration SECONDS with -p: how long (default: until Ctrl-C)\n"
	"  -o, --output FILE      write the result to FILE; without -o it goes to\n"
	"                         standard error with a command (its output is\n"
	"                         standard output's), to standard output with -p\n"
	"      --format FMT       text (default) or json\n"
	"      --log-fd N         with a command: the result to file descriptor N\n"
	"  -F, -b, --ldlat, --line-size, --no-confirm, -q: as for run\n"
	"\n"
	"Exit status: as for run (1: the target failed; the result is still written).\n"
	"\n"
	"Examples:\n"
	"  contend stat -- ./myprog -t 8\n"
	"  contend stat -p $(pidof server) -d 10 --format json\n";
static const char usage_top[] =
	"usage: contend top [options] (-p PID | -- CMD [ARGS...])\n"
	"\n"
	"A live view of the contended cache lines of the last few seconds, as\n"
	"perf top shows functions: kind, object and members, threads, score now\n"
	"and its trend, predicted gain, hottest code.  The numbers are the\n"
	"report's, over a window sliding with each refresh.\n"
	"\n"
	"  -p, --pid PID          a running process (left running as it was on quit)\n"
	"  -i, --interval S       seconds between refreshes (default 1)\n"
	"      --span S           seconds the window holds (default 3)\n"
	"  -n, --iterations N     quit after N refreshes\n"
	"  -d, --duration S       quit after S seconds\n"
	"      --batch            plain tables on stdout, one per refresh (the\n"
	"                         default when stdout is not a terminal)\n"
	"      --report           at the end, print the report of the whole session\n"
	"                         (-o, --format as for run)\n"
	"  -a                     system-wide: not available; contend samples one\n"
	"                         process, its threads and children\n"
	"  -F, -b, --ldlat, --top (lines per refresh, default 10), --line-size, --min-score,\n"
	"  --window-ms: as for run.  --confirm: w may arm watchpoints when\n"
	"  attached on a virtual machine; --no-confirm: w never does.\n"
	"\n"
	"Keys: q quit, Up/Down select, Enter expand (ranges, threads, sites,\n"
	"advice), s sort by score, samples or threads, p pause, w confirm the\n"
	"line with watchpoints now.\n"
	"\n"
	"Batch tables: a '# contend top' line, a header line, one tab-separated\n"
	"row per line, a blank line (contend(1) says each column).\n"
	"\n"
	"Examples:\n"
	"  contend top -p $(pidof server)\n"
	"  contend top --batch -i 5 -p 1234 >> contention.log\n";

static const char usage_backends[] =
	"usage: contend backends [-F HZ] [--format text|json]\n"
	"\n"
	"Say which sampling backends can run on this machine and why the others\n"
	"cannot, which events each would open, and which one 'auto' picks.  Then\n"
	"test every instrument contend measures with, on contend's own thread\n"
	"(a few ms): watchpoints on a store and a load, an execute breakpoint\n"
	"and a uprobe on a call, and the timer's sample rate at -F HZ.  An\n"
	"instrument that opens but never fires (hardware breakpoints on some\n"
	"virtual machines) is named so, and the instrument that confirms lines\n"
	"and the one that runs the census of stores are said.\n"
	"\n"
	"  -F, --freq HZ          the sample rate to test (default %u)\n"
	"      --format FMT       text (default) or json (the same facts as data)\n"
	"\n"
	"Examples:\n"
	"  contend backends\n"
	"  contend backends --format json | jq '.instruments[] | {name, state}'\n";

/* "auto" and the backend table's names, in auto's order: "auto, pebs, ..." */
static const char *backend_names(void)
{
	static char list[128];
	size_t len = 0;

	if (!*list) {
		len = (size_t)snprintf(list, sizeof(list), "auto");
		for (int i = 0; i < BACKEND__COUNT && len < sizeof(list); i++)
			len += (size_t)snprintf(list + len, sizeof(list) - len, ", %s",
						backend_rows[i]->name);
	}
	return list;
}

void options_usage_write(FILE *f, const char *command)
{
	if (command && !strcmp(command, "run"))
		fprintf(f, usage_run, DEFAULT_FREQ, backend_names());
	else if (command && !strcmp(command, "attach"))
		fprintf(f, usage_attach, CONTINUOUS_FREQ, CONTINUOUS_KEEP);
	else if (command && !strcmp(command, "record"))
		fprintf(f, usage_record, DEFAULT_FREQ);
	else if (command && !strcmp(command, "report"))
		fputs(usage_report, f);
	else if (command && !strcmp(command, "check"))
		fprintf(f, usage_check);
	else if (command && !strcmp(command, "stat"))
		fputs(usage_stat, f);
	else if (command && !strcmp(command, "top"))
		fputs(usage_top, f);
	else if (command && !strcmp(command, "backends"))
		fprintf(f, usage_backends, DEFAULT_FREQ);
	else if (command && !strcmp(command, "fix"))
		fprintf(f, usage_fix, DEFAULT_FREQ);
	else
		fprintf(f, "see 'contend --help'\n");
}

void options_usage(const char *command, int status)
{
	options_usage_write(status ? stderr : stdout, command);
	exit(status);
}


const struct report_format *options_format(const char *name, unsigned use)
{
	const struct report_format *f = report_format_find(name, use);

	if (!f)
		die("--format: '%s' is not one of: %s", name, report_format_names(use));
	return f;
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
	/* written so that NaN fails too: every comparison with it is false */
	if (!*s || *end || !(v >= lo && v <= hi))
		die("%s: '%s' is not a number in %g..%g", opt, s, lo, hi);
	return v;
}

/* --backend NAME: auto, or a row of the backend table (backend.h). */
static const char *parse_backend(const char *s)
{
	enum backend_id id;

	if (strcmp(s, "auto") && !backend_from_name(s, &id))
		die("--backend: '%s' is not one of: %s", s, backend_names());
	return s;
}

/* --call-graph=METHOD: a row of the unwinders' table (unwind.h). */
static unsigned parse_unwind_method(const char *s)
{
	int i = unwind_method_find(s);
	char list[128] = "";

	if (i >= 0)
		return (unsigned)i;
	for (unsigned k = 0; unwind_method_name(k); k++)
		snprintf(list + strlen(list), sizeof(list) - strlen(list), "%s%s",
			 k ? ", " : "", unwind_method_name(k));
	die("--call-graph: '%s' is not one of: %s", s, list);
}

/* -D/--delay: milliseconds, as perf record's -D, or with a unit ("500ms",
 * "2s"); seconds back. */
static double parse_delay(const char *s)
{
	char *end;
	double v = strtod(s, &end), scale = 1e-3;

	if (!strcmp(end, "s"))
		scale = 1;
	else if (*end && strcmp(end, "ms"))
		end = NULL;
	if (!*s || !end || !(v >= 0 && v * scale <= 1e7))
		die("--delay: '%s' is not a delay: milliseconds (500), or 500ms or 2s", s);
	return v * scale;
}

/* "12,34,56" after option opt, appended to *v. */
static void parse_id_list(const char *opt, const char *list, pid_t **v, unsigned *n)
{
	char *copy = xstrdup(list), *save = NULL;
	size_t alloc = *n;

	for (char *tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		ALLOC_GROW(*v, *n + 1, alloc);
		(*v)[(*n)++] = (pid_t)parse_uint(opt, tok, 1, 0x3fffffff);
	}
	free(copy);
}

/* -p PID or, as perf takes it, -p PID,PID,...: several processes are
 * sampled the way -a samples every one, kept to the list. */
static void parse_pids(struct options *o, const char *list)
{
	parse_id_list("-p", list, &o->pids, &o->n_pids);
	if (!o->n_pids)
		die("-p: give a process id, or several separated by commas");
	o->pid = o->pids[0];
	if (o->n_pids == 1) {   /* one process: attach's own way */
		free(o->pids);
		o->pids = NULL;
		o->n_pids = 0;
	}
}

/* -G: the cgroup as /proc/PID/cgroup names it (common/procfs.h). */
static char *cgroup_path_parse(const char *arg)
{
	char *path = cgroup_path_of(arg);

	if (!path)
		die("-G %s: no such cgroup (give its path as /proc/PID/cgroup shows it, "
		    "/a/b, or its directory under /sys/fs/cgroup)", arg);
	return path;
}

/* Several -p processes: per-CPU events kept to them (system_wide.h). */
static void pid_list_to_system_wide(struct options *o)
{
	if (strcmp(o->command, "attach") && strcmp(o->command, "record"))
		die("-p %d,...: contend %s takes one process; attach and record take several",
		    (int)o->pids[0], o->command);
	if (o->system_wide)
		die("-a samples every process: give no -p with it");
	if (o->n_tids)
		die("-t names threads of one process: give one -p with it");
	o->system_wide = true;
	o->pid = 0;
}

enum {
	OPT_FORMAT = 256, OPT_TOP, OPT_LINE_SIZE, OPT_MIN_SCORE, OPT_WINDOW,
	OPT_ANNOTATE, OPT_FULL, OPT_CONFIRM, OPT_NO_CONFIRM, OPT_FAIL_ON, OPT_ALLOW, OPT_BASELINE,
	OPT_SYMFS, OPT_LDLAT, OPT_SPAN, OPT_BATCH, OPT_REPORT, OPT_INTERVAL, OPT_KEEP,
	OPT_NO_ALLOC_SITES, OPT_LOG_FD, OPT_MEASURE_FIX, OPT_NO_PRICE_PROBE, OPT_ROOT,
	OPT_VERIFY, OPT_VERIFY_RUNS,
};

/* A command that samples this machine groups by its coherency granule
 * (cache_line.h: 128 bytes on Apple M, 64 on x86 and Neoverse); report
 * reads a recording made anywhere: 64 unless --line-size says. */
static unsigned default_line_size(const char *command)
{
	unsigned host;

	if (!command || !strcmp(command, "report"))
		return 64;
	host = host_cache_line_size();
	return host == 128 ? 128 : 64;
}

/* --fail-on KIND[,KIND]: one kind of contended line, and/or latent */
static void parse_fail_on(struct options *o, const char *arg)
{
	char *list = xstrdup(arg), *save = NULL;

	for (char *k = strtok_r(list, ",", &save); k; k = strtok_r(NULL, ",", &save)) {
		if (!strcmp(k, "any"))
			o->fail_on = FAIL_ON_ANY;
		else if (!strcmp(k, "false-sharing"))
			o->fail_on = FAIL_ON_FALSE;
		else if (!strcmp(k, "true-sharing"))
			o->fail_on = FAIL_ON_TRUE;
		else if (!strcmp(k, "latent"))
			o->fail_on_latent = true;
		else
			die("--fail-on: '%s' is not one of: false-sharing, true-sharing, any, latent", k);
	}
	free(list);
}

/* --log-fd N: an open, writable descriptor that the launched program does
 * not inherit (it is the report's, not the program's). */
static int parse_log_fd(const char *s)
{
	int fd = (int)parse_uint("--log-fd", s, 0, 1u << 20);
	int fl = fcntl(fd, F_GETFL);

	if (fl < 0 || (fl & O_ACCMODE) == O_RDONLY)
		die("--log-fd: file descriptor %d is not open for writing", fd);
	if (fd > STDERR_FILENO)
		fcntl(fd, F_SETFD, fcntl(fd, F_GETFD) | FD_CLOEXEC);
	return fd;
}

/* A command that launches a program shares stdout with it: its report
 * (check: the violations and verdict; stat: the counts and verdict) goes
 * to stderr unless -o or --log-fd says otherwise, as perf stat and time
 * do; the other commands print on stdout. */
static void choose_report_fd(struct options *o, int log_fd)
{
	bool launches = !strcmp(o->command, "run") || !strcmp(o->command, "check") ||
			(!strcmp(o->command, "stat") && !o->pid);

	if (log_fd >= 0 && !launches)
		die("--log-fd: only commands that launch a program take it (run, check, stat "
		    "-- CMD), not %s", o->command);
	if (log_fd >= 0 && o->output && !strcmp(o->command, "run"))
		die("run: give -o FILE or --log-fd N, not both");
	o->report_fd = log_fd >= 0 ? log_fd : launches ? STDERR_FILENO : STDOUT_FILENO;
}

/*
 * Every option, and the commands that take it: a command parses its own
 * options and nothing else (another command's option is refused, saying
 * whose it is).  Its --help lists them all; tests/test_options.c checks
 * that it does, and that contend.1 names each.
 */
enum {
	RUN = 1 << 0, ATTACH = 1 << 1, RECORD = 1 << 2, REPORT = 1 << 3,
	CHECK = 1 << 4, STAT = 1 << 5, TOP = 1 << 6, BACKENDS = 1 << 7, FIX = 1 << 8,
	ALL = (1 << 9) - 1,
	SAMPLE = RUN | ATTACH | RECORD | FIX,   /* sampling, to report or to record */
	PRINT = RUN | ATTACH | REPORT | FIX,    /* reporting, from samples or a file */
};

static const char *const command_names[] = {
	"run", "attach", "record", "report", "check", "stat", "top", "backends", "fix",
};

struct option_row {
	struct option opt;
	unsigned commands;
};

static const struct option_row option_rows[] = {
	{ { "freq", required_argument, NULL, 'F' }, ALL & ~REPORT },
	{ { "output", required_argument, NULL, 'o' }, SAMPLE | REPORT | CHECK | STAT | TOP },
	{ { "format", required_argument, NULL, OPT_FORMAT }, PRINT | CHECK | STAT | TOP | BACKENDS },
	{ { "top", required_argument, NULL, OPT_TOP }, PRINT | TOP },
	{ { "line-size", required_argument, NULL, OPT_LINE_SIZE }, PRINT | CHECK | STAT | TOP },
	{ { "min-score", required_argument, NULL, OPT_MIN_SCORE }, PRINT | CHECK | TOP },
	{ { "window-ms", required_argument, NULL, OPT_WINDOW }, PRINT | CHECK | TOP },
	{ { "backend", required_argument, NULL, 'b' }, SAMPLE | STAT | TOP },
	{ { "ldlat", required_argument, NULL, OPT_LDLAT }, SAMPLE | STAT | TOP },
	{ { "quiet", no_argument, NULL, 'q' }, SAMPLE | REPORT | CHECK | STAT },
	{ { "pid", required_argument, NULL, 'p' }, ATTACH | RECORD | STAT | TOP },
	{ { "all-cpus", no_argument, NULL, 'a' }, ATTACH | RECORD | TOP },
	{ { "cgroup", required_argument, NULL, 'G' }, ATTACH | RECORD },
	{ { "duration", required_argument, NULL, 'd' }, ATTACH | RECORD | STAT | TOP },
	{ { "delay", required_argument, NULL, 'D' }, SAMPLE },
	{ { "tid", required_argument, NULL, 't' }, ATTACH | RECORD },
	{ { "input", required_argument, NULL, 'i' }, REPORT | CHECK | FIX },
	{ { "call-graph", optional_argument, NULL, 'g' }, SAMPLE | REPORT },
	{ { "annotate", no_argument, NULL, OPT_ANNOTATE }, PRINT },
	{ { "full", no_argument, NULL, OPT_FULL }, PRINT },
	{ { "confirm", no_argument, NULL, OPT_CONFIRM }, SAMPLE | TOP },
	{ { "no-confirm", no_argument, NULL, OPT_NO_CONFIRM }, SAMPLE | CHECK | STAT | TOP },
	{ { "no-alloc-sites", no_argument, NULL, OPT_NO_ALLOC_SITES }, SAMPLE | CHECK },
	{ { "no-price-probe", no_argument, NULL, OPT_NO_PRICE_PROBE }, SAMPLE | CHECK },
	{ { "fail-on", required_argument, NULL, OPT_FAIL_ON }, CHECK },
	{ { "allow", required_argument, NULL, OPT_ALLOW }, CHECK },
	{ { "baseline", required_argument, NULL, OPT_BASELINE }, CHECK },
	{ { "symfs", required_argument, NULL, OPT_SYMFS }, REPORT | CHECK | FIX },
	{ { "interval", required_argument, NULL, OPT_INTERVAL }, ATTACH | TOP },
	{ { "keep", required_argument, NULL, OPT_KEEP }, ATTACH },
	{ { "span", required_argument, NULL, OPT_SPAN }, TOP },
	{ { "iterations", required_argument, NULL, 'n' }, TOP },
	{ { "batch", no_argument, NULL, OPT_BATCH }, TOP },
	{ { "report", no_argument, NULL, OPT_REPORT }, TOP },
	{ { "log-fd", required_argument, NULL, OPT_LOG_FD }, RUN | CHECK | STAT },
	{ { "measure-fix", optional_argument, NULL, OPT_MEASURE_FIX }, RUN },
	{ { "root", required_argument, NULL, OPT_ROOT }, FIX },
	{ { "verify", required_argument, NULL, OPT_VERIFY }, FIX },
	{ { "verify-runs", required_argument, NULL, OPT_VERIFY_RUNS }, FIX },
	{ { "help", no_argument, NULL, 'h' }, ALL },
};

/* The command's bit; every bit for a name not in the table. */
static unsigned command_bit(const char *command)
{
	for (unsigned i = 0; i < ARRAY_SIZE(command_names); i++)
		if (command && !strcmp(command, command_names[i]))
			return 1u << i;
	return ALL;
}

static bool row_takes(const struct option_row *r, unsigned bit)
{
	return r->commands & bit;
}

/* The getopt_long() table and short options of command's options. */
struct command_options {
	struct option longopts[ARRAY_SIZE(option_rows) + 1];
	char shortopts[2 * ARRAY_SIZE(option_rows) + 3];
};

static void command_options(const char *command, struct command_options *co)
{
	unsigned bit = command_bit(command), n = 0;
	char *sp = co->shortopts;

	*sp++ = '+';    /* stop at the command's own arguments */
	*sp++ = ':';    /* a missing value: ':', for options_refuse() */
	for (unsigned i = 0; i < ARRAY_SIZE(option_rows); i++) {
		const struct option_row *r = &option_rows[i];

		if (!row_takes(r, bit))
			continue;
		co->longopts[n++] = r->opt;
		if (r->opt.val < 0x80) {
			*sp++ = (char)r->opt.val;
			/* -g takes no value: --call-graph=M does */
			if (r->opt.has_arg == required_argument)
				*sp++ = ':';
		}
	}
	if (bit == TOP) {       /* top's -i: --interval, as top(1)'s -d is */
		*sp++ = 'i';
		*sp++ = ':';
	}
	co->longopts[n] = (struct option){ 0 };
	*sp = '\0';
}

const char *options_of_command(const char *command, unsigned i)
{
	unsigned bit = command_bit(command);

	for (unsigned k = 0; k < ARRAY_SIZE(option_rows); k++)
		if (row_takes(&option_rows[k], bit) && !i--)
			return option_rows[k].opt.name;
	return NULL;
}

/* The commands taking the long option name ("run, attach"); "" if none. */
static void commands_taking(const char *name, char *out, size_t size)
{
	size_t len = 0;

	*out = '\0';
	for (unsigned i = 0; i < ARRAY_SIZE(option_rows); i++) {
		if (strcmp(option_rows[i].opt.name, name))
			continue;
		for (unsigned k = 0; k < ARRAY_SIZE(command_names) && len < size; k++)
			if (option_rows[i].commands & 1u << k)
				len += (size_t)snprintf(out + len, size - len, "%s%s",
							len ? ", " : "", command_names[k]);
	}
}

void options_refuse(const char *command, int c, const struct option *longopts, char **argv)
{
	const char *word = argv[optind - 1];
	const char *best = NULL;
	unsigned best_d = 3;          /* a hint only for a near miss */

	if (c == ':') {
		error("option '%s' needs a value; see 'contend %s --help'", word, command);
		exit(2);
	}
	if (optopt) {
		const char *name = NULL;
		char whose[128] = "";

		for (unsigned i = 0; i < ARRAY_SIZE(option_rows) && !name; i++)
			if (option_rows[i].opt.val == optopt)
				name = option_rows[i].opt.name;
		if (name)
			commands_taking(name, whose, sizeof(whose));
		if (*whose)
			error("'-%c' is not an option of 'contend %s' (it is of: %s); see "
			      "'contend %s --help'", optopt, command, whose, command);
		else
			error("unknown option '-%c'; see 'contend %s --help'", optopt, command);
		exit(2);
	}
	if (!strncmp(word, "--", 2)) {
		size_t len = strcspn(word + 2, "=");
		char name[64], whose[128];

		snprintf(name, sizeof(name), "%.*s", (int)(len < 63 ? len : 63), word + 2);
		commands_taking(name, whose, sizeof(whose));
		if (*whose && strcmp(command, "watch")) {
			error("'--%s' is not an option of 'contend %s' (it is of: %s); see "
			      "'contend %s --help'", name, command, whose, command);
			exit(2);
		}
		for (const struct option *o = longopts; o->name; o++) {
			unsigned d = edit_distance(name, o->name);

			if (d < best_d) {
				best_d = d;
				best = o->name;
			}
		}
	}
	if (best)
		error("unknown option '%s' (did you mean '--%s'?); see 'contend %s --help'", word,
		      best, command);
	else
		error("unknown option '%s'; see 'contend %s --help'", word, command);
	exit(2);
}


/* What options_parse() keeps while it reads: set by an option, used once
 * all are read. */
struct parse_state {
	bool line_size_set;
	int log_fd;          /* --log-fd, -1 if none */
};

/* The report's options: where it goes, its format, what it lists, check's
 * verdict.  False: not one of them. */
static bool parse_output_option(struct options *o, struct parse_state *st, int c)
{
	switch (c) {
	case 'o':
		o->output = optarg;
		return true;
	case OPT_FORMAT:
		o->format = options_format(optarg, FORMAT_FOR_REPORT);
		o->format_set = true;
		return true;
	case OPT_TOP:
		o->top = parse_uint("--top", optarg, 0, 1000000);
		return true;
	case OPT_LINE_SIZE:
		o->line_size = parse_uint("--line-size", optarg, 64, 128);
		if (o->line_size != 64 && o->line_size != 128)
			die("--line-size: must be 64 or 128");
		st->line_size_set = true;
		return true;
	case OPT_MIN_SCORE:
		o->classify.min_score = parse_double("--min-score", optarg, 0, 1);
		o->classify.min_score_fixed = true;
		return true;
	case OPT_WINDOW:
		o->window_ms = parse_double("--window-ms", optarg, 0.001, 10000);
		return true;
	case 'q':
		o->quiet = true;
		return true;
	case OPT_ANNOTATE:
		o->annotate = true;
		return true;
	case OPT_FULL:
		o->annotate_full = true;
		return true;
	case OPT_FAIL_ON:
		parse_fail_on(o, optarg);
		return true;
	case OPT_ALLOW:
		if (!*optarg)
			die("--allow: an empty name would accept nothing; give a variable, type "
			    "or TYPE.member");
		o->allow = xrealloc(o->allow, (o->n_allow + 1) * sizeof(*o->allow));
		o->allow[o->n_allow++] = optarg;
		return true;
	case OPT_BASELINE:
		o->baseline = optarg;
		return true;
	case OPT_SYMFS:
		o->symfs = optarg;
		return true;
	case OPT_LOG_FD:
		st->log_fd = parse_log_fd(optarg);
		return true;
	case OPT_ROOT:
		o->fix_root = optarg;
		return true;
	case OPT_VERIFY:
		o->verify_build = optarg;
		return true;
	case OPT_VERIFY_RUNS:
		o->verify_runs = parse_uint("--verify-runs", optarg, 1, 100);
		return true;
	default:
		return false;
	}
}

/* How to sample and what else to measure.  False: not one of them. */
static bool parse_sampling_option(struct options *o, struct parse_state *st, int c)
{
	(void)st;
	switch (c) {
	case 'F':
		o->freq = parse_uint("-F", optarg, 1, 100000);
		o->freq_set = true;
		return true;
	case 'b':
		o->backend = parse_backend(optarg);
		return true;
	case 'D':
		o->delay = parse_delay(optarg);
		return true;
	case 'g':
		o->callchain = true;
		if (optarg)
			o->unwind_method = parse_unwind_method(optarg);
		return true;
	case OPT_NO_CONFIRM:
		o->confirm = false;
		o->confirm_set = true;
		return true;
	case OPT_CONFIRM:
		o->confirm = true;
		o->confirm_set = true;
		return true;
	case OPT_NO_ALLOC_SITES:
		o->alloc_sites = false;
		return true;
	case OPT_NO_PRICE_PROBE:
		o->price_probe = false;
		return true;
	case OPT_LDLAT:
		/* the load-latency threshold register holds 16 bits */
		o->ldlat = parse_uint("--ldlat", optarg, 1, 65535);
		return true;
	case OPT_MEASURE_FIX:
		o->measure_fix = optarg ? parse_uint("--measure-fix", optarg, 1, 100) : 1;
		return true;
	default:
		return false;
	}
}

/* Which process, for how long; top's and attach --interval's timing.
 * False: not one of them. */
static bool parse_target_option(struct options *o, struct parse_state *st, int c)
{
	(void)st;
	switch (c) {
	case 'p':
		parse_pids(o, optarg);
		return true;
	case 'a':
		if (!strcmp(o->command, "top"))
			die("-a: system-wide sampling is not available in contend top: "
			    "use 'contend attach -a -d SECONDS'");
		o->system_wide = true;
		return true;
	case 'G':
		free(o->cgroup);
		o->cgroup = cgroup_path_parse(optarg);
		return true;
	case 'd':
		o->duration = parse_double("-d", optarg, 0.001, 1e7);
		return true;
	case 't':
		parse_id_list("-t", optarg, &o->tids, &o->n_tids);
		return true;
	case 'i':   /* top: the refresh interval; elsewhere the input */
		if (!strcmp(o->command, "top"))
			o->interval = parse_double("-i", optarg, 0.1, 3600);
		else
			o->input = optarg;
		return true;
	case OPT_INTERVAL:
		if (!strcmp(o->command, "attach")) {
			o->continuous = true;
			o->interval = parse_double("--interval", optarg, 1, 86400);
			return true;
		}
		o->interval = parse_double("--interval", optarg, 0.1, 3600);
		return true;
	case OPT_KEEP:
		o->keep = parse_uint("--keep", optarg, 1, 1000000);
		return true;
	case OPT_SPAN:
		o->span = parse_double("--span", optarg, 0.1, 3600);
		return true;
	case 'n':
		o->iterations = parse_uint("-n", optarg, 1, 10000000);
		return true;
	case OPT_BATCH:
		o->batch = true;
		return true;
	case OPT_REPORT:
		o->report_on_quit = true;
		return true;
	default:
		return false;
	}
}

void options_parse(struct options *o, int argc, char **argv)
{
	struct parse_state st = { .log_fd = -1 };
	struct command_options co;
	int c;

	memset(o, 0, sizeof(*o));
	o->command = argv[0];
	o->freq = DEFAULT_FREQ;
	o->format = report_format_find("text", FORMAT_FOR_REPORT);
	o->top = 10;
	o->line_size = 64;
	o->confirm = true;      /* soft sampling sees few stores: watch the suspects */
	o->alloc_sites = true;  /* run: the shim names heap objects */
	o->price_probe = true;  /* gains at this machine's price */
	o->backend = "auto";
	o->ldlat = DEFAULT_LDLAT;
	o->interval = 1;
	o->span = 3;
	o->verify_runs = 5;
	classify_config_default(&o->classify);

	optind = 1;
	opterr = 0;      /* options_refuse() says it, in one line */
	command_options(o->command, &co);
	while ((c = getopt_long(argc, argv, co.shortopts, co.longopts, NULL)) != -1) {
		if (parse_output_option(o, &st, c) || parse_sampling_option(o, &st, c) ||
		    parse_target_option(o, &st, c))
			continue;
		if (c == 'h')
			options_usage(o->command, 0);
		options_refuse(o->command, c, co.longopts, argv);
	}
	if (!st.line_size_set)
		o->line_size = default_line_size(o->command);
	if (o->n_pids)
		pid_list_to_system_wide(o);
	if (o->cgroup && (!o->system_wide || o->n_pids))
		die("-G: a cgroup filters what -a samples: give -a with it (not -p)");
	if (o->keep && !o->continuous)
		die("--keep: keeps the profiles of --interval; give --interval SECONDS too");
	if (o->continuous) {
		if (!o->output)
			die("--interval: give -o DIR, the directory the profiles go to");
		if (!o->freq_set)
			o->freq = CONTINUOUS_FREQ;
		if (!o->format_set)
			o->format = report_format_find("pprof", FORMAT_FOR_REPORT);
		if (!o->keep)
			o->keep = CONTINUOUS_KEEP;
	}
	if (o->measure_fix && !o->alloc_sites)
		die("--measure-fix: the fix acts on allocation sites: drop --no-alloc-sites");
	choose_report_fd(o, st.log_fd);
	/* --annotate shapes the text report; --format json or html wins */
	if (o->annotate && !strcmp(o->format->name, "text"))
		o->format = report_format_find("annotate", 0);
	if (optind < argc) {
		o->argv = argv + optind;
		o->argc = argc - optind;
	}
}
