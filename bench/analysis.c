/* analysis - throughput and memory of aggregation, classification and report.
 *
 * Feeds synthetic access streams (N samples over L lines, each touched by
 * 4 of S code sites, T threads, time-ordered like a session's) through the line table, then
 * classifies and builds the report (no symbolizer: the report cost here is
 * ranking and model building).  Prints samples/s and peak RSS per size, as
 * a markdown table.  RSS must stay flat as samples grow over the same lines.
 *
 *   bench/analysis [MAX_MILLIONS]   (default 100)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif

#include "common/procfs.h"
#include "common/util.h"
#include "detector/classify.h"
#include "detector/line_table.h"
#include "reports/report.h"
#include "reports/report_finish.h"

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static long rss_kb(void)
{
	return process_status_number(0, "VmRSS");
}

static uint64_t rng = 88172645463325252ULL;
static inline uint64_t next(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

static void run(uint64_t samples, unsigned lines, unsigned sites, unsigned threads)
{
	struct line_table *t = line_table_new(64, 10000000);
	struct classify_config cfg;
	struct run_facts hdr = { .command = "synthetic", .backend = "soft" };
	struct report *r;
	struct access_sample s = { .pid = 1, .size = 8, .base_reg = -1 };
	double t0, t1, t2;
	long rss_before = rss_kb();

	classify_config_default(&cfg);
	t0 = now();
	for (uint64_t i = 0; i < samples; i++) {
		uint64_t x = next();
		uint64_t line = (x >> 8) % lines, site = (line * 31 + ((x >> 60) & 3)) % sites;
		s.time = i * 1000;            /* 1 us apart: a busy multi-threaded target */
		s.tid = 100 + x % threads;
		/* like real code: each line is touched by a few code sites,
		 * each site with its own access kind */
		s.addr = 0x10000000 + line * 64 + ((x >> 40) & 7) * 8;
		s.ip = 0x400000 + site * 4;
		s.kind = site & 3;
		line_table_add(t, &s);
	}
	t1 = now();
	hdr.samples = hdr.decoded = samples;
	r = report_build(&hdr, t, &cfg, 10, NULL, NULL);
	t2 = now();
	printf("| %7.0fM | %7u | %6u | %3u | %6.2f M/s | %6.2f s | %8ld KB | %8ld KB |\n",
	       samples / 1e6, lines, sites, threads, samples / (t1 - t0) / 1e6, t2 - t1,
	       rss_kb() - rss_before, rss_kb());
	fflush(stdout);
	report_free(r);
	line_table_free(t);
#ifdef __GLIBC__
	/* hand the heap back, so that the next run's RSS growth is its own
	 * and not hidden by this run's freed memory */
	malloc_trim(0);
#endif
}

int main(int argc, char **argv)
{
	double max_m = argc > 1 ? atof(argv[1]) : 100;
	static const unsigned line_counts[] = { 1000, 100000, 1000000 };

	printf("| samples | lines | sites | thr | aggregate | classify+report | RSS growth | RSS |\n");
	printf("|---|---|---|---|---|---|---|---|\n");
	for (unsigned i = 0; i < ARRAY_SIZE(line_counts); i++)
		run(1000000, line_counts[i], 10000, 8);
	/* same lines, more samples: memory must not grow */
	for (double m = 1; m <= max_m; m *= 10)
		run((uint64_t)(m * 1e6), 1000, 10000, 8);
	return 0;
}
