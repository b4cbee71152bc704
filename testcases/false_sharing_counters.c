/* false_sharing_counters - per-thread counters that share one cache line.
 *
 * Each thread increments its own element of counters[].  No data is shared,
 * but the elements are 8 bytes apart, so they sit in one 64-byte line and
 * every store takes the line away from the other core.  contend must report
 * counters as false sharing: counters[0] and counters[1] written by two
 * threads, in increment().  With --padded each counter has a line of its
 * own: nothing to report, and the same work runs several times faster.
 *
 * Each increment follows a store to the thread's own stack, standing for
 * the real work a counter counts.  It matters: a CPU merges back-to-back
 * stores to one line in its store buffer, which hides false sharing in a
 * loop that does nothing but increment.
 *
 * usage: false_sharing_counters [-t N] [--padded] [--iters N | --seconds S]
 *                               [--report-rate] [--start-on-signal]
 *   -t N           threads (default 2, at most 64)
 *   --padded       use padded[], one counter per cache line
 *   --iters N      increments per thread (default 700M)
 *   --seconds S    run for S seconds instead (for attaching to it)
 *   --report-rate  print the increment rate every 0.5 s
 *   --start-on-signal  create the threads, print "ready" and each thread's
 *                  tid, and start counting on SIGUSR1: a watcher attached
 *                  in between sees every increment (contend watch's test)
 */
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/syscall.h>

#define MAX_THREADS 64
#define CHUNK (1L << 20)	/* increments between looks at the stop flag */

/* volatile: each increment is a load and a store, as in code that updates
 * a per-thread statistic with other work in between. */
static volatile long counters[MAX_THREADS];

struct padded_counter {
	volatile long v;
	char pad[56];
} __attribute__((aligned(64)));
static struct padded_counter padded[MAX_THREADS];

struct worker {
	pthread_t thread;
	volatile long *counter;
	long done;		/* increments made, written once at the end */
	double seconds;		/* this thread's running time */
	int tid;		/* --start-on-signal: written before it waits */
};

static long iters = 700000000;
static int stop;		/* set by main when --seconds is up */
static int finished;		/* threads that have returned */
static int go = 1;		/* --start-on-signal: 0 until SIGUSR1 */
static int waiting;		/* threads waiting for go */

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void nap(double seconds)
{
	struct timespec ts;

	if (seconds <= 0)
		return;
	ts.tv_sec = (time_t)seconds;
	ts.tv_nsec = (long)((seconds - ts.tv_sec) * 1e9);
	nanosleep(&ts, NULL);
}

static __attribute__((noinline)) void increment(volatile long *counter,
						volatile long *item, long n)
{
	for (long i = 0; i < n; i++) {
		*item = i;
		(*counter)++;
	}
}

static void *worker(void *arg)
{
	struct worker *w = arg;
	volatile long item;	/* this thread's own work, on its stack */
	double start;
	long done = 0;

	w->tid = (int)syscall(SYS_gettid);
	__atomic_fetch_add(&waiting, 1, __ATOMIC_RELEASE);
	while (!__atomic_load_n(&go, __ATOMIC_ACQUIRE))
		nap(0.001);
	start = now();

	while (done < iters && !__atomic_load_n(&stop, __ATOMIC_RELAXED)) {
		long n = iters - done < CHUNK ? iters - done : CHUNK;

		increment(w->counter, &item, n);
		done += n;
	}
	w->done = done;
	w->seconds = now() - start;
	__atomic_fetch_add(&finished, 1, __ATOMIC_RELEASE);
	return NULL;
}

static long total(const struct worker *w, int n)
{
	long sum = 0;

	for (int i = 0; i < n; i++)
		sum += *w[i].counter;
	return sum;
}

/* Wait for the deadline (--seconds) or for the workers, printing the rate
 * every half second if asked. */
static void watch(const struct worker *w, int n, double seconds, int report_rate)
{
	double start = now(), last_time = start;
	long last = 0;

	for (;;) {
		double tick = 0.5, t;

		if (seconds > 0 && start + seconds - now() < tick)
			tick = start + seconds - now();
		nap(tick);
		t = now();
		if (report_rate) {
			long sum = total(w, n);

			printf("%5.1f s: %.0f increments/s\n", t - start,
			       (sum - last) / (t - last_time));
			fflush(stdout);
			last = sum;
			last_time = t;
		}
		if (seconds > 0 && t - start >= seconds) {
			__atomic_store_n(&stop, 1, __ATOMIC_RELAXED);
			return;
		}
		if (__atomic_load_n(&finished, __ATOMIC_ACQUIRE) == n)
			return;
	}
}

static void start_threads(struct worker *w, int n, int use_padded)
{
	for (int i = 0; i < n; i++) {
		w[i].counter = use_padded ? &padded[i].v : &counters[i];
		if (pthread_create(&w[i].thread, NULL, worker, &w[i])) {
			perror("pthread_create");
			exit(1);
		}
	}
}

static void usage(void)
{
	fprintf(stderr, "usage: false_sharing_counters [-t N] [--padded] "
		"[--iters N | --seconds S] [--report-rate] [--start-on-signal]\n");
	exit(2);
}

int main(int argc, char **argv)
{
	struct worker w[MAX_THREADS];
	int nthreads = 2, use_padded = 0, report_rate = 0, status = 0;
	double seconds = 0, longest = 0;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "-t") && i + 1 < argc)
			nthreads = atoi(argv[++i]);
		else if (!strcmp(argv[i], "--padded"))
			use_padded = 1;
		else if (!strcmp(argv[i], "--iters") && i + 1 < argc)
			iters = atol(argv[++i]);
		else if (!strcmp(argv[i], "--seconds") && i + 1 < argc)
			seconds = atof(argv[++i]);
		else if (!strcmp(argv[i], "--report-rate"))
			report_rate = 1;
		else if (!strcmp(argv[i], "--start-on-signal"))
			go = 0;
		else
			usage();
	}
	if (nthreads < 1 || nthreads > MAX_THREADS || iters < 1 || seconds < 0)
		usage();
	if (seconds > 0)
		iters = -1UL >> 1;	/* until told to stop */
	if (!go) {		/* threads inherit the mask: SIGUSR1 waits for sigwait */
		sigset_t usr1;
		int sig;

		sigemptyset(&usr1);
		sigaddset(&usr1, SIGUSR1);
		pthread_sigmask(SIG_BLOCK, &usr1, NULL);
		start_threads(w, nthreads, use_padded);
		while (__atomic_load_n(&waiting, __ATOMIC_ACQUIRE) < nthreads)
			nap(0.001);
		printf("ready:");
		for (int i = 0; i < nthreads; i++)
			printf(" thread %d tid %d%s", i, w[i].tid, i + 1 < nthreads ? "," : "\n");
		fflush(stdout);
		sigwait(&usr1, &sig);
		__atomic_store_n(&go, 1, __ATOMIC_RELEASE);
	} else {
		start_threads(w, nthreads, use_padded);
	}

	if (seconds > 0 || report_rate)
		watch(w, nthreads, seconds, report_rate);
	for (int i = 0; i < nthreads; i++)
		pthread_join(w[i].thread, NULL);

	for (int i = 0; i < nthreads; i++) {
		printf("thread %d: %ld increments in %.2f s\n", i, w[i].done, w[i].seconds);
		if (*w[i].counter != w[i].done) {
			fprintf(stderr, "counter %d is %ld, expected %ld\n",
				i, *w[i].counter, w[i].done);
			status = 1;
		}
		if (w[i].seconds > longest)
			longest = w[i].seconds;
	}
	printf("%s: %ld increments, %.0f increments/s\n",
	       use_padded ? "padded" : "counters", total(w, nthreads),
	       total(w, nthreads) / longest);
	return status;
}
