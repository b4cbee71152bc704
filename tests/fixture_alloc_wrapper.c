/* fixture_alloc_wrapper.c - a heap block allocated through two static
 * helpers that -O2 inlines into main, for e2e_alloc_sites.
 *
 * zalloc() calls calloc, counters_new() calls zalloc(), main calls
 * counters_new(); no frame pointers.  The call's site is zalloc's, and
 * only the DWARF of the inlined calls says who asked for the block:
 * the report must name counters_new and main after it.  Two threads
 * then write neighbouring longs of the block, so it has a contended line.
 *   fixture_alloc_wrapper [SECONDS]   (default 1)
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

struct counters {
	long count[2];
};

static double deadline;

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static inline void *zalloc(size_t n, size_t size)
{
	void *p = calloc(n, size);        /* ZALLOC_LINE */

	if (!p) {
		perror("calloc");
		exit(1);
	}
	return p;
}

static inline struct counters *counters_new(void)
{
	return zalloc(1, sizeof(struct counters));   /* COUNTERS_NEW_LINE */
}

static void *worker(void *arg)
{
	volatile long *c = arg;

	do {
		for (int i = 0; i < 100000; i++)
			(*c)++;
	} while (now() < deadline);
	return NULL;
}

int main(int argc, char **argv)
{
	struct counters *c = counters_new();   /* MAIN_LINE */
	pthread_t t[2];

	deadline = now() + (argc > 1 ? atof(argv[1]) : 1);
	for (int i = 0; i < 2; i++)
		if (pthread_create(&t[i], NULL, worker, &c->count[i])) {
			perror("pthread_create");
			return 1;
		}
	for (int i = 0; i < 2; i++)
		pthread_join(t[i], NULL);
	printf("%ld %ld\n", c->count[0], c->count[1]);
	free(c);
	return 0;
}
