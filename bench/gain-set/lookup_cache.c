/* lookup_cache - a one-entry lookup cache every thread shares.
 *
 * struct cache remembers the last key looked up and its value.  For every
 * item a thread looks up its own key (a different one per thread): when
 * the cache holds another key it computes the value (6 dependent
 * multiplies) and stores key and value in the cache, as a "last lookup"
 * memo in a symbol table or a resolver does.  With two threads the
 * entry flips at every lookup.  True sharing.  --fixed: a cache per
 * thread on its own line.
 */
#define GS_ITERS 200000000
#include "gain_set.h"

struct cache {
	unsigned long key;
	unsigned long value;
	char pad[48];
};

static struct cache *caches;      /* caches[0], or caches[t] */
static long misses[GS_MAX_THREADS * 8];
static volatile unsigned long sink[GS_MAX_THREADS * 8];

static GS_NOINLINE unsigned long compute(unsigned long key)
{
	unsigned long x = key;

	for (int k = 0; k < 6; k++)
		x = x * 6364136223846793005ul + 1442695040888963407ul;
	return x;
}

static GS_NOINLINE unsigned long lookup(struct cache *c, unsigned long key, long *missed)
{
	if (c->key != key) {
		c->value = compute(key);
		c->key = key;
		++*missed;
	}
	return c->value;
}

static void gs_setup(void)
{
	int n = gs_fixed ? gs_threads : 1;

	caches = gs_calloc_aligned((size_t)n, sizeof(*caches));
	for (int i = 0; i < n; i++)
		caches[i].key = ~0ul;
}

static void gs_work(int t)
{
	struct cache *c = &caches[gs_fixed ? t : 0];
	unsigned long sum = 0;
	long missed = 0;

	for (long i = 0; i < gs_iters; i++)
		sum += lookup(c, (unsigned long)t + 1, &missed);
	misses[t * 8] = missed;
	sink[t * 8] = sum;
}

static int gs_check(void)
{
	for (int t = 0; t < gs_threads; t++)
		if (misses[t * 8] < 1)
			return 1;
	return 0;
}
