/* alloc_tick.c - the shim's shared tick (alloc_tick.h). */
#include "detector/alloc_tick.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "common/util.h"
#include "detector/alloc_record.h"

#define TICK_FD_MIN HIGH_FD_BASE   /* out of the target's way, like the pipe */
#define PERIOD_MIN 1000000ull       /* 1 ms */
#define PERIOD_MAX ALLOC_TIME_SLACK

struct alloc_tick {
	struct alloc_tick_page *page;
	int fd;
	pthread_t thread;
	bool stop;                   /* atomic: the thread ends at its next period */
};

static uint64_t clock_ns(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* The kernel's tick: the shim's own clock (CLOCK_MONOTONIC_COARSE) moves
 * no finer, and a faster beat would cost contend wakeups for nothing. */
static uint64_t tick_period(void)
{
	struct timespec res;
	uint64_t ns = 4000000ull;

	if (clock_getres(CLOCK_MONOTONIC_COARSE, &res) == 0)
		ns = (uint64_t)res.tv_sec * 1000000000ull + (uint64_t)res.tv_nsec;
	return ns < PERIOD_MIN ? PERIOD_MIN : ns > PERIOD_MAX ? PERIOD_MAX : ns;
}

static void *publish(void *arg)
{
	struct alloc_tick *t = arg;
	struct timespec next;

	clock_gettime(CLOCK_MONOTONIC, &next);
	while (!__atomic_load_n(&t->stop, __ATOMIC_RELAXED)) {
		uint64_t ns = (uint64_t)next.tv_nsec + t->page->period_ns;

		next.tv_sec += (time_t)(ns / 1000000000ull);
		next.tv_nsec = (long)(ns % 1000000000ull);
		while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &next, NULL) == EINTR)
			;
		__atomic_store_n(&t->page->ns, clock_ns(CLOCK_MONOTONIC), __ATOMIC_RELAXED);
	}
	return NULL;
}

/* The thread takes no signals: contend's handlers run on the main thread,
 * whose poll they interrupt. */
static bool start_thread(struct alloc_tick *t)
{
	sigset_t all, old;
	bool ok;

	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	ok = pthread_create(&t->thread, NULL, publish, t) == 0;
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	return ok;
}

struct alloc_tick *alloc_tick_start(void)
{
	struct alloc_tick *t;
	void *page;
	int fd = memfd_create("contend-alloc-tick", MFD_CLOEXEC), high;

	if (fd < 0)
		return NULL;
	high = ftruncate(fd, (off_t)sizeof(struct alloc_tick_page)) == 0 ?
	       fcntl(fd, F_DUPFD, TICK_FD_MIN) : -1;     /* inherited across exec */
	close(fd);
	if (high < 0)
		return NULL;
	page = mmap(NULL, sizeof(struct alloc_tick_page), PROT_READ | PROT_WRITE, MAP_SHARED,
		    high, 0);
	if (page == MAP_FAILED) {
		close(high);
		return NULL;
	}
	t = xcalloc(1, sizeof(*t));
	t->page = page;
	t->fd = high;
	t->page->period_ns = tick_period();
	t->page->ns = clock_ns(CLOCK_MONOTONIC);
	t->page->magic = ALLOC_TICK_MAGIC;
	if (!start_thread(t)) {
		munmap(page, sizeof(struct alloc_tick_page));
		close(high);
		free(t);
		return NULL;
	}
	return t;
}

int alloc_tick_fd(const struct alloc_tick *t)
{
	return t ? t->fd : -1;
}

void alloc_tick_stop(struct alloc_tick *t)
{
	if (!t)
		return;
	__atomic_store_n(&t->stop, true, __ATOMIC_RELAXED);
	pthread_join(t->thread, NULL);
	munmap(t->page, sizeof(struct alloc_tick_page));
	if (t->fd >= 0)
		close(t->fd);
	free(t);
}
