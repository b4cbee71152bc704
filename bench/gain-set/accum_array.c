/* accum_array - per-thread accumulators in one array, written every
 * iteration.
 *
 * sums[] holds one double per thread, 8 bytes apart: one line.  Each
 * thread adds its own input (1024 doubles, in L1) into sums[t] through a
 * pointer that may alias the input, so every add is a load and a store of
 * the accumulator.  The loop stores to that line alone.  --fixed: one
 * accumulator per 64-byte line.
 */
#define GS_ITERS 800000
#include "gain_set.h"

#define N 1024

static double *sums;              /* sums[t * stride] */
static int stride = 1;
static double input[GS_MAX_THREADS][N];

static GS_NOINLINE void accumulate(double *acc, const double *v, int n)
{
	for (int i = 0; i < n; i++)
		*acc += v[i];
}

static void gs_setup(void)
{
	stride = gs_fixed ? 8 : 1;
	sums = gs_calloc_aligned((size_t)gs_threads * stride, sizeof(*sums));
	for (int t = 0; t < gs_threads; t++)
		for (int i = 0; i < N; i++)
			input[t][i] = 1.0;
}

static void gs_work(int t)
{
	for (long r = 0; r < gs_iters; r++)
		accumulate(&sums[t * stride], input[t], N);
}

static int gs_check(void)
{
	for (int t = 0; t < gs_threads; t++)
		if (sums[t * stride] != (double)gs_iters * N)
			return 1;
	return 0;
}
