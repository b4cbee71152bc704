/* hist_scatter - per-thread histograms in one array: scattered writes to
 * big private arrays, only the boundary lines shared.
 *
 * One allocation holds a struct hist (three unsigned[256], 3072 bytes)
 * per thread, starting 32 bytes into a line, so thread t's last 8 blue
 * bins and thread t+1's first 8 red bins share a line; the other 47 lines
 * of each struct are private.  The input is skewed: a quarter of the
 * values fall in the 8 edge bins, so about one increment in 11 lands on a
 * shared line.  --fixed: the array starts on a line.
 */
#define GS_ITERS 300000
#include "gain_set.h"

#define BINS 256
#define BUF 3072

struct hist {
	unsigned red[BINS], green[BINS], blue[BINS];
};

static struct hist *hists;
static unsigned char buf[GS_MAX_THREADS][BUF];

static GS_NOINLINE void count(unsigned *red, unsigned *green, unsigned *blue,
			      const unsigned char *b)
{
	for (int i = 0; i + 2 < BUF; i += 3) {
		red[b[i]]++;
		green[b[i + 1]]++;
		blue[b[i + 2]]++;
	}
}

static void gs_setup(void)
{
	char *raw = gs_calloc_aligned(1, (size_t)gs_threads * sizeof(struct hist) + 64);
	unsigned seed = 12345;

	hists = (struct hist *)(raw + (gs_fixed ? 0 : 32));
	for (int t = 0; t < gs_threads; t++)
		for (int i = 0; i < BUF; i++) {
			seed = seed * 1103515245u + 12345u;
			unsigned v = (seed >> 8) & 255, edge = (seed >> 20) & 3;

			/* a quarter in bins 0..3 or 252..255 (the edge lines) */
			buf[t][i] = edge ? v : (v & 4 ? 252 + (v & 3) : v & 3);
		}
}

static void gs_work(int t)
{
	struct hist *h = &hists[t];

	for (long r = 0; r < gs_iters; r++)
		count(h->red, h->green, h->blue, buf[t]);
}

static int gs_check(void)
{
	for (int t = 0; t < gs_threads; t++) {
		unsigned long n = 0;

		for (int b = 0; b < BINS; b++)
			n += hists[t].red[b] + hists[t].green[b] + hists[t].blue[b];
		if (n != (unsigned long)gs_iters * BUF)
			return 1;
	}
	return 0;
}
