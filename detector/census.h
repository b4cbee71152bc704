/* census.h - the stores the timer cannot see, found by probes on code.
 *
 * A timer sample lands on an instruction in proportion to the time it
 * takes.  A store that runs once per 100 us of private work, to a line
 * the two cores pass cheaply, takes almost none: measured on
 * testcases/modest_sharing, 10 runs of 24 decoded 0-4 samples to its
 * line, and the watch (watch.h), which arms only on lines two threads
 * were sampled on, had nothing to arm.  Yet the sharing is there, and
 * costs more where the cores are further apart.
 *
 * A probe on an instruction (code_probe.h: an execute breakpoint, or a
 * uprobe where breakpoints do not fire) stops a thread before the
 * instruction runs, with its user registers: decoded (decode.h), they give
 * the address each thread's execution touches, exactly.  The census puts
 * them, for short windows in every thread of the target, on the stores
 * near the code the samples found hot:
 *  1. the CENSUS_HOT_FUNCS functions with most samples, in the target's
 *     own code (not a system library's), of CENSUS_MIN_HOT_SHARE or more;
 *  2. their callers, from the return address at each one's entry (a
 *     window of probes on the entries, with 8 bytes of stack);
 *  3. the stores (not to the stack) of those functions and callers and
 *     of the functions they call directly, at most CENSUS_MAX_STORES,
 *     WATCH_SLOTS to a window; not those with CENSUS_SAMPLED samples or
 *     more (sampling sees them, and a store in a hot loop would trap on
 *     every pass).  Breakpoints take WATCH_SLOTS stores to a window,
 *     uprobes all of them.
 * Each thread's distinct (instruction, address) is handed on as two
 * samples, its first and its last hit of the window (the thread's span on
 * the line is then the time it was seen there: classify.h's "both were on
 * the line at once"): enough to make a line two threads write a candidate
 * of the watch, which then counts its accesses exactly; far too little to
 * move any line's score.
 *
 * It runs once per session, CENSUS_AT_S into it and once
 * CENSUS_MIN_SAMPLES were noted (--delay), one window per call:
 * two to five windows of at most CENSUS_WINDOW_S, each ending after
 * CENSUS_MAX_HITS traps (about 13 us each for a breakpoint in a VM, 8.5
 * for a uprobe), or once CENSUS_SETTLED_HITS or more have stopped
 * adding: the last half of them found no new caller or access.  Its events are contend's file descriptors, per thread,
 * closed when the window ends; a breakpoint's risk is the watch's
 * (watch.h: a trap with an empty DR6 on a VM).
 * Threads created during a window are not armed.
 */
#ifndef CONTEND_CENSUS_H
#define CONTEND_CENSUS_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "detector/code_probe.h"
#include "detector/sample.h"

struct symbolizer;

#define CENSUS_AT_S 0.5           /* samples enough to know the hot code */
#define CENSUS_MIN_SAMPLES 100
#define CENSUS_HOT_FUNCS 4
#define CENSUS_MIN_HOT_SHARE 0.05
#define CENSUS_MAX_CALLERS 4      /* per hot function */
#define CENSUS_MAX_STORES 16
#define CENSUS_SAMPLED 20        /* samples of a store sampling sees */
#define CENSUS_WINDOW_S 0.02
#define CENSUS_MAX_HITS 2000      /* per window, all threads */
#define CENSUS_SETTLED_HITS 512

struct census;

/* kind: the instrument the self-test found working (instruments.h). */
struct census *census_new(struct symbolizer *sym, enum code_probe_kind kind);
void census_free(struct census *c);

/* A sample's code address, for the hot functions (until the plan is
 * made; memory bounded by CENSUS_MAX_IPS distinct addresses). */
#define CENSUS_MAX_IPS 4096
void census_note_sample(struct census *c, uint32_t pid, uint64_t ip);

/* Each decoded access of a planned store, once per thread and address. */
typedef void census_access_fn(void *ctx, const struct access_sample *a);

/*
 * Call every beat while pid runs.  From CENSUS_AT_S on, plans and runs
 * the census one window per call.  Returns true if a window ran.  A
 * process that is gone, or a kernel that refuses the probes, ends the
 * census quietly: it only adds candidates.
 */
bool census_tick(struct census *c, pid_t pid, double elapsed, census_access_fn *fn, void *ctx);

/* Has it run (or given up), or has it waited a second past CENSUS_AT_S
 * for samples?  Confirmation by code waits for it until then. */
bool census_done(const struct census *c, double elapsed);

/* Windows run and accesses handed on, for tests and the debug output. */
unsigned census_windows(const struct census *c);
unsigned census_accesses(const struct census *c);

/* ---- pieces, exposed for tests ------------------------------------------ */

/* The store instructions of the function containing ip (not to the stack,
 * not well sampled: step 3 above) into out (at most max; alt: the next
 * instruction), and the direct call targets of the function into calls
 * (at most max_calls); returns the number of stores, and sets *n_calls.
 * 0 if the function is unknown. */
unsigned census_function_stores(struct census *c, pid_t pid, uint64_t ip,
				struct code_site *out, unsigned max, uint64_t *calls,
				unsigned max_calls, unsigned *n_calls);

#endif
