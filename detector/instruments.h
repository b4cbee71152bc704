/* instruments.h - the instruments contend measures with, tested on this
 * machine before they are trusted.
 *
 * An instrument that opens is not one that works: on an AMD EPYC guest
 * (family 26, kernel 6.18) a hardware breakpoint opens, enables and never
 * fires, and a report built on it said "exact counts" and "no thread
 * accessed the watched words" of lines written 10^8 times a second.  So
 * each session tests its instruments once, on contend's own thread, in
 * a few milliseconds, and the rest of contend asks the result:
 *   watchpoints          a W breakpoint on a word contend stores to, and a
 *                        RW one on a word it loads: the watch (watch.h);
 *   execute breakpoints  an X breakpoint on a function contend calls: the
 *                        census (census.h);
 *   uprobes              a uprobe on that function, in contend's own
 *                        executable: confirmation and census where the
 *                        breakpoints fail (code_probe.h);
 *   timer samples        cpu-clock samples at the requested rate over a
 *                        spin of contend's own (or over a launched
 *                        target's user time): the soft backend.
 * Each test counts what the instrument saw against what happened: all of
 * it (works), none (dead: armed, never fired), part (short), or the
 * kernel refused to open it (refused, with its errno).
 */
#ifndef CONTEND_INSTRUMENTS_H
#define CONTEND_INSTRUMENTS_H

#include <stdbool.h>
#include <stdint.h>

#include "common/util.h"

enum instrument {
	INSTRUMENT_WATCHPOINTS,
	INSTRUMENT_EXEC_BREAKPOINTS,
	INSTRUMENT_UPROBES,
	INSTRUMENT_TIMER,
	INSTRUMENT__COUNT
};

enum instrument_state {
	INSTRUMENT_UNTESTED = 0,
	INSTRUMENT_WORKS,
	INSTRUMENT_DEAD,             /* opened and enabled, counted nothing */
	INSTRUMENT_SHORT,            /* counted less than happened */
	INSTRUMENT_REFUSED,          /* the kernel would not open it */
};

struct instrument_test {
	enum instrument_state state;
	uint64_t expected, counted;  /* events that happened, events seen */
	int err;                     /* refused: the errno */
	double ms;                   /* the test's own time */
};

struct instruments {
	struct instrument_test t[INSTRUMENT__COUNT];
};

/* Test every instrument (timer samples at freq Hz).  A few ms in all
 * (about 50 on a VM, where each trap costs a VM exit). */
void instruments_test(struct instruments *in, unsigned freq);
/* What a session's test covers (bits): */
enum instruments_wanted {
	/* watchpoints and execute breakpoints, and uprobes only where a
	 * breakpoint kind failed: uprobes stand in for the breakpoints and do
	 * nothing else in a session, and defining one held the kernel 6-24 ms
	 * and taking it down 70-90 ms (RCU), in series with a short target's
	 * report.  Only a session that confirms wants them. */
	INSTRUMENTS_PROBES = 1,
	/* the timer, by a 10 ms spin of contend's own (about 6 ms of CPU
	 * beside a target that keeps every CPU busy).  A launched target's
	 * own samples and user time say the same: instruments_timer_from_run() */
	INSTRUMENTS_TIMER = 2,
};
/* A session's test, on a thread of its own, so that its target starts
 * meanwhile instead of after it (bench/defaults-overhead.sh); in is not
 * to be read before instruments_test_wait().  Runs the test here when no
 * thread can start.  Never NULL.  `contend backends` tests every
 * instrument. */
struct instruments_pending;
struct instruments_pending *instruments_test_start(struct instruments *in, unsigned freq,
						    unsigned wanted);
/* Waits for the test and frees p; NULL: nothing to wait for. */
void instruments_test_wait(struct instruments_pending *p);

/* The timer judged on a run instead of a spin: samples timer samples over
 * user_s seconds of the target's user time (the samples exclude the
 * kernel), freq Hz asked for.  Under TIMER_MIN_DUE samples due, too
 * little to judge: left as it was. */
#define TIMER_MIN_DUE 20
void instruments_timer_from_run(struct instruments *in, unsigned freq, uint64_t samples,
				double user_s);

bool instrument_works(const struct instruments *in, enum instrument which);
/* "watchpoints", "execute breakpoints", "uprobes", "timer samples" */
const char *instrument_name(enum instrument which);
/* "works", "dead", "short", "refused", "untested": for JSON */
const char *instrument_state_name(enum instrument_state state);
/* What the test saw, for people: "works (100 of 100 stores counted)",
 * "unavailable: armed, never fired on a self-test store (0 of 100)",
 * "refused: permission denied: ...".  Caller frees. */
char *instrument_result_text(const struct instruments *in, enum instrument which);

/*
 * Which instrument does a job here: the first that works of
 *   confirmation (the watch):  watchpoints, then uprobes on the lines' code;
 *   the census of stores:      execute breakpoints, then uprobes.
 * False when none works (in NULL: nothing was tested, none is trusted).
 */
bool instruments_for_confirmation(const struct instruments *in, enum instrument *out);
bool instruments_for_census(const struct instruments *in, enum instrument *out);

/* A state name back (JSON, data files); false if unknown. */
bool instrument_state_parse(const char *name, enum instrument_state *out);
/* An instrument's name back; false if unknown. */
bool instrument_parse(const char *name, enum instrument *out);

#endif
