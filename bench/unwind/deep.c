/* deep.c - held-out C for bench/unwinders.sh, built -O2
 * -fomit-frame-pointer: two threads reach the hot store in libhot.so
 * through five frames of their own, of different shapes (a recursive
 * function, one with a large frame, a function pointer). */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

void hot_add(volatile long *slot, long n);

static volatile long counters[2];       /* one line: false sharing */
static long rounds;

__attribute__((noinline)) static long through_pointer(int id, long n)
{
	hot_add(&counters[id], n);
	return counters[id];
}

static long (*volatile indirect)(int, long) = through_pointer;

__attribute__((noinline)) static long big_frame(int id, long n)
{
	volatile char scratch[4096];

	memset((char *)scratch, id, sizeof(scratch));
	return indirect(id, n) + scratch[id];
}

__attribute__((noinline)) static long recurse(int id, long n, int depth)
{
	if (depth)
		return recurse(id, n, depth - 1) + depth;
	return big_frame(id, n);
}

static void *worker(void *arg)
{
	int id = (int)(long)arg;
	long sum = 0;

	for (long r = 0; r < rounds; r++)
		sum += recurse(id, 100000, 3);
	return (void *)sum;
}

int main(int argc, char **argv)
{
	pthread_t t[2];

	rounds = argc > 1 ? atol(argv[1]) : 4000;
	for (long i = 0; i < 2; i++)
		pthread_create(&t[i], NULL, worker, (void *)i);
	for (int i = 0; i < 2; i++)
		pthread_join(t[i], NULL);
	return 0;
}
