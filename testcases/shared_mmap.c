/* shared_mmap - two processes write adjacent words of one shared struct.
 *
 * The parent maps a MAP_SHARED|MAP_ANONYMOUS region holding a
 * struct shared_counters and forks: the child inherits the mapping (the
 * same shmem object, "/dev/zero (deleted)" in both processes' maps).  The
 * parent adds to c->a, the child to c->b: two processes, one cache line,
 * different bytes.  The adds are atomic (lock add), as counters that
 * processes share are: every sample of them is a write.  contend must report false sharing across processes,
 * with both pids, struct shared_counters and members a and b.
 *
 * --padded: the child's counter is in another struct 64 bytes further on,
 * on a line of its own: nothing to report.
 *
 * usage: shared_mmap [--padded] [--seconds S]
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

struct shared_counters {
	long a;
	long b;
};

/* The region: the counters first, the start flag on a line of its own. */
#define REGION 4096
#define FLAG_OFFSET 2048
#define CHUNK 1000000L

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static __attribute__((noinline)) void add_a(volatile struct shared_counters *c,
					    volatile long *item, long n)
{
	for (long i = 0; i < n; i++) {
		*item = i;
		__atomic_fetch_add(&c->a, 1, __ATOMIC_RELAXED);
	}
}

static __attribute__((noinline)) void add_b(volatile struct shared_counters *c,
					    volatile long *item, long n)
{
	for (long i = 0; i < n; i++) {
		*item = i;
		__atomic_fetch_add(&c->b, 1, __ATOMIC_RELAXED);
	}
}

/* Add for the given time, once the other process is ready too. */
static void run(volatile struct shared_counters *c, int which, volatile int *ready,
		double seconds)
{
	volatile long item;	/* this process's own work, on its stack */
	double end;

	__atomic_fetch_add(ready, 1, __ATOMIC_ACQ_REL);
	while (__atomic_load_n(ready, __ATOMIC_ACQUIRE) < 2)
		;
	end = now() + seconds;
	while (now() < end) {
		if (which)
			add_b(c, &item, CHUNK);
		else
			add_a(c, &item, CHUNK);
	}
}

static void usage(void)
{
	fprintf(stderr, "usage: shared_mmap [--padded] [--seconds S]\n");
	exit(2);
}

int main(int argc, char **argv)
{
	volatile struct shared_counters *mine, *theirs;
	double seconds = 1.5;
	volatile int *ready;
	int padded = 0, status;
	char *region;
	pid_t child;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--padded"))
			padded = 1;
		else if (!strcmp(argv[i], "--seconds") && i + 1 < argc)
			seconds = atof(argv[++i]);
		else
			usage();
	}
	if (seconds <= 0)
		usage();
	region = mmap(NULL, REGION, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (region == MAP_FAILED) {
		perror("mmap");
		return 1;
	}
	mine = (volatile struct shared_counters *)region;
	theirs = padded ? (volatile struct shared_counters *)(region + 64) : mine;
	ready = (volatile int *)(region + FLAG_OFFSET);

	child = fork();
	if (child < 0) {
		perror("fork");
		return 1;
	}
	if (child == 0) {
		run(theirs, 1, ready, seconds);
		_exit(0);
	}
	run(mine, 0, ready, seconds);
	if (waitpid(child, &status, 0) < 0 || !WIFEXITED(status) || WEXITSTATUS(status)) {
		fprintf(stderr, "shared_mmap: the child failed\n");
		return 1;
	}
	printf("shared_mmap%s: parent %d added %ld to a, child %d added %ld to b in %.2f s\n",
	       padded ? " --padded" : "", (int)getpid(), mine->a, (int)child, theirs->b,
	       seconds);
	return 0;
}
