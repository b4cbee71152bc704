/* Unit tests for alloc_channel_keep_up (detector/alloc_channel.h), on a
 * real channel whose pipe this test writes as the shim would:
 *  - the first wait keeps up: drains start 2 ms in and come at most 20 ms
 *    apart, through the whole wait;
 *  - a wait after one that brought less than a quarter of the pipe
 *    returns false at once and leaves the pipe alone;
 *  - a quarter of the pipe, to the byte, turns keeping up back on;
 *  - the end of the pipe (every writer gone) ends a wait early, and the
 *    waits after it return false at once.
 * A probe thread writes one record whenever the pipe is empty and times
 * how long each waited there: the time between two drains (a trickle:
 * keep_up's sleeps grow to their longest).  Timing bounds leave 50 ms for
 * a loaded machine's scheduling. */
#include "common/env.h"
#include "common/util.h"
#include "detector/alloc_channel.h"
#include "detector/alloc_record.h"
#include "detector/alloc_table.h"
#include "tests/tap.h"

#include <fcntl.h>
#include <pthread.h>
#include <stdbool.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

static int wfd = -1;            /* our copy of the pipe's write end */
static uint64_t next_addr = 0x100000;
static uint64_t sent;           /* records written: by one thread at a time */

static void send_records(size_t n)
{
	struct alloc_record r[ALLOC_BATCH];

	while (n) {
		size_t k = n < ALLOC_BATCH ? n : ALLOC_BATCH;

		memset(r, 0, sizeof(r));
		for (size_t i = 0; i < k; i++) {
			r[i].call = ALLOC_MALLOC;
			r[i].addr = next_addr += 64;
			r[i].size = 48;
			r[i].pid = 100;
			r[i].tid = 100;
			r[i].frames[0] = 0x401000;
		}
		if (write(wfd, r, k * sizeof(r[0])) != (ssize_t)(k * sizeof(r[0])))
			die("test: short write to the pipe");
		sent += k;
		n -= k;
	}
}

static int in_pipe(void)
{
	int n = -1;

	return ioctl(wfd, FIONREAD, &n) == 0 ? n : -1;
}

static uint64_t taken(struct alloc_table *t)
{
	struct alloc_stats st;

	alloc_table_stats(t, &st);
	return st.records;
}

static void nap(double s)
{
	struct timespec ts = { 0, (long)(s * 1e9) };

	nanosleep(&ts, NULL);
}

struct probe {
	double until;
	unsigned drained;               /* records that left the pipe in time */
	double first, worst;            /* s each waited: the first, the longest */
};

static void *probe_run(void *arg)
{
	struct probe *p = arg;

	while (monotonic_s() < p->until) {
		double t0 = monotonic_s(), waited;

		send_records(1);
		while (in_pipe() > 0 && monotonic_s() < p->until)
			nap(0.0002);
		if (in_pipe() != 0)
			break;
		waited = monotonic_s() - t0;
		if (!p->drained++)
			p->first = waited;
		if (waited > p->worst)
			p->worst = waited;
	}
	return NULL;
}

/* keep_up(SECONDS) with the probe writing until just before its end:
 * what keep_up returned, how long it took. */
static bool keep_up_probed(struct alloc_channel *ch, struct alloc_table *t, double seconds,
			   struct probe *p, double *took)
{
	pthread_t th;
	double t0 = monotonic_s();
	bool r;

	memset(p, 0, sizeof(*p));
	p->until = t0 + seconds - 0.01;
	if (pthread_create(&th, NULL, probe_run, p))
		die("test: pthread_create");
	r = alloc_channel_keep_up(ch, t, NULL, seconds);
	*took = monotonic_s() - t0;
	pthread_join(th, NULL);
	return r;
}

static size_t quarter_records(size_t pipe_bytes, bool reach)
{
	size_t q = pipe_bytes / 4, rec = sizeof(struct alloc_record);

	return reach ? (q + rec - 1) / rec : (q - 1) / rec;
}

static void *close_later(void *arg)
{
	(void)arg;
	nap(0.03);
	close(wfd);
	return NULL;
}

int main(void)
{
	struct alloc_channel *ch;
	struct env *child;
	struct alloc_table *t = alloc_table_new();
	struct probe p;
	const char *fd;
	double took;
	uint64_t before;
	size_t pipe_bytes;
	pthread_t th;
	bool r;

	/* any readable file will do as the shim: nothing here is preloaded */
	setenv("CONTEND_ALLOC_LIB", "/proc/self/exe", 1);
	ch = alloc_channel_open();
	if (!ch)
		die("test: alloc_channel_open failed");
	setenv("LD_PRELOAD", "libpre.so", 1);   /* the test's own: no thread yet */
	child = env_new(environ);
	alloc_channel_export(ch, child);
	fd = env_get(child, ALLOC_FD_ENV);
	wfd = fd ? dup(atoi(fd)) : -1;
	CHECK(env_get(child, "LD_PRELOAD") && !strcmp(env_get(child, "LD_PRELOAD"),
							 "/proc/self/exe:libpre.so"),
	      "the shim goes first in the child's LD_PRELOAD: %s", env_get(child, "LD_PRELOAD"));
	alloc_channel_child_started(ch);    /* closes the channel's write end: ours is the last */
	env_free(child);
	CHECK(wfd >= 0 && !getenv(ALLOC_FD_ENV) && !strcmp(getenv("LD_PRELOAD"), "libpre.so"),
	      "the write end, and our own environment untouched");
	if (wfd < 0)
		return test_done();
	pipe_bytes = (size_t)fcntl(wfd, F_GETPIPE_SZ);

	/* 1. the first wait keeps up, from 2 ms on */
	send_records(1);
	r = keep_up_probed(ch, t, 0.1, &p, &took);
	CHECK(r, "the first wait keeps up");
	CHECK(took >= 0.095 && took < 0.3, "it waits out its 0.1 s: took %.3f s", took);
	CHECK(p.drained >= 3, "drained during the wait: %u records left the pipe", p.drained);
	CHECK(p.drained && p.first < 0.015,
	      "the first drain comes 2 ms in: the first record waited %.1f ms", p.first * 1e3);
	CHECK(p.worst < 0.07, "drains at most 20 ms apart: the longest wait %.1f ms",
	      p.worst * 1e3);
	alloc_channel_drain(ch, t, NULL);
	CHECK_EQ_U64(in_pipe(), 0, "drained after the wait");

	/* 2. that wait brought a few KiB: the next does nothing */
	before = taken(t);
	send_records(1);
	took = monotonic_s();
	r = alloc_channel_keep_up(ch, t, NULL, 0.1);
	took = monotonic_s() - took;
	CHECK(!r, "a wait after a quiet one does not keep up");
	CHECK(took < 0.01, "... and returns at once: %.3f s", took);
	CHECK_EQ_U64(in_pipe(), sizeof(struct alloc_record), "... leaving the pipe alone");
	CHECK_EQ_U64(taken(t), before, "... and the table");

	/* 3. a byte short of a quarter of the pipe (with the record above,
	 * drained as the caller's beat drains): still quiet */
	send_records(quarter_records(pipe_bytes, false) - 1);
	alloc_channel_drain(ch, t, NULL);
	r = alloc_channel_keep_up(ch, t, NULL, 0.1);
	CHECK(!r, "less than a quarter of the pipe (%zu bytes) in a wait: not kept up", pipe_bytes);

	/* 4. a quarter: kept up again */
	send_records(quarter_records(pipe_bytes, true));
	alloc_channel_drain(ch, t, NULL);
	r = keep_up_probed(ch, t, 0.3, &p, &took);
	CHECK(r, "a quarter of the pipe in a wait: the next keeps up");
	CHECK(took >= 0.295 && took < 0.5, "it waits out its 0.3 s: took %.3f s", took);
	CHECK(p.drained >= 12, "drained during the wait: %u records left the pipe", p.drained);
	CHECK(p.worst < 0.07, "drains at most 20 ms apart: the longest wait %.1f ms",
	      p.worst * 1e3);
	alloc_channel_drain(ch, t, NULL);
	CHECK_EQ_U64(taken(t), sent, "every record sent is in the table");

	/* 5. the pipe ends in a busy wait: the wait ends with it */
	send_records(quarter_records(pipe_bytes, true));
	alloc_channel_drain(ch, t, NULL);
	if (pthread_create(&th, NULL, close_later, NULL))
		die("test: pthread_create");
	took = monotonic_s();
	r = alloc_channel_keep_up(ch, t, NULL, 1.0);
	took = monotonic_s() - took;
	pthread_join(th, NULL);
	CHECK(r, "a busy wait keeps up");
	CHECK(took >= 0.025 && took < 0.5, "... until the pipe ends, not its 1 s: %.3f s", took);
	r = alloc_channel_keep_up(ch, t, NULL, 1.0);
	CHECK(!r, "an ended pipe is not kept up with");

	alloc_channel_close(ch);
	alloc_table_free(t);
	return test_done();
}
