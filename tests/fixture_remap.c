/* fixture_remap.c - dlclose() a library and dlopen() another at the same
 * address, with the same code contending before and after.
 *
 *   fixture_remap LIB_A LIB_B [--seconds S] [--wait]
 *
 * Phase 1: two threads call remap_work_a of LIB_A on the two halves of
 * one cache line (false sharing) for S seconds (default 1); LIB_A is
 * closed, LIB_B opened, and phase 2 does the same with remap_work_b.
 * Prints "a 0xBASE" and "b 0xBASE" (where each was loaded: the test skips
 * unless they match) and exits 0.  --wait: print "ready PID" and wait for
 * SIGUSR1 before phase 1, for a test that attaches first.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE   /* dlinfo */
#endif
#include <dlfcn.h>
#include <link.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

typedef void work_fn(volatile long *counter, long n);

struct { long first, second; } _Alignas(64) remap_pair;

static work_fn *work;
static double seconds = 1;

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void *worker(void *arg)
{
	volatile long *counter = arg;
	double end = now() + seconds;

	while (now() < end)
		work(counter, 100000);
	return NULL;
}

/* open lib, run both threads in symbol, say where lib was; the handle */
static void *phase(const char *lib, const char *symbol, const char *tag)
{
	void *h = dlopen(lib, RTLD_NOW | RTLD_LOCAL);
	struct link_map *lm = NULL;
	pthread_t t[2];

	if (!h || !(work = (work_fn *)dlsym(h, symbol)) || dlinfo(h, RTLD_DI_LINKMAP, &lm)) {
		fprintf(stderr, "fixture_remap: %s: %s\n", lib, dlerror());
		exit(2);
	}
	printf("%s 0x%lx\n", tag, (unsigned long)lm->l_addr);
	fflush(stdout);
	pthread_create(&t[0], NULL, worker, (void *)&remap_pair.first);
	pthread_create(&t[1], NULL, worker, (void *)&remap_pair.second);
	pthread_join(t[0], NULL);
	pthread_join(t[1], NULL);
	return h;
}

int main(int argc, char **argv)
{
	int wait_signal = 0;
	sigset_t set;
	int sig;

	if (argc < 3) {
		fprintf(stderr, "usage: fixture_remap LIB_A LIB_B [--seconds S] [--wait]\n");
		return 2;
	}
	for (int i = 3; i < argc; i++) {
		if (!strcmp(argv[i], "--seconds") && i + 1 < argc)
			seconds = atof(argv[++i]);
		else if (!strcmp(argv[i], "--wait"))
			wait_signal = 1;
	}
	if (wait_signal) {
		sigemptyset(&set);
		sigaddset(&set, SIGUSR1);
		sigprocmask(SIG_BLOCK, &set, NULL);
		printf("ready %d\n", (int)getpid());
		fflush(stdout);
		sigwait(&set, &sig);
	}
	dlclose(phase(argv[1], "remap_work_a", "a"));
	dlclose(phase(argv[2], "remap_work_b", "b"));
	return 0;
}
