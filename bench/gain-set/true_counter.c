/* true_counter - one counter every thread adds to, against per-thread
 * copies.
 *
 * Each iteration hashes the round (4 dependent multiplies) and adds 1 to
 * a counter with an atomic add.  Original: one global counter, true
 * sharing.  --fixed: each thread adds to its own counter on its own line
 * (still atomic, as code that keeps the counter's type would), summed at
 * the end.
 */
#define GS_ITERS 40000000
#include "gain_set.h"

static long *slots;               /* slots[0], or slots[t * 8] */
static int stride;

static GS_NOINLINE uint64_t work(long *c, long n)
{
	uint64_t x = 88172645463325252ull;

	for (long i = 0; i < n; i++) {
		for (int k = 0; k < 4; k++)
			x = x * 6364136223846793005ull + 1442695040888963407ull;
		__atomic_fetch_add(c, 1, __ATOMIC_RELAXED);
	}
	return x;
}

static void gs_setup(void)
{
	stride = gs_fixed ? 8 : 0;
	slots = gs_calloc_aligned((size_t)gs_threads * 8, sizeof(long));
}

static volatile uint64_t sink;

static void gs_work(int t)
{
	sink = work(&slots[t * stride], gs_iters);
}

static int gs_check(void)
{
	long sum = 0;

	for (int t = 0; t < gs_threads; t++)
		sum += slots[t * 8];
	return sum != gs_iters * gs_threads;
}
