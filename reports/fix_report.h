/* fix_report.h - a gain measured, not predicted: `contend run --measure-fix`.
 *
 * Where a contended line lies in separate heap blocks of one allocation
 * site, each touched by one thread, the fix can be applied at run time:
 * the allocation shim places that site's blocks on lines of their own
 * (detector/alloc_fix.h).  cli/fix_run.c picks such sites from the
 * report (fix_choose_sites), runs the command again as is and with the
 * fix, unsampled, times both, and hangs the result on the report: the
 * lines whose site was fixed point at it (report_line.measured).  Lines
 * the shim cannot fix (data inside one block, true sharing, no heap
 * block) are named with the reason.
 */
#ifndef CONTEND_FIX_REPORT_H
#define CONTEND_FIX_REPORT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "detector/alloc_fix.h"
#include "reports/report.h"

struct report_fix_site {
	char *name;                  /* "main x.c:97": the call, unescaped */
	char *call;                  /* "malloc(40)", unescaped */
	uint64_t dev, ino, off;      /* the call's return address: file, offset */
};

struct report_fix_run {
	unsigned align;              /* blocks aligned to it, padded to multiples of it */
	struct report_fix_site sites[ALLOC_FIX_SITES];
	unsigned n_sites;
	char *not_fixable;           /* lines the shim cannot fix, and why; or NULL */
	char *not_measured;          /* why there is no gain, or NULL when measured */
	unsigned runs;               /* timed runs of each, alternating */
	double wall_plain, wall_fixed;   /* medians, seconds */
	double cpu_plain, cpu_fixed;     /* medians of user + system time, seconds */
	double gain, cpu_gain;       /* plain / fixed */
	double gain_min, gain_max;   /* over the pairs of runs (runs > 1) */
	uint64_t blocks_fixed;       /* blocks the shim placed, per fixed run (median) */
	bool noisy;
	char *noise;                 /* why the numbers may mislead, or NULL */
};

/* Which lines the fix can act on: per line i of r->lines, site index into
 * fr->sites (added as needed, at most ALLOC_FIX_SITES) or -1, with fr->not_fixable
 * naming the others.  site_of has r->n_lines entries. */
void fix_choose_sites(const struct report *r, unsigned line_size, struct report_fix_run *fr,
		      int *site_of);
void fix_report_release(struct report_fix_run *fr);

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
