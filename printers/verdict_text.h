/* verdict_text.h - a report's answer in one line.
 *
 * "contend: 1 contended line: FALSE SHARING on counters (volatile
 * long[64]), fixing it: ~1.8x", "contend: no contended cache lines (3
 * lines touched by >= 2 threads)" or "contend: inconclusive: <why>": the
 * text report's first line, what a reader scanning a CI log wants before
 * the '#' lines that say how it was measured.  Names in it are escaped
 * (common/escape.h).
 */
#ifndef CONTEND_VERDICT_TEXT_H
#define CONTEND_VERDICT_TEXT_H

struct report;

/* The line, without a newline; the caller frees. */
char *report_verdict_line(const struct report *r);

#endif
