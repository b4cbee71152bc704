/* refcount_get_put - a shared object's reference count taken and dropped
 * around every use.
 *
 * struct object holds an atomic reference count and, on the next line,
 * the read-only parameters every use reads.  For each item a thread takes
 * a reference (atomic add), mixes the item with the parameters (4
 * dependent multiplies) and drops the reference (atomic sub), as code
 * holding a shared handle around each call does.  True sharing on the
 * count.  --fixed: each thread holds its own object (its own count on its
 * own line, still atomic), as a per-thread cache of the handle would.
 */
#define GS_ITERS 20000000
#include "gain_set.h"

struct object {
	long refs;
	char pad[56];
	unsigned long mul, add;    /* read-only after setup */
	char pad2[48];
};

static struct object *objects;    /* objects[0], or objects[t] */
static volatile unsigned long sink[GS_MAX_THREADS * 8];

static GS_NOINLINE unsigned long use(struct object *o, long n)
{
	unsigned long x = 42;

	for (long i = 0; i < n; i++) {
		__atomic_fetch_add(&o->refs, 1, __ATOMIC_ACQUIRE);
		for (int k = 0; k < 4; k++)
			x = x * o->mul + o->add + (unsigned long)i;
		__atomic_fetch_sub(&o->refs, 1, __ATOMIC_RELEASE);
	}
	return x;
}

static void gs_setup(void)
{
	int n = gs_fixed ? gs_threads : 1;

	objects = gs_calloc_aligned((size_t)n, sizeof(*objects));
	for (int i = 0; i < n; i++) {
		objects[i].refs = 1;
		objects[i].mul = 6364136223846793005ul;
		objects[i].add = 1442695040888963407ul;
	}
}

static void gs_work(int t)
{
	sink[t * 8] = use(&objects[gs_fixed ? t : 0], gs_iters);
}

static int gs_check(void)
{
	int n = gs_fixed ? gs_threads : 1;

	for (int i = 0; i < n; i++)
		if (objects[i].refs != 1)
			return 1;
	return 0;
}
