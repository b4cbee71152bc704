/* fix_report.h - a gain measured, not predicted, in words: `contend run
 * --measure-fix` (the run: reports/fix_sites.h; its result on the model:
 * report.h's struct report_fix_run, report_line.measured).
 */
#ifndef CONTEND_FIX_REPORT_H
#define CONTEND_FIX_REPORT_H

#include <stdio.h>

struct report;
struct report_line;

/* "measured gain 2.4x (fixed by aligning allocations of main x.c:97 to 64
 * bytes, one run each; noisy: ...)": l->measured's, unescaped; NULL when
 * it has none.  Caller frees. */
char *fix_line_text(const struct report_line *l);
/* The text report's pieces: the line's sentence, wrapped, after its
 * predicted gain; and the "# fix run:" header lines. */
void fix_print_line_text(const struct report_line *l, FILE *out);
void fix_print_header_text(const struct report *r, FILE *out);
/* The HTML report's: " &middot; <b>measured gain ...</b>", through the
 * page's escaper. */
void fix_print_line_html(const struct report_line *l, FILE *out,
			 void (*esc)(FILE *out, const char *s));

#endif
