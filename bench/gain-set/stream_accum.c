/* stream_accum - shared-line accumulators behind loads from memory.
 *
 * Each thread sums its own 8 MiB array (far bigger than the caches: every
 * line of it comes from memory) into its accumulator in acc[], one long
 * per thread on one line, adding each element through a pointer (a load
 * and a store of the accumulator per element).  Memory bandwidth, not the
 * accumulator, should bound the loop.  --fixed: one accumulator per line.
 */
#define GS_ITERS 2400
#include "gain_set.h"

#define N (1L << 20)

static long *acc;                 /* acc[t * stride] */
static int stride = 1;
static long *data;                /* N per thread */

static GS_NOINLINE void sum(long *a, const long *v, long n)
{
	for (long i = 0; i < n; i++)
		*a += v[i];
}

static void gs_setup(void)
{
	stride = gs_fixed ? 8 : 1;
	acc = gs_calloc_aligned((size_t)gs_threads * stride, sizeof(long));
	data = gs_calloc_aligned((size_t)gs_threads * N, sizeof(long));
	for (long i = 0; i < gs_threads * N; i++)
		data[i] = 1;
}

static void gs_work(int t)
{
	for (long r = 0; r < gs_iters; r++)
		sum(&acc[t * stride], &data[t * N], N);
}

static int gs_check(void)
{
	for (int t = 0; t < gs_threads; t++)
		if (acc[t * stride] != gs_iters * N)
			return 1;
	return 0;
}
