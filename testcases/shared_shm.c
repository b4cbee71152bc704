/* shared_shm - two processes write adjacent words of one shm_open object.
 *
 * The parent creates a POSIX shared memory object (/dev/shm/NAME) holding
 * a struct shm_counters and forks; parent and child each map it on their
 * own, the child at another address (it maps a page first), so the two
 * processes see the line at different addresses: only the object and its
 * offset (device, inode, offset) say it is one line.  The parent adds to
 * hits, the child to misses, with atomic adds (lock add), as counters
 * processes share are.  contend must report false sharing across
 * processes, with both pids, struct shm_counters and both members.
 *
 * --padded: the child's counter is in another struct 64 bytes further on,
 * on a line of its own: nothing to report.
 *
 * usage: shared_shm [--padded] [--seconds S]
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

struct shm_counters {
	long hits;
	long misses;
};

#define REGION 4096
#define FLAG_OFFSET 2048
#define CHUNK 1000000L

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static __attribute__((noinline)) void count_hits(volatile struct shm_counters *c,
						 volatile long *item, long n)
{
	for (long i = 0; i < n; i++) {
		*item = i;
		__atomic_fetch_add(&c->hits, 1, __ATOMIC_RELAXED);
	}
}

static __attribute__((noinline)) void count_misses(volatile struct shm_counters *c,
						   volatile long *item, long n)
{
	for (long i = 0; i < n; i++) {
		*item = i;
		__atomic_fetch_add(&c->misses, 1, __ATOMIC_RELAXED);
	}
}

/* The object, mapped by this process. */
static char *map_object(const char *name)
{
	int fd = shm_open(name, O_RDWR, 0);
	char *p;

	if (fd < 0) {
		perror("shm_open");
		exit(1);
	}
	p = mmap(NULL, REGION, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	close(fd);
	if (p == MAP_FAILED) {
		perror("mmap");
		exit(1);
	}
	return p;
}

static void run(volatile struct shm_counters *c, int which, volatile int *ready,
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
			count_misses(c, &item, CHUNK);
		else
			count_hits(c, &item, CHUNK);
	}
}

static void usage(void)
{
	fprintf(stderr, "usage: shared_shm [--padded] [--seconds S]\n");
	exit(2);
}

int main(int argc, char **argv)
{
	volatile struct shm_counters *mine, *theirs;
	double seconds = 1.5;
	int padded = 0, status, fd;
	char name[64], *region;
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
	snprintf(name, sizeof(name), "/contend-shared-shm-%d", (int)getpid());
	fd = shm_open(name, O_RDWR | O_CREAT | O_EXCL, 0600);
	if (fd < 0 || ftruncate(fd, REGION) < 0) {
		perror("shm_open");
		return 1;
	}
	close(fd);

	child = fork();
	if (child < 0) {
		perror("fork");
		shm_unlink(name);
		return 1;
	}
	if (child == 0) {
		/* a page first: the object lands elsewhere than in the parent */
		if (mmap(NULL, 4096, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0) == MAP_FAILED)
			_exit(1);
		region = map_object(name);
		theirs = (volatile struct shm_counters *)(region + (padded ? 64 : 0));
		run(theirs, 1, (volatile int *)(region + FLAG_OFFSET), seconds);
		_exit(0);
	}
	region = map_object(name);
	mine = (volatile struct shm_counters *)region;
	theirs = (volatile struct shm_counters *)(region + (padded ? 64 : 0));
	run(mine, 0, (volatile int *)(region + FLAG_OFFSET), seconds);
	shm_unlink(name);
	if (waitpid(child, &status, 0) < 0 || !WIFEXITED(status) || WEXITSTATUS(status)) {
		fprintf(stderr, "shared_shm: the child failed\n");
		return 1;
	}
	printf("shared_shm%s: parent %d counted %ld hits, child %d counted %ld misses in %.2f s\n",
	       padded ? " --padded" : "", (int)getpid(), mine->hits, (int)child,
	       theirs->misses, seconds);
	return 0;
}
