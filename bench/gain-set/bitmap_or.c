/* bitmap_or - per-thread words of one bitmap, set and cleared with
 * atomic operations.
 *
 * A thread owns one 64-bit word of a shared bitmap (word t) and, for every
 * item, hashes it (8 dependent multiplies) and sets or clears the bit the
 * hash selects with an atomic OR or AND, as code marking slots busy in a
 * bitmap shared with other threads does.  The words of two threads share
 * a line: false sharing on locked operations.  --fixed: each thread's word
 * on its own line.
 */
#define GS_ITERS 40000000
#include "gain_set.h"

static unsigned long *bitmap;     /* word t at bitmap[t * stride] */
static int stride;
static long set_count[GS_MAX_THREADS * 8];

static GS_NOINLINE long mark(unsigned long *word, long n, unsigned long seed)
{
	unsigned long x = seed;
	long sets = 0;

	for (long i = 0; i < n; i++) {
		for (int k = 0; k < 8; k++)
			x = x * 6364136223846793005ul + 1442695040888963407ul;
		if (x >> 63) {
			__atomic_fetch_or(word, 1ul << (x >> 58 & 63), __ATOMIC_RELAXED);
			sets++;
		} else {
			__atomic_fetch_and(word, ~(1ul << (x >> 58 & 63)), __ATOMIC_RELAXED);
		}
	}
	return sets;
}

static void gs_setup(void)
{
	stride = gs_fixed ? 8 : 1;
	bitmap = gs_calloc_aligned((size_t)gs_threads * 8, sizeof(*bitmap));
}

static void gs_work(int t)
{
	set_count[t * 8] = mark(&bitmap[t * stride], gs_iters, 88172645463325252ul + (unsigned long)t);
}

static int gs_check(void)
{
	for (int t = 0; t < gs_threads; t++)
		if (set_count[t * 8] <= 0 || set_count[t * 8] >= gs_iters)
			return 1;
	return 0;
}
