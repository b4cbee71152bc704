/* ring_indices - single-producer single-consumer rings whose head and
 * tail share a line.
 *
 * Threads pair up (-t must be even): thread 2p pushes gs_iters numbers
 * into ring p, thread 2p+1 pops and sums them.  The ring is the textbook
 * one: the producer reads tail to see whether there is room and publishes
 * head, the consumer reads head to see whether there is data and
 * publishes tail; both indices sit in the first line of the struct, the
 * 256 slots after it.  --fixed: head, tail and the slots each on their own
 * line (the slots and the indices still travel between the two threads).
 */
#define GS_ITERS 160000000
#include "gain_set.h"

#define SLOTS 256

struct ring {
	unsigned long head;       /* next slot to fill: the producer's */
	unsigned long tail;       /* next slot to empty: the consumer's */
	long slots[SLOTS];
};

struct ring_padded {
	_Alignas(64) unsigned long head;
	_Alignas(64) unsigned long tail;
	_Alignas(64) long slots[SLOTS];
};

static void *rings;               /* one per pair, of either type */
static long sums[GS_MAX_THREADS * 8];

static void ring_parts(int p, unsigned long **head, unsigned long **tail, long **slots)
{
	if (gs_fixed) {
		struct ring_padded *r = (struct ring_padded *)rings + p;

		*head = &r->head, *tail = &r->tail, *slots = r->slots;
	} else {
		struct ring *r = (struct ring *)rings + p;

		*head = &r->head, *tail = &r->tail, *slots = r->slots;
	}
}

static GS_NOINLINE void produce(unsigned long *head, unsigned long *tail, long *slots, long n)
{
	unsigned long h = 0;

	for (long i = 0; i < n; i++) {
		while (h - __atomic_load_n(tail, __ATOMIC_ACQUIRE) == SLOTS)
			;
		slots[h % SLOTS] = i + 1;
		__atomic_store_n(head, ++h, __ATOMIC_RELEASE);
	}
}

static GS_NOINLINE long consume(unsigned long *head, unsigned long *tail, long *slots, long n)
{
	unsigned long t = 0;
	long sum = 0;

	for (long i = 0; i < n; i++) {
		while (__atomic_load_n(head, __ATOMIC_ACQUIRE) == t)
			;
		sum += slots[t % SLOTS];
		__atomic_store_n(tail, ++t, __ATOMIC_RELEASE);
	}
	return sum;
}

static void gs_setup(void)
{
	size_t one = gs_fixed ? sizeof(struct ring_padded) : sizeof(struct ring);

	if (gs_threads % 2) {
		fprintf(stderr, "ring_indices: -t must be even (producer, consumer pairs)\n");
		exit(2);
	}
	rings = gs_calloc_aligned((size_t)gs_threads / 2, one);
}

static void gs_work(int t)
{
	unsigned long *head, *tail;
	long *slots;

	ring_parts(t / 2, &head, &tail, &slots);
	if (t % 2 == 0)
		produce(head, tail, slots, gs_iters);
	else
		sums[t * 8] = consume(head, tail, slots, gs_iters);
}

static int gs_check(void)
{
	for (int t = 1; t < gs_threads; t += 2)
		if (sums[t * 8] != gs_iters * (gs_iters + 1) / 2)
			return 1;
	return 0;
}
