/* work_index - a lock-free work queue: one shared index the workers claim
 * items from.
 *
 * struct queue holds the next item to claim and the number of items; each
 * worker claims one item at a time with an atomic fetch-and-add on next
 * and processes it (a checksum of its 64 bytes, from a 256 KiB table that
 * stays in L2), gs_iters items per worker in all.  True sharing: every
 * claim takes the line.  --fixed: each worker has its own queue (its own
 * index, on its own line, still claimed atomically) over its share of the
 * items, as a static partition would give it.
 */
#define GS_ITERS 20000000
#include "gain_set.h"

#define TABLE (256 * 1024 / 8)    /* longs */

struct queue {
	long next;
	long n_items;
	char pad[48];
};

static struct queue *queues;      /* queues[0], or queues[t] */
static long *table;
static long claimed[GS_MAX_THREADS * 8];
static volatile unsigned long sink[GS_MAX_THREADS * 8];

static GS_NOINLINE unsigned long drain(struct queue *q, long *count)
{
	unsigned long sum = 0;
	long n = 0;

	for (;;) {
		long i = __atomic_fetch_add(&q->next, 1, __ATOMIC_RELAXED);
		const long *item;

		if (i >= q->n_items)
			break;
		item = &table[(i * 8) % TABLE];
		for (int k = 0; k < 8; k++)
			sum = sum * 31 + (unsigned long)item[k];
		n++;
	}
	*count = n;
	return sum;
}

static void gs_setup(void)
{
	int n = gs_fixed ? gs_threads : 1;

	queues = gs_calloc_aligned((size_t)n, sizeof(*queues));
	for (int i = 0; i < n; i++)
		queues[i].n_items = gs_iters * (gs_fixed ? 1 : gs_threads);
	table = gs_calloc_aligned(TABLE, sizeof(*table));
	for (long i = 0; i < TABLE; i++)
		table[i] = i * 2654435761L;
}

static void gs_work(int t)
{
	sink[t * 8] = drain(&queues[gs_fixed ? t : 0], &claimed[t * 8]);
}

static int gs_check(void)
{
	long n = 0;

	for (int t = 0; t < gs_threads; t++)
		n += claimed[t * 8];
	return n != gs_iters * gs_threads;
}
