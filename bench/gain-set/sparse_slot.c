/* sparse_slot - a shared progress slot written now and then, private work
 * in between.
 *
 * Each thread updates 16 words of its own state (heap, its own lines) per
 * step and publishes the step number to its 16-byte slot in slots[] (four
 * to a line) after every step: one store in 17 goes to the shared line.  --fixed: one slot per
 * line.
 */
#define GS_ITERS 80000000
#include "gain_set.h"

struct slot {
	volatile long step;
	long pad;
};

static char *slots;               /* struct slot at t * size */
static size_t size;
static uint64_t *state;           /* 16 per thread: two lines of its own */

static GS_NOINLINE void work(struct slot *s, uint64_t *st, long n)
{
	for (long i = 0; i < n; i++) {
		for (int k = 0; k < 16; k++)
			st[k] = st[k] * 3 + (uint64_t)k;
		s->step = i + 1;
	}
}

static void gs_setup(void)
{
	size = gs_fixed ? 64 : sizeof(struct slot);
	slots = gs_calloc_aligned((size_t)gs_threads, size);
	state = gs_calloc_aligned((size_t)gs_threads * 16, sizeof(uint64_t));
}

static void gs_work(int t)
{
	work((struct slot *)(slots + t * size), &state[t * 16], gs_iters);
}

static int gs_check(void)
{
	for (int t = 0; t < gs_threads; t++)
		if (((struct slot *)(slots + t * size))->step != gs_iters)
			return 1;
	return 0;
}
