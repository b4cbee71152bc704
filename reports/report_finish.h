/* report_finish.h - the one finish step: a filled line table to the report
 * model every printer reads.
 *
 * Every sampled report is finished here: run, attach and record's final
 * report and report -i's replay (engine/session_output.c), and the windows
 * of top and attach -c (through live_window_report()).  In order:
 *   1. the watch's exact evidence merged into the lines (merge_watch: the
 *      table is the one the watch watched, not a window's replay);
 *   2. report_build(): classify, rank, name data and code, advise, price;
 *   3. the watch's per-thread counts into the report, and the locks they
 *      reveal (fill_watch);
 *   4. thread ids named by their comm.
 * The data types' cache lives for the call only: it points into the
 * symbolizer's modules, which an exec of the target replaces.
 */
#ifndef CONTEND_REPORT_FINISH_H
#define CONTEND_REPORT_FINISH_H

#include <stdbool.h>

struct classify_config;
struct confirm;
struct line_table;
struct report;
struct run_facts;
struct symbolizer;
struct thread_names;

struct report_inputs {
	const struct run_facts *facts;
	struct line_table *lines;
	const struct classify_config *cfg;
	unsigned top;                       /* lines to report, 0: all */
	struct symbolizer *sym;             /* NULL: addresses only (tests) */
	struct confirm *confirm;            /* NULL: no watch ran */
	bool merge_watch, fill_watch;       /* steps 1 and 3, with confirm */
	const struct thread_names *names;   /* NULL: thread ids only */
};

/* Step 2 alone: the lines of the table classified, ranked (at most top),
 * named and advised; caller frees with report_free(). */
struct data_types;
struct report *report_build(const struct run_facts *hdr,
			    struct line_table *lines,
			    const struct classify_config *cfg, unsigned top,
			    struct symbolizer *sym, struct data_types *dt);
/* After the exact counts of watched words are in (watch.h): a line whose
 * watched words all lie in its lock was confirmed as threads taking the
 * lock in turn, true sharing, whatever internals the words hold. */
void report_confirm_locks(struct report *r);

/* The report; caller frees with report_free(). */
struct report *report_finish(const struct report_inputs *in);

/* Step 4 alone, for reports built otherwise (contend watch). */
void report_name_threads(struct report *r, const struct thread_names *names);

#endif
