/* continuous.h - contend attach --interval: one profile per interval.
 *
 *   contend attach (-p PID | -a) --interval SECONDS -o DIR [--keep N] [--format F]
 *
 * For a continuous profiler's collector (docs/pprof.md): an attach session
 * that, every SECONDS, writes the report of that interval alone to
 * DIR/contend-PID-YYYYmmddTHHMMSSZ.EXT (contend-all-... under -a; pprof unless --format says, at 99
 * Hz unless -F says), until -d, Ctrl-C or the process's exit, and keeps the
 * newest N files it wrote (--keep, default 24), removing its own older
 * ones and nothing else.  The report of an interval is built as `contend
 * top` builds its window's (reports/live_window.h): the final report's
 * code over the samples of those seconds.
 *
 * Each file is written as -o writes one (common/safe_file.h): complete or
 * not at all.  DIR must exist and be a directory (followed if a link: it
 * is the user's).
 */
#ifndef CONTEND_CONTINUOUS_H
#define CONTEND_CONTINUOUS_H

#include "engine/options.h"

/* Returns contend's exit status, as session_attach(). */
int continuous_attach(struct options *opt);

#endif
