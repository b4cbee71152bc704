/* session.h - one profiling session: target, backend, aggregation, report.
 *
 * session_run() implements `contend run`: launch the command, sample it
 * until it exits, then build and print the report.  Both entry points
 * return the exit status contend should exit with (options.h documents them).
 */
#ifndef CONTEND_SESSION_H
#define CONTEND_SESSION_H

#include "options.h"

int session_run(const struct options *opt);

/* `contend attach`: sample a running process (all its threads, and those
 * they create) for opt->duration seconds, until SIGINT/SIGTERM, or until it
 * exits; then detach, leaving it exactly as it was, and report. */
int session_attach(const struct options *opt);

#endif
