/* fixture_main_exit.c - a process whose main thread has exited.
 *
 * Two workers increment adjacent counters (false sharing) for --seconds S
 * (default 10); main starts them, prints "ready PID TID1 TID2" and calls
 * pthread_exit().  /proc/PID then shows a zombie main thread with no
 * memory (maps empty, mem unreadable, exe unreadable) while the process
 * runs on: what e2e_main_exit.sh attaches to.  The last worker to finish
 * prints the counts and the process exits 0.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

struct pair {
	long first;     /* worker 0 */
	long second;    /* worker 1, same line */
};

struct pair _Alignas(64) shared_pair;

static double seconds = 10;
static pid_t tids[2];
static pthread_mutex_t ready_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t ready_cond = PTHREAD_COND_INITIALIZER;

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* __attribute__((noinline)): a function of its own to name in the report */
__attribute__((noinline)) static void bump(volatile long *counter, long n)
{
	for (long i = 0; i < n; i++)
		(*counter)++;
}

static void *worker(void *arg)
{
	long me = (long)arg;
	volatile long *counter = me ? &shared_pair.second : &shared_pair.first;
	double end;

	pthread_mutex_lock(&ready_lock);
	tids[me] = (pid_t)syscall(SYS_gettid);
	pthread_cond_broadcast(&ready_cond);
	pthread_mutex_unlock(&ready_lock);
	end = now() + seconds;
	while (now() < end)
		bump(counter, 1000000);
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t t[2];

	if (argc == 3 && !strcmp(argv[1], "--seconds"))
		seconds = atof(argv[2]);
	for (long i = 0; i < 2; i++)
		if (pthread_create(&t[i], NULL, worker, (void *)i)) {
			perror("pthread_create");
			return 2;
		}
	pthread_mutex_lock(&ready_lock);
	while (!tids[0] || !tids[1])
		pthread_cond_wait(&ready_cond, &ready_lock);
	pthread_mutex_unlock(&ready_lock);
	printf("ready %d %d %d\n", (int)getpid(), (int)tids[0], (int)tids[1]);
	fflush(stdout);
	/* the workers go on; the process ends when the last one returns */
	pthread_exit(NULL);
}
