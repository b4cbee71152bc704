/* hit_miss - per-thread hit and miss counters, bumped atomically on a
 * data-dependent branch.
 *
 * Each thread owns a struct counts { long hits, misses; } in one array of
 * them, as a cache shared by worker threads keeps its statistics.  For
 * every item a thread hashes the key (6 dependent multiplies) and counts
 * a hit or a miss with an atomic add, on the hash's top bit.  The structs
 * of two threads share a line: false sharing on locked operations taken
 * on either side of a branch.  --fixed: each thread's struct on its own
 * line.
 */
#define GS_ITERS 40000000
#include "gain_set.h"

struct counts {
	long hits, misses;
};

static struct counts *counts;     /* thread t's at counts[t * stride] */
static int stride;
static volatile unsigned long sink[GS_MAX_THREADS * 8];

static GS_NOINLINE unsigned long lookup_all(struct counts *c, long n, unsigned long key)
{
	for (long i = 0; i < n; i++) {
		for (int k = 0; k < 6; k++)
			key = key * 2862933555777941757ul + 3037000493ul;
		if (key >> 63)
			__atomic_fetch_add(&c->hits, 1, __ATOMIC_RELAXED);
		else
			__atomic_fetch_add(&c->misses, 1, __ATOMIC_RELAXED);
	}
	return key;
}

static void gs_setup(void)
{
	stride = gs_fixed ? 4 : 1;
	counts = gs_calloc_aligned((size_t)gs_threads * 4, sizeof(*counts));
}

static void gs_work(int t)
{
	sink[t * 8] = lookup_all(&counts[t * stride], gs_iters, 0x9e3779b97f4a7c15ul * (unsigned long)(t + 1));
}

static int gs_check(void)
{
	for (int t = 0; t < gs_threads; t++)
		if (counts[t * stride].hits + counts[t * stride].misses != gs_iters)
			return 1;
	return 0;
}
