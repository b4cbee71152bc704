/* watch.c - arming, polling and counting hardware watchpoints (watch.h).
 *
 * Per thread and window: one perf event group of a W and a RW breakpoint
 * per word (the W of the first word leads), counting every hit and
 * sampling the code address into a small ring owned by the leader.  The
 * group is enabled and disabled as one, and read as one: its counts are
 * the thread's exact writes and accesses.  Events are per thread (no
 * inherit): an inherited event folds a new thread's count into its
 * creator's, and cannot be mmapped without a CPU.
 */
#include "common/procfs.h"
#include "detector/watch.h"
#include "detector/watch_internal.h"

#include <dirent.h>
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <linux/hw_breakpoint.h>
#include <linux/perf_event.h>

#include "detector/perf_event.h"
#include "detector/perf_ring.h"
#include "detector/perf_session.h"
#include "common/util.h"

#define RING_PAGES 4              /* data pages per thread: ~500 records */
#define POLL_MS 5                 /* and look for new threads as often */

struct bp {                       /* one watchpoint event of a thread */
	int fd;
	uint64_t id;
	unsigned word;                /* index into the window's words */
	bool writes_only;             /* HW_BREAKPOINT_W; else RW */
	uint64_t last;                /* count at the last poll */
};

/* One thread's counts on the window's words. */
struct window_counts {
	uint64_t reads[WATCH_WORDS_PER_WINDOW], writes[WATCH_WORDS_PER_WINDOW];
	uint64_t hits;
	bool wrote;
};

struct armed {                    /* one thread in the window */
	pid_t tid;
	struct bp bp[WATCH_SLOTS];
	unsigned n_bp;                /* 0: could not be armed */
	struct perf_ring ring;        /* the leader's; base NULL: counts only */
	uint64_t period;
	bool late;                    /* armed after the window began */
	bool retired;                 /* exited during the window: its events
	                                 closed, its counts in final */
	struct window_counts final;
};

struct site_acc {                 /* a code address, before RW - W */
	uint64_t ip;
	uint64_t rw, w;               /* sampled hits, scaled by the period */
};

struct word_sites {
	struct site_acc *v;
	unsigned n, alloc;
};

struct watch {
	struct watch_config cfg;

	/* the window now armed */
	bool armed;
	struct watch_window win;
	unsigned res_of[WATCH_WORDS_PER_WINDOW];   /* result index per word */
	struct armed *threads;
	unsigned n_threads, alloc_threads;
	double t_start, t_poll;
	bool cut_short, gone, warned_ring;

	/* results, one per (pid, word) ever watched; sites parallel to res */
	struct watch_word_result *res;
	struct word_sites *sites;
	unsigned n_res, alloc_res, alloc_sites;
	unsigned windows;
	double armed_s;
};

struct watch *watch_new(const struct watch_config *cfg)
{
	struct watch *w = xcalloc(1, sizeof(*w));
	struct rlimit rl;

	/* four descriptors per thread of the target */
	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max) {
		rl.rlim_cur = rl.rlim_max;
		setrlimit(RLIMIT_NOFILE, &rl);
	}
	w->cfg = *cfg;
	return w;
}

static void free_result(struct watch_word_result *r, struct word_sites *s)
{
	free(r->threads);
	free(r->sites);
	free(s->v);
}

void watch_free(struct watch *w)
{
	if (!w)
		return;
	if (w->armed)
		watch_disarm(w);
	for (unsigned i = 0; i < w->n_res; i++)
		free_result(&w->res[i], &w->sites[i]);
	free(w->res);
	free(w->sites);
	free(w->threads);
	free(w);
}

/* ---- results --------------------------------------------------------- */

unsigned watch_result_index(struct watch *w, uint32_t pid, uint64_t addr)
{
	unsigned i;

	for (i = 0; i < w->n_res; i++)
		if (w->res[i].pid == pid && w->res[i].addr == addr)
			return i;
	ALLOC_GROW(w->res, w->n_res + 1, w->alloc_res);
	ALLOC_GROW(w->sites, w->n_res + 1, w->alloc_sites);
	memset(&w->res[i], 0, sizeof(w->res[i]));
	memset(&w->sites[i], 0, sizeof(w->sites[i]));
	w->res[i].pid = pid;
	w->res[i].addr = addr;
	w->n_res++;
	return i;
}

struct watch_word_result *watch_result_at(struct watch *w, unsigned index)
{
	return &w->res[index];
}

const struct watch_config *watch_config_of(const struct watch *w)
{
	return &w->cfg;
}

struct watch_thread_count *watch_result_thread(struct watch_word_result *r, uint32_t tid)
{
	struct watch_thread_count *t;

	for (unsigned i = 0; i < r->n_threads; i++)
		if (r->threads[i].tid == tid)
			return &r->threads[i];
	ALLOC_GROW(r->threads, r->n_threads + 1, r->alloc_threads);
	t = &r->threads[r->n_threads++];
	memset(t, 0, sizeof(*t));
	t->tid = tid;
	return t;
}

static void site_add(struct word_sites *s, uint64_t ip, bool writes_only, uint64_t period)
{
	unsigned i;

	for (i = 0; i < s->n; i++)
		if (s->v[i].ip == ip)
			break;
	if (i == s->n) {
		ALLOC_GROW(s->v, s->n + 1, s->alloc);
		s->v[s->n++] = (struct site_acc){ .ip = ip };
	}
	if (writes_only)
		s->v[i].w += period;
	else
		s->v[i].rw += period;
}

void watch_result_site(struct watch *w, unsigned index, uint64_t ip, bool write)
{
	/* the accumulators are a RW event's and a W event's: a write is in both */
	site_add(&w->sites[index], ip, false, 1);
	if (write)
		site_add(&w->sites[index], ip, true, 1);
}

void watch_window_done(struct watch *w, double armed_s)
{
	w->windows++;
	w->armed_s += armed_s;
}

static int cmp_tid(const void *a, const void *b)
{
	const struct watch_thread_count *x = a, *y = b;

	return (x->tid > y->tid) - (x->tid < y->tid);
}

static int cmp_site(const void *a, const void *b)
{
	const struct watch_site *x = a, *y = b;
	uint64_t nx = x->reads + x->writes, ny = y->reads + y->writes;

	if (nx != ny)
		return nx > ny ? -1 : 1;
	return (x->ip > y->ip) - (x->ip < y->ip);
}

/* The public sites of a result from its accumulators: reads = RW - W,
 * then fitted to the exact counts. */
static void result_finish(struct watch_word_result *r, const struct word_sites *s)
{
	if (r->n_threads > 1)
		sort_items(r->threads, r->n_threads, sizeof(*r->threads), cmp_tid);
	r->n_sites = 0;
	ALLOC_GROW(r->sites, s->n, r->alloc_sites);
	for (unsigned i = 0; i < s->n; i++) {
		struct watch_site *site = &r->sites[r->n_sites++];

		site->ip = s->v[i].ip;
		site->writes = s->v[i].w;
		site->reads = s->v[i].rw > s->v[i].w ? s->v[i].rw - s->v[i].w : 0;
	}
	watch_sites_fit(r->sites, r->n_sites, r->reads, r->writes);
	if (r->n_sites > 1)
		sort_items(r->sites, r->n_sites, sizeof(*r->sites), cmp_site);
}

unsigned watch_results(struct watch *w, const struct watch_word_result **out)
{
	for (unsigned i = 0; i < w->n_res; i++)
		result_finish(&w->res[i], &w->sites[i]);
	*out = w->res;
	return w->n_res;
}

const struct watch_word_result *watch_result(struct watch *w, uint32_t pid, uint64_t addr)
{
	for (unsigned i = 0; i < w->n_res; i++) {
		if (w->res[i].pid == pid && w->res[i].addr == addr) {
			result_finish(&w->res[i], &w->sites[i]);
			return &w->res[i];
		}
	}
	return NULL;
}

unsigned watch_line_results(struct watch *w, uint32_t pid, uint64_t addr, unsigned line_size,
			    const struct watch_word_result **out)
{
	unsigned n = 0;

	for (uint64_t a = addr; a < addr + line_size && n < WATCH_MAX_LINE_WORDS;
	     a += WATCH_WORD) {
		const struct watch_word_result *r = watch_result(w, pid, a);

		if (r && r->windows)
			out[n++] = r;
	}
	return n;
}

bool watch_restore(struct watch *w, const struct watch_word_result *r)
{
	struct watch_word_result *to;
	struct word_sites *acc;
	unsigned i;

	for (i = 0; i < w->n_res; i++)
		if (w->res[i].pid == r->pid && w->res[i].addr == r->addr)
			return false;
	i = watch_result_index(w, r->pid, r->addr);
	to = &w->res[i];
	*to = *r;
	to->threads = xcalloc(r->n_threads ? r->n_threads : 1, sizeof(*to->threads));
	copy_bytes(to->threads, r->threads, r->n_threads * sizeof(*to->threads));
	to->alloc_threads = r->n_threads;
	to->sites = NULL;
	to->n_sites = to->alloc_sites = 0;
	/* the sites as accumulators: result_finish() gives them back as
	 * they were (RW - W = reads; fitted sites already add up) */
	acc = &w->sites[i];
	for (unsigned k = 0; k < r->n_sites; k++) {
		ALLOC_GROW(acc->v, acc->n + 1, acc->alloc);
		acc->v[acc->n++] = (struct site_acc){
			.ip = r->sites[k].ip,
			.rw = r->sites[k].reads + r->sites[k].writes,
			.w = r->sites[k].writes,
		};
	}
	return true;
}

void watch_restore_totals(struct watch *w, unsigned windows, double armed_s)
{
	w->windows = windows;
	w->armed_s = armed_s;
}

bool watch_counts_by_code(const struct watch *w)
{
	if (w->cfg.by_code)
		return true;
	for (unsigned i = 0; i < w->n_res; i++)   /* restored from a data file */
		if (w->res[i].by_code)
			return true;
	return false;
}

unsigned watch_windows_run(const struct watch *w)
{
	return w->windows;
}

double watch_armed_s(const struct watch *w)
{
	return w->armed_s;
}

unsigned watch_armed_threads(const struct watch *w)
{
	unsigned n = 0;

	for (unsigned i = 0; i < w->n_threads; i++)
		n += w->threads[i].n_bp > 0;
	return n;
}

/* ---- events ---------------------------------------------------------------- */

static int open_bp(pid_t tid, uint64_t addr, bool writes_only, uint64_t period,
		   int group_fd)
{
	struct perf_event_attr a;

	memset(&a, 0, sizeof(a));
	a.type = PERF_TYPE_BREAKPOINT;
	a.size = sizeof(a);
	a.bp_type = writes_only ? HW_BREAKPOINT_W : HW_BREAKPOINT_RW;
	a.bp_addr = addr;
	a.bp_len = HW_BREAKPOINT_LEN_8;
	a.sample_period = period;
	a.sample_type = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_PERIOD;
	a.read_format = PERF_FORMAT_GROUP | PERF_FORMAT_ID;
	/* the leader holds the group off until the whole window is armed */
	a.disabled = group_fd < 0;
	a.exclude_kernel = 1;
	a.exclude_hv = 1;
	return perf_event_open_fd(&a, tid, -1, group_fd);
}

static void close_thread(struct watch *w, struct armed *t)
{
	perf_ring_unmap(&t->ring);
	for (unsigned i = t->n_bp; i-- > 0;)
		close(t->bp[i].fd);
	t->n_bp = 0;
}

/* The leader's ring, for code addresses; counts work without it. */
static void map_ring(struct watch *w, struct armed *t)
{
	int err = perf_ring_map(&t->ring, t->bp[0].fd, RING_PAGES);

	if (err) {
		if (!w->warned_ring)
			warning("watch: no ring buffer for thread %d (%s): counting without "
				"code addresses (raise kernel.perf_event_mlock_kb)",
				(int)t->tid, strerror(-err));
		w->warned_ring = true;
		return;
	}
	for (unsigned i = 1; i < t->n_bp; i++)
		ioctl(t->bp[i].fd, PERF_EVENT_IOC_SET_OUTPUT, t->bp[0].fd);
}

/*
 * Open the thread's group: W then RW for each word.  Returns 0, or
 * -errno: -ESRCH or -ENODEV (it exited or is exiting; not an error),
 * -ENOSPC (its debug registers are taken: it stays unarmed), anything
 * else is fatal for the window.
 */
static int arm_thread(struct watch *w, struct armed *t)
{
	for (unsigned k = 0; k < w->win.n_words; k++) {
		for (int kind = 0; kind < 2; kind++) {
			struct bp *b = &t->bp[t->n_bp];
			int group = t->n_bp ? t->bp[0].fd : -1;

			b->fd = open_bp(t->tid, w->win.words[k], kind == 0, t->period, group);
			if (b->fd < 0) {
				int e = b->fd;

				close_thread(w, t);
				return e;
			}
			b->word = k;
			b->writes_only = kind == 0;
			b->last = 0;
			if (ioctl(b->fd, PERF_EVENT_IOC_ID, &b->id) < 0)
				b->id = 0;
			t->n_bp++;
		}
	}
	map_ring(w, t);
	return 0;
}

static bool tid_known(const struct watch *w, pid_t tid)
{
	for (unsigned i = 0; i < w->n_threads; i++)
		if (w->threads[i].tid == tid)
			return true;
	return false;
}

/*
 * Arm every thread of the window's process not armed yet (enable: arm
 * late threads at once).  Returns the number newly armed, or -errno on a
 * fatal error (printed), or -ESRCH when the process is gone.
 */
static int arm_new_threads(struct watch *w, bool enable)
{
	char path[64];
	struct dirent *de;
	DIR *d;
	int armed = 0, fatal = 0;

	snprintf(path, sizeof(path), "/proc/%u/task", (unsigned)w->win.pid);
	d = opendir(path);
	if (!d)
		return -ESRCH;
	while (!fatal && (de = readdir(d))) {
		pid_t tid = (pid_t)atoi(de->d_name);
		struct armed *t;
		int err;

		if (tid <= 0 || tid_known(w, tid))
			continue;
		ALLOC_GROW(w->threads, w->n_threads + 1, w->alloc_threads);
		t = &w->threads[w->n_threads];
		memset(t, 0, sizeof(*t));
		t->tid = tid;
		t->period = 1;
		t->late = enable;
		err = arm_thread(w, t);
		if (err == -ESRCH || err == -ENODEV)
			continue;       /* exited or exiting meanwhile: forget it */
		w->n_threads++;
		if (err == -ENOSPC)
			continue;       /* stays unarmed: counted in the results */
		if (err < 0) {
			error("cannot watch thread %d of process %u: %s", (int)tid,
			      (unsigned)w->win.pid, perf_open_hint(-err));
			fatal = err;
			break;
		}
		if (enable)
			ioctl(t->bp[0].fd, PERF_EVENT_IOC_ENABLE, PERF_IOC_FLAG_GROUP);
		armed++;
	}
	closedir(d);
	return fatal ? fatal : armed;
}

/* Counts of the thread's group by event id. */
static bool read_group(struct armed *t, uint64_t *counts)
{
	uint64_t buf[1 + 2 * WATCH_SLOTS];
	ssize_t n = read(t->bp[0].fd, buf, sizeof(buf));

	if (n < (ssize_t)sizeof(uint64_t) || buf[0] > WATCH_SLOTS ||
	    (size_t)n < (1 + 2 * buf[0]) * sizeof(uint64_t))
		return false;
	for (unsigned i = 0; i < t->n_bp; i++) {
		counts[i] = 0;
		for (uint64_t k = 0; k < buf[0]; k++)
			if (buf[2 + 2 * k] == t->bp[i].id)
				counts[i] = buf[1 + 2 * k];
	}
	return true;
}

/* ---- code samples ----------------------------------------------------------- */

static const struct bp *bp_by_id(const struct armed *t, uint64_t id)
{
	for (unsigned i = 0; i < t->n_bp; i++)
		if (t->bp[i].id == id)
			return &t->bp[i];
	return NULL;
}

struct drain_ctx {
	struct watch *w;
	const struct armed *t;
};

/* Sample records are { header, id, ip, period } (sample_type above).
 * Lost records only make the code-address estimates rougher. */
static void take_record(void *ctx, const struct perf_event_header *h)
{
	struct drain_ctx *d = ctx;
	uint64_t v[3];
	const struct bp *b;

	if (h->type != PERF_RECORD_SAMPLE || h->size < sizeof(*h) + sizeof(v))
		return;
	memcpy(v, (const uint8_t *)h + sizeof(*h), sizeof(v));
	b = bp_by_id(d->t, v[0]);
	if (b)
		site_add(&d->w->sites[d->w->res_of[b->word]], v[1], b->writes_only,
			 v[2] ? v[2] : 1);
}

static void drain_all(struct watch *w)
{
	for (unsigned i = 0; i < w->n_threads; i++) {
		struct drain_ctx d = { w, &w->threads[i] };

		perf_ring_read(&w->threads[i].ring, take_record, &d);
	}
}

/* ---- the window ----------------------------------------------------------------- */

int watch_arm(struct watch *w, const struct watch_window *win)
{
	int n;

	if (w->armed)
		watch_disarm(w);
	if (w->cfg.by_code)
		return -EOPNOTSUPP;   /* a window by code runs whole: watch_run_window() */
	if (!win->n_words || win->n_words > WATCH_WORDS_PER_WINDOW)
		return -EINVAL;
	w->win = *win;
	for (unsigned k = 0; k < win->n_words; k++) {
		w->win.words[k] &= ~(uint64_t)(WATCH_WORD - 1);
		w->res_of[k] = watch_result_index(w, win->pid, w->win.words[k]);
	}
	w->n_threads = 0;
	w->cut_short = w->gone = false;

	n = arm_new_threads(w, false);
	if (n == 0 && w->n_threads) {
		error("cannot watch process %u: no free debug register in any of its "
		      "%u threads (a debugger or another watcher holds them)",
		      (unsigned)win->pid, w->n_threads);
		n = -ENOSPC;
	} else if (n == 0) {
		n = -ESRCH;     /* no threads left: the caller says so, or not */
	}
	if (n < 0) {
		for (unsigned i = 0; i < w->n_threads; i++)
			close_thread(w, &w->threads[i]);
		w->n_threads = 0;
		return n;
	}
	w->armed = true;
	w->t_start = monotonic_s();
	for (unsigned i = 0; i < w->n_threads; i++)
		if (w->threads[i].n_bp)
			ioctl(w->threads[i].bp[0].fd, PERF_EVENT_IOC_ENABLE, PERF_IOC_FLAG_GROUP);
	w->t_poll = w->t_start;
	return 0;
}

/* Read each thread's hits: the cap, and sample periods that keep the
 * code-address records near max_samples_per_s per event. */
static void check_rates(struct watch *w, double t)
{
	double dt = t - w->t_poll;

	w->t_poll = t;
	for (unsigned i = 0; i < w->n_threads; i++) {
		struct armed *th = &w->threads[i];
		uint64_t counts[WATCH_SLOTS], hits = 0, busiest = 0, period;

		if (!th->n_bp || !read_group(th, counts))
			continue;
		for (unsigned k = 0; k < th->n_bp; k++) {
			uint64_t delta = counts[k] - th->bp[k].last;

			if (!th->bp[k].writes_only) {
				hits += counts[k];
				if (delta > busiest)
					busiest = delta;
			}
			th->bp[k].last = counts[k];
		}
		if (watch_over_cap(hits, t - w->t_start, &w->cfg))
			w->cut_short = true;
		period = watch_sample_period(th->period, busiest, dt, w->cfg.max_samples_per_s);
		if (period != th->period) {
			th->period = period;
			for (unsigned k = 0; k < th->n_bp; k++)
				ioctl(th->bp[k].fd, PERF_EVENT_IOC_PERIOD, &period);
		}
	}
}

/* The thread's counts: writes = W, reads = RW - W, per word. */
static void thread_counts(struct armed *th, unsigned n_words, struct window_counts *c)
{
	uint64_t counts[WATCH_SLOTS];

	memset(c, 0, sizeof(*c));
	if (!th->n_bp || !read_group(th, counts))
		return;
	for (unsigned k = 0; k < n_words; k++) {
		uint64_t writes = counts[2 * k], all = counts[2 * k + 1];

		c->writes[k] = writes;
		c->reads[k] = all > writes ? all - writes : 0;
		c->hits += all;
		c->wrote |= writes > 0;
	}
}

/*
 * Threads that exited during the window: their counts kept, their events
 * closed now.  A target that churns threads (thread_churn: 400 a second)
 * would otherwise hold 2 to 4 descriptors per dead thread until the
 * window ends.  Called after drain_all(): their rings are empty.
 */
static void retire_exited(struct watch *w)
{
	for (unsigned i = 0; i < w->n_threads; i++) {
		struct armed *th = &w->threads[i];

		if (!th->n_bp || syscall(SYS_tgkill, (pid_t)w->win.pid, th->tid, 0) == 0 ||
		    errno != ESRCH)
			continue;
		thread_counts(th, w->win.n_words, &th->final);
		th->retired = true;
		close_thread(w, th);
	}
}

bool watch_poll(struct watch *w, int timeout_ms)
{
	double t, left;
	int n;

	if (!w->armed)
		return false;
	left = w->t_start + w->cfg.window_s - monotonic_s();
	if (left * 1000 < timeout_ms)
		timeout_ms = left > 0 ? (int)(left * 1000) + 1 : 0;
	if (timeout_ms > 0)
		poll(NULL, 0, timeout_ms);    /* a signal (Ctrl-C) cuts it short */
	drain_all(w);
	t = monotonic_s();
	check_rates(w, t);
	retire_exited(w);
	n = arm_new_threads(w, true);
	if (n == -ESRCH || !process_alive((pid_t)w->win.pid))
		w->gone = true;
	else if (n < 0)
		return false;
	if (w->cfg.stop && *w->cfg.stop)
		return false;
	return !w->gone && !w->cut_short && t - w->t_start < w->cfg.window_s;
}

/*
 * A thread's hits are concurrent when another thread hit the line's
 * watched words in the same window, and one of the two wrote.
 */
static bool concurrent(const struct window_counts *c, unsigned n, unsigned i)
{
	for (unsigned j = 0; j < n; j++)
		if (j != i && c[i].hits && c[j].hits && (c[i].wrote || c[j].wrote))
			return true;
	return false;
}

static void add_counts(struct watch *w, const struct window_counts *c)
{
	for (unsigned i = 0; i < w->n_threads; i++) {
		bool conc = concurrent(c, w->n_threads, i);

		for (unsigned k = 0; k < w->win.n_words; k++) {
			struct watch_word_result *r = &w->res[w->res_of[k]];
			struct watch_thread_count *tc;

			if (!c[i].reads[k] && !c[i].writes[k])
				continue;
			tc = watch_result_thread(r, (uint32_t)w->threads[i].tid);
			tc->reads += c[i].reads[k];
			tc->writes += c[i].writes[k];
			if (conc)
				tc->concurrent += c[i].reads[k] + c[i].writes[k];
			r->reads += c[i].reads[k];
			r->writes += c[i].writes[k];
		}
	}
}

void watch_disarm(struct watch *w)
{
	struct window_counts *c;
	double t_end;

	if (!w->armed)
		return;
	for (unsigned i = 0; i < w->n_threads; i++)
		if (w->threads[i].n_bp)
			ioctl(w->threads[i].bp[0].fd, PERF_EVENT_IOC_DISABLE, PERF_IOC_FLAG_GROUP);
	t_end = monotonic_s();
	drain_all(w);

	c = xcalloc(w->n_threads ? w->n_threads : 1, sizeof(*c));
	for (unsigned i = 0; i < w->n_threads; i++) {
		if (w->threads[i].retired)
			c[i] = w->threads[i].final;
		else
			thread_counts(&w->threads[i], w->win.n_words, &c[i]);
	}
	add_counts(w, c);
	free(c);

	for (unsigned k = 0; k < w->win.n_words; k++) {
		struct watch_word_result *r = &w->res[w->res_of[k]];

		r->window_s += t_end - w->t_start;
		r->windows++;
		r->cut_short |= w->cut_short;
		for (unsigned i = 0; i < w->n_threads; i++) {
			const struct armed *th = &w->threads[i];

			r->threads_late += th->late && (th->n_bp || th->retired);
			r->threads_unarmed += !th->n_bp && !th->retired;
		}
	}
	watch_window_done(w, t_end - w->t_start);
	for (unsigned i = 0; i < w->n_threads; i++)
		close_thread(w, &w->threads[i]);
	w->n_threads = 0;
	w->armed = false;
}

int watch_run_window(struct watch *w, const struct watch_window *win)
{
	int err;

	if (w->cfg.by_code)
		return watch_code_window(w, win);
	err = watch_arm(w, win);

	if (err < 0)
		return err;
	while (watch_poll(w, POLL_MS))
		;
	watch_disarm(w);
	return 0;
}
