/* progress.h - one status line on stderr while run, attach and record sample.
 *
 *   contend: 3.2 of 5 s  samples 6123 (71% decoded)  lines shared 4  top: counters (2 threads)
 *
 * Drawn over itself with "\r" a few times a second (PROGRESS_PERIOD_S),
 * clipped to the terminal's width, and erased (progress_clear) before
 * anything else is written.  Only when stderr is a terminal and -q was not
 * given: a log gets nothing.  "top" is the shared line (>= 2 threads) with
 * the most concurrent samples so far, named as the report names data: a
 * cheap look, not the report's ranking, which needs the whole analysis.
 *
 * Phases: progress_phase() says what contend is doing (building the
 * report) if it takes longer than PROGRESS_PHASE_DELAY_S, from a thread
 * that waits that long; progress_phase_end() erases it.
 */
#ifndef CONTEND_PROGRESS_H
#define CONTEND_PROGRESS_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

struct session_view;

#define PROGRESS_PERIOD_S 0.25
#define PROGRESS_PHASE_DELAY_S 1.0

struct data_types;

struct progress {
	bool on;                      /* stderr is a terminal, not -q */
	bool shown;                   /* a status line is on the screen */
	double last;                  /* monotonic_s() of the last draw */
	uint32_t top_pid;             /* the named top line, cached */
	uint64_t top_addr;
	char *top_name;
	struct data_types *dt;        /* globals' DWARF types, opened on first use */
	/* a phase being announced */
	pthread_t thread;
	pthread_mutex_t lock;
	pthread_cond_t done_cond;
	bool phase_running, phase_done;
	const char *phase;
};

/* quiet: -q; the line shows only if also stderr is a terminal. */
void progress_init(struct progress *p, bool quiet);
void progress_release(struct progress *p);
/* Redraws the line if PROGRESS_PERIOD_S passed since the last draw. */
void progress_update(struct progress *p, const struct session_view *v);
/* Erases the line, if shown. */
void progress_clear(struct progress *p);

/* Announce what (a static string) if it lasts PROGRESS_PHASE_DELAY_S. */
void progress_phase(struct progress *p, const char *what);
void progress_phase_end(struct progress *p);

/* The status line's text for v, without "\r" or clipping; top: the top
 * line's name or NULL.  Caller frees.  (Separate for the tests.) */
char *progress_text(const struct session_view *v, unsigned shared, const char *top,
		    unsigned top_threads);

#endif
