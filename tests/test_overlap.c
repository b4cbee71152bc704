/* test_overlap.c - did the target's threads run at once (detector/overlap.h),
 * and when is a machine busy. */
#include "tap.h"
#include "detector/overlap.h"

#define MS 1000000ULL

/* Two threads sampled every ms: both in every bucket, or taking turns of
 * 4 ms each (never both in one bucket), or half and half. */
static void test_share(void)
{
	struct overlap o;

	overlap_init(&o, MS);
	for (uint64_t t = 0; t < 10; t++)
		overlap_note(&o, t * MS, 1);
	CHECK(overlap_share(&o) == -1, "too few buckets to say");

	overlap_init(&o, MS);
	for (uint64_t t = 0; t < 100; t++) {
		overlap_note(&o, t * MS + 100, 1);
		overlap_note(&o, t * MS + 200, 2);
	}
	CHECK(overlap_share(&o) == 1, "together: %g", overlap_share(&o));

	overlap_init(&o, MS);
	for (uint64_t t = 0; t < 100; t++)
		overlap_note(&o, t * MS + 100, (t / 4) % 2 ? 2 : 1);
	CHECK(overlap_share(&o) == 0, "in turns: %g", overlap_share(&o));

	overlap_init(&o, MS);
	for (uint64_t t = 0; t < 100; t++) {
		overlap_note(&o, t * MS + 100, 1);
		if (t % 2)
			overlap_note(&o, t * MS + 300, 2);
		overlap_note(&o, t * MS + 400, 1);   /* the same thread again: one */
	}
	CHECK(overlap_share(&o) == 0.5, "half: %g", overlap_share(&o));
	overlap_note(&o, 100 * MS, 0);
	CHECK(overlap_share(&o) == 0.5, "tid 0 is no thread: %g", overlap_share(&o));
}

static void test_busy(void)
{
	CHECK(machine_busy(0.3, 0.9), "apart, and tasks waited for CPUs: busy");
	CHECK(!machine_busy(0.3, 0.01), "apart on an idle machine: the program's own turns");
	CHECK(!machine_busy(0.95, 0.9), "together on a loaded machine: not kept apart");
	CHECK(!machine_busy(-1, 0.9) && !machine_busy(0.3, -1), "unknown: not busy");
	CHECK(overlap_scale(0.9) == 1 && overlap_scale(1) == 1, "full overlap: 1");
	CHECK(overlap_scale(0.45) == 0.5, "half of full: 0.5 (%g)", overlap_scale(0.45));
	CHECK(overlap_scale(0.01) == 0.1, "never below 0.1 (%g)", overlap_scale(0.01));
}

int main(void)
{
	test_share();
	test_busy();
	return test_done();
}
