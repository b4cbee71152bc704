/* classify.h - is a line contended, and how: false, true or mixed sharing.
 *
 * Only concurrent accesses (line_table.h) are evidence.  A thread's use of
 * a range whose concurrent count is below noise_frac of the line's
 * concurrent samples is ignored as sampling noise (unless two or more such
 * threads together reach it: short-lived threads of a churning pool each
 * leave a few samples); above it, the thread
 * writes the range if any of its samples there wrote (stores retire into
 * the store buffer and are sampled rarely).  Over the remaining cells, for every pair of
 * different threads T (writing bytes W) and U (touching bytes A):
 *   W and A overlap      -> true sharing on those bytes;
 *   W and A are disjoint -> false sharing (A's range is the victim of W's),
 *                           unless the same two or more threads write both
 *                           ranges (fields updated together under a lock):
 *                           each is truly shared, and padding them apart
 *                           would not part any thread from another.
 * The line is TRUE if only the first happens, FALSE if only the second,
 * MIXED if both.  It is reported (contended) when it has >= 2 threads with
 * >= 1 writer whose writes repeat (MIN_LINE_WRITES write samples, a
 * writer seen on the line that often, or loads that the hardware saw hit
 * another core's modified copy), at least min_concurrent concurrent samples, a concurrent
 * fraction of at least min_concurrent_frac, and score >= min_score.
 *
 * score = concurrent samples on the line (or its HITM/peer samples from a
 * hardware backend, whichever is more) / all samples of the session: the
 * share of the program's sampled time spent in contended accesses to it.
 */
#ifndef CONTEND_CLASSIFY_H
#define CONTEND_CLASSIFY_H

#include <stdbool.h>
#include <stdint.h>
#include "detector/line_table.h"

/* one store, by a thread seen once, is a flag set once, not a line
 * moving between cores */
#define MIN_LINE_WRITES 2

enum sharing_kind {
	SHARING_NONE = 0,
	SHARING_FALSE,
	SHARING_TRUE,
	SHARING_MIXED,
};
const char *sharing_kind_name(enum sharing_kind k);  /* "none", "false sharing", ... */
const char *sharing_kind_id(enum sharing_kind k);    /* "none", "false", "true", "mixed" */

struct classify_config {
	double min_score;            /* default 0.005 */
	double min_concurrent_frac;  /* default 0.3 */
	uint64_t min_concurrent;     /* default 8 */
	double noise_frac;           /* default 0.01 */
	/* min_score is the user's (--min-score): a busy machine does not
	 * scale it down (reports/report_build.c), a gate stays where set */
	bool min_score_fixed;
};
void classify_config_default(struct classify_config *c);

/* One distinct (offset, size) range of the line, over all threads. */
struct range_verdict {
	uint8_t offset, size;
	uint64_t reads, writes;          /* concurrent samples, all threads */
	uint64_t all;                    /* all samples, concurrent or not */
	unsigned n_threads, n_writers;   /* threads touching / writing it (noise excluded) */
	bool true_shared;                /* written by one thread, touched by another */
	bool false_victim;               /* touched while another thread wrote disjoint bytes */
	bool false_writer;               /* written while another thread touched disjoint bytes */
};

struct line_verdict {
	enum sharing_kind kind;
	bool contended;
	double score;                    /* see above */
	double share;                    /* all samples on the line / all samples */
	double concurrent_frac;          /* concurrent / samples on the line */
	unsigned n_threads, n_writers;
	struct range_verdict *ranges;    /* sorted by offset, then size */
	unsigned n_ranges;
};

void classify_line(const struct line *l, uint64_t total_samples,
		   const struct classify_config *cfg, struct line_verdict *out);
void line_verdict_release(struct line_verdict *v);

/* Minor sharing: a line that is not contended, but on which two threads
 * really share at the same time (the verdict has a kind, >= 2 threads,
 * >= 1 writer, and the concurrent fraction of a contended line) with at
 * least MINOR_MIN_CONCURRENT concurrent samples, or fewer where the
 * watchpoints saw the sharing (line.watch_shared): only the cost
 * thresholds (min_score, min_concurrent) dropped it.  Threads that take turns (a low
 * concurrent fraction) are not minor sharing: they do not share at all.
 * Reported after the contended lines, ranked low (CI baselines track
 * them). */
#define MINOR_MIN_CONCURRENT 4
bool line_verdict_minor(const struct line *l, const struct line_verdict *v,
			const struct classify_config *cfg);

#endif
