/* no_sharing - threads that each work on their own data.
 *
 * Every thread allocates its own block (256 bytes, 64-byte aligned: four
 * lines, so no two threads' data are even on adjacent lines) and updates it
 * in a loop.  Nothing is shared, nothing may be reported.  The only data
 * the threads touch in common are read-only or written once at the end.
 *
 * usage: no_sharing [-t N] [--iters N]
 *   -t N       threads (default 2, at most 64)
 *   --iters N  steps per thread (default 1G)
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define MAX_THREADS 64
#define BLOCK_SIZE 256

struct work {
	long sum;
	long data[8];
};

struct worker {
	pthread_t thread;
	long sum;		/* result, written once at the end */
};

static long iters = 1000000000;

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* noinline, and w is a pointer: every step loads and stores the block. */
static __attribute__((noinline)) void step(struct work *w, long i)
{
	w->data[i & 7] += i;
	w->sum += w->data[(i + 3) & 7];
}

static void *worker(void *arg)
{
	struct worker *self = arg;
	struct work *w = aligned_alloc(64, BLOCK_SIZE);

	memset(w, 0, BLOCK_SIZE);
	for (long i = 0; i < iters; i++)
		step(w, i);
	self->sum = w->sum;
	free(w);
	return NULL;
}

static void usage(void)
{
	fprintf(stderr, "usage: no_sharing [-t N] [--iters N]\n");
	exit(2);
}

int main(int argc, char **argv)
{
	struct worker w[MAX_THREADS];
	int nthreads = 2, status = 0;
	double start, seconds;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "-t") && i + 1 < argc)
			nthreads = atoi(argv[++i]);
		else if (!strcmp(argv[i], "--iters") && i + 1 < argc)
			iters = atol(argv[++i]);
		else
			usage();
	}
	if (nthreads < 1 || nthreads > MAX_THREADS || iters < 1)
		usage();

	start = now();
	for (int i = 0; i < nthreads; i++) {
		if (pthread_create(&w[i].thread, NULL, worker, &w[i])) {
			perror("pthread_create");
			return 1;
		}
	}
	for (int i = 0; i < nthreads; i++)
		pthread_join(w[i].thread, NULL);
	seconds = now() - start;

	/* Same steps on private data: every thread must end with the same sum. */
	for (int i = 0; i < nthreads; i++) {
		printf("thread %d: sum %ld\n", i, w[i].sum);
		if (w[i].sum != w[0].sum)
			status = 1;
	}
	printf("%ld steps in %.2f s, %.0f steps/s\n",
	       nthreads * iters, seconds, nthreads * iters / seconds);
	if (status)
		fprintf(stderr, "threads disagree: private data was disturbed\n");
	return status;
}
