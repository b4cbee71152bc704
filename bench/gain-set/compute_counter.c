/* compute_counter - per-thread counters behind some compute.
 *
 * counters[] holds one long per thread, one line for all.  Each iteration
 * runs a chain of 8 dependent multiplies (a hash of the round) and then
 * adds to the thread's counter (volatile: a load and a store, as a
 * statistic kept in memory).  --fixed: one counter per line.
 */
#define GS_ITERS 30000000
#include "gain_set.h"

static volatile long *counters;   /* counters[t * stride] */
static int stride = 1;

static GS_NOINLINE void work(volatile long *c, long n)
{
	uint64_t x = 88172645463325252ull;

	for (long i = 0; i < n; i++) {
		for (int k = 0; k < 8; k++)
			x = x * 6364136223846793005ull + 1442695040888963407ull;
		*c += 1 + (long)(x >> 63);
	}
}

static void gs_setup(void)
{
	stride = gs_fixed ? 8 : 1;
	counters = gs_calloc_aligned((size_t)gs_threads * stride, sizeof(long));
}

static void gs_work(int t)
{
	work(&counters[t * stride], gs_iters);
}

static int gs_check(void)
{
	for (int t = 0; t < gs_threads; t++)
		if (counters[t * stride] < gs_iters || counters[t * stride] > 2 * gs_iters)
			return 1;
	return 0;
}
