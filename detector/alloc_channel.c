/* alloc_channel.c - the shim's pipe, and the environment that carries it. */
#include "detector/alloc_channel.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "common/env.h"
#include "common/util.h"
#include "detector/alloc_record.h"
#include "detector/alloc_table.h"
#include "detector/alloc_tick.h"

#define SHIM_NAME "libcontend-alloc.so"
#define ALLOC_LIB_ENV "CONTEND_ALLOC_LIB"
/* The write end goes this high, out of the way of a target that closes
 * and reuses its low descriptors (the shim also checks it is still ours). */
#define CHANNEL_FD_MIN HIGH_FD_BASE

#ifndef PKGLIBEXECDIR
#define PKGLIBEXECDIR "/usr/local/libexec/contend"
#endif

struct alloc_channel {
	int read_fd, write_fd;
	int shim_fd;                  /* the shim held open for a path LD_PRELOAD cannot name, or -1 */
	char *shim;
	struct alloc_tick *tick;      /* the shim's time, or NULL: it reads the clock */
	unsigned char buf[ALLOC_BATCH * sizeof(struct alloc_record) * 16];
	size_t have;                  /* bytes of a record cut short */
	uint64_t bytes;
	uint64_t window_start;        /* bytes at the start of the caller's last wait */
	unsigned waits;
	size_t pipe_bytes;            /* what the pipe holds */
	bool ended;                   /* read the end: every writer has gone */
};

#define PIPE_BYTES (1 << 20)
/* keep_up's sleep between two drains: the time the shim takes, at the rate
 * the last drain saw, to fill an eighth of the pipe, so that a burst of
 * eight times that rate still finds room; 2 ms at first (no rate known
 * yet), growing at most twice from one sleep to the next, at most 20 ms.
 * Each drain is a wakeup of contend, which on a machine with a CPU per
 * target thread takes one of them off its CPU. */
#define KEEP_UP_MIN_S 0.002
#define KEEP_UP_MAX_S 0.020

static char *find_shim(void)
{
	const char *env = getenv(ALLOC_LIB_ENV);
	char self[PATH_MAX];
	ssize_t n;
	char *path;

	if (env && *env)
		return access(env, R_OK) == 0 ? xstrdup(env) : NULL;
	n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (n > 0) {
		char *slash;

		self[n] = '\0';
		slash = strrchr(self, '/');
		if (slash) {
			*slash = '\0';
			path = xasprintf("%s/%s", self, SHIM_NAME);
			if (access(path, R_OK) == 0)
				return path;
			free(path);
		}
	}
	path = xstrdup(PKGLIBEXECDIR "/" SHIM_NAME);
	if (access(path, R_OK) == 0)
		return path;
	free(path);
	return NULL;
}

static size_t pipe_size(int fd)
{
	int n = fcntl(fd, F_GETPIPE_SZ);

	return n > 0 ? (size_t)n : 65536;   /* Linux's default */
}

struct alloc_channel *alloc_channel_open(void)
{
	struct alloc_channel *ch;
	char *shim = find_shim();
	int p[2], high, shim_fd = -1;

	if (!shim) {
		warning("no allocation sites: %s not found (set %s, or --no-alloc-sites)",
			SHIM_NAME, ALLOC_LIB_ENV);
		return NULL;
	}
	/* The dynamic loader splits LD_PRELOAD at spaces and colons: a shim
	 * at such a path (a checkout in "My Projects") is named through a
	 * descriptor the target inherits, /proc/self/fd/N. */
	if (strpbrk(shim, " :\t")) {
		int fd = open(shim, O_RDONLY | O_CLOEXEC), e;

		shim_fd = fd < 0 ? -1 : fcntl(fd, F_DUPFD, CHANNEL_FD_MIN);
		e = errno;
		if (fd >= 0)
			close(fd);
		if (shim_fd < 0) {
			warning("no allocation sites: %s: %s", shim, strerror(e));
			free(shim);
			return NULL;
		}
		free(shim);
		shim = xasprintf("/proc/self/fd/%d", shim_fd);
	}
	if (pipe2(p, O_CLOEXEC) < 0) {
		warning("no allocation sites: pipe: %s", strerror(errno));
		if (shim_fd >= 0)
			close(shim_fd);
		free(shim);
		return NULL;
	}
	/* inherited across exec, high out of the way */
	high = fcntl(p[1], F_DUPFD, CHANNEL_FD_MIN);
	close(p[1]);
	if (high < 0) {
		warning("no allocation sites: %s", strerror(errno));
		close(p[0]);
		if (shim_fd >= 0)
			close(shim_fd);
		free(shim);
		return NULL;
	}
	fcntl(p[0], F_SETFL, O_NONBLOCK);
	fcntl(p[0], F_SETPIPE_SZ, PIPE_BYTES);   /* fewer stalls of the target; best effort */
	ch = xcalloc(1, sizeof(*ch));
	ch->pipe_bytes = pipe_size(p[0]);
	ch->read_fd = p[0];
	ch->write_fd = high;
	ch->shim_fd = shim_fd;
	ch->shim = shim;
	ch->tick = alloc_tick_start();
	return ch;
}

void alloc_channel_export(const struct alloc_channel *ch, struct env *child)
{
	const char *old;
	char fd[16];
	char *preload;

	if (!ch)
		return;
	old = env_get(child, "LD_PRELOAD");
	preload = old && *old ? xasprintf("%s:%s", ch->shim, old) : xstrdup(ch->shim);
	env_set(child, "LD_PRELOAD", preload);
	free(preload);
	snprintf(fd, sizeof(fd), "%d", ch->write_fd);
	env_set(child, ALLOC_FD_ENV, fd);
	if (ch->tick) {
		snprintf(fd, sizeof(fd), "%d", alloc_tick_fd(ch->tick));
		env_set(child, ALLOC_TICK_ENV, fd);
	}
}

void alloc_channel_child_started(struct alloc_channel *ch)
{
	if (!ch)
		return;
	if (ch->write_fd >= 0)
		close(ch->write_fd);
	ch->write_fd = -1;
	if (ch->shim_fd >= 0)
		close(ch->shim_fd);
	ch->shim_fd = -1;
}

void alloc_channel_drain(struct alloc_channel *ch, struct alloc_table *t,
			 struct line_table *lines)
{
	const size_t rec = sizeof(struct alloc_record);

	if (!ch || !t)
		return;
	for (;;) {
		ssize_t n = read(ch->read_fd, ch->buf + ch->have, sizeof(ch->buf) - ch->have);
		size_t whole;

		if (n < 0 && errno == EINTR)
			continue;
		if (n == 0)
			ch->ended = true;   /* every writer has gone */
		if (n <= 0)
			return;   /* EAGAIN: nothing more now */
		ch->bytes += (uint64_t)n;
		ch->have += (size_t)n;
		whole = ch->have / rec * rec;
		for (size_t off = 0; off < whole; off += rec) {
			struct alloc_record r;

			memcpy(&r, ch->buf + off, rec);
			alloc_table_add(t, &r, lines);
		}
		memmove(ch->buf, ch->buf + whole, ch->have - whole);
		ch->have -= whole;
	}
}

/* The next sleep, after one of last_s that brought got bytes. */
static double next_sleep(const struct alloc_channel *ch, uint64_t got, double last_s)
{
	double cap = 2 * last_s, want;

	if (cap > KEEP_UP_MAX_S)
		cap = KEEP_UP_MAX_S;
	if (!got)
		return cap;
	want = (double)ch->pipe_bytes / 8 * last_s / (double)got;
	return want < KEEP_UP_MIN_S ? KEEP_UP_MIN_S : want > cap ? cap : want;
}

static void sleep_s(double s)
{
	struct timespec ts = { (time_t)s, (long)((s - (double)(time_t)s) * 1e9) };

	nanosleep(&ts, NULL);   /* a signal cuts it short: the caller's loop goes on */
}

bool alloc_channel_keep_up(struct alloc_channel *ch, struct alloc_table *t,
			   struct line_table *lines, double seconds)
{
	double now, end, sleep = KEEP_UP_MIN_S;
	bool busy;

	if (!ch || ch->ended)
		return false;
	/* what the last wait brought, counted up to its drain; the first
	 * wait, before anything is known, keeps up too */
	busy = !ch->waits++ || ch->bytes - ch->window_start >= ch->pipe_bytes / 4;
	ch->window_start = ch->bytes;
	if (!busy)
		return false;
	now = monotonic_s();
	end = now + seconds;
	/* until the end of the pipe too: the target has exited, and the
	 * caller's wait for that would end now, not at SECONDS */
	while (now < end && !ch->ended) {
		uint64_t before = ch->bytes;
		double from = now;

		sleep_s(end - now < sleep ? end - now : sleep);
		alloc_channel_drain(ch, t, lines);
		now = monotonic_s();
		sleep = next_sleep(ch, ch->bytes - before, now - from);
	}
	return true;
}

uint64_t alloc_channel_bytes(const struct alloc_channel *ch)
{
	return ch ? ch->bytes : 0;
}

void alloc_channel_close(struct alloc_channel *ch)
{
	if (!ch)
		return;
	alloc_channel_child_started(ch);   /* our write end and the shim's fd */
	close(ch->read_fd);
	alloc_tick_stop(ch->tick);
	free(ch->shim);
	free(ch);
}
