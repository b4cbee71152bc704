/* triage.h - the one-line counter triage on `run` and `attach`.
 *
 * Where the CPU's counters can be read, run and attach count the target
 * with the hardware group of `contend stat` (detector/counters.h) while
 * they sample, and say in one line on stderr what the counts suggest
 * ("contend: counters: CPI 1.90; contention likely: ..."), before the
 * report.  Where sysfs has no CPU PMU (a VM given none), where nothing
 * could open, it tries nothing and prints nothing.
 */
#ifndef CONTEND_TRIAGE_H
#define CONTEND_TRIAGE_H

#include <stdbool.h>
#include <sys/types.h>

struct triage;

/* Count pid and everything it creates (from its exec when launched);
 * NULL when the counters cannot open here. */
struct triage *triage_start(pid_t pid, bool launched);
/* Read, print the line unless quiet, and free.  t may be NULL. */
void triage_finish(struct triage *t, bool quiet);

#endif
