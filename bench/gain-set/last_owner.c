/* last_owner - a hint field every thread checks and takes over.
 *
 * struct hint remembers the thread that used a shared resource last.  For
 * every item a thread hashes it (4 dependent multiplies), then checks the
 * hint: when another thread holds it, the thread writes its own id there
 * and counts a hand-over, as an "owner" or "last CPU" cache in a scheduler
 * or an allocator does.  With two threads each check finds the other's id:
 * the line moves and the branch goes the other way every time.  True
 * sharing.  --fixed: a hint per thread on its own line (the hand-over is
 * taken once).
 */
#define GS_ITERS 80000000
#include "gain_set.h"

struct hint {
	volatile long owner;
	char pad[56];
};

static struct hint *hints;        /* hints[0], or hints[t] */
static long handovers[GS_MAX_THREADS * 8];
static volatile unsigned long sink[GS_MAX_THREADS * 8];

static GS_NOINLINE unsigned long run(struct hint *h, long me, long n, long *taken)
{
	unsigned long x = (unsigned long)me + 1;
	long count = 0;

	for (long i = 0; i < n; i++) {
		for (int k = 0; k < 4; k++)
			x = x * 6364136223846793005ul + 1442695040888963407ul;
		if (h->owner != me) {
			h->owner = me;
			count++;
		}
	}
	*taken = count;
	return x;
}

static void gs_setup(void)
{
	int n = gs_fixed ? gs_threads : 1;

	hints = gs_calloc_aligned((size_t)n, sizeof(*hints));
	for (int i = 0; i < n; i++)
		hints[i].owner = -1;
}

static void gs_work(int t)
{
	sink[t * 8] = run(&hints[gs_fixed ? t : 0], t, gs_iters, &handovers[t * 8]);
}

static int gs_check(void)
{
	for (int t = 0; t < gs_threads; t++)
		if (handovers[t * 8] < 1)
			return 1;
	return 0;
}
