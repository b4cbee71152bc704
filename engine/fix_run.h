/* fix_run.h - `contend run --measure-fix[=N]`: a gain measured, not predicted.
 *
 * fix_run_session() is session_run() with a report hook: once the
 * sampled run's report is built, the lines whose data lie in separate
 * heap blocks of one allocation site, each block touched by one thread,
 * name the sites a run-time fix can act on (reports/fix_sites.h).  The
 * command then runs N more times as it is and N times with the
 * allocation shim placing those sites' blocks on lines of their own
 * (detector/alloc_fix.h), alternating, unsampled, output discarded;
 * the medians of wall-clock and CPU time give the measured gain, which
 * the report prints next to the predicted one.  Where no line can be
 * fixed so (an array in one block, true sharing), nothing is run and the
 * report says why.  Returns the exit status as session_run() does.
 */
#ifndef CONTEND_FIX_RUN_H
#define CONTEND_FIX_RUN_H

#include "engine/options.h"

int fix_run_session(const struct options *opt);

#endif
