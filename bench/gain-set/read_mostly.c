/* read_mostly - one writer, the other threads read a neighbouring field.
 *
 * struct config holds a version the writer (thread 0) bumps every 4th
 * item and a limit the readers (threads 1..) load for every item they
 * filter: the same line, different fields.  Each reader's loads miss
 * whenever the writer wrote since; the writer's stores wait for the line
 * the readers took.  --fixed: version on a line of its own.
 */
#define GS_ITERS 400000000
#include "gain_set.h"

struct config {
	volatile long version;
	volatile long limit_near;  /* the limit, as written */
	char pad[48];
	volatile long limit_far;   /* --fixed: the limit on a line of its own */
};

static struct config *cfg;
static volatile long *version, *limit;
static long hits[GS_MAX_THREADS * 8];

static GS_NOINLINE void writer(long n)
{
	uint64_t x = 1;

	for (long i = 0; i < n; i++) {
		x = x * 6364136223846793005ull + 1442695040888963407ull;
		if ((i & 3) == 0)
			*version = *version + 1;
	}
	hits[0] = (long)(x & 1);
}

static GS_NOINLINE long reader(long n)
{
	uint64_t x = 7;
	long h = 0;

	for (long i = 0; i < n; i++) {
		x = x * 6364136223846793005ull + 1442695040888963407ull;
		h += (long)(x >> 56) < *limit;
	}
	return h;
}

static void gs_setup(void)
{
	cfg = gs_calloc_aligned(1, sizeof(*cfg));
	version = &cfg->version;
	limit = gs_fixed ? &cfg->limit_far : &cfg->limit_near;
	*limit = 200;
}

static void gs_work(int t)
{
	if (t == 0)
		writer(gs_iters);
	else
		hits[t * 8] = reader(gs_iters);
}

static int gs_check(void)
{
	return *version != (gs_iters + 3) / 4;
}
