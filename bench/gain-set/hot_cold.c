/* hot_cold - per-thread structs with hot and cold fields, two to a line.
 *
 * struct filter is 32 bytes: two counters written on every item (hits,
 * misses) and two settings only read (mask, limit).  The array of them
 * starts on a line, so threads 0 and 1 share one: each writes its own hot
 * fields and reads its own cold ones, which the other thread's writes keep
 * taking away.  The test on each item depends on the data (a branch that
 * mispredicts often).  --fixed: one struct per 64-byte line.
 */
#define GS_ITERS 60000
#include "gain_set.h"

#define N 4096

struct filter {
	long hits, misses;
	long mask, limit;
};

static char *filters;             /* struct filter at t * size */
static size_t size;
static unsigned char input[GS_MAX_THREADS][N];

static GS_NOINLINE void run_filter(struct filter *f, const unsigned char *in, int n)
{
	for (int i = 0; i < n; i++) {
		if ((in[i] & f->mask) < f->limit)
			f->hits++;
		else
			f->misses++;
	}
}

static void gs_setup(void)
{
	unsigned seed = 99;

	size = gs_fixed ? 64 : sizeof(struct filter);
	filters = gs_calloc_aligned((size_t)gs_threads, size);
	for (int t = 0; t < gs_threads; t++) {
		struct filter *f = (struct filter *)(filters + t * size);

		f->mask = 255;
		f->limit = 128;
		for (int i = 0; i < N; i++) {
			seed = seed * 1103515245u + 12345u;
			input[t][i] = (unsigned char)(seed >> 16);
		}
	}
}

static void gs_work(int t)
{
	for (long r = 0; r < gs_iters; r++)
		run_filter((struct filter *)(filters + t * size), input[t], N);
}

static int gs_check(void)
{
	for (int t = 0; t < gs_threads; t++) {
		struct filter *f = (struct filter *)(filters + t * size);

		if (f->hits + f->misses != gs_iters * N)
			return 1;
	}
	return 0;
}
