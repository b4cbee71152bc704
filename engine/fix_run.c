/* fix_run.c - run the command again as is and with a fix, and time both
 * (fix_run.h). */
#include "engine/fix_run.h"
#include "common/procfs.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "engine/session.h"
#include "common/env.h"
#include "common/util.h"
#include "detector/alloc_channel.h"
#include "detector/alloc_fix.h"
#include "detector/alloc_record.h"
#include "reports/fix_sites.h"
#include "reports/report.h"

/* The count pipe's write end goes this high in the target, out of the
 * way of its own descriptors (the shim also checks it is still ours). */
#define FIX_FD_MIN (HIGH_FD_BASE + 10)
#define NOISY_SPREAD 0.2        /* pairs of runs disagreeing by more */
#define SHORT_RUN_S 0.2         /* runs too short to time well */

struct timed {
	double wall, cpu;           /* seconds */
	uint64_t blocks;            /* the fixed run's placed blocks */
	bool said;                  /* ... as its shim said at exit */
};

/* The fixed run's shims' counts (one per process that exited). */
static void read_counts(int fd, struct timed *t)
{
	uint64_t n;

	while (read(fd, &n, sizeof(n)) == (ssize_t)sizeof(n)) {
		t->blocks += n;
		t->said = true;
	}
}

static char *status_text(const char *which, int status)
{
	if (WIFSIGNALED(status))
		return xasprintf("the %s run was killed by signal %d (%s)", which,
				 WTERMSIG(status), strsignal(WTERMSIG(status)));
	return xasprintf("the %s run exited with status %d", which, WEXITSTATUS(status));
}

static void child_exec(char **argv, char **envp)
{
	int null = open("/dev/null", O_RDWR);

	/* the report shows the program's output of the sampled run; these
	 * runs are for the clock */
	if (null >= 0) {
		dup2(null, STDIN_FILENO);
		dup2(null, STDOUT_FILENO);
		dup2(null, STDERR_FILENO);
	}
	signal(SIGINT, SIG_DFL);
	execvpe(argv[0], argv, envp);
	_exit(127);
}

/* One unsampled run with the shim preloaded, with the fix when fix is
 * not NULL.  NULL, or why it does not count (caller frees). */
static char *run_once(char **argv, struct alloc_fix *fix, struct timed *t)
{
	struct alloc_channel *ch = alloc_channel_open();   /* the shim's path, LD_PRELOAD */
	char spec[1024];
	int p[2] = { -1, -1 }, status = 0, wait_errno, fork_errno;
	struct rusage ru;
	bool stopped = false;
	struct env *env;
	double t0;
	pid_t pid, w;

	memset(t, 0, sizeof(*t));
	if (!ch)
		return xstrdup("the allocation shim cannot be preloaded");
	if (fix) {
		if (pipe2(p, O_CLOEXEC | O_NONBLOCK) < 0) {
			alloc_channel_close(ch);
			return xasprintf("pipe: %s", strerror(errno));
		}
		fix->report_fd = fcntl(p[1], F_DUPFD, FIX_FD_MIN);
		close(p[1]);
		if (fix->report_fd < 0 || alloc_fix_format(spec, sizeof(spec), fix) < 0) {
			if (fix->report_fd >= 0)
				close(fix->report_fd);
			close(p[0]);
			alloc_channel_close(ch);
			return xstrdup("no descriptor or no room for the fix's variable");
		}
	}
	env = env_new(environ);
	alloc_channel_export(ch, env);
	env_set(env, ALLOC_FD_ENV, NULL);   /* preloaded, but no records: as fast as it goes */
	env_set(env, ALLOC_FIX_ENV, fix ? spec : NULL);
	t0 = monotonic_s();
	pid = fork();
	fork_errno = errno;
	if (pid == 0)
		child_exec(argv, env_array(env));
	env_free(env);
	alloc_channel_close(ch);
	if (fix)
		close(fix->report_fd);
	if (pid < 0) {
		if (fix)
			close(p[0]);
		return xasprintf("fork: %s", strerror(fork_errno));
	}
	/* a stop signal (session.c catches them, without SA_RESTART) ends it */
	while ((w = wait4(pid, &status, 0, &ru)) < 0 && errno == EINTR)
		if (!stopped) {
			kill(pid, SIGTERM);
			stopped = true;
		}
	wait_errno = errno;
	t->wall = monotonic_s() - t0;
	if (fix) {
		read_counts(p[0], t);
		close(p[0]);
	}
	if (w < 0)
		return xasprintf("wait: %s", strerror(wait_errno));
	t->cpu = (double)ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6 +
		 (double)ru.ru_stime.tv_sec + ru.ru_stime.tv_usec / 1e6;
	if (stopped)
		return xstrdup("stopped by a signal");
	if (!WIFEXITED(status) || WEXITSTATUS(status))
		return status_text(fix ? "fixed" : "plain", status);
	return NULL;
}

/* What may make the numbers mislead, in fr->noise. */
static void judge_noise(struct report_fix_run *fr, double load, bool unsaid)
{
	struct strbuf sb = STRBUF_INIT;
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);

	if (fr->runs == 1)
		strbuf_addf(&sb, "one run each");
	else if (fr->gain_max - fr->gain_min > NOISY_SPREAD * fr->gain)
		strbuf_addf(&sb, "the pairs of runs disagree (%.2fx..%.2fx)", fr->gain_min,
			    fr->gain_max);
	if (cpus > 0 && load >= (double)cpus)
		strbuf_addf(&sb, "%sload average %.1f on %ld CPUs (this program's runs count in it)",
			    sb.len ? ", " : "", load, cpus);
	if (fr->wall_fixed < SHORT_RUN_S)
		strbuf_addf(&sb, "%sruns under %.1f s", sb.len ? ", " : "", SHORT_RUN_S);
	if (unsaid)
		strbuf_addf(&sb, "%sthe fixed runs did not say how many blocks they placed "
			    "(no normal exit)", sb.len ? ", " : "");
	fr->noisy = sb.len > 0;
	fr->noise = sb.len ? strbuf_detach(&sb) : NULL;
	strbuf_release(&sb);
}

/* runs pairs, plain and fixed in turn (the order swapped every pair, so
 * that a machine getting busier or quieter weighs on both alike) */
static void measure(const struct options *opt, struct report_fix_run *fr)
{
	unsigned n = opt->measure_fix;
	double *wall[2], *cpu[2], *blocks = xcalloc(n, sizeof(*blocks)), load;
	struct alloc_fix fix = { .align = fr->align, .n_sites = fr->n_sites };
	bool unsaid = false;
	char *why = NULL;

	for (unsigned i = 0; i < fr->n_sites; i++)
		fix.sites[i] = (struct alloc_fix_site){ .dev = fr->sites[i].dev,
			.ino = fr->sites[i].ino, .off = fr->sites[i].off };
	for (int k = 0; k < 2; k++) {
		wall[k] = xcalloc(n, sizeof(double));
		cpu[k] = xcalloc(n, sizeof(double));
	}
	load = load_average();
	fr->runs = n;
	for (unsigned i = 0; i < n && !why; i++) {
		for (int j = 0; j < 2 && !why; j++) {
			int fixed = (int)((i + (unsigned)j) % 2);
			struct timed t;

			if (!opt->quiet)
				fprintf(stderr, "contend: measuring the fix: run %u of %u %s\n",
					i + 1, n, fixed ? "with it" : "as is");
			why = run_once(opt->argv, fixed ? &fix : NULL, &t);
			wall[fixed][i] = t.wall;
			cpu[fixed][i] = t.cpu;
			if (fixed) {
				blocks[i] = (double)t.blocks;
				unsaid |= !t.said;
				if (!why && t.said && !t.blocks)
					why = xstrdup("the fixed run placed no block of the sites "
						      "(their code was not mapped when the program "
						      "started: a library loaded later?)");
			}
		}
	}
	if (why) {
		fr->not_measured = why;
	} else {
		fr->gain_min = fr->gain_max = wall[0][0] / wall[1][0];
		for (unsigned i = 1; i < n; i++) {
			double g = wall[0][i] / wall[1][i];

			fr->gain_min = g < fr->gain_min ? g : fr->gain_min;
			fr->gain_max = g > fr->gain_max ? g : fr->gain_max;
		}
		fr->wall_plain = median_of(wall[0], n);
		fr->wall_fixed = median_of(wall[1], n);
		fr->cpu_plain = median_of(cpu[0], n);
		fr->cpu_fixed = median_of(cpu[1], n);
		fr->gain = fr->wall_plain / fr->wall_fixed;
		fr->cpu_gain = fr->cpu_fixed > 0 ? fr->cpu_plain / fr->cpu_fixed : 0;
		fr->blocks_fixed = (uint64_t)median_of(blocks, n);
		judge_noise(fr, load, unsaid);
	}
	for (int k = 0; k < 2; k++) {
		free(wall[k]);
		free(cpu[k]);
	}
	free(blocks);
}

/* The report hook: choose, run, print the report with the result. */
static int measure_and_print(void *ctx, const struct report *built, const struct options *opt)
{
	/* output_report() built it and frees it after this hook: the one
	 * thing added to it is the fix run (pointers, reset before return) */
	struct report *r = (struct report *)built;
	struct report_fix_run fr = { 0 };
	int *site_of = xcalloc(r->n_lines + 1, sizeof(*site_of));
	int ret;

	(void)ctx;
	fix_choose_sites(r, opt->line_size, &fr, site_of);
	if (r->target_status)
		fr.not_measured = xasprintf("the sampled run %s %d", r->target_status > 0 ?
					    "exited with status" : "was killed by signal",
					    abs(r->target_status));
	else if (!fr.n_sites)
		fr.not_measured = xstrdup(r->n_lines ? "no contended line can be fixed at run "
					  "time" : "no contended line");
	else
		measure(opt, &fr);
	r->fix_run = &fr;
	for (unsigned i = 0; i < r->n_lines; i++)
		if (site_of[i] >= 0)
			r->lines[i].measured = &fr;
	ret = session_print_report(r, opt);
	for (unsigned i = 0; i < r->n_lines; i++)
		r->lines[i].measured = NULL;
	r->fix_run = NULL;
	fix_report_release(&fr);
	free(site_of);
	return ret;
}

int fix_run_session(const struct options *opt)
{
	struct session_hooks hooks = { .report = measure_and_print };

	return session_run(opt, &hooks);
}
