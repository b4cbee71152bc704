/* heap_struct_array - per-thread structs in one calloc'd array, written
 * through a pointer into their middle.
 *
 * Each worker gets one struct worker_arg: three int[256] histograms (3072
 * bytes, not a multiple of 64).  The array of them comes from one plain
 * calloc(n, sizeof(struct worker_arg)), so element 0's last bytes (blue[])
 * and element 1's first bytes (red[]) share a cache line wherever the array
 * lands.  Each thread counts the bytes of its own buffer into its own
 * histograms through plain int pointers taken from its struct
 * (int *red = arg->red; ... red[v]++): at the access, DWARF knows only an
 * int *, so the struct can only be named from the allocation.  The bytes
 * are chosen so that every histogram's first and last eight bins are the
 * hot ones.  contend must name the heap object by its allocation (calloc in
 * main, its size) and by struct worker_arg, with members arg[0].blue[...]
 * and arg[1].red[...], and advise on struct worker_arg.  With --padded each
 * struct is padded to a multiple of 64 and the array 64-byte aligned:
 * nothing to report.
 *
 * usage: heap_struct_array [-t N] [--padded] [--iters N]
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_THREADS 16
#define BINS 256
#define BUF_BYTES 4096

struct worker_arg {
	int red[BINS];
	int green[BINS];
	int blue[BINS];
};

struct padded_arg {
	struct worker_arg a;
} __attribute__((aligned(64)));

static long iters = 400000;

/* Bytes 0..7 and 248..255 only: the first and last lines of each histogram
 * take every increment. */
static void fill(unsigned char *buf, unsigned seed)
{
	for (int i = 0; i < BUF_BYTES; i++) {
		seed = seed * 1103515245u + 12345u;
		unsigned v = (seed >> 16) & 15;

		buf[i] = v < 8 ? v : 240 + v;
	}
}

/* noinline and plain int pointers: each increment goes to memory, and the
 * only types at the access are int *: nothing there says struct worker_arg. */
static __attribute__((noinline)) void count(int *red, int *green, int *blue,
					    const unsigned char *buf)
{
	for (int i = 0; i + 2 < BUF_BYTES; i += 3) {
		red[buf[i]]++;
		green[buf[i + 1]]++;
		blue[buf[i + 2]]++;
	}
}

struct job {
	pthread_t thread;
	struct worker_arg *arg;
	unsigned char buf[BUF_BYTES];
};

static void *worker(void *p)
{
	struct job *j = p;
	struct worker_arg *arg = j->arg;
	int *red = arg->red, *green = arg->green, *blue = arg->blue;

	for (long n = 0; n < iters; n++)
		count(red, green, blue, j->buf);
	return NULL;
}

static void usage(void)
{
	fprintf(stderr, "usage: heap_struct_array [-t N] [--padded] [--iters N]\n");
	exit(2);
}

int main(int argc, char **argv)
{
	static struct job jobs[MAX_THREADS];
	struct worker_arg *arg = NULL;
	struct padded_arg *padded = NULL;
	int nthreads = 2, use_padded = 0, status = 0;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "-t") && i + 1 < argc)
			nthreads = atoi(argv[++i]);
		else if (!strcmp(argv[i], "--padded"))
			use_padded = 1;
		else if (!strcmp(argv[i], "--iters") && i + 1 < argc)
			iters = atol(argv[++i]);
		else
			usage();
	}
	if (nthreads < 1 || nthreads > MAX_THREADS || iters < 1)
		usage();

	if (use_padded)
		padded = aligned_alloc(64, nthreads * sizeof *padded);
	else
		arg = calloc(nthreads, sizeof(struct worker_arg));
	if (!arg && !padded) {
		perror("calloc");
		return 1;
	}
	if (padded)
		memset(padded, 0, nthreads * sizeof *padded);
	/* glibc's first allocation lands 32 bytes into a line: arg[0].blue's
	 * last eight bins and arg[1].red's first eight share one */
	printf("array at line offset %u\n",
	       (unsigned)((uintptr_t)(padded ? (void *)padded : (void *)arg) & 63));
	for (int i = 0; i < nthreads; i++) {
		jobs[i].arg = padded ? &padded[i].a : &arg[i];
		fill(jobs[i].buf, 7u + (unsigned)i);
	}
	for (int i = 0; i < nthreads; i++) {
		if (pthread_create(&jobs[i].thread, NULL, worker, &jobs[i])) {
			perror("pthread_create");
			return 1;
		}
	}
	for (int i = 0; i < nthreads; i++)
		pthread_join(jobs[i].thread, NULL);

	for (int i = 0; i < nthreads; i++) {
		long total = 0;

		for (int b = 0; b < BINS; b++)
			total += jobs[i].arg->red[b] + jobs[i].arg->green[b] +
				 jobs[i].arg->blue[b];
		printf("thread %d: %ld counts\n", i, total);
		if (total != iters * 3 * (BUF_BYTES / 3))
			status = 1;
	}
	if (status)
		fprintf(stderr, "histogram counts are wrong\n");
	free(arg);
	free(padded);
	return status;
}
