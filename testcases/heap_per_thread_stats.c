/* heap_per_thread_stats - per-thread statistics packed in one heap array.
 *
 * The classic "each thread has its own slot" design: stats[] holds one
 * struct thread_stats per thread, and a thread only ever updates its own
 * slot, through a pointer.  The struct is 32 bytes, so two slots share a
 * 64-byte line and threads 0 and 1 falsely share it.  The data is on the
 * heap and reached through a pointer, so contend has to find the type from
 * the pointer's DWARF type (s in record_lookup): it must report a false
 * sharing line of struct thread_stats.  With --padded each slot is aligned
 * to its own line: nothing to report.
 *
 * With --malloc-each each thread's slot is a block of its own, malloc'd
 * by main one after the other (struct own_slot, 40 bytes): glibc puts two
 * such blocks 48 bytes apart, so the slots of threads 0 and 1 share a
 * line in 3 of the 4 placements malloc's 16 bytes allow -- among them the
 * one a fresh heap gives (its first block at heap+0x2a0, 32 bytes into a
 * line).  Separate blocks of one call site: what `contend run
 * --measure-fix` can fix without a rebuild, by aligning them to the line.
 *
 * usage: heap_per_thread_stats [-t N] [--padded | --malloc-each] [--iters N]
 *   -t N           threads (default 2, at most 64)
 *   --padded       one slot per cache line
 *   --malloc-each  one malloc per slot
 *   --iters N      lookups per thread (default 400M)
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define MAX_THREADS 64

struct thread_stats {
	long lookups;
	long hits;
	long misses;
	long bytes;
};

struct padded_stats {
	struct thread_stats s;
} __attribute__((aligned(64)));

struct own_slot {			/* --malloc-each */
	long id;
	struct thread_stats s;
};

struct worker {
	pthread_t thread;
	struct thread_stats *stats;	/* this thread's slot */
};

static long iters = 400000000;

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* noinline, and s is a pointer: every call updates the slot in memory. */
static __attribute__((noinline)) void record_lookup(struct thread_stats *s, long key)
{
	s->lookups++;
	if (key & 1)
		s->hits++;
	else
		s->misses++;
	s->bytes += key & 63;
}

static void *worker(void *arg)
{
	struct worker *w = arg;

	for (long i = 0; i < iters; i++)
		record_lookup(w->stats, (i * 0x9e3779b97f4a7c15UL) >> 40);
	return NULL;
}

static void usage(void)
{
	fprintf(stderr, "usage: heap_per_thread_stats [-t N] [--padded | --malloc-each] "
		"[--iters N]\n");
	exit(2);
}

int main(int argc, char **argv)
{
	struct worker w[MAX_THREADS];
	struct thread_stats *stats = NULL;
	struct padded_stats *padded = NULL;
	struct own_slot *own[MAX_THREADS] = { 0 };
	int nthreads = 2, use_padded = 0, malloc_each = 0, status = 0;
	double start, seconds;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "-t") && i + 1 < argc)
			nthreads = atoi(argv[++i]);
		else if (!strcmp(argv[i], "--padded"))
			use_padded = 1;
		else if (!strcmp(argv[i], "--malloc-each"))
			malloc_each = 1;
		else if (!strcmp(argv[i], "--iters") && i + 1 < argc)
			iters = atol(argv[++i]);
		else
			usage();
	}
	if (nthreads < 1 || nthreads > MAX_THREADS || iters < 1 || (use_padded && malloc_each))
		usage();

	/* 64-byte aligned, not plain malloc: malloc only promises 16, and
	 * whether slots 0 and 1 share a line would depend on where the array
	 * lands (glibc's first malloc returns heap+0x2a0, 32 bytes into a
	 * line, which puts them on two lines and slots 1 and 2 on one).  A
	 * test needs the same answer every run. */
	if (malloc_each) {
		for (int i = 0; i < nthreads; i++) {
			if (!(own[i] = malloc(sizeof *own[i]))) {
				perror("malloc");
				return 1;
			}
			own[i]->id = i;
		}
	} else if (use_padded) {
		padded = aligned_alloc(64, nthreads * sizeof *padded);
	} else {
		stats = aligned_alloc(64, (nthreads * sizeof *stats + 63) & ~63UL);
	}
	if (!stats && !padded && !malloc_each) {
		perror("aligned_alloc");
		return 1;
	}
	for (int i = 0; i < nthreads; i++) {
		w[i].stats = malloc_each ? &own[i]->s : use_padded ? &padded[i].s : &stats[i];
		memset(w[i].stats, 0, sizeof *w[i].stats);
	}

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

	for (int i = 0; i < nthreads; i++) {
		struct thread_stats *s = w[i].stats;

		printf("thread %d: %ld lookups, %ld hits, %ld misses, %ld bytes\n",
		       i, s->lookups, s->hits, s->misses, s->bytes);
		if (s->lookups != iters || s->hits + s->misses != iters)
			status = 1;
	}
	printf("%s: %ld lookups in %.2f s, %.0f lookups/s\n",
	       malloc_each ? "malloc-each" : use_padded ? "padded" : "stats", nthreads * iters,
	       seconds,
	       nthreads * iters / seconds);
	if (status)
		fprintf(stderr, "lookup counts are wrong\n");
	free(stats);
	free(padded);
	for (int i = 0; i < nthreads; i++)
		free(own[i]);
	return status;
}
