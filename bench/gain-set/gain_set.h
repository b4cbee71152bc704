/* gain_set.h - the harness every program of bench/gain-set/ shares.
 *
 * A program defines its shared data, gs_setup() (allocate, after the
 * options are read), gs_work(t) (thread t's loop, gs_iters rounds) and
 * gs_check() (0 if the result is right), and includes this file last.
 * The harness reads
 *   -t N        threads (default 2, at most GS_MAX_THREADS)
 *   --fixed     the variant with the sharing fixed (padded, per-thread)
 *   --iters N   rounds per thread (default: the program's GS_ITERS, sized
 *               so that the original runs at least 0.4 s, past contend's
 *               first watch window: SPLIT.md)
 * runs the threads, and prints the wall seconds of the threads' part.
 * Everything a loop touches goes to memory as in user code built -O2 -g:
 * through pointers a noinline function cannot see the origin of, or
 * volatile where the pattern is a flag or a statistic.
 */
#ifndef GAIN_SET_H
#define GAIN_SET_H

#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define GS_MAX_THREADS 16
#define GS_NOINLINE __attribute__((noinline))

static int gs_threads = 2;
static int gs_fixed;
static long gs_iters;

static void gs_setup(void);
static void gs_work(int t);
static int gs_check(void);

static void *gs_thread(void *arg)
{
	gs_work((int)(intptr_t)arg);
	return NULL;
}

static double gs_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void *gs_calloc_aligned(size_t n, size_t size)
{
	void *p = aligned_alloc(64, (n * size + 63) / 64 * 64);

	if (!p) {
		perror("aligned_alloc");
		exit(2);
	}
	memset(p, 0, n * size);
	return p;
}

int main(int argc, char **argv)
{
	pthread_t th[GS_MAX_THREADS];
	double t0;

	gs_iters = GS_ITERS;
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "-t") && i + 1 < argc)
			gs_threads = atoi(argv[++i]);
		else if (!strcmp(argv[i], "--fixed"))
			gs_fixed = 1;
		else if (!strcmp(argv[i], "--iters") && i + 1 < argc)
			gs_iters = atol(argv[++i]);
		else {
			fprintf(stderr, "usage: %s [-t N] [--fixed] [--iters N]\n", argv[0]);
			return 2;
		}
	}
	if (gs_threads < 1 || gs_threads > GS_MAX_THREADS || gs_iters < 1) {
		fprintf(stderr, "%s: -t 1..%d, --iters >= 1\n", argv[0], GS_MAX_THREADS);
		return 2;
	}
	gs_setup();
	t0 = gs_now();
	for (int i = 0; i < gs_threads; i++)
		if (pthread_create(&th[i], NULL, gs_thread, (void *)(intptr_t)i)) {
			perror("pthread_create");
			return 2;
		}
	for (int i = 0; i < gs_threads; i++)
		pthread_join(th[i], NULL);
	printf("%.4f s\n", gs_now() - t0);
	if (gs_check()) {
		fprintf(stderr, "%s: wrong result\n", argv[0]);
		return 1;
	}
	return 0;
}

#endif
