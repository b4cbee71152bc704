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

/* Why a watched line's exact counts do not confirm it, in words: "only
 * thread 12 accessed the watched words", "no thread wrote ...".  A thread
 * with less than 1% of the accesses is not taking part, as classification
 * has it.  Caller frees. */
char *watch_not_confirmed_why(const struct report_line *l);

/* What counted the watched words: "watchpoints", or "uprobes on the
 * lines' code" (watch.h, "By code"). */
const char *report_watch_instrument(const struct report *r);

/* The instruments the run's self-test found not working, in words, for
 * every format's header: "watchpoints unavailable on this machine:
 * armed, never fired on self-test stores and loads (0 of 200)";
 * NULL when all work or none was tested.  Caller frees. */
char *report_instruments_note(const struct report *r);

#endif
