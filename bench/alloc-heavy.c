/* alloc-heavy - a malloc-heavy program, for the cost of allocation tracking
 * (bench/alloc-overhead.sh).
 *
 * Each thread serves "requests", as a server or a compiler pass does: a
 * request allocates a few temporaries (a copy of its key, a parse buffer,
 * a node list of 4 to 11 nodes of 24 to 280 bytes, calloc for some,
 * realloc to grow the buffer), hashes what it put in them and frees them
 * all; one request in 16 stores a result in a cache of CACHE entries,
 * freeing the entry it evicts, so some blocks live long and go out to
 * contend.  About 10 allocation calls per request; --work W more passes
 * over each node (default 8) are the request's own work: with --work 0
 * it does little but allocate (the worst case for tracking), at the
 * default some 3 million allocation calls per second and thread, a
 * malloc-heavy program still.  Prints the checksum and the allocation
 * calls per second.
 *
 * usage: alloc-heavy [-t THREADS] [--requests N] [--work W]
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define CACHE 4096

static long requests = 1500000;
static int work = 8;          /* extra passes over each node: the request's own work */

struct job {
	pthread_t thread;
	unsigned seed;
	uint64_t sum, calls;
	void *cache[CACHE];
};

static unsigned next_rand(unsigned *s)
{
	*s = *s * 1103515245u + 12345u;
	return *s >> 8;
}

static uint64_t hash(const unsigned char *p, size_t n, uint64_t h)
{
	for (size_t i = 0; i < n; i += 8)
		h = (h ^ p[i]) * 0x100000001b3ull;
	return h;
}

static void request(struct job *j, long r)
{
	char key[32];
	unsigned char *node[12];
	size_t len = (size_t)snprintf(key, sizeof(key), "request-%ld", r);
	char *copy = malloc(len + 1);
	unsigned nodes = 4 + next_rand(&j->seed) % 8;
	unsigned char *buf = malloc(64);

	memcpy(copy, key, len + 1);
	j->sum += hash((unsigned char *)copy, len, 0);
	for (unsigned i = 0; i < nodes; i++) {
		size_t n = 24 + next_rand(&j->seed) % 257;

		node[i] = (i & 3) ? malloc(n) : calloc(1, n);
		memset(node[i], (int)i, n);
		for (int w = 0; w <= work; w++)
			j->sum += hash(node[i] + w, n - (size_t)w, j->sum);
	}
	buf = realloc(buf, 256);
	memset(buf, 1, 256);
	j->sum += hash(buf, 256, j->sum);
	if ((r & 15) == 0) {       /* a result worth keeping, for a while */
		unsigned slot = next_rand(&j->seed) % CACHE;

		free(j->cache[slot]);
		j->cache[slot] = malloc(48 + len);
		memcpy(j->cache[slot], key, len);
		j->calls += 2;
	}
	for (unsigned i = 0; i < nodes; i++)
		free(node[i]);
	free(buf);
	free(copy);
	j->calls += 2 * nodes + 5;
}

static void *worker(void *arg)
{
	struct job *j = arg;

	for (long r = 0; r < requests; r++)
		request(j, r);
	for (int i = 0; i < CACHE; i++)
		free(j->cache[i]);
	return NULL;
}

int main(int argc, char **argv)
{
	static struct job jobs[16];
	int threads = 2;
	uint64_t sum = 0, calls = 0;
	struct timespec t0, t1;
	double s;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "-t") && i + 1 < argc)
			threads = atoi(argv[++i]);
		else if (!strcmp(argv[i], "--requests") && i + 1 < argc)
			requests = atol(argv[++i]);
		else if (!strcmp(argv[i], "--work") && i + 1 < argc)
			work = atoi(argv[++i]);
		else {
			fprintf(stderr, "usage: alloc-heavy [-t THREADS] [--requests N] [--work W]\n");
			return 2;
		}
	}
	if (threads < 1 || threads > 16 || requests < 1 || work < 0 || work > 16)
		return 2;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (int i = 0; i < threads; i++) {
		jobs[i].seed = 17u + (unsigned)i;
		pthread_create(&jobs[i].thread, NULL, worker, &jobs[i]);
	}
	for (int i = 0; i < threads; i++) {
		pthread_join(jobs[i].thread, NULL);
		sum += jobs[i].sum;
		calls += jobs[i].calls;
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	s = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
	printf("checksum %llu: %llu allocation calls in %.3f s, %.1f M calls/s\n",
	       (unsigned long long)sum, (unsigned long long)calls, s, (double)calls / s / 1e6);
	return 0;
}
