/* latent_slots - per-thread slots whose hot members sit less than a line
 * apart across slots: false sharing that one placement hides.
 *
 * slots[] holds one 64-byte struct slot per thread; thread i updates
 * slots[i].count (offset 8) and slots[i].sum (offset 40) in step(), and
 * nothing else.  The array comes from aligned_alloc(64, ...) plus --shift
 * bytes:
 *   --shift 0   slots[0].sum ends 24 bytes before slots[1].count starts,
 *               but on the line before it: nothing contends today, and
 *               contend must report latent false sharing on [0].sum and
 *               [1].count, in 2 of 4 placements at malloc's 16 bytes;
 *   --shift 32  the same two members share a line: false sharing.
 * The struct is what the program looks like either way; only where the
 * heap puts the array differs.  Each thread runs for --seconds (default
 * 2) and checks its own counts at the end (exit 1 if disturbed).
 *
 * usage: latent_slots [-t N] [--shift BYTES] [--seconds S]
 *   -t N           threads (default 2, at most 64)
 *   --shift BYTES  start the array BYTES past a 64-byte boundary (0..63,
 *                  a multiple of 8; default 0)
 *   --seconds S    run time (default 2)
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define MAX_THREADS 64
#define CHUNK 1000000

struct slot {
	long id;
	long count;		/* offset 8: written by this slot's thread */
	long unused[3];
	long sum;		/* offset 40: written by this slot's thread */
	long spare[2];
};				/* 64 bytes, 8-byte aligned */

struct worker {
	pthread_t thread;
	struct slot *slot;
	long steps;
};

static double deadline;

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* noinline, and s is a pointer: every step loads and stores the slot. */
static __attribute__((noinline)) void step(struct slot *s, long i)
{
	s->count++;
	s->sum += i;
}

static void *worker(void *arg)
{
	struct worker *w = arg;
	long steps = 0;

	/* counted here, stored once: w[] is one array on main's stack, and
	 * two threads' steps share a line of it */
	do {
		for (long i = 0; i < CHUNK; i++)
			step(w->slot, i);
		steps += CHUNK;
	} while (now() < deadline);
	w->steps = steps;
	return NULL;
}

static void usage(void)
{
	fprintf(stderr, "usage: latent_slots [-t N] [--shift BYTES] [--seconds S]\n");
	exit(2);
}

int main(int argc, char **argv)
{
	struct worker w[MAX_THREADS];
	int nthreads = 2, shift = 0, status = 0;
	double seconds = 2, start;
	char *block;
	struct slot *slots;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "-t") && i + 1 < argc)
			nthreads = atoi(argv[++i]);
		else if (!strcmp(argv[i], "--shift") && i + 1 < argc)
			shift = atoi(argv[++i]);
		else if (!strcmp(argv[i], "--seconds") && i + 1 < argc)
			seconds = atof(argv[++i]);
		else
			usage();
	}
	if (nthreads < 1 || nthreads > MAX_THREADS || shift < 0 || shift > 63 ||
	    shift % 8 || seconds <= 0)
		usage();

	block = aligned_alloc(64, (size_t)(nthreads + 1) * sizeof(struct slot));
	if (!block) {
		perror("aligned_alloc");
		return 1;
	}
	memset(block, 0, (size_t)(nthreads + 1) * sizeof(struct slot));
	slots = (struct slot *)(block + shift);
	printf("slots at line offset %d: slots[0].sum and slots[1].count are %s\n",
	       shift, (shift + 40) / 64 == (shift + 72) / 64 ? "on one line" :
	       "on different lines");

	start = now();
	deadline = start + seconds;
	for (int i = 0; i < nthreads; i++) {
		slots[i].id = i;
		w[i] = (struct worker){ .slot = &slots[i] };
		if (pthread_create(&w[i].thread, NULL, worker, &w[i])) {
			perror("pthread_create");
			return 1;
		}
	}
	for (int i = 0; i < nthreads; i++)
		pthread_join(w[i].thread, NULL);
	seconds = now() - start;

	for (int i = 0; i < nthreads; i++) {
		long want_sum = (CHUNK - 1) * (long)CHUNK / 2 * (w[i].steps / CHUNK);

		printf("thread %d: %ld steps\n", i, w[i].steps);
		if (slots[i].count != w[i].steps || slots[i].sum != want_sum ||
		    slots[i].id != i)
			status = 1;
	}
	printf("%.0f steps/s\n", (double)(w[0].steps + (nthreads > 1 ? w[1].steps : 0)) /
	       seconds);
	if (status)
		fprintf(stderr, "a slot was disturbed\n");
	free(block);
	return status;
}
