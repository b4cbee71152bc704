/* phased - threads write the same line, but never at the same time.
 *
 * The run is cut into phases separated by a barrier.  In phase p only
 * thread p % N works, writing both fields of the global `shared`; the
 * others sleep in pthread_barrier_wait (a futex wait, not a spin).  Over the
 * whole run every thread wrote the same bytes, yet the line never moved
 * between cores while it was hot: there is no contention, and contend must
 * not report it.  A tool that only asks "which threads wrote this line?"
 * gets this wrong; one that asks "at the same time?" gets it right.
 *
 * With --together P, phase P is the exception: every thread writes the
 * line at once, true sharing that starts and stops (contend top shows it
 * appear, then fade); the total is then not checked, as the threads'
 * increments race.
 *
 * usage: phased [-t N] [--phases P] [--phase-ms M] [--together P]
 *   -t N          threads (default 2, at most 64)
 *   --phases P    number of phases (default 10)
 *   --phase-ms M  length of a phase in milliseconds (default 180)
 *   --together P  in phase P (0-based) all threads work at once
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define MAX_THREADS 64
#define BATCH 4096		/* writes between looks at the clock */

struct phase_state {
	long count;
	long owner;
};
static volatile struct phase_state shared;

struct worker {
	pthread_t thread;
	long id;
	long writes;		/* results, written once at the end */
	int phases;
	double cpu_seconds;
};

static pthread_barrier_t barrier;
static int nthreads = 2, nphases = 10;
static double phase_seconds = 0.18;
static int together = -1;	/* --together: the phase all threads work */

static double now(clockid_t clock)
{
	struct timespec ts;

	clock_gettime(clock, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Write shared for the length of one phase; return the number of writes. */
static __attribute__((noinline)) long work_phase(long id)
{
	double end = now(CLOCK_MONOTONIC) + phase_seconds;
	long n = 0;

	do {
		for (int i = 0; i < BATCH; i++) {
			shared.count++;
			shared.owner = id;
		}
		n += BATCH;
	} while (now(CLOCK_MONOTONIC) < end);
	return n;
}

static void *worker(void *arg)
{
	struct worker *w = arg;
	long writes = 0;
	int phases = 0;

	for (int p = 0; p < nphases; p++) {
		if (p % nthreads == w->id || p == together) {
			writes += work_phase(w->id);
			phases++;
		}
		pthread_barrier_wait(&barrier);
	}
	w->writes = writes;
	w->phases = phases;
	w->cpu_seconds = now(CLOCK_THREAD_CPUTIME_ID);
	return NULL;
}

static void usage(void)
{
	fprintf(stderr, "usage: phased [-t N] [--phases P] [--phase-ms M] [--together P]\n");
	exit(2);
}

int main(int argc, char **argv)
{
	struct worker w[MAX_THREADS];
	long writes = 0;
	double start, seconds;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "-t") && i + 1 < argc)
			nthreads = atoi(argv[++i]);
		else if (!strcmp(argv[i], "--phases") && i + 1 < argc)
			nphases = atoi(argv[++i]);
		else if (!strcmp(argv[i], "--phase-ms") && i + 1 < argc)
			phase_seconds = atof(argv[++i]) / 1000;
		else if (!strcmp(argv[i], "--together") && i + 1 < argc)
			together = atoi(argv[++i]);
		else
			usage();
	}
	if (nthreads < 1 || nthreads > MAX_THREADS || nphases < 1 || phase_seconds <= 0)
		usage();

	pthread_barrier_init(&barrier, NULL, nthreads);
	start = now(CLOCK_MONOTONIC);
	for (int i = 0; i < nthreads; i++) {
		w[i].id = i;
		if (pthread_create(&w[i].thread, NULL, worker, &w[i])) {
			perror("pthread_create");
			return 1;
		}
	}
	for (int i = 0; i < nthreads; i++)
		pthread_join(w[i].thread, NULL);
	seconds = now(CLOCK_MONOTONIC) - start;

	/* A thread's CPU time close to its working phases' length, not to
	 * the whole run, shows that waiting in the barrier cost nothing. */
	for (int i = 0; i < nthreads; i++) {
		printf("thread %d: worked %d of %d phases, %ld writes, "
		       "%.2f s CPU of %.2f s\n", i, w[i].phases, nphases,
		       w[i].writes, w[i].cpu_seconds, seconds);
		writes += w[i].writes;
	}
	printf("shared.count: %ld\n", shared.count);
	if (together < 0 && shared.count != writes) {
		fprintf(stderr, "shared.count is %ld, expected %ld\n", shared.count, writes);
		return 1;
	}
	return 0;
}
