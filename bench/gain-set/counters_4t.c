/* counters_4t - per-thread counters on one line, more threads than CPUs.
 *
 * Run with -t 4 (the default here) on a 2-CPU machine: four counters on
 * one line, two threads running at a time.  Each iteration writes a
 * private output slot (heap, a line of the thread's own) and then bumps
 * the thread's counter (volatile).  --fixed: one counter per line.
 */
#define GS_ITERS 100000000
#include "gain_set.h"

static volatile long *counters;   /* counters[t * stride] */
static long *out;                 /* 64 longs per thread */
static int stride = 1;

static GS_NOINLINE void work(volatile long *c, long *o, long n)
{
	for (long i = 0; i < n; i++) {
		o[i & 7] = i;
		*c += 1;
	}
}

static void gs_setup(void)
{
	if (gs_threads == 2)
		gs_threads = 4;   /* the default here; -t 2 means -t 4 */
	stride = gs_fixed ? 8 : 1;
	counters = gs_calloc_aligned((size_t)gs_threads * stride, sizeof(long));
	out = gs_calloc_aligned((size_t)gs_threads * 64, sizeof(long));
}

static void gs_work(int t)
{
	work(&counters[t * stride], &out[t * 64], gs_iters);
}

static int gs_check(void)
{
	for (int t = 0; t < gs_threads; t++)
		if (counters[t * stride] != gs_iters)
			return 1;
	return 0;
}
