#include "session.h"

#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "launch.h"
#include "line_table.h"
#include "perf_session.h"
#include "soft.h"
#include "thread_names.h"
#include "util.h"
#include "reports/report.h"
#include "symbolize/data_types.h"
#include "symbolize/symbolizer.h"

struct session {
	const struct options *opt;
	const struct session_hooks *hooks;
	struct symbolizer *sym;
	struct soft *soft;
	struct line_table *lines;
	struct thread_names names;
	pid_t *pids;               /* processes seen (target and its children) */
	size_t n_pids, alloc_pids;
	uint64_t lost;
	double last_maps;          /* now_s() of the last /proc/PID/maps read */
};

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static void note_pid(struct session *s, pid_t pid)
{
	for (size_t i = 0; i < s->n_pids; i++)
		if (s->pids[i] == pid)
			return;
	ALLOC_GROW(s->pids, s->n_pids + 1, s->alloc_pids);
	s->pids[s->n_pids++] = pid;
}

static void on_sample(void *ctx, const struct perf_sample *ps)
{
	struct session *s = ctx;
	struct access_sample a;
	if (!soft_access(s->soft, ps, &a))
		return;
	line_table_add(s->lines, &a);
	if (s->hooks && s->hooks->access)
		s->hooks->access(s->hooks->ctx, &a);
}

static void on_mmap(void *ctx, uint32_t pid, uint64_t start, uint64_t len,
		    uint64_t pgoff, uint32_t prot, const char *filename)
{
	struct session *s = ctx;
	symbolizer_add_mapping(s->sym, (pid_t)pid, start, len, pgoff, prot, filename);
	if (s->hooks && s->hooks->mmap)
		s->hooks->mmap(s->hooks->ctx, pid, start, len, pgoff, prot, filename);
}

static void on_comm(void *ctx, uint32_t pid, uint32_t tid, const char *comm, bool exec)
{
	struct session *s = ctx;
	if (exec && pid == tid)
		symbolizer_exec(s->sym, (pid_t)pid);
	thread_names_set(&s->names, tid, comm);
	if (s->hooks && s->hooks->comm)
		s->hooks->comm(s->hooks->ctx, pid, tid, comm, exec);
}

static void on_fork(void *ctx, uint32_t pid, uint32_t ppid, uint32_t tid)
{
	struct session *s = ctx;
	if (pid != ppid && pid == tid) {
		symbolizer_fork(s->sym, (pid_t)ppid, (pid_t)pid);
		note_pid(s, (pid_t)pid);
	}
}

static void on_lost(void *ctx, uint64_t n)
{
	struct session *s = ctx;
	s->lost += n;
}

/* brk heaps and some anonymous regions are never announced by MMAP2
 * records; re-read the maps of the live processes now and then. */
static void refresh_maps(struct session *s, bool force)
{
	double t = now_s();
	if (!force && t - s->last_maps < 0.2)
		return;
	s->last_maps = t;
	for (size_t i = 0; i < s->n_pids; i++)
		symbolizer_load_proc_maps(s->sym, s->pids[i]);
}

static char *join_command(char **argv)
{
	struct strbuf sb = STRBUF_INIT;
	for (int i = 0; argv[i]; i++) {
		if (i)
			strbuf_addch(&sb, ' ');
		strbuf_addf(&sb, "%s", argv[i]);
	}
	return strbuf_detach(&sb);
}

static void name_threads(struct report_thread *t, unsigned n, const struct thread_names *names)
{
	for (unsigned i = 0; i < n; i++) {
		const char *c = names ? thread_names_get(names, t[i].tid) : NULL;
		if (c && !t[i].comm)
			t[i].comm = xstrdup(c);
	}
}

int session_output(const struct options *opt, const struct report_header *hdr,
		   struct line_table *lines, struct symbolizer *sym,
		   const struct thread_names *names, const struct session_hooks *hooks)
{
	struct data_types *dt = data_types_new();
	struct report *r = report_build(hdr, lines, &opt->classify, opt->top, sym, dt);
	FILE *out = stdout;
	int ret = 0;

	for (unsigned i = 0; i < r->n_lines; i++) {
		struct report_line *l = &r->lines[i];
		name_threads(l->threads, l->n_threads, names);
		for (unsigned g = 0; g < l->n_ranges; g++)
			name_threads(l->ranges[g].threads, l->ranges[g].n_threads, names);
	}
	if (hooks && hooks->report) {
		ret = hooks->report(hooks->ctx, r, opt);
		goto done;
	}
	if (opt->output) {
		out = fopen(opt->output, "w");
		if (!out) {
			error("cannot write %s: %s", opt->output, strerror(errno));
			ret = 2;
			goto done;
		}
	}
	if (opt->format == FORMAT_JSON)
		report_print_json(r, out);
	else
		report_print_text(r, out);
	if (out != stdout && fclose(out) != 0) {
		error("cannot write %s: %s", opt->output, strerror(errno));
		ret = 2;
	} else if (out == stdout)
		fflush(stdout);
done:
	report_free(r);
	data_types_free(dt);
	return ret;
}

static void session_release(struct session *s)
{
	line_table_free(s->lines);
	soft_free(s->soft);
	symbolizer_free(s->sym);
	thread_names_release(&s->names);
	free(s->pids);
}

static double window_ms(const struct options *opt)
{
	double w = opt->window_ms;
	if (w <= 0) {
		w = DEFAULT_WINDOW_PERIODS * 1000.0 / opt->freq;
		if (w < 10.0)
			w = 10.0;
	}
	return w;
}

static void session_init(struct session *s, const struct options *opt,
			 const struct session_hooks *hooks)
{
	memset(s, 0, sizeof(*s));
	s->opt = opt;
	s->hooks = hooks;
	s->sym = symbolizer_new();
	s->soft = soft_new(s->sym);
	s->lines = line_table_new(opt->line_size, (uint64_t)(window_ms(opt) * 1e6));
}

/* Header, report, output; returns 0 or 2 (cannot write the report). */
static int finish_session(struct session *s, const char *command, double duration,
			  int target_status)
{
	struct report_header hdr = { 0 };
	struct report_count *dropped = NULL;
	unsigned n_dropped = soft_drop_counts(s->soft, &dropped);
	int ret;

	hdr.command = command;
	hdr.backend = "soft";
	hdr.backend_note = "no hardware memory sampling in use: cpu-clock samples + instruction decoding";
	hdr.freq = s->opt->freq;
	hdr.duration = duration;
	hdr.samples = soft_samples_seen(s->soft);
	hdr.decoded = soft_samples_decoded(s->soft);
	hdr.dropped = dropped;
	hdr.n_dropped = n_dropped;
	hdr.target_status = target_status;
	if (s->lost)
		warning("%llu records lost: the ring buffers overflowed (lower -F)",
			(unsigned long long)s->lost);
	ret = session_output(s->opt, &hdr, s->lines, s->sym, &s->names, s->hooks);
	report_counts_free(dropped, n_dropped);
	return ret;
}

int session_run(const struct options *opt, const struct session_hooks *hooks)
{
	struct session s;
	struct perf_session_config pc = { 0 };
	struct perf_callbacks cb = {
		.ctx = &s, .sample = on_sample, .mmap = on_mmap, .comm = on_comm,
		.fork = on_fork, .lost = on_lost,
	};
	struct perf_session *ps;
	struct launched child;
	double t0, t1;
	int status = 0, ret;
	char *command;

	if (!opt->argv || !opt->argv[0])
		die("run: no command given (usage: contend run [options] -- CMD [ARGS...])");

	session_init(&s, opt, hooks);

	if (launch_prepare(opt->argv, &child) < 0)
		die("cannot start '%s': %s", opt->argv[0], strerror(errno));
	note_pid(&s, child.pid);

	soft_event_attr(&pc.attr, opt->freq, opt->callchain);
	pc.attr.enable_on_exec = 1;
	pc.pid = child.pid;
	ps = perf_session_open(&pc);
	if (!ps) {
		launch_abort(&child);
		session_release(&s);
		return 2;
	}

	/* Like time(1): Ctrl-C is meant for the target; we report after it. */
	signal(SIGINT, SIG_IGN);
	signal(SIGQUIT, SIG_IGN);

	t0 = now_s();
	if (launch_go(&child) < 0) {
		int e = errno;
		perf_session_close(ps);
		session_release(&s);
		if (e == ENOENT)
			die("cannot run '%s': command not found", opt->argv[0]);
		die("cannot run '%s': %s", opt->argv[0], strerror(e));
	}

	for (;;) {
		pid_t w;
		perf_session_poll(ps, 100);
		perf_session_drain(ps, &cb);
		refresh_maps(&s, false);
		if (hooks && hooks->tick)
			hooks->tick(hooks->ctx, s.lines, child.pid, now_s() - t0);
		w = waitpid(child.pid, &status, WNOHANG);
		if (w == child.pid)
			break;
		if (w < 0 && errno != EINTR) {
			status = 0;
			break;
		}
	}
	t1 = now_s();
	perf_session_drain(ps, &cb);
	perf_session_close(ps);

	command = join_command(opt->argv);
	ret = finish_session(&s, command, t1 - t0, WIFSIGNALED(status) ? -WTERMSIG(status)
								       : WEXITSTATUS(status));
	if (WIFSIGNALED(status)) {
		error("target was killed by signal %d (%s); the report covers its %.2f s",
		      WTERMSIG(status), strsignal(WTERMSIG(status)), t1 - t0);
		if (!ret)
			ret = 1;
	} else if (WEXITSTATUS(status) != 0) {
		error("target exited with status %d", WEXITSTATUS(status));
		if (!ret)
			ret = 1;
	}
	free(command);
	session_release(&s);
	return ret;
}

/* --- attach ------------------------------------------------------------- */

static volatile sig_atomic_t stop_requested;

static void on_stop_signal(int sig)
{
	(void)sig;
	stop_requested = 1;
}

static pid_t *list_tasks(pid_t pid, unsigned *n)
{
	char path[64];
	DIR *d;
	struct dirent *de;
	pid_t *tids = NULL;
	size_t alloc = 0;

	*n = 0;
	snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
	d = opendir(path);
	if (!d)
		return NULL;
	while ((de = readdir(d))) {
		if (de->d_name[0] < '0' || de->d_name[0] > '9')
			continue;
		ALLOC_GROW(tids, *n + 1, alloc);
		tids[(*n)++] = (pid_t)atoi(de->d_name);
	}
	closedir(d);
	return tids;
}

static bool tid_in(const pid_t *a, unsigned n, pid_t t)
{
	for (unsigned i = 0; i < n; i++)
		if (a[i] == t)
			return true;
	return false;
}

static char *read_cmdline(pid_t pid)
{
	char path[64], buf[4096];
	struct strbuf sb = STRBUF_INIT;
	FILE *f;
	size_t n;

	snprintf(path, sizeof(path), "/proc/%d/cmdline", (int)pid);
	f = fopen(path, "r");
	if (f) {
		n = fread(buf, 1, sizeof(buf) - 1, f);
		fclose(f);
		for (size_t i = 0; i < n; i++)
			strbuf_addch(&sb, buf[i] ? buf[i] : ' ');
		while (sb.len && sb.buf[sb.len - 1] == ' ')
			sb.buf[--sb.len] = '\0';
	}
	if (!sb.len)
		strbuf_addf(&sb, "pid %d", (int)pid);
	return strbuf_detach(&sb);
}

static uid_t task_uid(pid_t pid)
{
	char path[64], line[256];
	FILE *f;
	unsigned long uid = (unsigned long)-1;

	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	f = fopen(path, "r");
	if (!f)
		return (uid_t)-1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "Uid: %*u %lu", &uid) == 1)
			break;
	fclose(f);
	return (uid_t)uid;
}

static bool process_alive(pid_t pid)
{
	char path[64], state = 0, buf[512];
	FILE *f;
	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	f = fopen(path, "r");
	if (!f)
		return false;
	if (fgets(buf, sizeof(buf), f)) {
		char *p = strrchr(buf, ')');
		if (p && p[1] == ' ')
			state = p[2];
	}
	fclose(f);
	return state && state != 'Z' && state != 'X';
}

static void raise_fd_limit(void)
{
	struct rlimit rl;
	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max) {
		rl.rlim_cur = rl.rlim_max;
		setrlimit(RLIMIT_NOFILE, &rl);
	}
}

/* A refusal to open events on someone else's process is a ptrace-access
 * question, not a perf_event_paranoid one: say which. */
static void explain_attach_denied(pid_t pid)
{
	uid_t owner = task_uid(pid);
	if (geteuid() != 0 && owner != (uid_t)-1 && owner != geteuid())
		die("not permitted to sample process %d (owned by uid %u): run as that user "
		    "or as root, or grant CAP_SYS_PTRACE", (int)pid, (unsigned)owner);
}

int session_attach(const struct options *opt, const struct session_hooks *hooks)
{
	struct session s;
	struct perf_session_config pc = { 0 };
	struct perf_callbacks cb = {
		.ctx = &s, .sample = on_sample, .mmap = on_mmap, .comm = on_comm,
		.fork = on_fork, .lost = on_lost,
	};
	struct perf_session *ps;
	pid_t *tids;
	unsigned n_tids;
	double t0, t1;
	int ret;
	bool exited = false;
	char *command;
	struct sigaction sa = { .sa_handler = on_stop_signal };

	if (opt->pid <= 0)
		options_usage("attach", 2);
	if (kill(opt->pid, 0) < 0 && errno == ESRCH)
		die("no such process: %d", (int)opt->pid);
	if (!process_alive(opt->pid))
		die("no such process: %d", (int)opt->pid);

	raise_fd_limit();
	session_init(&s, opt, hooks);
	note_pid(&s, opt->pid);
	command = read_cmdline(opt->pid);

	if (opt->n_tids) {
		tids = xmalloc(opt->n_tids * sizeof(*tids));
		memcpy(tids, opt->tids, opt->n_tids * sizeof(*tids));
		n_tids = opt->n_tids;
	} else {
		tids = list_tasks(opt->pid, &n_tids);
	}
	if (!n_tids)
		die("no such process: %d", (int)opt->pid);

	soft_event_attr(&pc.attr, opt->freq, opt->callchain);
	pc.attr.disabled = 0;
	pc.pid = opt->pid;
	pc.tids = tids;
	pc.n_tids = n_tids;
	errno = 0;
	ps = perf_session_open(&pc);
	if (!ps) {
		explain_attach_denied(opt->pid);
		free(tids);
		free(command);
		session_release(&s);
		return 2;
	}
	/* Threads created between listing and opening were not inherited
	 * from a followed thread: pick them up until the list is stable. */
	for (int round = 0; !opt->n_tids && round < 10; round++) {
		unsigned n_now, added = 0;
		pid_t *now = list_tasks(opt->pid, &n_now);
		for (unsigned i = 0; i < n_now; i++) {
			if (tid_in(tids, n_tids, now[i]))
				continue;
			if (perf_session_add_task(ps, now[i]) == 0)
				added++;
		}
		free(tids);
		tids = now;
		n_tids = n_now;
		if (!added)
			break;
	}
	free(tids);

	if (symbolizer_load_proc_maps(s.sym, opt->pid) < 0)
		warning("cannot read /proc/%d/maps: code and data will not be named", (int)opt->pid);

	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	if (!opt->quiet)
		fprintf(stderr, "contend: sampling process %d (%s)%s\n", (int)opt->pid, command,
			opt->duration > 0 ? "" : "; Ctrl-C to stop");

	t0 = now_s();
	while (!stop_requested) {
		perf_session_poll(ps, 100);
		perf_session_drain(ps, &cb);
		refresh_maps(&s, false);
		if (hooks && hooks->tick)
			hooks->tick(hooks->ctx, s.lines, opt->pid, now_s() - t0);
		if (opt->duration > 0 && now_s() - t0 >= opt->duration)
			break;
		if (!process_alive(opt->pid)) {
			exited = true;
			break;
		}
	}
	t1 = now_s();
	/* Detach: closing the events removes them from the target; it never
	 * stopped and receives no signal. */
	perf_session_drain(ps, &cb);
	perf_session_close(ps);
	signal(SIGINT, SIG_DFL);
	signal(SIGTERM, SIG_DFL);
	if (exited && !opt->quiet)
		fprintf(stderr, "contend: process %d exited after %.2f s; reporting what was seen\n",
			(int)opt->pid, t1 - t0);

	ret = finish_session(&s, command, t1 - t0, 0);
	free(command);
	session_release(&s);
	return ret;
}
