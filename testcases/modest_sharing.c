/* modest_sharing - per-thread slots padded to half a line: false sharing
 * that costs little.
 *
 * work[] holds one 32-byte struct slot per thread (padded from 16 to 32
 * bytes, half a line), so threads 0 and 1 share a line.  Each thread
 * mostly computes on private data (a chain of multiplies in registers,
 * in crunch()) and only now and then publishes its progress to its own
 * slot (publish(): a load and two stores).  The sharing is real but rare:
 * while both threads run it costs a fraction of a percent of the samples,
 * too little to pass contend's thresholds for a contended line.  contend
 * must list the line as minor false sharing on struct slot ("done" of
 * both slots, written by the two threads), confirmed by its watchpoints,
 * and report no contended line.  Where the two cores pass the line
 * cheaply, publish() costs a tenth as much and leaves a few samples: the
 * watchpoints count its stores exactly all the same.
 * --padded gives each slot its own line: nothing, minor or not, may be
 * reported.
 *
 * usage: modest_sharing [-t N] [--padded] [--seconds S] [--work N]
 *   -t N        threads (default 2, at most 64)
 *   --padded    one slot per 64-byte line
 *   --seconds S run time (default 2)
 *   --work N    multiplies between two publications (default 50000)
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define MAX_THREADS 64
#define CHUNK 20000

struct slot {
	long done;		/* publications so far */
	long value;		/* the last result */
	char pad[16];		/* to 32 bytes: half a line */
};

struct worker {
	pthread_t thread;
	struct slot *slot;
	long steps;
};

static double deadline;
static long work = 50000;

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Private work: a dependent chain of multiplies, in registers. */
static __attribute__((noinline)) unsigned long crunch(unsigned long x, long n)
{
	for (long k = 0; k < n; k++)
		x = x * 6364136223846793005UL + 1442695040888963407UL;
	return x;
}

/* noinline, and s is a pointer: each publication goes to memory. */
static __attribute__((noinline)) void publish(struct slot *s, unsigned long v)
{
	s->done++;
	s->value = (long)v;
}

static void *worker(void *arg)
{
	struct worker *w = arg;
	unsigned long x = (unsigned long)w->slot;
	long steps = 0;

	/* counted here, stored once: w[] is one array on main's stack, and
	 * two threads' steps share a line of it */
	do {
		for (long i = 0; i < CHUNK; i++) {
			x = crunch(x, work);
			publish(w->slot, x);
		}
		steps += CHUNK;
	} while (now() < deadline);
	w->steps = steps;
	return NULL;
}

static void usage(void)
{
	fprintf(stderr, "usage: modest_sharing [-t N] [--padded] [--seconds S] [--work N]\n");
	exit(2);
}

int main(int argc, char **argv)
{
	struct worker w[MAX_THREADS];
	int nthreads = 2, padded = 0, status = 0;
	double seconds = 2, start;
	size_t stride;
	char *block;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "-t") && i + 1 < argc)
			nthreads = atoi(argv[++i]);
		else if (!strcmp(argv[i], "--padded"))
			padded = 1;
		else if (!strcmp(argv[i], "--seconds") && i + 1 < argc)
			seconds = atof(argv[++i]);
		else if (!strcmp(argv[i], "--work") && i + 1 < argc)
			work = atol(argv[++i]);
		else
			usage();
	}
	if (nthreads < 1 || nthreads > MAX_THREADS || seconds <= 0 || work < 0)
		usage();

	stride = padded ? 64 : sizeof(struct slot);
	block = aligned_alloc(64, (size_t)nthreads * 64);
	if (!block) {
		perror("aligned_alloc");
		return 1;
	}
	memset(block, 0, (size_t)nthreads * 64);

	start = now();
	deadline = start + seconds;
	for (int i = 0; i < nthreads; i++) {
		w[i] = (struct worker){ .slot = (struct slot *)(block + i * stride) };
		if (pthread_create(&w[i].thread, NULL, worker, &w[i])) {
			perror("pthread_create");
			return 1;
		}
	}
	for (int i = 0; i < nthreads; i++)
		pthread_join(w[i].thread, NULL);
	seconds = now() - start;

	for (int i = 0; i < nthreads; i++) {
		printf("thread %d: %ld publications\n", i, w[i].steps);
		if (w[i].slot->done != w[i].steps)
			status = 1;
	}
	printf("%.0f publications/s\n", (double)(w[0].steps + (nthreads > 1 ? w[1].steps : 0)) /
	       seconds);
	if (status)
		fprintf(stderr, "a slot was disturbed\n");
	free(block);
	return status;
}
