/* alloc_tick.c - the shim's shared tick (alloc_tick.h). */
#include "detector/alloc_tick.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/futex.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "common/util.h"
#include "detector/alloc_record.h"

#define TICK_FD_MIN HIGH_FD_BASE   /* out of the target's way, like the pipe */
#define PERIOD_MIN 1000000ull       /* 1 ms */
#define PERIOD_MAX ALLOC_TIME_SLACK
/* so that a tick sleeps after at least one unread period */
_Static_assert(ALLOC_TICK_IDLE_NS >= PERIOD_MAX, "ALLOC_TICK_IDLE_NS under a period");

struct alloc_tick {
	struct alloc_tick_page *page;
	int fd;
	pthread_t thread;
	pthread_mutex_t lock;
	pthread_cond_t wake;         /* stop: the thread ends now, not a period on */
	bool stop;                   /* under lock */
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

static void publish_now(struct alloc_tick *t)
{
	__atomic_store_n(&t->page->ns, clock_ns(CLOCK_MONOTONIC), __ATOMIC_RELAXED);
}

/* IDLE: sleep on the word until the shim sets WANTED (or stop does);
 * then, unless stopping, a fresh time and READ.  Called and returns with
 * the lock held. */
static void sleep_idle(struct alloc_tick *t, struct timespec *next)
{
	uint32_t wanted = ALLOC_TICK_WANTED;

	pthread_mutex_unlock(&t->lock);
	while (__atomic_load_n(&t->page->state, __ATOMIC_RELAXED) == ALLOC_TICK_IDLE)
		syscall(SYS_futex, &t->page->state, FUTEX_WAIT, ALLOC_TICK_IDLE, NULL, NULL, 0);
	pthread_mutex_lock(&t->lock);
	if (t->stop)
		return;
	publish_now(t);
	__atomic_compare_exchange_n(&t->page->state, &wanted, ALLOC_TICK_READ, false,
				    __ATOMIC_RELEASE, __ATOMIC_RELAXED);
	clock_gettime(CLOCK_MONOTONIC, next);
}

/* Each period: the time, then whether the shim read it since the last
 * (alloc_record.h); unread for ALLOC_TICK_IDLE_NS, sleep until it asks.
 * Sleeps on the condition, not clock_nanosleep: a run's end waits for
 * this thread, and a sleep would hold it up to a period (4 ms). */
static void *publish(void *arg)
{
	struct alloc_tick *t = arg;
	uint64_t idle_after = ALLOC_TICK_IDLE_NS / t->page->period_ns, unread = 0;
	struct timespec next;

	clock_gettime(CLOCK_MONOTONIC, &next);
	pthread_mutex_lock(&t->lock);
	if (__atomic_load_n(&t->page->state, __ATOMIC_RELAXED) == ALLOC_TICK_IDLE)
		sleep_idle(t, &next);        /* until the shim's first call */
	while (!t->stop) {
		uint64_t ns = (uint64_t)next.tv_nsec + t->page->period_ns;
		uint32_t seen = ALLOC_TICK_READ;

		next.tv_sec += (time_t)(ns / 1000000000ull);
		next.tv_nsec = (long)(ns % 1000000000ull);
		while (!t->stop &&
		       pthread_cond_clockwait(&t->wake, &t->lock, CLOCK_MONOTONIC, &next) != ETIMEDOUT)
			;
		if (t->stop)
			break;
		publish_now(t);
		if (__atomic_compare_exchange_n(&t->page->state, &seen, ALLOC_TICK_UNREAD, false,
						__ATOMIC_RELAXED, __ATOMIC_RELAXED)) {
			unread = 0;
		} else if (seen == ALLOC_TICK_UNREAD && ++unread >= idle_after &&
			   __atomic_compare_exchange_n(&t->page->state, &seen, ALLOC_TICK_IDLE,
						       false, __ATOMIC_RELAXED, __ATOMIC_RELAXED)) {
			unread = 0;
			sleep_idle(t, &next);
		}
	}
	pthread_mutex_unlock(&t->lock);
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
	pthread_mutex_init(&t->lock, NULL);
	pthread_cond_init(&t->wake, NULL);
	t->page = page;
	t->fd = high;
	t->page->period_ns = tick_period();
	t->page->ns = clock_ns(CLOCK_MONOTONIC);
	t->page->state = ALLOC_TICK_IDLE;
	t->page->magic = ALLOC_TICK_MAGIC;
	if (!start_thread(t)) {
		munmap(page, sizeof(struct alloc_tick_page));
		close(high);
		pthread_cond_destroy(&t->wake);
		pthread_mutex_destroy(&t->lock);
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
	pthread_mutex_lock(&t->lock);
	t->stop = true;
	pthread_cond_signal(&t->wake);
	pthread_mutex_unlock(&t->lock);
	/* a target still running reads the clock from now on */
	__atomic_store_n(&t->page->state, ALLOC_TICK_WANTED, __ATOMIC_RELEASE);
	syscall(SYS_futex, &t->page->state, FUTEX_WAKE, 1, NULL, NULL, 0);
	pthread_join(t->thread, NULL);
	pthread_cond_destroy(&t->wake);
	pthread_mutex_destroy(&t->lock);
	munmap(t->page, sizeof(struct alloc_tick_page));
	if (t->fd >= 0)
		close(t->fd);
	free(t);
}
