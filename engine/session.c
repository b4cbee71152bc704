#include "engine/session.h"

#include <errno.h>
#include <signal.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "detector/alloc_channel.h"
#include "detector/alloc_table.h"
#include "detector/backend.h"
#include "detector/callchain.h"
#include "engine/heap_walk.h"
#include "engine/jvm_target.h"
#include "engine/launch.h"
#include "engine/triage.h"
#include "engine/progress.h"
#include "engine/system_wide.h"
#include "engine/target_access.h"
#include "detector/census.h"
#include "detector/instruments.h"
#include "detector/overlap.h"
#include "detector/line_table.h"
#include "detector/perf_session.h"
#include "common/cpu_nodes.h"
#include "detector/price_cache.h"
#include "detector/sampler.h"
#include "common/env.h"
#include "common/escape.h"
#include "common/procfs.h"
#include "common/safe_file.h"
#include "detector/thread_names.h"
#include "detector/transfer_price.h"
#include "common/util.h"
#include "detector/watch.h"
#include "printers/format.h"
#include "reports/report.h"
#include "symbolize/jvm_attach.h"
#include "symbolize/symbolizer.h"
#include "symbolize/unwind.h"

struct session {
	const struct options *opt;
	const struct session_hooks *hooks;
	struct symbolizer *sym;
	struct backend_choice choice;  /* which backend, and why not the others */
	struct backend backend;        /* the chosen one, running */
	/* a sample's way to the line table: the table, the census, -g's
	 * unwinder and chains, --delay (detector/sampler.h) */
	struct sampler sampler;
	struct thread_names names;
	pid_t *pids;               /* processes seen (target and its children) */
	size_t n_pids, alloc_pids;
	uint64_t lost;
	double last_maps;          /* monotonic_s() of the last /proc/PID/maps read */
	struct confirm *confirm;   /* --confirm: watchpoints on the top lines */
	struct proc_creds creds;   /* the target's, last seen (note_target_creds) */
	unsigned target_execs;     /* exec records of the target's main thread */
	bool note_forks;           /* attaching: collect the tasks that inherit events */
	pid_t *forked;
	size_t n_forked, alloc_forked;
	struct triage *triage;     /* run/attach: counters for the one-line triage */
	struct jvm_target jvm;     /* a HotSpot target: its perf map, its exit held */
	struct progress progress;  /* the status line on a terminal */
	double duration;           /* attach -d: planned seconds, 0 if none */
	struct system_wide *sw;    /* attach -a: the processes seen; else NULL */
	struct alloc_channel *alloc_pipe;  /* run: the shim's records (NULL: off) */
	struct alloc_table *allocs;        /* the heap blocks and their sites */
	const char *watch_note;    /* why confirmation was left off, or NULL */
	char *instrument_note;     /* no instrument to confirm with: why */
	struct instruments instruments;   /* the self-test's (session_instruments) */
	struct instruments_pending *testing;   /* that test under way, or NULL */
	bool timer_from_run;       /* the run's own samples judge the timer, not a spin */
	double target_user_s;      /* run: the reaped target's user time; < 0: unknown */
	struct overlap overlap;    /* did the target's threads run at once */
	uint64_t pressure_from;    /* cpu_pressure_us() at the start */
	double pressure_t0;        /* and when: monotonic_s() */
	bool has_pressure;
	struct transfer_price price;   /* the machine's (0: not measured) */
	struct cpu_nodes nodes;        /* its NUMA topology, for the lines' nodes */
	char *price_note;          /* why not, or NULL */
};

/* The stop signal received (SIGINT, SIGTERM or SIGHUP), 0 while none. */
static volatile sig_atomic_t stop_requested;
/* The live hook ended the sampling: the target's SIGTERM was our choice. */
static bool stopped_by_hook;

static void on_stop_signal(int sig)
{
	stop_requested = sig;
}

/* SIGINT, SIGTERM and SIGHUP alike: stop sampling and report (or write
 * the data file).  Without SA_RESTART: a blocking wait returns EINTR. */
static void catch_stop_signals(bool catch)
{
	struct sigaction sa = { .sa_handler = catch ? on_stop_signal : SIG_DFL };

	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
}

static bool note_target_creds(struct session *s, pid_t pid);
static void target_execed(struct session *s, pid_t pid);

static void name_task(struct session *s, pid_t pid, pid_t from, pid_t tid);

static void note_pid(struct session *s, pid_t pid)
{
	for (size_t i = 0; i < s->n_pids; i++)
		if (s->pids[i] == pid)
			return;
	ALLOC_GROW(s->pids, s->n_pids + 1, s->alloc_pids);
	s->pids[s->n_pids++] = pid;
}

/* Ring buffer pages per CPU; 0: perf_session's default.  With -g every
 * sample carries 16 KB of stack and the default 128 pages hold 31 of
 * them: a run on busy CPUs lost records until 512. */
static unsigned ring_pages(const struct options *opt)
{
	return opt->callchain ? 512 : 0;
}

/* attach -a: samples of the processes it samples; a new thread named. */
static bool keep_system_wide(void *ctx, const struct perf_sample *ps)
{
	struct session *s = ctx;
	bool new_thread = false;

	if (!system_wide_sample(s->sw, s->sym, ps->pid, ps->tid, &new_thread))
		return false;
	if (new_thread)
		name_task(s, (pid_t)ps->pid, (pid_t)ps->pid, (pid_t)ps->tid);
	return true;
}

static void on_mmap(void *ctx, uint32_t pid, uint64_t start, uint64_t len,
		    uint64_t pgoff, uint32_t prot, const char *filename,
		    const struct map_object *obj)
{
	struct session *s = ctx;
	symbolizer_add_mapping_object(s->sym, (pid_t)pid, start, len, pgoff, prot,
				      filename, obj);
	if (s->hooks && s->hooks->mmap)
		s->hooks->mmap(s->hooks->ctx, pid, start, len, pgoff, prot, filename);
}

static void on_comm(void *ctx, uint32_t pid, uint32_t tid, const char *comm, bool exec)
{
	struct session *s = ctx;
	if (exec && pid == tid)
		symbolizer_exec(s->sym, (pid_t)pid);
	if (exec && pid == tid && s->n_pids && pid == (uint32_t)s->pids[0])
		target_execed(s, (pid_t)pid);
	/* run starts its target by exec; an attached target that execs is news */
	if (exec && pid == tid && pid == (uint32_t)s->opt->pid && !s->opt->quiet) {
		struct strbuf esc = STRBUF_INIT;   /* the name is the target's */

		progress_clear(&s->progress);
		fprintf(stderr, "contend: process %u executed %s: following the new program\n",
			pid, escape_text(&esc, comm));
		strbuf_release(&esc);
	}
	thread_names_set(&s->names, tid, comm);
	if (s->hooks && s->hooks->comm)
		s->hooks->comm(s->hooks->ctx, pid, tid, comm, exec);
}

/* A task inherits its creator's comm, and only a rename or an exec makes a
 * COMM record: read the name from /proc while the task lives, else assume
 * the one of the process it came from. */
static void name_task(struct session *s, pid_t pid, pid_t from, pid_t tid)
{
	char path[64], comm[32] = "";
	const char *inherited;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/task/%d/comm", (int)pid, (int)tid);
	f = fopen(path, "r");
	if (f) {
		if (fgets(comm, sizeof(comm), f))
			comm[strcspn(comm, "\n")] = '\0';
		fclose(f);
	}
	if (!comm[0] && (inherited = thread_names_get(&s->names, (uint32_t)from)))
		snprintf(comm, sizeof(comm), "%s", inherited);
	if (!comm[0])
		return;
	thread_names_set(&s->names, (uint32_t)tid, comm);
	if (s->hooks && s->hooks->comm)
		s->hooks->comm(s->hooks->ctx, (uint32_t)pid, (uint32_t)tid, comm, false);
}

static void on_fork(void *ctx, uint32_t pid, uint32_t ppid, uint32_t tid)
{
	struct session *s = ctx;
	if (pid != ppid && pid == tid) {
		symbolizer_fork(s->sym, (pid_t)ppid, (pid_t)pid);
		note_pid(s, (pid_t)pid);
	}
	name_task(s, (pid_t)pid, (pid_t)ppid, (pid_t)tid);
	if (s->note_forks) {
		ALLOC_GROW(s->forked, s->n_forked + 1, s->alloc_forked);
		s->forked[s->n_forked++] = (pid_t)tid;
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
	double t = monotonic_s();
	if (!force && t - s->last_maps < 0.2)
		return;
	s->last_maps = t;
	if (s->sw)
		system_wide_refresh(s->sw, s->sym);
	/* An exited process (a zombie until reaped) has an empty maps file,
	 * which would replace every mapping the report still needs. */
	for (size_t i = 0; i < s->n_pids; i++)
		if (process_alive(s->pids[i]))
			symbolizer_load_proc_maps(s->sym, s->pids[i]);
}

static struct perf_callbacks session_callbacks(struct session *s)
{
	return (struct perf_callbacks){
		.ctx = s, .mmap = on_mmap, .comm = on_comm, .fork = on_fork, .lost = on_lost,
		.sample = sampler_sample, .sample_ctx = &s->sampler,
	};
}

/* The target's credentials, taken while it lives and again at every beat
 * (it may change them after we start it, as setpriv or a server dropping
 * root does): --annotate and HTML show only source files its user could
 * read, and its /tmp/perf-PID.map must be its user's or root's.  Until
 * first read they are nobody's at all (uid -1): only what anyone may read. */
static bool note_target_creds(struct session *s, pid_t pid)
{
	struct proc_creds c;

	if (proc_creds(pid, &c) < 0)
		return false;
	proc_creds_release(&s->creds);
	s->creds = c;
	symbolizer_set_map_owner(s->sym, c.uid);
	return true;
}

/* An exec may change the credentials (setpriv, a set-id program) and the
 * program may be gone before the next beat: read them now, and when it is
 * gone already, fail closed.  run's own exec of the command is the first
 * and keeps the credentials read at launch (ours). */
static void target_execed(struct session *s, pid_t pid)
{
	bool launch = ++s->target_execs == 1 && !s->opt->pid;

	if (!note_target_creds(s, pid) && !launch) {
		proc_creds_release(&s->creds);
		s->creds = (struct proc_creds){ .uid = (uid_t)-1, .gid = (gid_t)-1 };
		symbolizer_set_map_owner(s->sym, s->creds.uid);
	}
}

/* What the session knows so far, for the live hook and the status line. */
static struct session_view session_view(struct session *s, pid_t pid, double t0)
{
	const struct backend_row *row = s->backend.row;

	return (struct session_view){
		.lines = s->sampler.lines, .sym = s->sym, .names = &s->names,
		.backend = row->name, .freq = s->opt->freq,
		.samples = row->samples_seen(s->backend.state),
		.decoded = row->samples_decoded(s->backend.state),
		.pid = pid, .elapsed = monotonic_s() - t0, .duration = s->duration,
		.confirm = s->confirm, .watch_note = s->watch_note,
		.price = s->price, .price_note = "not measured while sampling",
	};
}

static void session_instruments(struct session *s);

/* One beat of a running session, run and attach alike: wait up to 100 ms
 * for records, take them in, then let the hooks and --confirm look. */
static void session_beat(struct session *s, struct event_set *es,
			 const struct perf_callbacks *cb, pid_t pid, double t0)
{
	struct session_view view;

	note_target_creds(s, pid);
	/* every 100 ms; the shim's pipe (1 MiB) holds that much of what even
	 * a malloc-heavy target sends (its temporaries never leave it), and a
	 * faster beat would run the watch windows more often too; a target
	 * that only allocates is kept up with inside the beat */
	if (!alloc_channel_keep_up(s->alloc_pipe, s->allocs, s->sampler.lines, 0.1))
		event_set_poll(es, 100);
	event_set_drain(es, cb);
	refresh_maps(s, false);
	alloc_channel_drain(s->alloc_pipe, s->allocs, s->sampler.lines);
	if (s->hooks && s->hooks->tick)
		s->hooks->tick(s->hooks->ctx, s->sampler.lines, pid, monotonic_s() - t0);
	session_instruments(s);
	view = session_view(s, pid, t0);
	if (s->hooks && s->hooks->live && s->hooks->live(s->hooks->ctx, &view) &&
	    !stop_requested) {
		stop_requested = SIGTERM;
		stopped_by_hook = true;
	}
	progress_update(&s->progress, &view);
	/* the census and the watch take the same debug registers: one
	 * window per beat, the census's first.  By code, the watch probes
	 * the sites sampling saw, and the census adds the stores it did
	 * not: confirmation waits for it */
	if (s->sampler.census && !confirm_busy(s->confirm) &&
	    census_tick(s->sampler.census, pid, monotonic_s() - t0, sampler_census_access,
			&s->sampler))
		return;
	if (s->confirm && (!confirm_by_code(s->confirm) || !s->sampler.census ||
			   census_done(s->sampler.census, monotonic_s() - t0)))
		confirm_tick(s->confirm, s->sampler.lines, monotonic_s() - t0);
}

/* run and attach print the counters' triage line; the other commands
 * riding on a session (stat counts more, check and record have their own
 * output) do not. */
static bool wants_triage(const struct options *opt)
{
	return !strcmp(opt->command, "run") || !strcmp(opt->command, "attach");
}

static void session_release(struct session *s)
{
	line_table_free(s->sampler.lines);
	free(s->price_note);
	free(s->instrument_note);
	instruments_test_wait(s->testing);
	backend_close(&s->backend);
	backend_choice_release(&s->choice);
	unwinder_free(s->sampler.unwinder);
	callchains_free(s->sampler.chains);
	symbolizer_free(s->sym);
	thread_names_release(&s->names);
	proc_creds_release(&s->creds);
	free(s->pids);
	confirm_free(s->confirm);
	census_free(s->sampler.census);
	jvm_target_release(&s->jvm);
	progress_release(&s->progress);
	alloc_channel_close(s->alloc_pipe);
	alloc_table_free(s->allocs);
}

uint64_t session_window_ns(const struct options *opt, unsigned freq)
{
	double w = opt->window_ms;
	if (w <= 0) {
		w = DEFAULT_WINDOW_PERIODS * 1000.0 / freq;
		if (w < 10.0)
			w = 10.0;
	}
	return (uint64_t)(w * 1e6);
}

/* --backend: auto falls back to soft; a backend asked for by name that
 * cannot run here is an error that says why. */
static void choose_backend(struct session *s, const struct options *opt)
{
	struct backend_request req = {
		.name = opt->backend,
		.hw = { .ldlat = opt->ldlat, .freq = opt->freq },
		.freq = opt->freq,
		.callchain = opt->callchain,
	};

	if (!backend_choose(&req, hw_host_here(), &s->choice))
		die("the %s backend cannot run here: %s", opt->backend,
		    s->choice.why_not[s->choice.id] ? s->choice.why_not[s->choice.id] : "?");
	backend_open(&s->backend, &s->choice, s->sym);
}

/* The gain model's prices (reports/gain.h), once the events are closed:
 * then the probe neither delays the sampling (an attach must not miss
 * what the target does next) nor is sampled itself (attach -a), and a
 * launched target has exited, leaving the CPUs to it. */
static void measure_price(struct session *s)
{
	struct strbuf why = STRBUF_INIT;

	time_t when;

	if (!s->opt->price_probe)
		strbuf_addf(&why, "not measured (--no-price-probe)");
	else if (price_cache_load(&s->price, &when))
		return;
	else if (transfer_price_measure(&s->price, &why) == 0) {
		price_cache_store(&s->price);
		return;
	}
	s->price_note = strbuf_detach(&why);
}

/* Confirmation and the census, with the instruments the self-test found
 * working here (detector/instruments.h); none: the header says why. */
static void start_confirmation(struct session *s, const struct options *opt,
			       const struct session_hooks *hooks)
{
	bool on_demand = hooks && hooks->confirm_on_demand;
	struct watch_config wc;

	watch_config_default(&wc);
	wc.stop = &stop_requested;
	wc.sym = s->sym;
	s->confirm = confirm_by_instruments(&s->instruments, &wc, hooks && hooks->confirm_classify ?
					    hooks->confirm_classify : &opt->classify,
					    opt->line_size, on_demand ? NULL : &s->sampler.census);
	if (!s->confirm)
		s->instrument_note = xstrdup("none: neither watchpoints nor uprobes work here "
					     "(the instruments line says why), so the kinds "
					     "below are the samples' alone");
	else if (on_demand)
		confirm_on_demand(s->confirm);
}

/* The self-test's results, waited for at the first beat (or the end),
 * and then what they allow: confirmation and the census. */
static void session_instruments(struct session *s)
{
	if (!s->testing)
		return;
	instruments_test_wait(s->testing);
	s->testing = NULL;
	if (s->opt->confirm && !s->opt->system_wide)   /* -a: never arm other users' tasks */
		start_confirmation(s, s->opt, s->hooks);
}

/* launched: run's target, whose own samples and user time judge the
 * timer (instruments_timer_from_run()) unless --delay leaves samples out;
 * a JVM whose exit was held is reaped only after its report, and its
 * timer is left untested. */
static void session_init(struct session *s, const struct options *opt,
			 const struct session_hooks *hooks, bool launched)
{
	unsigned wanted = 0;

	memset(s, 0, sizeof(*s));
	s->opt = opt;
	s->hooks = hooks;
	fd_table_reserve(HIGH_FD_BASE + 63);   /* before a thread: util.h says why */
	progress_init(&s->progress, opt->quiet);
	s->sym = symbolizer_new();
	s->creds = (struct proc_creds){ .uid = (uid_t)-1, .gid = (gid_t)-1 };
	symbolizer_set_map_owner(s->sym, s->creds.uid);
	choose_backend(s, opt);
	s->sampler.lines = line_table_new(opt->line_size, session_window_ns(opt, opt->freq));
	overlap_init(&s->overlap, 1000000000ull / opt->freq);   /* a sample period */
	s->sampler.sym = s->sym;
	s->sampler.backend = &s->backend;
	s->sampler.overlap = &s->overlap;
	if (hooks)
		s->sampler.hooks = (struct sampler_hooks){
			.ctx = hooks->ctx, .access = hooks->access, .chain = hooks->chain,
		};
	s->has_pressure = cpu_pressure_us(&s->pressure_from);
	s->pressure_t0 = monotonic_s();
	if (opt->callchain) {
		s->sampler.unwinder = unwinder_new(s->sym, opt->unwind_method);
		s->sampler.chains = callchains_new();
	}
	/* while the target starts: tens of ms on a VM, a few % of a 1 s run */
	s->target_user_s = -1;
	if (opt->confirm && !opt->system_wide)   /* -a: never arm other users' tasks */
		wanted |= INSTRUMENTS_PROBES;
	if (s->choice.id < BACKEND__COUNT && backend_row(s->choice.id)->timer) {
		s->timer_from_run = launched && opt->delay <= 0;
		if (!s->timer_from_run)
			wanted |= INSTRUMENTS_TIMER;
	}
	s->testing = instruments_test_start(&s->instruments, opt->freq, wanted);
}

/* How busy the machine was while sampling (run_facts.h). */
static void machine_facts(struct session *s, struct run_facts *hdr)
{
	double t = monotonic_s() - s->pressure_t0;
	uint64_t now;

	hdr->overlap = s->sw ? -1 : overlap_share(&s->overlap);
	hdr->cpu_pressure = -1;
	if (s->has_pressure && t > 0 && cpu_pressure_us(&now) && now >= s->pressure_from) {
		hdr->cpu_pressure = (double)(now - s->pressure_from) / 1e6 / t;
		if (hdr->cpu_pressure > 1)
			hdr->cpu_pressure = 1;
	}
	hdr->load = load_average();
	if (cpu_nodes_read_sysfs(&s->nodes))
		hdr->cpu_nodes = &s->nodes;
}

/* Header, report, output; returns 0 or 2 (cannot write the report). */
static int finish_session(struct session *s, const char *command, pid_t pid,
			  double duration, enum target_state target, int target_status)
{
	struct run_facts hdr = { 0 };
	struct named_count *dropped = NULL;
	unsigned n_dropped;
	const struct backend_row *row = s->backend.row;
	char *note = backend_note(&s->choice);
	char *jit_note = jvm_map_note(&s->jvm, pid), *missed = NULL, *unwound = NULL;
	int ret;

	session_instruments(s);
	/* records the rings lost were the timer's samples too: delivered */
	if (s->timer_from_run && s->target_user_s >= 0)
		instruments_timer_from_run(&s->instruments, s->opt->freq,
					   row->samples_seen(s->backend.state) + s->lost,
					   s->target_user_s);
	machine_facts(s, &hdr);       /* before the price probe loads the CPUs */
	measure_price(s);
	n_dropped = row->drop_counts(s->backend.state, &dropped);
	hdr.samples = row->samples_seen(s->backend.state);
	hdr.decoded = row->samples_decoded(s->backend.state);
	hdr.command = command;
	hdr.backend = row->name;
	hdr.backend_note = note;
	hdr.jit_note = jit_note;
	hdr.watch_note = s->watch_note ? s->watch_note : s->instrument_note ? s->instrument_note :
			 (missed = confirm_missed_note(s->confirm, duration));
	hdr.instruments = &s->instruments;
	hdr.price = s->price;
	hdr.price_note = s->price_note;
	hdr.mem_info = row->mem_info;
	hdr.freq = s->opt->freq;
	hdr.duration = duration;
	hdr.dropped = dropped;
	hdr.n_dropped = n_dropped;
	hdr.target = target;
	hdr.target_status = target_status;
	hdr.chains = s->sampler.chains;
	progress_clear(&s->progress);
	hdr.allocs = s->allocs;
	if (s->allocs && s->hooks && s->hooks->allocs)
		s->hooks->allocs(s->hooks->ctx, s->allocs, s->sampler.lines);
	if (s->confirm && s->hooks && s->hooks->confirmed)
		s->hooks->confirmed(s->hooks->ctx, s->confirm);
	if (!s->allocs && target == TARGET_ATTACHED_RUNNING)
		hdr.heap = heap_walk_open(s->opt, pid);
	if (hdr.heap && s->hooks && s->hooks->heap)
		s->hooks->heap(s->hooks->ctx, hdr.heap);
	if (s->lost)
		warning("%llu records lost: the ring buffers overflowed (lower -F)",
			(unsigned long long)s->lost);
	if (s->sampler.unwinder && !s->opt->quiet && (unwound = unwinder_summary(s->sampler.unwinder)))
		fprintf(stderr, "contend: %s\n", unwound);   /* bench/unwinders.sh reads it */
	free(unwound);
	symbolizer_sampling_done(s->sym);
	ret = session_output_progress(s->opt, &hdr, s->sampler.lines, s->sym, &s->names, s->hooks, s->confirm,
			    &s->creds, &s->progress);
	heap_walk_done(hdr.heap, s->opt->quiet);
	named_counts_free(dropped, n_dropped);
	free(note);
	free(jit_note);
	free(missed);
	return ret;
}

void session_check_output(const struct options *opt)
{
	char *why = NULL;

	if (opt->output && out_file_check_early(opt->output, &why) < 0)
		die("%s", why);
}

/* Sampling starts on pid (start hook, triage, --delay): its start time. */
static double sampling_start(struct session *s, pid_t pid, bool launched)
{
	double t0;

	if (s->hooks && s->hooks->start)
		s->hooks->start(s->hooks->ctx, pid, launched);
	if (wants_triage(s->opt))
		s->triage = triage_start(pid, launched);
	t0 = monotonic_s();
	if (s->opt->delay > 0)
		s->sampler.sample_from = t0 + s->opt->delay;
	return t0;
}

/* Sampling is over: the last records drained, the events closed (an attached
 * process never stopped, gets no signal), stop hook, triage; the stop time. */
static double sampling_stop(struct session *s, struct event_set *es,
			    const struct perf_callbacks *cb, double t0, const char *what)
{
	double t1 = monotonic_s();

	progress_clear(&s->progress);
	if (s->sampler.sample_from && t1 < s->sampler.sample_from && !s->opt->quiet)
		warning("--delay %.3f s outlasted the %s (%.2f s): nothing was sampled",
			s->opt->delay, what, t1 - t0);
	event_set_drain(es, cb);
	event_set_close(es);
	if (s->hooks && s->hooks->stop)
		s->hooks->stop(s->hooks->ctx);
	triage_finish(s->triage, s->opt->quiet);
	return t1;
}

/* run: opt's command started stopped before its exec, the allocation shim
 * offered to it, and the events opened on it; NULL if they would not open
 * (the command is then never run). */
static struct event_set *run_launch(struct session *s, struct launched *child)
{
	const struct options *opt = s->opt;
	struct perf_session_config pc = { 0 };
	struct event_set *es;
	struct env *env;
	int ret;

	if (opt->alloc_sites && (s->alloc_pipe = alloc_channel_open()))
		s->allocs = alloc_table_new();
	env = env_new(environ);
	alloc_channel_export(s->alloc_pipe, env);
	ret = launch_prepare(opt->argv, env_array(env), child);
	alloc_channel_child_started(s->alloc_pipe);
	env_free(env);
	if (ret < 0)
		die("cannot start '%s': %s", opt->argv[0], strerror(errno));
	note_pid(s, child->pid);
	note_target_creds(s, child->pid);   /* ours, until it execs */

	pc.pid = child->pid;
	pc.buffer_pages = ring_pages(opt);
	es = event_set_open(&s->choice, &pc, true);
	event_set_attach(es, &s->backend);
	if (!es)
		launch_abort(child);
	return es;
}

/* run: sample until the target exits (or its JVM's exit hold ends), or
 * a stop signal's grace runs out: then *left_running.  Its wait status. */
static int run_until_exit(struct session *s, struct event_set *es,
			  const struct perf_callbacks *cb, pid_t pid, double t0,
			  bool *left_running)
{
	struct launch_stop stop = { 0 };
	struct rusage ru;
	int status = 0;

	for (;;) {
		pid_t w;
		session_beat(s, es, cb, pid, t0);
		jvm_run_tick(&s->jvm, pid, s->sampler.sample_from);
		if (exit_hold_poll(&s->jvm.hold))
			return s->jvm.hold.exit_status;
		w = wait4(pid, &status, WNOHANG, &ru);
		if (w == pid) {
			s->target_user_s = (double)ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6;
			return status;
		}
		if (w < 0 && errno != EINTR)
			return 0;
		if (stop_requested)
			progress_clear(&s->progress);
		if (stop_requested && !launch_stop(&stop, pid, stop_requested, s->opt->quiet)) {
			*left_running = true;
			return 0;
		}
	}
}

/* run's exit status from the target's wait status: 1 when the target
 * failed (and the report, ret 0, was written), else ret. */
static int run_target_verdict(const struct session *s, int status, double seconds, int ret)
{
	if (WIFSIGNALED(status) && WTERMSIG(status) == SIGTRAP &&
	    confirm_windows_run(s->confirm)) {
		/* bench/watch-safety.sh: si_code TRAP_BRKPT, an empty DR6 */
		error("target was killed by SIGTRAP after %.2f s, with watchpoints armed: unless "
		      "it raises SIGTRAP itself, the CPU sent a spurious debug trap (seen on "
		      "virtual machines, about once in 10^7 watched accesses); --no-confirm "
		      "samples without watchpoints", seconds);
	} else if (WIFSIGNALED(status) && stopped_by_hook && WTERMSIG(status) == SIGTERM) {
		return ret;     /* as asked: not a failure of the target */
	} else if (WIFSIGNALED(status)) {
		error("target was killed by signal %d (%s); the report covers its %.2f s",
		      WTERMSIG(status), strsignal(WTERMSIG(status)), seconds);
	} else if (WEXITSTATUS(status) != 0) {
		error("target exited with status %d", WEXITSTATUS(status));
	} else {
		return ret;
	}
	return ret ? ret : 1;
}

int session_run(const struct options *opt, const struct session_hooks *hooks)
{
	bool left_running = false;
	struct session s;
	struct perf_callbacks cb = session_callbacks(&s);
	struct event_set *es;
	struct launched child;
	double t0, t1;
	int status, ret;
	char *command;

	if (!opt->argv || !opt->argv[0])
		die("run: no command given (usage: contend run [options] -- CMD [ARGS...])");
	session_check_output(opt);

	session_init(&s, opt, hooks, true);
	if (!(es = run_launch(&s, &child))) {
		session_release(&s);
		return 2;
	}

	/* A stop signal ends the run as it ends perf record's workload: the
	 * target gets SIGTERM (a SIGINT from the terminal reached it already:
	 * it has LAUNCH_STOP_GRACE_S to exit of that first), we sample on until
	 * it exits, at most LAUNCH_STOP_GRACE_S more (then it is left running,
	 * as contend's orphan), and report what was seen. */
	stop_requested = 0;
	stopped_by_hook = false;
	catch_stop_signals(true);
	signal(SIGQUIT, SIG_IGN);

	t0 = sampling_start(&s, child.pid, true);
	if (launch_go(&child) < 0) {
		int e = errno;
		event_set_close(es);
		session_release(&s);
		if (e == ENOENT)
			die("cannot run '%s': command not found", opt->argv[0]);
		die("cannot run '%s': %s", opt->argv[0], strerror(e));
	}

	status = run_until_exit(&s, es, &cb, child.pid, t0, &left_running);
	t1 = sampling_stop(&s, es, &cb, t0, "run");
	alloc_channel_drain(s.alloc_pipe, s.allocs, s.sampler.lines);   /* after the samples */
	if (left_running)
		error("target (pid %d) did not exit within %.0f s of SIGTERM: left running; "
		      "the report covers %.2f s", (int)child.pid, 2 * LAUNCH_STOP_GRACE_S, t1 - t0);

	command = argv_join(opt->argv);
	/* the handlers stay while the report or data file is written: a
	 * second stop signal must not cut it short */
	if (s.sampler.sample_from)
		t0 = t1 < s.sampler.sample_from ? t1 : s.sampler.sample_from;
	ret = finish_session(&s, command, child.pid, t1 - t0, TARGET_LAUNCHED,
			     WIFSIGNALED(status) ? -WTERMSIG(status) : WEXITSTATUS(status));
	if (s.jvm.hold.at_exit) {
		/* named while it waited at its exit: now let it end */
		exit_hold_release(&s.jvm.hold);
		while (waitpid(child.pid, &status, 0) < 0 && errno == EINTR)
			;
	}
	exit_hold_release(&s.jvm.hold);
	catch_stop_signals(false);
	ret = run_target_verdict(&s, status, t1 - t0, ret);
	free(command);
	session_release(&s);
	return ret;
}

/* --- attach ------------------------------------------------------------- */

static bool tid_in(const pid_t *a, unsigned n, pid_t t)
{
	for (unsigned i = 0; i < n; i++)
		if (a[i] == t)
			return true;
	return false;
}

/* attach -a: per-CPU events, every process (system_wide.h); no watch.
 * attach -p PID,PID,...: the same, kept to those processes. */
static int session_attach_all(const struct options *opt, const struct session_hooks *hooks)
{
	struct session s;
	struct perf_session_config pc = { .pid = -1, .buffer_pages = 512 };  /* busy CPUs */
	struct perf_callbacks cb = session_callbacks(&s);
	struct system_wide sw;
	struct event_set *es;
	double t0, t1;
	char *label;
	int ret;

	if (opt->pid || opt->n_tids || opt->argv)
		die("-a samples every process: give no -p, -t or command with it");
	label = system_wide_label(opt->pids, opt->n_pids, opt->cgroup);
	session_check_output(opt);
	session_init(&s, opt, hooks, false);
	system_wide_init(&sw);
	sw.only = opt->pids;
	sw.n_only = opt->n_pids;
	sw.cgroup = opt->cgroup;
	s.sw = &sw;
	/* other processes' threads: no overlap of the target's to measure */
	s.sampler.overlap = NULL;
	s.sampler.keep = keep_system_wide;
	s.sampler.keep_ctx = &s;
	es = event_set_open(&s.choice, &pc, false);
	if (!es) {
		session_release(&s);
		system_wide_release(&sw);
		free(label);
		return 2;
	}
	stop_requested = 0;
	catch_stop_signals(true);
	if (!opt->quiet)
		fprintf(stderr, "contend: sampling %s%s\n",
			opt->n_pids || opt->cgroup ? label : "every process",
			opt->duration > 0 ? "" : "; Ctrl-C to stop");
	t0 = monotonic_s();
	while (!stop_requested && !(opt->duration > 0 && monotonic_s() - t0 >= opt->duration))
		session_beat(&s, es, &cb, -1, t0);
	t1 = monotonic_s();
	event_set_drain(es, &cb);
	event_set_close(es);
	if (sw.contend_processes && !opt->quiet)
		fprintf(stderr, "contend: left out %" PRIu64 " other contend process%s (never reported)\n",
			sw.contend_processes, sw.contend_processes == 1 ? "" : "es");
	ret = finish_session(&s, label, -1, t1 - t0, TARGET_ATTACHED_RUNNING, 0);
	free(label);
	catch_stop_signals(false);
	session_release(&s);
	system_wide_release(&sw);
	return ret;
}

/*
 * attach: the events opened on every thread of opt->pid, and the threads
 * named; NULL if they would not open.  Threads created between listing
 * and opening were not inherited from a followed thread: pick them up
 * until the list is stable.  Those created by a followed thread since
 * carry inherited events (their FORK records say so): a second event
 * would count their samples twice.
 */
static struct event_set *attach_events(struct session *s, const struct perf_callbacks *cb)
{
	const struct options *opt = s->opt;
	struct perf_session_config pc = { .pid = opt->pid, .buffer_pages = ring_pages(opt) };
	unsigned n_tids;
	pid_t *tids = target_threads(opt, &n_tids);
	struct event_set *es;

	/* before the events: samples drained while attaching need them */
	if (symbolizer_load_proc_maps(s->sym, opt->pid) < 0)
		warning("cannot read /proc/%d/maps: code and data will not be named", (int)opt->pid);
	pc.tids = tids;
	pc.n_tids = n_tids;
	errno = 0;
	s->note_forks = true;
	es = event_set_open(&s->choice, &pc, false);
	event_set_attach(es, &s->backend);
	for (int round = 0; es && !opt->n_tids && round < 10; round++) {
		unsigned n_now, added = 0;
		pid_t *now = process_tasks(opt->pid, &n_now);
		event_set_drain(es, cb);
		for (unsigned i = 0; i < n_now; i++) {
			if (tid_in(tids, n_tids, now[i]) ||
			    tid_in(s->forked, (unsigned)s->n_forked, now[i]))
				continue;
			if (event_set_add_task(es, now[i]) == 0)
				added++;
		}
		free(tids);
		tids = now;
		n_tids = n_now;
		if (!added)
			break;
	}
	s->note_forks = false;
	free(s->forked);
	s->forked = NULL;
	for (unsigned i = 0; es && i < n_tids; i++)
		name_task(s, opt->pid, opt->pid, tids[i]);
	free(tids);
	return es;
}

/* attach: the session set up for opt->pid, a JVM's perf map asked for
 * before the events, so that the JVM's work on it is not sampled. */
static void attach_init(struct session *s, const struct options *opt,
			const struct session_hooks *hooks, const char *watch_note)
{
	raise_fd_limit();
	session_init(s, opt, hooks, false);
	s->duration = opt->duration;
	if (watch_note)
		s->watch_note = watch_note;
	note_pid(s, opt->pid);
	note_target_creds(s, opt->pid);
	s->jvm.is_jvm = jvm_is_hotspot(opt->pid);
	if (s->jvm.is_jvm)
		jvm_ask_perf_map(&s->jvm, opt->pid);
	if (s->jvm.is_jvm && !s->jvm.written && !opt->quiet) {
		char *note = jvm_map_note(&s->jvm, opt->pid);

		warning("JIT code %s", note);
		free(note);
	}
}

int session_attach(const struct options *opt_in, const struct session_hooks *hooks)
{
	struct options o = *opt_in;
	const struct options *opt = &o;
	const char *watch_note;
	struct session s;
	struct perf_callbacks cb = session_callbacks(&s);
	struct event_set *es;
	double t0, t1;
	int ret;
	bool exited = false;
	char *command;
	struct strbuf esc = STRBUF_INIT;

	if (opt->system_wide)
		return session_attach_all(opt, hooks);
	if (opt->pid <= 0)       /* options_parse() asks for -p, -t or -a */
		die("attach: no process to attach to");
	session_check_output(opt);
	debug_fd_count("at attach");
	o.pid = target_process(opt);
	target_check_access(opt->pid, "sample");
	watch_note = target_watch_default(&o);

	attach_init(&s, opt, hooks, watch_note);
	command = process_cmdline(opt->pid);
	if (!(es = attach_events(&s, &cb))) {
		free(command);
		session_release(&s);
		return 2;
	}

	stop_requested = 0;
	catch_stop_signals(true);
	if (!opt->quiet) {   /* a container's pid, as it sees itself */
		pid_t ns = process_ns_pid(opt->pid);
		char *in_ns = ns && ns != opt->pid ?
			xasprintf(", pid %d in its PID namespace", (int)ns) : xstrdup("");
		fprintf(stderr, "contend: sampling process %d%s (%s)%s\n", (int)opt->pid, in_ns,
			escape_text(&esc, command), opt->duration > 0 ? "" : "; Ctrl-C to stop");
		free(in_ns);
	}
	strbuf_release(&esc);

	t0 = sampling_start(&s, opt->pid, false);
	while (!stop_requested) {
		session_beat(&s, es, &cb, opt->pid, t0);
		if (opt->duration > 0 && monotonic_s() - t0 >= opt->duration)
			break;
		if (!process_alive(opt->pid)) {
			exited = true;
			break;
		}
	}
	t1 = sampling_stop(&s, es, &cb, t0, "sampling");   /* detached */
	/* methods compiled while sampled: the map is read at report time */
	if (s.jvm.is_jvm && !exited)
		jvm_ask_perf_map(&s.jvm, opt->pid);
	if (exited && !opt->quiet)
		fprintf(stderr, "contend: process %d exited after %.2f s; reporting what was seen\n",
			(int)opt->pid, t1 - t0);

	ret = finish_session(&s, command, opt->pid, t1 - t0,
			     exited ? TARGET_ATTACHED_EXITED : TARGET_ATTACHED_RUNNING, 0);
	catch_stop_signals(false);
	free(command);
	session_release(&s);
	debug_fd_count("after detach");
	return ret;
}
