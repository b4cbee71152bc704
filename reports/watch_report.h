/* watch_report.h - watch results on the report model.
 *
 * confirm_fill_report(): after report_build(), the exact counts of a
 * sampling session's confirmation (detector/watch.h) on its lines.
 * watch_report_lines(): the report lines of a standalone `contend watch`,
 * one per watched line.  Both symbolize trap sites and words with sym
 * (may be NULL: addresses only).
 */
#ifndef CONTEND_WATCH_REPORT_H
#define CONTEND_WATCH_REPORT_H

#include <stdint.h>

struct confirm;
struct data_types;
struct report;
struct report_line;
struct symbolizer;
struct watch;

void confirm_fill_report(struct confirm *c, struct report *r, struct symbolizer *sym);
void watch_report_lines(struct watch *w, unsigned line_size, struct report *r,
			struct symbolizer *sym);

/* The name of rl's watched word at addr: a sampled range inside it, else
 * one that holds it ("processed..bytes", one store to two members), else
 * the global there (sym and dt may be NULL); NULL if none.  Caller frees. */
char *watch_word_member(const struct report_line *rl, uint64_t addr,
			struct symbolizer *sym, struct data_types *dt);

#endif
