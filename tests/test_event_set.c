/* test_event_set.c - event sets with a group leader, on any machine.
 *
 * The mem-loads-aux group of newer Intel cores cannot be opened here (no
 * PMU), but the mechanism can: a counting software leader (dummy) with a
 * sampling cpu-clock member, on this process, per CPU, into one ring. */
#include <stdio.h>
#include <time.h>
#include <unistd.h>

#include "tap.h"
#include "detector/backend.h"
#include "detector/soft.h"

static unsigned samples;

static void on_sample(void *ctx, const struct perf_sample *s)
{
	samples += s->pid == (uint32_t)getpid();
}

static void spin(double seconds)
{
	struct timespec t0, t;
	volatile unsigned long n = 0;

	/* CPU time, not wall time: on a busy machine the samples come
	 * with the CPU time we get */
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t0);
	do {
		for (int i = 0; i < 100000; i++)
			n++;
		clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
	} while (t.tv_sec - t0.tv_sec + (t.tv_nsec - t0.tv_nsec) / 1e9 < seconds);
}

int main(void)
{
	struct backend_choice c = { .id = BACKEND_SOFT, .n_events = 2 };
	struct perf_session_config pc = { .pid = getpid() };
	struct perf_callbacks cb = { .sample = on_sample };
	struct event_set *es;
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);

	c.events[0].leader = true;
	c.events[0].attr.size = sizeof(c.events[0].attr);
	c.events[0].attr.type = PERF_TYPE_SOFTWARE;
	c.events[0].attr.config = PERF_COUNT_SW_DUMMY;
	c.events[0].attr.inherit = 1;
	c.events[0].attr.exclude_kernel = 1;
	soft_event_attr(&c.events[1].attr, 1000, false);

	/* Measured here: in about 1 of 12 opens the grouped cpu-clock
	 * delivers no sample at all for the whole spin (the same session
	 * without a leader: 0 of 60), and once (a CI run of the ASan build,
	 * 2026-12-08) a re-open then delivered 13 of some 300.  Not
	 * understood yet; two re-opens are allowed and said, a mechanism
	 * that never samples still fails. */
	for (int attempt = 0; attempt < 3 && samples <= 50; attempt++) {
		if (attempt)
			printf("# %u samples from the grouped cpu-clock: re-opening (%d of 2)\n",
			       samples, attempt);
		samples = 0;
		es = event_set_open(&c, &pc, false);
		if (!es)
			return test_skip("perf_event_open refused (perf_event_paranoid?)");
		spin(0.3);
		event_set_drain(es, &cb);
		event_set_close(es);
	}
	CHECK(samples > 50, "%u samples from the grouped cpu-clock", samples);

	/* a leader the kernel refuses: the set does not open */
	c.events[0].attr.type = PERF_TYPE_RAW;
	c.events[0].attr.config = 0x8203;
	if (ncpu > 0 && access("/sys/bus/event_source/devices/cpu", F_OK) != 0) {
		es = event_set_open(&c, &pc, false);
		CHECK(!es, "a raw leader opened on a machine without a PMU");
		event_set_close(es);
	}
	return test_done();
}
