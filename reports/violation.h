/* violation.h - a contended line that breaks `contend check`'s rules, told
 * the same way in every output that carries it.
 *
 * cli/cmd_check.c decides which lines break the rules; printers that show
 * a verdict (the compiler-style line of check, SARIF) point at the same
 * code and say the same words through these helpers.  The site is the one
 * that writes the line most (ties: the one reading it most), among the
 * contended ranges; the message names the range it writes, the others it
 * contends with, score, threads, function, why (baseline) and advice.
 */
#ifndef CONTEND_VIOLATION_H
#define CONTEND_VIOLATION_H

#include "reports/report.h"

/* One line that breaks the rules; why: what the baseline says, or NULL. */
struct report_violation {
	const struct report_line *line;
	const char *why;
};

/* Is range g contended (true-shared, false victim or writer)? */
bool report_range_contended(const struct report_range *g);

/* The code site writing line l most, and its range (*range); NULL if the
 * line has no site on a contended range (*range untouched). */
const struct report_site *report_violation_site(const struct report_line *l,
						const struct report_range **range);

/* "false sharing on counters[0] with counters[1] (score 0.943, 2 threads,
 * written in increment): advice...": the violation without its location.
 * Caller frees. */
char *report_violation_message(const struct report_line *l, const char *why);

#endif
