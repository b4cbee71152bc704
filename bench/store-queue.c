/* store-queue - what false sharing costs, by the shape of the loop.
 *
 * Two threads each update their own long; "shared" puts the two longs on
 * one line, "padded" on lines of their own.  The shapes:
 *   rmw         counter += i & 7 (one RMW, nothing else stored)
 *   load-store  v = counter; counter = v + 1 (volatile: two instructions)
 *   +stack      the same, after a store to a stack variable
 *   rmw+stack   the RMW after a store to a stack variable
 *   atomic      __atomic_fetch_add
 * Prints one line per shape: seconds shared, seconds padded, ratio (median
 * of RUNS, interleaved).  detector/store_stream.h is the model it checks:
 * only loops that also store to another line, or locked ops, pay much.
 * The loops are the probe's (detector/transfer_price.h), which measures
 * "atomic" and "rmw" at run time: the two print the same prices.
 *   bench/store-queue [ITERS] [RUNS]    (default 100M, 3)
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "detector/transfer_price.h"

static const char *const shape_name[LOOP_SHAPES] = {
	"rmw", "load-store", "+stack", "rmw+stack", "atomic", "fenced",
};

static struct { _Alignas(64) long c[8]; } shared;
static struct { _Alignas(64) long c; } padded[2];
static enum loop_shape shape;
static int use_padded;
static long iters;

static void *work(void *arg)
{
	long t = (long)arg;
	volatile long *c = use_padded ? &padded[t].c : &shared.c[t];

	transfer_loop_run(shape, c, iters);
	return NULL;
}

static double run(enum loop_shape s, int pad)
{
	struct timespec a, b;
	pthread_t th[2];

	shape = s;
	use_padded = pad;
	clock_gettime(CLOCK_MONOTONIC, &a);
	for (long i = 0; i < 2; i++)
		pthread_create(&th[i], NULL, work, (void *)i);
	for (int i = 0; i < 2; i++)
		pthread_join(th[i], NULL);
	clock_gettime(CLOCK_MONOTONIC, &b);
	return (double)(b.tv_sec - a.tv_sec) + (double)(b.tv_nsec - a.tv_nsec) / 1e9;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static double median(double *v, int n)
{
	qsort(v, (size_t)n, sizeof(*v), cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

int main(int argc, char **argv)
{
	int runs = argc > 2 ? atoi(argv[2]) : 3;
	double s[16], p[16];

	iters = argc > 1 ? atol(argv[1]) : 100000000;
	if (runs < 1 || runs > 16 || iters < 1) {
		fprintf(stderr, "usage: store-queue [ITERS] [RUNS (1-16)]\n");
		return 2;
	}
	printf("| loop | shared s | padded s | shared/padded |\n|---|---|---|---|\n");
	for (int k = 0; k < LOOP_SHAPES; k++) {
		for (int r = 0; r < runs; r++) {
			s[r] = run((enum loop_shape)k, 0);
			p[r] = run((enum loop_shape)k, 1);
		}
		double ms = median(s, runs), mp = median(p, runs);
		printf("| %s | %.3f | %.3f | %.2f |\n", shape_name[k], ms, mp, ms / mp);
	}
	return 0;
}
