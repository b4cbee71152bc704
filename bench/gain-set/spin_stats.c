/* spin_stats - statistics under a spinlock, updated every few items.
 *
 * struct stats holds a test-and-set lock and the count and sum it guards,
 * on one line.  Every 4 items of private work (a checksum of 4 dependent
 * multiplies each) a thread takes the lock (atomic exchange, spinning with
 * pause), adds to the count and the sum and releases it, as code that
 * keeps global statistics under a lock does.  True sharing on the lock and
 * the fields.  --fixed: one stats struct and lock per thread, each on its
 * own line, summed at the end.
 */
#define GS_ITERS 40000000
#include "gain_set.h"

#if defined(__x86_64__) || defined(__i386__)
#define cpu_relax() __builtin_ia32_pause()
#elif defined(__aarch64__)
#define cpu_relax() __asm__ volatile("yield")
#else
#define cpu_relax() do { } while (0)
#endif

struct stats {
	int lock;
	long count;
	unsigned long sum;
	char pad[40];
};

static struct stats *stats;       /* stats[0], or stats[t] */

static GS_NOINLINE void record(struct stats *s, long n)
{
	unsigned long x = 7;

	for (long i = 0; i < n; i++) {
		for (int k = 0; k < 4; k++)
			x = x * 6364136223846793005ul + 1442695040888963407ul;
		if ((i & 3) != 3)
			continue;
		while (__atomic_exchange_n(&s->lock, 1, __ATOMIC_ACQUIRE))
			while (__atomic_load_n(&s->lock, __ATOMIC_RELAXED))
				cpu_relax();
		s->count++;
		s->sum += x >> 32;
		__atomic_store_n(&s->lock, 0, __ATOMIC_RELEASE);
	}
}

static void gs_setup(void)
{
	stats = gs_calloc_aligned((size_t)(gs_fixed ? gs_threads : 1), sizeof(*stats));
}

static void gs_work(int t)
{
	record(&stats[gs_fixed ? t : 0], gs_iters);
}

static int gs_check(void)
{
	long count = 0;

	for (int t = 0; t < (gs_fixed ? gs_threads : 1); t++)
		count += stats[t].count;
	return count != gs_iters / 4 * gs_threads;
}
