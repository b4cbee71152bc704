/* cmd_stat.c - `contend stat`: is contention the problem at all?
 *
 * Runs a command (-- CMD) or attaches (-p PID [-d S]) as run and attach
 * do, and while the sampler samples, counts (detector/counters.h): the
 * process as a whole (inherited by everything it creates) and each
 * thread as the session finds it (at start, then every beat).  When
 * sampling stops the counts are read; when the contention report is
 * built, its contended lines give the sampler's share of accesses on
 * them, per process and per thread.  reports/stat_report.h derives the
 * metrics and the verdict.  Where a counter cannot be read (no PMU in a
 * VM, perf_event_paranoid) the output says which and why, and the
 * verdict comes from the samples.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/commands.h"
#include "cli/options.h"
#include "engine/session.h"
#include "common/hashmap.h"
#include "common/procfs.h"
#include "common/safe_file.h"
#include "common/util.h"
#include "detector/counters.h"
#include "printers/printers.h"
#include "reports/report.h"
#include "reports/stat_report.h"

struct stat_task {
	pid_t tid;
	char *comm;
	struct counter_set *cs;       /* NULL: seen only in samples */
	bool uncounted;               /* beyond STAT_MAX_COUNTED_THREADS */
	struct counter_reading reading;
	uint64_t samples, on_contended;
};

/* Up to 9 descriptors a thread: past this many threads, the process row
 * alone counts the rest (and the output says so). */
#define STAT_MAX_COUNTED_THREADS 512

struct access_key {                /* accesses of a thread to a line */
	uint32_t pid, tid;
	uint64_t line;
};

struct stat_session {
	const struct options *opt;
	struct counter_plan plan;
	pid_t pid;
	struct counter_set *process;
	struct counter_reading process_reading;
	struct stat_task *tasks;
	size_t n_tasks, alloc_tasks;
	struct hashmap task_index;    /* tid -> index + 1 */
	struct hashmap line_accesses; /* access_key -> count + 1 */
	uint64_t samples;
	unsigned counted_threads, uncounted_threads;
	bool stopped;
};

static struct stat_task *task_of(struct stat_session *s, pid_t tid)
{
	uint32_t key = (uint32_t)tid;
	void *v = hashmap_get(&s->task_index, &key);

	if (v)
		return &s->tasks[(uintptr_t)v - 1];
	ALLOC_GROW(s->tasks, s->n_tasks + 1, s->alloc_tasks);
	memset(&s->tasks[s->n_tasks], 0, sizeof(s->tasks[0]));
	s->tasks[s->n_tasks].tid = tid;
	hashmap_put(&s->task_index, &key, (void *)(uintptr_t)(s->n_tasks + 1));
	return &s->tasks[s->n_tasks++];
}

/* Counters on the threads not counted yet (a thread's own, not inherited). */
static void count_new_threads(struct stat_session *s, bool enable_on_exec)
{
	unsigned n = 0;
	pid_t *tids = process_tasks(s->pid, &n);

	for (unsigned i = 0; i < n; i++) {
		struct stat_task *t = task_of(s, tids[i]);

		if (t->cs || t->uncounted)
			continue;
		if (s->counted_threads >= STAT_MAX_COUNTED_THREADS) {
			t->uncounted = true;
			s->uncounted_threads++;
			continue;
		}
		t->cs = counter_set_open(&s->plan, tids[i], false, enable_on_exec);
		s->counted_threads++;
	}
	free(tids);
}

static void on_start(void *ctx, pid_t pid, bool launched)
{
	struct stat_session *s = ctx;

	s->pid = pid;
	/* run: counting starts at the exec of the command, not in contend's
	 * fork before it */
	s->process = counter_set_open(&s->plan, pid, true, launched);
	count_new_threads(s, launched);
}

static void on_tick(void *ctx, struct line_table *lines, pid_t pid, double elapsed)
{
	struct stat_session *s = ctx;

	(void)lines;
	(void)pid;
	(void)elapsed;
	if (!s->stopped)
		count_new_threads(s, false);
}

static void on_stop(void *ctx)
{
	struct stat_session *s = ctx;

	s->stopped = true;
	counter_set_disable(s->process);
	counter_set_read(s->process, &s->process_reading);
	for (size_t i = 0; i < s->n_tasks; i++) {
		if (!s->tasks[i].cs)
			continue;
		counter_set_disable(s->tasks[i].cs);
		counter_set_read(s->tasks[i].cs, &s->tasks[i].reading);
	}
}

static void on_access(void *ctx, const struct access_sample *a)
{
	struct stat_session *s = ctx;
	struct access_key key;
	void *v;

	memset(&key, 0, sizeof(key));
	key.pid = a->pid;
	key.tid = a->tid;
	key.line = a->addr & ~(uint64_t)(s->opt->line_size - 1);
	v = hashmap_get(&s->line_accesses, &key);
	hashmap_put(&s->line_accesses, &key, (void *)((uintptr_t)v + (v ? 1 : 2)));
	task_of(s, (pid_t)a->tid)->samples++;
	s->samples++;
}

static void on_comm(void *ctx, uint32_t pid, uint32_t tid, const char *comm, bool exec)
{
	struct stat_session *s = ctx;
	struct stat_task *t;

	(void)exec;
	if (s->pid && pid != (uint32_t)s->pid)
		return;
	t = task_of(s, (pid_t)tid);
	free(t->comm);
	t->comm = xstrdup(comm);
}

/* --- the stat report ------------------------------------------------------- */

static uint64_t accesses_to(const struct stat_session *s, uint32_t pid, uint32_t tid, uint64_t line)
{
	struct access_key key;
	void *v;

	memset(&key, 0, sizeof(key));
	key.pid = pid;
	key.tid = tid;
	key.line = line;
	v = hashmap_get(&s->line_accesses, &key);
	return v ? (uint64_t)((uintptr_t)v - 1) : 0;
}

static void sum_contended(struct stat_session *s, const struct report *r, struct stat_report *sr)
{
	for (unsigned i = 0; i < r->n_lines; i++) {
		const struct report_line *l = &r->lines[i];

		for (size_t k = 0; k < s->n_tasks; k++) {
			uint64_t n = accesses_to(s, l->pid, (uint32_t)s->tasks[k].tid, l->addr);

			s->tasks[k].on_contended += n;
			sr->process.on_contended += n;
		}
	}
	sr->contended_lines = r->n_lines;
	sr->process.samples = s->samples;
}

static void add_unread(struct stat_report *sr, enum counter_metric m, const char *event,
		       const char *why)
{
	sr->unread = xrealloc(sr->unread, (sr->n_unread + 1) * sizeof(*sr->unread));
	sr->unread[sr->n_unread++] = (struct stat_unread){
		m, event ? xstrdup(event) : NULL, xstrdup(why) };
}

static const struct counter_event *planned(const struct counter_plan *p, enum counter_metric m)
{
	for (unsigned i = 0; i < p->hw.n; i++)
		if (p->hw.ev[i].metric == m)
			return &p->hw.ev[i];
	for (unsigned i = 0; i < p->sw.n; i++)
		if (p->sw.ev[i].metric == m)
			return &p->sw.ev[i];
	return NULL;
}

/* Which event counted each metric, and what could not be read and why. */
static void fill_events(struct stat_session *s, struct stat_report *sr)
{
	for (enum counter_metric m = 0; m < CM__COUNT; m++) {
		const struct counter_event *e = planned(&s->plan, m);
		const char *why = s->process ? counter_set_why(s->process, m) : "not opened";

		if (!e) {
			add_unread(sr, m, NULL, s->plan.missing[m] ? s->plan.missing[m] : "no event");
		} else if (why) {
			add_unread(sr, m, e->name, why);
		} else {
			sr->event[m] = xstrdup(e->name);
			sr->caveat[m] = s->plan.caveat[m];
		}
	}
}

static int cmp_thread(const void *a, const void *b)
{
	const struct stat_thread *x = a, *y = b;

	return (x->tid > y->tid) - (x->tid < y->tid);
}

static void fill_threads(struct stat_session *s, struct stat_report *sr)
{
	sr->threads = xcalloc(s->n_tasks + 1, sizeof(*sr->threads));
	for (size_t i = 0; i < s->n_tasks; i++) {
		const struct stat_task *t = &s->tasks[i];
		struct stat_thread *out;

		if (!t->samples && !t->cs)
			continue;
		out = &sr->threads[sr->n_threads++];
		out->tid = (uint32_t)t->tid;
		out->comm = t->comm ? xstrdup(t->comm) : NULL;
		out->m.c = t->reading;
		out->m.samples = t->samples;
		out->m.on_contended = t->on_contended;
	}
	sort_items(sr->threads, sr->n_threads, sizeof(*sr->threads), cmp_thread);
}

static int write_stat(const struct stat_report *sr, const struct options *opt)
{
	char *why = NULL;
	struct out_file *of = opt->output ? out_file_open(opt->output, &why) :
			      out_file_open_fd(opt->report_fd, &why);

	if (of) {
		if (!strcmp(opt->format->name, "json"))
			stat_report_print_json(sr, out_file_stream(of));
		else
			stat_report_print_text(sr, out_file_stream(of));
		if (out_file_commit(of, &why) == 0)
			return 0;
	}
	error("%s", why);
	free(why);
	return 2;
}

static int on_report(void *ctx, const struct report *r, const struct options *opt)
{
	struct stat_session *s = ctx;
	struct stat_report *sr = xcalloc(1, sizeof(*sr));
	int ret;

	sr->command = xstrdup(r->command ? r->command : "?");
	sr->pid = (uint32_t)s->pid;
	sr->duration = r->duration;
	sr->launched = r->target == TARGET_LAUNCHED;
	sr->target_status = r->target_status;
	sr->model = xstrdup(s->plan.model);
	sr->fit_note = counter_plan_fit_note(&s->plan);
	if (s->uncounted_threads)
		sr->threads_note = xasprintf("%u threads beyond the first %u have no counters of "
					     "their own: the process row counts them",
					     s->uncounted_threads, STAT_MAX_COUNTED_THREADS);
	sr->sampler = xstrdup(r->backend ? r->backend : "?");
	sr->process.c = s->process_reading;
	fill_events(s, sr);
	sum_contended(s, r, sr);
	fill_threads(s, sr);
	stat_report_finish(sr);
	ret = write_stat(sr, opt);
	stat_report_free(sr);
	return ret;
}

static void stat_session_release(struct stat_session *s)
{
	counter_set_close(s->process);
	for (size_t i = 0; i < s->n_tasks; i++) {
		counter_set_close(s->tasks[i].cs);
		free(s->tasks[i].comm);
	}
	free(s->tasks);
	hashmap_release(&s->task_index, NULL);
	hashmap_release(&s->line_accesses, NULL);
	counter_plan_release(&s->plan);
}

int cmd_stat(int argc, char **argv)
{
	struct options opt;
	struct stat_session s = { .opt = &opt };
	struct session_hooks hooks = {
		.ctx = &s, .start = on_start, .stop = on_stop, .tick = on_tick,
		.access = on_access, .comm = on_comm, .report = on_report,
	};
	struct hw_host host = *hw_host_here();   /* the session's own detection */
	int ret;

	options_parse(&opt, argc, argv);
	if (opt.pid && opt.argv)
		die("stat: give -p PID or a command after --, not both");
	if (!opt.pid && !opt.argv)
		options_usage("stat", 2);
	if (strcmp(opt.format->name, "text") && strcmp(opt.format->name, "json"))
		die("stat: --format must be text or json");
	opt.top = 0;            /* every contended line counts */
	hw_host_name_cpu(&host);
	counter_plan_make(&s.plan, &host);
	hashmap_init(&s.task_index, sizeof(uint32_t));
	hashmap_init(&s.line_accesses, sizeof(struct access_key));
	ret = opt.pid ? session_attach(&opt, &hooks) : session_run(&opt, &hooks);
	stat_session_release(&s);
	free(opt.tids);
	return ret;
}
