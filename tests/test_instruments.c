/* Unit tests for detector/instruments.c: what a session's self-test
 * covers (instruments_wanted), and the timer judged on a run's own
 * samples and user time, with the spin's thresholds and words. */
#include "detector/instruments.h"
#include "tests/tap.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void check_text(const struct instruments *in, const char *want, const char *what)
{
	char *text = instrument_result_text(in, INSTRUMENT_TIMER);

	CHECK_STR(text, want, what);
	free(text);
}

static void from_run(void)
{
	struct instruments in;

	memset(&in, 0, sizeof(in));
	instruments_timer_from_run(&in, 1000, 1998, 2.0);
	CHECK(in.t[INSTRUMENT_TIMER].state == INSTRUMENT_WORKS, "1998 samples over 2 s: works");
	check_text(&in, "works: 999 Hz delivered of 1000 requested", "works, as a rate");

	instruments_timer_from_run(&in, 1000, 300, 1.0);
	CHECK(in.t[INSTRUMENT_TIMER].state == INSTRUMENT_SHORT, "300 of 1000 due: short");
	check_text(&in, "short: 300 Hz delivered of 1000 requested", "short, as a rate");

	instruments_timer_from_run(&in, 1000, 0, 1.0);
	CHECK(in.t[INSTRUMENT_TIMER].state == INSTRUMENT_DEAD, "none: dead");
	check_text(&in, "unavailable on this machine: 0 Hz delivered of 1000 requested",
		   "dead, as a rate");

	/* 10 ms of user time: 10 samples due, too few to judge (TIMER_MIN_DUE) */
	memset(&in, 0, sizeof(in));
	instruments_timer_from_run(&in, 1000, 0, 0.01);
	CHECK(in.t[INSTRUMENT_TIMER].state == INSTRUMENT_UNTESTED, "too short a run: untested");
	instruments_timer_from_run(&in, 0, 10, 1.0);
	CHECK(in.t[INSTRUMENT_TIMER].state == INSTRUMENT_UNTESTED, "no rate asked: untested");
	check_text(&in, "not tested", "untested in words");
}

static void wanted(void)
{
	struct instruments in;

	memset(&in, 0xff, sizeof(in));
	instruments_test_wait(instruments_test_start(&in, 1000, 0));
	for (int i = 0; i < INSTRUMENT__COUNT; i++)
		CHECK(in.t[i].state == INSTRUMENT_UNTESTED, "nothing wanted: %s untested",
		      instrument_name((enum instrument)i));

	instruments_test_wait(instruments_test_start(&in, 1000, INSTRUMENTS_TIMER));
	CHECK(in.t[INSTRUMENT_TIMER].state != INSTRUMENT_UNTESTED, "the timer tested (%s)",
	      instrument_state_name(in.t[INSTRUMENT_TIMER].state));
	CHECK(in.t[INSTRUMENT_WATCHPOINTS].state == INSTRUMENT_UNTESTED &&
	      in.t[INSTRUMENT_EXEC_BREAKPOINTS].state == INSTRUMENT_UNTESTED &&
	      in.t[INSTRUMENT_UPROBES].state == INSTRUMENT_UNTESTED,
	      "the timer alone: no probe tested");

	instruments_test_wait(instruments_test_start(&in, 1000, INSTRUMENTS_PROBES));
	CHECK(in.t[INSTRUMENT_TIMER].state == INSTRUMENT_UNTESTED, "probes alone: no timer spin");
	CHECK(in.t[INSTRUMENT_WATCHPOINTS].state != INSTRUMENT_UNTESTED &&
	      in.t[INSTRUMENT_EXEC_BREAKPOINTS].state != INSTRUMENT_UNTESTED,
	      "probes: both breakpoint kinds tested");
	CHECK((in.t[INSTRUMENT_UPROBES].state == INSTRUMENT_UNTESTED) ==
	      (instrument_works(&in, INSTRUMENT_WATCHPOINTS) &&
	       instrument_works(&in, INSTRUMENT_EXEC_BREAKPOINTS)),
	      "uprobes tested exactly where a breakpoint kind failed");
}

/* A rate the kernel's cpu-clock cannot give (its hrtimer's shortest
 * period is 10 us: 100 kHz of 1 MHz) stays short however long the spin
 * goes on; the timer is there (the test's own spin is sampled). */
static void short_stays_short(void)
{
	struct instruments in;

	instruments_test_wait(instruments_test_start(&in, 1000000, INSTRUMENTS_TIMER));
	if (in.t[INSTRUMENT_TIMER].state == INSTRUMENT_REFUSED) {
		printf("# the timer is refused here: %s\n", strerror(in.t[INSTRUMENT_TIMER].err));
		return;
	}
	CHECK(in.t[INSTRUMENT_TIMER].state == INSTRUMENT_SHORT &&
	      in.t[INSTRUMENT_TIMER].counted > 1000 && in.t[INSTRUMENT_TIMER].counted < 700000,
	      "1 MHz asked: short (%s, %llu Hz)",
	      instrument_state_name(in.t[INSTRUMENT_TIMER].state),
	      (unsigned long long)in.t[INSTRUMENT_TIMER].counted);
}

int main(void)
{
	from_run();
	wanted();
	short_stays_short();
	return test_done();
}
