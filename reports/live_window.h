/* live_window.h - the report of the last few seconds (contend top).
 *
 * A sliding window over a session's access samples.  The session hands
 * over every sample it adds to its own line table (live_window_add); at
 * each refresh the caller closes an interval (live_window_close) with the
 * backend's running counts of samples taken and decoded.  The window is
 * the last n_intervals closed intervals.
 *
 * live_window_report() builds a line table from exactly the samples in
 * the window -- the ingest_access() calls the session made for them, in
 * the same order -- and hands it to report_finish(), with the samples taken
 * in the window as the scores' denominator: the live view prints the final
 * report's numbers, over a window instead of the whole session, from the
 * same code.  (Merging per-interval line tables would need a second
 * implementation of the interleaving test at every seam; replaying the
 * samples needs none, and costs a few milliseconds per second of 2,000
 * samples.)
 *
 * Memory: the window's samples, at most max_samples of them; past that
 * the oldest go first and live_window_clipped() says how many the window
 * lacks, so that a view can say its window is short.
 *
 * Trends: live_window_note() keeps each reported line's score at every
 * interval (keyed by pid and line address), LIVE_TREND_POINTS of them;
 * a line no longer reported scores 0 until it has been gone that long.
 */
#ifndef CONTEND_LIVE_WINDOW_H
#define CONTEND_LIVE_WINDOW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "detector/classify.h"
#include "detector/run_facts.h"
#include "detector/sample.h"

struct report;
struct symbolizer;
struct data_types;

#define LIVE_TREND_POINTS 8
#define LIVE_MAX_INTERVALS 600

struct live_window;

/* line_size and window_ns as the session's line table (line_table_new);
 * n_intervals in 1..LIVE_MAX_INTERVALS; max_samples 0: no bound. */
struct live_window *live_window_new(unsigned line_size, uint64_t window_ns,
				    unsigned n_intervals, size_t max_samples);
void live_window_free(struct live_window *w);

void live_window_add(struct live_window *w, const struct access_sample *a);
/* Ends the current interval at now, seconds since the session began (its
 * origin: 0 seconds, 0 samples), the backend having taken samples and
 * decoded so many since then (run_facts.h). */
void live_window_close(struct live_window *w, double now, uint64_t samples,
		       uint64_t decoded);

/* Closed intervals in the window (0 .. n_intervals) and what they hold. */
unsigned live_window_intervals(const struct live_window *w);
size_t live_window_samples(const struct live_window *w);      /* access samples */
double live_window_seconds(const struct live_window *w);
uint64_t live_window_taken(const struct live_window *w);      /* backend samples */
uint64_t live_window_clipped(const struct live_window *w);    /* lost to max_samples */

/* The report of the window, finished as in (report_finish.h) says, with
 * the window's samples for in->lines: in->facts gives command, backend,
 * rate and target (its samples, decoded and duration are replaced by the
 * window's).  Caller frees with report_free(). */
struct report_inputs;
struct report *live_window_report(const struct live_window *w, const struct report_inputs *in);

/* Record the scores of r's lines for the interval just closed. */
void live_window_note(struct live_window *w, const struct report *r);
/* The line's scores, oldest first, into out[LIVE_TREND_POINTS] (0 where
 * it was not reported); returns how many intervals it has been noted
 * over (at most LIVE_TREND_POINTS), 0 if never. */
unsigned live_window_trend(const struct live_window *w, uint32_t pid, uint64_t addr,
			   double *out);

#endif
