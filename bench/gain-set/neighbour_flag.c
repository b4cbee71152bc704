/* neighbour_flag - per-thread structs in one array, each thread polling a
 * flag of its neighbour's.
 *
 * struct worker is 16 bytes, four to a line: a progress field its thread
 * writes every 16 items and a ready flag it flips now and then.  For every
 * item a thread hashes its input and checks the ready flag of the next
 * thread's struct (the next one along, as a work-stealing loop asks whether
 * its neighbour has work to give).  The flag hardly changes, but the
 * neighbour's progress stores share its line.  --fixed: one struct per
 * 64-byte line.
 */
#define GS_ITERS 400000000
#include "gain_set.h"

struct worker {
	volatile long progress;   /* items done, written every 16 */
	volatile long ready;      /* flipped every 4096 items, read by the previous thread */
};

static char *workers;             /* struct worker at t * size */
static size_t size;
static long seen[GS_MAX_THREADS * 8];

static struct worker *worker(int t)
{
	return (struct worker *)(workers + (size_t)t * size);
}

static GS_NOINLINE long work(struct worker *me, const struct worker *next, long n)
{
	uint64_t x = 12345;
	long ready_seen = 0;

	for (long i = 0; i < n; i++) {
		for (int k = 0; k < 4; k++)
			x = x * 6364136223846793005ull + 1442695040888963407ull;
		ready_seen += next->ready != 0;
		if ((i & 15) == 15)
			me->progress = i + 1;
		if ((i & 4095) == 4095)
			me->ready = !me->ready;
	}
	return ready_seen + (long)(x & 1);
}

static void gs_setup(void)
{
	size = gs_fixed ? 64 : sizeof(struct worker);
	workers = gs_calloc_aligned((size_t)gs_threads, size);
}

static void gs_work(int t)
{
	seen[t * 8] = work(worker(t), worker((t + 1) % gs_threads), gs_iters);
}

static int gs_check(void)
{
	for (int t = 0; t < gs_threads; t++)
		if (worker(t)->progress != gs_iters / 16 * 16 || seen[t * 8] < 0)
			return 1;
	return 0;
}
