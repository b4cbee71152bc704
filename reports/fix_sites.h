/* fix_sites.h - a gain measured, not predicted: `contend run --measure-fix`.
 *
 * Where a contended line lies in separate heap blocks of one allocation
 * site, each touched by one thread, the fix can be applied at run time:
 * the allocation shim places that site's blocks on lines of their own
 * (detector/alloc_fix.h).  engine/fix_run.c picks such sites from the
 * report (fix_choose_sites), runs the command again as is and with the
 * fix, unsampled, times both, and hangs the result on the report: the
 * lines whose site was fixed point at it (report_line.measured).  Lines
 * the shim cannot fix (data inside one block, true sharing, no heap
 * block) are named with the reason.
 */
#ifndef CONTEND_FIX_SITES_H
#define CONTEND_FIX_SITES_H

#include "reports/report.h"

/* Which lines the fix can act on: per line i of r->lines, site index into
 * fr->sites (added as needed, at most ALLOC_FIX_SITES) or -1, with fr->not_fixable
 * naming the others.  site_of has r->n_lines entries. */
void fix_choose_sites(const struct report *r, unsigned line_size, struct report_fix_run *fr,
		      int *site_of);
void fix_report_release(struct report_fix_run *fr);

#endif
