/* limit_beside_count - a rate limiter's limit read beside the counter
 * one thread keeps writing.
 *
 * struct limiter { long limit; long admitted; } is shared: thread 0
 * admits items (adds to `admitted`, a plain read-modify-write, after 2
 * multiplies of work per item), every other thread checks each of its
 * items against `limit` (read only after setup) after 2 multiplies of its
 * own.  The readers' loads and the writer's stores meet on one line: false
 * sharing between a writer and readers.  --fixed: `admitted` on its own
 * line.
 */
#define GS_ITERS 200000000
#include "gain_set.h"

struct limiter {
	volatile long limit;
	volatile long admitted;
	char pad[48];
	volatile long admitted_apart;   /* --fixed: the counter here */
	char pad2[56];
};

static struct limiter *lim;
static long passed[GS_MAX_THREADS * 8];

static GS_NOINLINE long admit(volatile long *admitted, long n)
{
	unsigned long x = 7;

	for (long i = 0; i < n; i++) {
		x = x * 6364136223846793005ul + 1;
		x = x * 6364136223846793005ul + 1;
		*admitted += (long)(x >> 62);
	}
	return (long)(x & 1);
}

static GS_NOINLINE long check(const volatile long *limit, long n, unsigned long x)
{
	long ok = 0;

	for (long i = 0; i < n; i++) {
		x = x * 6364136223846793005ul + 1;
		x = x * 6364136223846793005ul + 1;
		ok += (long)(x >> 40) < *limit;
	}
	return ok;
}

static void gs_setup(void)
{
	lim = gs_calloc_aligned(1, sizeof(*lim));
	lim->limit = 1l << 23;
}

static void gs_work(int t)
{
	if (t == 0)
		passed[0] = admit(gs_fixed ? &lim->admitted_apart : &lim->admitted, gs_iters) + 1;
	else
		passed[t * 8] = check(&lim->limit, gs_iters, (unsigned long)t * 0x9e3779b97f4a7c15ul);
}

static int gs_check(void)
{
	for (int t = 0; t < gs_threads; t++)
		if (passed[t * 8] <= 0)
			return 1;
	return 0;
}
