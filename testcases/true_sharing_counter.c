/* true_sharing_counter - every thread adds to the same counter.
 *
 * The threads really share the data: one long, updated with an atomic
 * add (lock add) by all of them.  contend must report counter as true
 * sharing, written by every thread, in bump().  Padding cannot help here;
 * per-thread counters summed at the end can.
 *
 * usage: true_sharing_counter [-t N] [--iters N]
 *   -t N       threads (default 2, at most 64)
 *   --iters N  additions per thread (default 60M)
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define MAX_THREADS 64

static long counter;
static long iters = 60000000;

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static __attribute__((noinline)) void bump(long n)
{
	for (long i = 0; i < n; i++)
		__atomic_fetch_add(&counter, 1, __ATOMIC_RELAXED);
}

static void *worker(void *arg)
{
	bump(*(long *)arg);
	return NULL;
}

static void usage(void)
{
	fprintf(stderr, "usage: true_sharing_counter [-t N] [--iters N]\n");
	exit(2);
}

int main(int argc, char **argv)
{
	pthread_t threads[MAX_THREADS];
	int nthreads = 2;
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
		if (pthread_create(&threads[i], NULL, worker, &iters)) {
			perror("pthread_create");
			return 1;
		}
	}
	for (int i = 0; i < nthreads; i++)
		pthread_join(threads[i], NULL);
	seconds = now() - start;

	printf("counter: %ld in %.2f s, %.0f additions/s\n",
	       counter, seconds, counter / seconds);
	if (counter != nthreads * iters) {
		fprintf(stderr, "counter is %ld, expected %ld\n", counter, nthreads * iters);
		return 1;
	}
	return 0;
}
