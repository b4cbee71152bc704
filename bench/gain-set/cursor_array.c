/* cursor_array - an array of per-thread pointers, each updated on every
 * step.
 *
 * Each thread walks its own circular list (1024 nodes of 64 bytes in an
 * allocation of its own, in L2) and keeps where it is in cursors[t], an
 * array of one pointer per thread (volatile: a cursor another part of the
 * program may read), loading the cursor, the node's value and next, and
 * storing the cursor again on every step.  --fixed: one cursor per line.
 */
#define GS_ITERS 320000000
#include "gain_set.h"

#define NODES 1024

struct node {
	struct node *next;
	long value;
	char pad[48];
};

static struct node *volatile *cursors;   /* cursors[t * stride] */
static int stride = 1;
static long sums[GS_MAX_THREADS * 8];

static GS_NOINLINE long walk(struct node *volatile *cursor, long n)
{
	long sum = 0;

	for (long i = 0; i < n; i++) {
		struct node *at = *cursor;

		sum += at->value;
		*cursor = at->next;
	}
	return sum;
}

static void gs_setup(void)
{
	stride = gs_fixed ? 8 : 1;
	cursors = gs_calloc_aligned((size_t)gs_threads * stride, sizeof(*cursors));
	for (int t = 0; t < gs_threads; t++) {
		struct node *nodes = gs_calloc_aligned(NODES, sizeof(*nodes));

		/* a stride of 17 nodes around the ring: no sequential prefetch */
		for (int i = 0; i < NODES; i++) {
			nodes[i].next = &nodes[(i + 17) % NODES];
			nodes[i].value = 1;
		}
		cursors[t * stride] = &nodes[0];
	}
}

static void gs_work(int t)
{
	sums[t * 8] = walk(&cursors[t * stride], gs_iters);
}

static int gs_check(void)
{
	for (int t = 0; t < gs_threads; t++)
		if (sums[t * 8] != gs_iters)
			return 1;
	return 0;
}
