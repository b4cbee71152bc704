/* dirty_marks - per-thread dirty marks in one byte array.
 *
 * A block cache marks the blocks its threads write in one array of bytes,
 * one byte per thread's current block.  For every item a thread computes
 * the block's new checksum (4 dependent multiplies over the item) and, if
 * the checksum's low bits say the block changed, sets its byte (a plain
 * store), else clears it.  Eight threads' bytes share a line: false
 * sharing on plain byte stores taken on either side of a branch, with
 * other work between them.  --fixed: each thread's byte on its own line.
 */
#define GS_ITERS 80000000
#include "gain_set.h"

static volatile unsigned char *marks;    /* thread t's at marks[t * stride] */
static int stride;
static long changed[GS_MAX_THREADS * 8];

static GS_NOINLINE long mark_blocks(volatile unsigned char *mark, long n, unsigned long sum)
{
	long c = 0;

	for (long i = 0; i < n; i++) {
		for (int k = 0; k < 4; k++)
			sum = sum * 6364136223846793005ul + (unsigned long)i;
		if ((sum >> 60) & 1) {
			*mark = 1;
			c++;
		} else {
			*mark = 0;
		}
	}
	return c;
}

static void gs_setup(void)
{
	stride = gs_fixed ? 64 : 1;
	marks = gs_calloc_aligned((size_t)gs_threads, 64);
}

static void gs_work(int t)
{
	changed[t * 8] = mark_blocks(&marks[t * stride], gs_iters, 1442695040888963407ul + (unsigned long)t);
}

static int gs_check(void)
{
	for (int t = 0; t < gs_threads; t++)
		if (changed[t * 8] <= 0 || changed[t * 8] >= gs_iters)
			return 1;
	return 0;
}
