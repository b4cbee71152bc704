/* pair_fields - two fields of a per-thread struct updated per item.
 *
 * struct tally { long count; long sum; } is 16 bytes, four to a line in
 * the array of them.  For each item of its input (in L1) a thread adds to
 * its own count and sum through a pointer that may alias the input: two
 * stores to the shared line per item, and loads of private data.  --fixed: one tally
 * per line.
 */
#define GS_ITERS 1600000
#include "gain_set.h"

#define N 1024

struct tally {
	long count;
	long sum;
};

static char *tallies;             /* struct tally at t * size */
static size_t size;
static long input[GS_MAX_THREADS][N];

static GS_NOINLINE void tally(struct tally *ty, const long *in, int n)
{
	for (int i = 0; i < n; i++) {
		ty->count++;
		ty->sum += in[i];
	}
}

static void gs_setup(void)
{
	size = gs_fixed ? 64 : sizeof(struct tally);
	tallies = gs_calloc_aligned((size_t)gs_threads, size);
	for (int t = 0; t < gs_threads; t++)
		for (int i = 0; i < N; i++)
			input[t][i] = 3;
}

static void gs_work(int t)
{
	for (long r = 0; r < gs_iters; r++)
		tally((struct tally *)(tallies + t * size), input[t], N);
}

static int gs_check(void)
{
	for (int t = 0; t < gs_threads; t++) {
		struct tally *ty = (struct tally *)(tallies + t * size);

		if (ty->count != gs_iters * N || ty->sum != 3 * gs_iters * N)
			return 1;
	}
	return 0;
}
