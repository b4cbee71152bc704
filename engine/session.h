/* session.h - one profiling session: target, backend, aggregation, report.
 *
 * session_run() implements `contend run`: launch the command, sample it
 * until it exits, then build and output the report.  session_attach()
 * implements `contend attach`: sample a running process (all its threads,
 * and those they create) for opt->duration seconds, until SIGINT/SIGTERM,
 * or until it exits; then detach, leaving it exactly as it was, and report.
 * Both return the exit status contend should exit with (options.h).
 *
 * Hooks let other commands ride on a session without copying it: record
 * writes accesses, mappings and names to a data file; check takes the
 * finished report; watch confirms candidates while the target runs.  Every
 * hook is optional.
 */
#ifndef CONTEND_SESSION_H
#define CONTEND_SESSION_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "engine/options.h"
#include "detector/sample.h"
#include "detector/transfer_price.h"

struct alloc_table;
struct confirm;
struct glibc_heap;
struct line_table;
struct proc_creds;
struct classify_config;
struct report;
struct run_facts;
struct symbolizer;
struct thread_names;

/* What a running session knows so far, for live views (top, the
 * progress line).  Valid during the call it is passed to. */
struct session_view {
	struct line_table *lines;     /* everything sampled so far */
	struct symbolizer *sym;
	const struct thread_names *names;
	const char *backend;          /* "soft" */
	unsigned freq;
	uint64_t samples, decoded;    /* taken, and access samples in lines */
	pid_t pid;
	double elapsed;               /* seconds since sampling began */
	double duration;              /* planned seconds, 0: until stopped */
	/* watchpoints: the session's confirmation, NULL when off (then
	 * watch_note says why, or is NULL: --no-confirm) */
	struct confirm *confirm;
	const char *watch_note;
	/* what the gains are priced at (run_facts.h) */
	struct transfer_price price;
	const char *price_note;
};

struct session_hooks {
	void *ctx;
	/* each access sample, as it enters the line table */
	void (*access)(void *ctx, const struct access_sample *a);
	/* -g: each new call chain (callchain.h), before the first access
	 * that carries its id */
	void (*chain)(void *ctx, uint32_t id, const uint64_t *pcs, unsigned n);
	/* mappings and thread names as they become known */
	void (*mmap)(void *ctx, uint32_t pid, uint64_t start, uint64_t len,
		     uint64_t pgoff, uint32_t prot, const char *filename);
	void (*comm)(void *ctx, uint32_t pid, uint32_t tid, const char *comm, bool exec);
	/* sampling is about to start on pid: run calls it before the
	 * command is exec'd (launched: true), attach once it has attached */
	void (*start)(void *ctx, pid_t pid, bool launched);
	/* sampling has stopped (before the report is built) */
	void (*stop)(void *ctx);
	/* about every 100 ms while the target runs */
	void (*tick)(void *ctx, struct line_table *lines, pid_t pid, double elapsed);
	/* with the tick: the session so far; true ends the sampling as a
	 * stop signal would (run: the target gets SIGTERM), without a word */
	bool (*live)(void *ctx, const struct session_view *v);
	/* the session's heap blocks (alloc_table.h), once sampling is over and
	 * before the report; not called without allocation tracking */
	void (*allocs)(void *ctx, const struct alloc_table *t, struct line_table *lines);
	/* attach without allocation tracking: the target's glibc heap that
	 * the report looks its lines' blocks up in (glibc_heap.h), before the
	 * report is built; valid until the report hook returns */
	void (*heap)(void *ctx, struct glibc_heap *heap);
	/* the report is built: output it and return contend's exit status
	 * (replaces the default text/JSON output) */
	int (*report)(void *ctx, const struct report *r, const struct options *opt);
	/* confirmation only of the lines asked for (confirm_line() on the
	 * view's confirm: top's w), none picked by the session itself; the
	 * report takes their counts as --confirm's */
	bool confirm_on_demand;
	/* the thresholds the confirmation picks its lines by (NULL: opt's);
	 * record's report qualifies no line, yet watches what run would */
	const struct classify_config *confirm_classify;
	/* once sampling is over, before the report: the session's
	 * confirmation, its windows run (not called when confirmation is off) */
	void (*confirmed)(void *ctx, struct confirm *c);
};

int session_run(const struct options *opt, const struct session_hooks *hooks);
/* Die (status 2) with one line when -o names a file we would not write,
 * or could not create now: run before the target starts or is attached,
 * not after a two-hour run.  Nothing to check without -o. */
void session_check_output(const struct options *opt);
int session_attach(const struct options *opt, const struct session_hooks *hooks);

/* The interleaving window (line_table.h) for samples taken at freq Hz:
 * --window-ms, else DEFAULT_WINDOW_PERIODS sample periods. */
uint64_t session_window_ns(const struct options *opt, unsigned freq);

/* Build the report from a filled line table and output it as opt says
 * (or hand it to hooks->report).  reader: whose read permission a source
 * file needs to be shown (report.h source_reader).  Used by the sessions and by commands
 * that read recorded data.  names may be NULL.  confirm: a recorded
 * confirmation's counts (watch_restore()), or NULL.  Returns the exit status. */
int session_output(const struct options *opt, const struct run_facts *hdr,
		   struct line_table *lines, struct symbolizer *sym,
		   const struct thread_names *names, const struct session_hooks *hooks,
		   struct confirm *confirm, const struct proc_creds *reader);

/* session_output() with a status line that says what takes long (prog;
 * NULL: none). */
struct progress;
int session_output_progress(const struct options *opt, const struct run_facts *hdr,
			    struct line_table *lines, struct symbolizer *sym,
			    const struct thread_names *names, const struct session_hooks *hooks,
			    struct confirm *confirm, const struct proc_creds *reader,
			    struct progress *prog);

/* Print r as opt says (-o, --format): what run does with its report.
 * Returns 0, or 2 after saying why it could not be written. */
int session_print_report(const struct report *r, const struct options *opt);

#endif
