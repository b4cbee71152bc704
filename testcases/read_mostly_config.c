/* read_mostly_config - a read-mostly config line with a plain-store writer.
 *
 * Worker threads serve requests, and each request reads three fields of
 * the global struct config (limit, scale, offset).  A housekeeping thread
 * counts its passes in config.passes, a field of the same struct, with a
 * plain increment -- at -O2 gcc makes it "addq $1,cfg+8(%rip)" in a loop
 * rotated around the test of the stop flag.  Nobody meant to share
 * anything: every store takes the line from the readers, whose loads then
 * miss.  contend must report config as false sharing, passes written by
 * the housekeeper against the fields the workers read, in housekeep() and
 * handle_request().
 * --padded counts the passes in a variable of its own line instead: the
 * same work, nothing to report, and the workers run several times faster.
 *
 * usage: read_mostly_config [-t N] [--padded] [--requests N]
 *   -t N          worker threads (default 1, at most 64); one housekeeper
 *   --padded      the housekeeper's counter on a line of its own
 *   --requests N  requests per worker (default 200M)
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define MAX_THREADS 64

struct config {
	long limit;		/* read on every request */
	long passes;		/* the housekeeper's statistic: written */
	long scale;		/* read on every request */
	long offset;		/* read on every request */
};

static struct config cfg = { .limit = 1000, .scale = 3, .offset = 7 };

struct lonely_counter {
	long passes;
} __attribute__((aligned(64)));
static struct lonely_counter passes_alone;

static int stop __attribute__((aligned(64)));
static long requests = 200000000;

/* noinline: a request is a call, so its reads of cfg are not hoisted out
 * of the workers' loop */
__attribute__((noinline)) static long handle_request(long x)
{
	long y = x % cfg.limit;

	return y * cfg.scale + cfg.offset;
}

static void *serve(void *arg)
{
	long sum = 0;

	(void)arg;
	for (long i = 0; i < requests; i++)
		sum += handle_request(i);
	return (void *)sum;
}

static void *housekeep(void *arg)
{
	(void)arg;
	while (!__atomic_load_n(&stop, __ATOMIC_ACQUIRE))
		cfg.passes++;
	return NULL;
}

static void *housekeep_padded(void *arg)
{
	(void)arg;
	while (!__atomic_load_n(&stop, __ATOMIC_ACQUIRE))
		passes_alone.passes++;
	return NULL;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	pthread_t workers[MAX_THREADS], keeper;
	int nthreads = 1, padded = 0;
	long checksum = 0;
	double t0;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "-t") && i + 1 < argc)
			nthreads = atoi(argv[++i]);
		else if (!strcmp(argv[i], "--padded"))
			padded = 1;
		else if (!strcmp(argv[i], "--requests") && i + 1 < argc)
			requests = atol(argv[++i]);
		else {
			fprintf(stderr, "usage: %s [-t N] [--padded] [--requests N]\n", argv[0]);
			return 2;
		}
	}
	if (nthreads < 1 || nthreads > MAX_THREADS || requests < 1) {
		fprintf(stderr, "%s: -t takes 1 to %d, --requests a positive count\n",
			argv[0], MAX_THREADS);
		return 2;
	}
	if (pthread_create(&keeper, NULL, padded ? housekeep_padded : housekeep, NULL)) {
		perror("pthread_create");
		return 1;
	}
	t0 = now();
	for (int i = 0; i < nthreads; i++)
		if (pthread_create(&workers[i], NULL, serve, NULL)) {
			perror("pthread_create");
			return 1;
		}
	for (int i = 0; i < nthreads; i++) {
		void *r;
		pthread_join(workers[i], &r);
		checksum += (long)r;
	}
	printf("%s: %d workers, %.3f s, checksum %ld\n", padded ? "padded" : "shared",
	       nthreads, now() - t0, checksum);
	__atomic_store_n(&stop, 1, __ATOMIC_RELEASE);
	pthread_join(keeper, NULL);
	return 0;
}
