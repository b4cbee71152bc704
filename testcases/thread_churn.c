/* thread_churn - many short-lived threads that fight over one counter.
 *
 * main creates threads in batches, each thread adds to the global
 * shared_hits with an atomic add (lock add) in bump() for a few
 * milliseconds, and main joins the batch before creating the next one:
 * 1200 threads in about three seconds, never more than a batch alive.  A
 * profiler attached to it must follow threads it never saw at attach time
 * (they are created by followed threads) and must not keep a file
 * descriptor or other state per thread that died.  contend must report
 * shared_hits as true sharing, in bump().
 *
 * usage: thread_churn [-b BATCH] [-n THREADS] [--seconds S]
 *   -b BATCH     threads alive at once (default 4, at most 64)
 *   -n THREADS   threads to create in all (default 1200)
 *   --seconds S  spread them over about S seconds (default 3)
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define MAX_BATCH 64
#define CHUNK 4096		/* additions between looks at the clock */

static long shared_hits;

/* Each on its own line: the one sharing this testcase is about is
 * shared_hits; 24-byte workers side by side made a second, real but
 * faint, false-sharing line on `done` in some runs. */
struct worker {
	_Alignas(64) pthread_t thread;
	double deadline;
	long done;		/* additions made by this thread */
};

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static __attribute__((noinline)) void bump(long n)
{
	for (long i = 0; i < n; i++)
		__atomic_fetch_add(&shared_hits, 1, __ATOMIC_RELAXED);
}

static void *worker(void *arg)
{
	struct worker *w = arg;

	do {
		bump(CHUNK);
		w->done += CHUNK;
	} while (now() < w->deadline);
	return NULL;
}

static void usage(void)
{
	fprintf(stderr, "usage: thread_churn [-b BATCH] [-n THREADS] [--seconds S]\n");
	exit(2);
}

int main(int argc, char **argv)
{
	struct worker w[MAX_BATCH];
	int batch = 4;
	long nthreads = 1200, created = 0, expected = 0;
	double seconds = 3, slice, start;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "-b") && i + 1 < argc)
			batch = atoi(argv[++i]);
		else if (!strcmp(argv[i], "-n") && i + 1 < argc)
			nthreads = atol(argv[++i]);
		else if (!strcmp(argv[i], "--seconds") && i + 1 < argc)
			seconds = atof(argv[++i]);
		else
			usage();
	}
	if (batch < 1 || batch > MAX_BATCH || nthreads < 1 || seconds <= 0)
		usage();
	/* every batch works for the same slice of the total time */
	slice = seconds * batch / nthreads;

	start = now();
	while (created < nthreads) {
		int n = nthreads - created < batch ? (int)(nthreads - created) : batch;
		double deadline = now() + slice;

		for (int i = 0; i < n; i++) {
			w[i].deadline = deadline;
			w[i].done = 0;
			if (pthread_create(&w[i].thread, NULL, worker, &w[i])) {
				perror("pthread_create");
				return 1;
			}
		}
		for (int i = 0; i < n; i++) {
			pthread_join(w[i].thread, NULL);
			expected += w[i].done;
		}
		created += n;
	}

	printf("%ld threads, %ld additions in %.2f s\n", created, shared_hits, now() - start);
	if (shared_hits != expected) {
		fprintf(stderr, "shared_hits is %ld, expected %ld\n", shared_hits, expected);
		return 1;
	}
	return 0;
}
