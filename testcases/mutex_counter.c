/* mutex_counter - a job queue's bookkeeping behind one mutex.
 *
 * Every worker does a little work per job, then takes g.lock and updates
 * g.done and g.checksum.  The lock word bounces between the cores (each
 * lock and unlock is a locked RMW on it): true sharing, which no padding
 * fixes.  contend must report the mutex as one object, g.lock, true
 * sharing, taken by every worker -- not a re-layout of glibc's mutex
 * internals -- and the counters it guards (written by every thread, in
 * turn) as true sharing too.  The mutex starts 0 bytes into g, so it sits
 * on one line with done and checksum.
 *
 * usage: mutex_counter [-t N] [--iters N] [--sharded]
 *   -t N       threads (default 2, at most 64)
 *   --iters N  jobs per thread (default 4M)
 *   --sharded  each thread counts in its own padded slot, no lock, and
 *              the totals are summed at the end: nothing to report
 * Prints "done N checksum X"; exits 1 if N is not threads x iters.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_THREADS 64

struct shared {
	pthread_mutex_t lock;
	long done;
	long checksum;
};

struct slot {
	_Alignas(64) long done;
	long checksum;
};

static struct shared g = { PTHREAD_MUTEX_INITIALIZER, 0, 0 };
static struct slot slots[MAX_THREADS];
static long iters = 4000000;
static int sharded;

static __attribute__((noinline)) long do_job(long i)
{
	long x = i;

	for (int k = 0; k < 20; k++)
		x = x * 6364136223846793005L + 1442695040888963407L;
	return x;
}

static __attribute__((noinline)) void record_job(long r)
{
	pthread_mutex_lock(&g.lock);
	g.done++;
	g.checksum += r;
	pthread_mutex_unlock(&g.lock);
}

static __attribute__((noinline)) void record_job_sharded(struct slot *s, long r)
{
	s->done++;
	s->checksum += r;
}

static void *worker(void *arg)
{
	struct slot *s = arg;

	for (long i = 0; i < iters; i++) {
		long r = do_job(i);

		if (sharded)
			record_job_sharded(s, r);
		else
			record_job(r);
	}
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t th[MAX_THREADS];
	int n = 2;
	long done = 0, checksum = 0;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "-t") && i + 1 < argc)
			n = atoi(argv[++i]);
		else if (!strcmp(argv[i], "--iters") && i + 1 < argc)
			iters = atol(argv[++i]);
		else if (!strcmp(argv[i], "--sharded"))
			sharded = 1;
		else {
			fprintf(stderr, "usage: mutex_counter [-t N] [--iters N] [--sharded]\n");
			return 2;
		}
	}
	if (n < 1 || n > MAX_THREADS || iters < 1) {
		fprintf(stderr, "mutex_counter: 1..%d threads, iters >= 1\n", MAX_THREADS);
		return 2;
	}
	for (int i = 0; i < n; i++)
		pthread_create(&th[i], NULL, worker, &slots[i]);
	for (int i = 0; i < n; i++)
		pthread_join(th[i], NULL);
	if (sharded) {
		for (int i = 0; i < n; i++) {
			done += slots[i].done;
			checksum += slots[i].checksum;
		}
	} else {
		done = g.done;
		checksum = g.checksum;
	}
	printf("done %ld checksum %lx\n", done, (unsigned long)checksum);
	return done == n * iters ? 0 : 1;
}
