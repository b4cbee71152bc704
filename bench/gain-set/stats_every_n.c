/* stats_every_n - per-thread statistics updated every few items.
 *
 * Each thread checksums 64-byte records from its own buffer (16 KiB, in
 * L1) and, after every 8 records, adds to its struct stats: records,
 * bytes and the largest checksum seen (volatile: statistics kept in
 * memory for a monitor to read).  struct stats is 32 bytes, two to a line
 * in the array of them.  --fixed: one struct per 64-byte line.
 */
#define GS_ITERS 40000000
#include "gain_set.h"

#define RECORD 64
#define RECORDS 256
#define BATCH 8

struct stats {
	volatile long records;
	volatile long bytes;
	volatile long max_sum;
	volatile long batches;
};

static char *stats;               /* struct stats at t * size */
static size_t size;
static unsigned char buf[GS_MAX_THREADS][RECORDS * RECORD];

static struct stats *stats_of(int t)
{
	return (struct stats *)(stats + (size_t)t * size);
}

static GS_NOINLINE void parse(struct stats *st, const unsigned char *b, long n)
{
	long done = 0, best = 0;

	for (long i = 0; i < n; i++) {
		const unsigned char *r = b + (i % RECORDS) * RECORD;
		long sum = 0;

		for (int k = 0; k < RECORD; k++)
			sum += r[k] ^ (unsigned char)k;
		if (sum > best)
			best = sum;
		if (++done == BATCH) {
			st->records += done;
			st->bytes += done * RECORD;
			if (best > st->max_sum)
				st->max_sum = best;
			st->batches++;
			done = 0;
		}
	}
	st->records += done;
	st->bytes += done * RECORD;
}

static void gs_setup(void)
{
	unsigned seed = 777;

	size = gs_fixed ? 64 : sizeof(struct stats);
	stats = gs_calloc_aligned((size_t)gs_threads, size);
	for (int t = 0; t < gs_threads; t++)
		for (int i = 0; i < RECORDS * RECORD; i++) {
			seed = seed * 1103515245u + 12345u;
			buf[t][i] = (unsigned char)(seed >> 16);
		}
}

static void gs_work(int t)
{
	parse(stats_of(t), buf[t], gs_iters);
}

static int gs_check(void)
{
	for (int t = 0; t < gs_threads; t++) {
		struct stats *st = stats_of(t);

		if (st->records != gs_iters || st->bytes != gs_iters * RECORD ||
		    st->batches != gs_iters / BATCH || st->max_sum <= 0)
			return 1;
	}
	return 0;
}
