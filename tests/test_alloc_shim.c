/* The allocation shim end to end: tests/fixture_alloc run with
 * libcontend-alloc.so preloaded prints exactly the addresses it prints
 * without (address randomization off in both), and the records it sends
 * name each call with its arguments, at those addresses.  With a tick
 * page (as contend publishes it, detector/alloc_tick.h) nothing moves
 * either, and the records' times are the page's. */
#include "detector/alloc_record.h"
#include "detector/alloc_table.h"
#include "detector/alloc_tick.h"
#include "tests/tap.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/futex.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/personality.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define OUT_MAX 4096
#define RECS_MAX 4096

struct run {
	char out[OUT_MAX];
	struct alloc_record recs[RECS_MAX];
	size_t n_recs;
	int status;
};

static void read_all(int fd, char *buf, size_t cap, size_t *len)
{
	ssize_t n;

	*len = 0;
	while (*len < cap && ((n = read(fd, buf + *len, cap - *len)) > 0 ||
			      (n < 0 && errno == EINTR)))
		if (n > 0)
			*len += (size_t)n;
}

/* The fixture with the shim (shim != NULL) or without; with the tick
 * page on descriptor tick_fd, or none (-1). */
static void run_fixture(const char *fixture, const char *shim, int tick_fd, struct run *r)
{
	int out[2], ch[2];
	size_t len;
	pid_t pid;

	memset(r, 0, sizeof(*r));
	if (pipe(out) < 0 || pipe(ch) < 0)
		abort();
	pid = fork();
	if (pid == 0) {
		char fd[16];

		personality(ADDR_NO_RANDOMIZE);
		dup2(out[1], 1);
		close(out[0]);
		close(ch[0]);
		if (shim) {
			char by_fd[64];

			snprintf(fd, sizeof(fd), "%d", ch[1]);
			/* as contend does (alloc_channel.c): LD_PRELOAD splits at
			 * spaces and colons, so such a path goes by descriptor */
			if (strpbrk(shim, " :\t")) {
				snprintf(by_fd, sizeof(by_fd), "/proc/self/fd/%d",
					 open(shim, O_RDONLY));
				shim = by_fd;
			}
			setenv("LD_PRELOAD", shim, 1);
			setenv(ALLOC_FD_ENV, fd, 1);
			if (tick_fd >= 0) {
				snprintf(fd, sizeof(fd), "%d", tick_fd);
				setenv(ALLOC_TICK_ENV, fd, 1);
			}
		} else {
			close(ch[1]);
		}
		execl(fixture, fixture, (char *)NULL);
		_exit(127);
	}
	close(out[1]);
	close(ch[1]);
	read_all(out[0], r->out, sizeof(r->out) - 1, &len);
	r->out[len] = '\0';
	read_all(ch[0], (char *)r->recs, sizeof(r->recs), &len);
	r->n_recs = len / sizeof(r->recs[0]);
	close(out[0]);
	close(ch[0]);
	waitpid(pid, &r->status, 0);
}

/* The address the fixture printed after "name ". */
static uint64_t printed(const struct run *r, const char *name)
{
	char key[64];
	const char *at;

	snprintf(key, sizeof(key), "\n%s 0x", name);
	at = strstr(r->out, key);
	if (!at && !strncmp(r->out, key + 1, strlen(key + 1)))
		at = r->out - 1;    /* the first line */
	return at ? strtoull(at + strlen(key), NULL, 16) : 0;
}

static uint64_t monotonic_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* A page as contend's, whose time no clock of this machine reads: the
 * monotonic clock plus 10^9 s, every millisecond. */
#define FAR_AHEAD 1000000000000000000ull

struct far_tick {
	struct alloc_tick_page *page;
	int fd;
	int stop;
	pthread_t thread;
};

static void *far_publish(void *arg)
{
	struct far_tick *t = arg;
	struct timespec ms = { 0, 1000000 };

	while (!__atomic_load_n(&t->stop, __ATOMIC_RELAXED)) {
		__atomic_store_n(&t->page->ns, monotonic_ns() + FAR_AHEAD, __ATOMIC_RELAXED);
		nanosleep(&ms, NULL);
	}
	return NULL;
}

static void far_start(struct far_tick *t)
{
	t->fd = memfd_create("far-tick", 0);
	if (t->fd < 0 || ftruncate(t->fd, sizeof(*t->page)) < 0)
		abort();
	t->page = mmap(NULL, sizeof(*t->page), PROT_READ | PROT_WRITE, MAP_SHARED, t->fd, 0);
	if (t->page == MAP_FAILED)
		abort();
	t->page->period_ns = 1000000;
	t->page->ns = monotonic_ns() + FAR_AHEAD;
	t->page->magic = ALLOC_TICK_MAGIC;
	t->stop = 0;
	if (pthread_create(&t->thread, NULL, far_publish, t))
		abort();
}

static void far_stop(struct far_tick *t)
{
	__atomic_store_n(&t->stop, 1, __ATOMIC_RELAXED);
	pthread_join(t->thread, NULL);
	munmap(t->page, sizeof(*t->page));
	close(t->fd);
}

/* Wake a sleeping tick as the shim's tick_slow() does: IDLE to WANTED,
 * then one FUTEX_WAKE. */
static void wake_as_shim(struct alloc_tick_page *page)
{
	uint32_t seen = ALLOC_TICK_IDLE;

	if (__atomic_compare_exchange_n(&page->state, &seen, ALLOC_TICK_WANTED, false,
					__ATOMIC_RELAXED, __ATOMIC_RELAXED))
		syscall(SYS_futex, &page->state, FUTEX_WAKE, 1, NULL, NULL, 0);
}

/* Read the tick's page for MS milliseconds as the shim reads it (each
 * read marks it READ; IDLE is woken): the first time read. */
static uint64_t read_as_shim(struct alloc_tick_page *page, int ms)
{
	struct timespec beat = { 0, 500000 };
	uint64_t first = 0;

	for (int i = 0; i < 2 * ms; i++) {
		uint32_t seen = __atomic_load_n(&page->state, __ATOMIC_ACQUIRE);

		if (seen == ALLOC_TICK_UNREAD)
			__atomic_compare_exchange_n(&page->state, &seen, ALLOC_TICK_READ, false,
						    __ATOMIC_RELAXED, __ATOMIC_RELAXED);
		else if (seen == ALLOC_TICK_IDLE)
			wake_as_shim(page);
		if (!first && __atomic_load_n(&page->state, __ATOMIC_ACQUIRE) == ALLOC_TICK_READ)
			first = __atomic_load_n(&page->ns, __ATOMIC_RELAXED);
		nanosleep(&beat, NULL);
	}
	return first;
}

/* Unread, contend's tick sleeps (no wake-up taking a CPU from the
 * target); asked as the shim asks, it publishes a fresh time. */
static void check_tick_sleeps(struct alloc_tick_page *page)
{
	struct timespec idle = { 0, (long)(3 * ALLOC_TICK_IDLE_NS) }, beat = { 0, 1000000 };
	uint64_t asleep, asked;
	int waited = 0;

	nanosleep(&idle, NULL);
	asleep = __atomic_load_n(&page->ns, __ATOMIC_RELAXED);
	CHECK_EQ_U64(__atomic_load_n(&page->state, __ATOMIC_RELAXED), ALLOC_TICK_IDLE,
		     "unread for 3 x ALLOC_TICK_IDLE_NS, the tick sleeps");
	nanosleep(&beat, NULL);
	nanosleep(&beat, NULL);
	CHECK(__atomic_load_n(&page->ns, __ATOMIC_RELAXED) == asleep, "asleep, it publishes nothing");
	asked = monotonic_ns();
	wake_as_shim(page);
	while (__atomic_load_n(&page->state, __ATOMIC_ACQUIRE) != ALLOC_TICK_READ && waited++ < 2000)
		nanosleep(&beat, NULL);
	CHECK(__atomic_load_n(&page->state, __ATOMIC_ACQUIRE) == ALLOC_TICK_READ &&
	      __atomic_load_n(&page->ns, __ATOMIC_RELAXED) >= asked,
	      "woken as the shim wakes it, a fresh time and READ (state %u after %d ms)",
	      __atomic_load_n(&page->state, __ATOMIC_RELAXED), waited);
}

/* The shim of a target that starts allocating wakes the sleeping tick. */
static void check_shim_wakes_tick(struct alloc_tick_page *page, const char *fixture,
				  const char *shim, int fd)
{
	struct timespec idle = { 0, (long)(3 * ALLOC_TICK_IDLE_NS) }, beat = { 0, 1000000 };
	static struct run r;
	uint32_t state;
	int waited = 0;

	nanosleep(&idle, NULL);
	state = __atomic_load_n(&page->state, __ATOMIC_RELAXED);
	run_fixture(fixture, shim, fd, &r);
	while ((__atomic_load_n(&page->state, __ATOMIC_ACQUIRE) == ALLOC_TICK_WANTED ||
		__atomic_load_n(&page->state, __ATOMIC_ACQUIRE) == ALLOC_TICK_IDLE) &&
	       waited++ < 2000)
		nanosleep(&beat, NULL);
	CHECK(state == ALLOC_TICK_IDLE && r.n_recs >= 8 &&
	      __atomic_load_n(&page->state, __ATOMIC_RELAXED) <= ALLOC_TICK_UNREAD,
	      "asleep (state %u), the tick is woken by the shim's first call (state %u, "
	      "%zu records)", state, __atomic_load_n(&page->state, __ATOMIC_RELAXED), r.n_recs);
}

/* contend's own tick: a page on an inherited descriptor, moving. */
static void check_contend_tick(const char *fixture, const char *shim)
{
	struct alloc_tick *tick = alloc_tick_start();
	struct alloc_tick_page *page = MAP_FAILED;
	struct timespec wait = { 0, 30000000 };
	uint64_t first = 0;
	int fd = alloc_tick_fd(tick);

	CHECK(tick && fd >= 700 && !(fcntl(fd, F_GETFD) & FD_CLOEXEC),
	      "the tick's descriptor is high and inherited across exec (%d)", fd);
	if (tick)
		page = mmap(NULL, sizeof(*page), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	CHECK(page != MAP_FAILED && page->magic == ALLOC_TICK_MAGIC, "the page says it is one");
	if (page == MAP_FAILED) {
		alloc_tick_stop(tick);
		return;
	}
	CHECK(page->period_ns >= 1000000 && page->period_ns <= ALLOC_TIME_SLACK,
	      "a period from 1 to 10 ms: %llu ns", (unsigned long long)page->period_ns);
	first = __atomic_load_n(&page->ns, __ATOMIC_RELAXED);
	nanosleep(&wait, NULL);
	CHECK(__atomic_load_n(&page->state, __ATOMIC_RELAXED) == ALLOC_TICK_IDLE &&
	      __atomic_load_n(&page->ns, __ATOMIC_RELAXED) == first,
	      "never read, the tick sleeps from its start (state %u) and publishes nothing",
	      __atomic_load_n(&page->state, __ATOMIC_RELAXED));
	first = read_as_shim(page, 30);
	CHECK(__atomic_load_n(&page->ns, __ATOMIC_RELAXED) >= first + 10000000 &&
	      __atomic_load_n(&page->ns, __ATOMIC_RELAXED) <= monotonic_ns(),
	      "read, the time moves with the monotonic clock, never ahead of it");
	check_tick_sleeps(page);
	check_shim_wakes_tick(page, fixture, shim, fd);
	alloc_tick_stop(tick);
	CHECK_EQ_U64(__atomic_load_n(&page->state, __ATOMIC_RELAXED), ALLOC_TICK_WANTED,
		     "a stopped tick: the shim reads the clock");
	munmap((void *)page, sizeof(*page));
}

static const struct alloc_record *record_at(const struct run *r, uint32_t call, uint64_t addr)
{
	for (size_t i = 0; i < r->n_recs; i++)
		if (r->recs[i].call == call && r->recs[i].addr == addr)
			return &r->recs[i];
	return NULL;
}

/* No record of call at addr: a block recorded twice names it by both. */
static int no_record(const struct run *r, uint32_t call, uint64_t addr)
{
	return record_at(r, call, addr) == NULL;
}

/* C++17's aligned and nothrow operator new and the aligned deletes
 * (tests/fixture_alloc_cxx calls each by its mangled name): one record
 * each, naming main's code (not libstdc++'s) and the alignment, not the
 * aligned_alloc or malloc the real operator makes inside; a free for each
 * delete; nothing moved. */
static void check_cxx(const char *top, const char *shim)
{
	static struct run plain, shimmed;
	static const struct {
		const char *name;
		uint32_t call;
		uint64_t size, align;
		uint32_t inner;          /* the call the real operator makes */
	} ops[] = {
		{ "new", ALLOC_NEW, 24, 0, ALLOC_MALLOC },
		{ "new_aligned", ALLOC_NEW, 100, 128, ALLOC_ALIGNED_ALLOC },
		{ "new_array_aligned", ALLOC_NEW_ARRAY, 192, 64, ALLOC_ALIGNED_ALLOC },
		{ "new_nothrow", ALLOC_NEW, 40, 0, ALLOC_MALLOC },
		{ "new_array_nothrow", ALLOC_NEW_ARRAY, 48, 0, ALLOC_MALLOC },
		{ "new_aligned_nothrow", ALLOC_NEW, 72, 256, ALLOC_ALIGNED_ALLOC },
		{ "new_array_aligned_nothrow", ALLOC_NEW_ARRAY, 80, 64, ALLOC_ALIGNED_ALLOC },
	};
	char fixture[4096];
	uint64_t main_at;

	snprintf(fixture, sizeof(fixture), "%s/tests/fixture_alloc_cxx", top);
	if (access(fixture, X_OK)) {
		printf("skip: %s not built (no libstdc++)\n", fixture);
		return;
	}
	run_fixture(fixture, NULL, -1, &plain);
	run_fixture(fixture, shim, -1, &shimmed);
	CHECK(WIFEXITED(shimmed.status) && !WEXITSTATUS(shimmed.status),
	      "the C++ fixture runs with the shim");
	main_at = printed(&shimmed, "main");
	for (size_t i = 0; i < sizeof(ops) / sizeof(ops[0]); i++) {
		uint64_t at = printed(&shimmed, ops[i].name);
		const struct alloc_record *x = record_at(&shimmed, ops[i].call, at);

		CHECK(at && at == printed(&plain, ops[i].name),
		      "%s: the same address with the shim preloaded", ops[i].name);
		CHECK(x && x->size == ops[i].size && x->arg == ops[i].align,
		      "%s: recorded as %s, size %llu, alignment %llu (got %s)", ops[i].name,
		      alloc_call_name(ops[i].call), (unsigned long long)ops[i].size,
		      (unsigned long long)ops[i].align,
		      x ? alloc_call_name(x->call) : "no record");
		CHECK(x && x->frames[0] - main_at < 4096,
		      "%s: the site is main's code, not the library's (0x%llx, main 0x%llx)",
		      ops[i].name, x ? (unsigned long long)x->frames[0] : 0ull,
		      (unsigned long long)main_at);
		CHECK(no_record(&shimmed, ops[i].inner, at),
		      "%s: the %s inside it is not recorded too", ops[i].name,
		      alloc_call_name(ops[i].inner));
		CHECK(record_at(&shimmed, ALLOC_FREE, at) != NULL, "%s: its delete is recorded",
		      ops[i].name);
	}
}

int main(void)
{
	const char *top = getenv("top_builddir");
	char fixture[4096], shim[4096];
	static struct run plain, shimmed, ticked, idle;
	uint32_t idle_state;
	const struct alloc_record *x;
	struct far_tick far;
	size_t early = 0;
	struct alloc_table *t;
	const struct alloc_block *b;

	snprintf(fixture, sizeof(fixture), "%s/tests/fixture_alloc", top ? top : ".");
	snprintf(shim, sizeof(shim), "%s/libcontend-alloc.so", top ? top : ".");
	if (access(fixture, X_OK) || access(shim, R_OK)) {
		printf("skip: %s or %s not built\n", fixture, shim);
		return 77;
	}
	run_fixture(fixture, NULL, -1, &plain);
	run_fixture(fixture, shim, -1, &shimmed);
	far_start(&far);
	run_fixture(fixture, shim, far.fd, &ticked);
	/* contend's tick asleep: the shim reads the clock and wakes it */
	__atomic_store_n(&far.page->state, ALLOC_TICK_IDLE, __ATOMIC_RELAXED);
	run_fixture(fixture, shim, far.fd, &idle);
	idle_state = __atomic_load_n(&far.page->state, __ATOMIC_RELAXED);
	far_stop(&far);
	CHECK(WIFEXITED(plain.status) && !WEXITSTATUS(plain.status), "the fixture runs");
	CHECK(WIFEXITED(shimmed.status) && !WEXITSTATUS(shimmed.status), "... and with the shim");
	CHECK(printed(&plain, "calloc") != 0, "it printed its addresses");
	/* the heap's blocks exactly; an mmap'd block moves by the shim's own
	 * mapping, whole pages, so it keeps its place in every line and page */
	for (const char *const *name = (const char *const[]){ "malloc", "calloc",
			"aligned_alloc", "posix_memalign", "memalign", "strdup", "realloc",
			"again", NULL }; *name; name++)
		CHECK(printed(&plain, *name) && printed(&shimmed, *name) == printed(&plain, *name),
		      "%s: the same address with the shim preloaded", *name);
	CHECK(printed(&plain, "big") % 4096 == printed(&shimmed, "big") % 4096,
	      "an mmap'd block: the same offset in its page");
	for (const char *const *name = (const char *const[]){ "malloc", "calloc",
			"aligned_alloc", "posix_memalign", "memalign", "strdup", "realloc",
			"again", NULL }; *name; name++)
		CHECK(printed(&ticked, *name) == printed(&plain, *name),
		      "%s: the same address with the shim and a tick page", *name);
	CHECK(printed(&plain, "big") % 4096 == printed(&ticked, "big") % 4096,
	      "an mmap'd block: the same offset in its page with a tick page");
	for (size_t i = 0; i < ticked.n_recs; i++)
		early += ticked.recs[i].time < FAR_AHEAD;
	CHECK(ticked.n_recs >= 8 && early == 0,
	      "with a tick page every record has its time (%zu records, %zu not)",
	      ticked.n_recs, early);
	CHECK(shimmed.n_recs >= 8 && shimmed.recs[0].time < FAR_AHEAD,
	      "without one, the clock's");
	early = 0;
	for (size_t i = 0; i < idle.n_recs; i++)
		early += idle.recs[i].time < FAR_AHEAD;
	CHECK(idle.n_recs >= 8 && early >= 1 && idle_state == ALLOC_TICK_WANTED,
	      "with the tick asleep, the clock's time (%zu of %zu records) and the tick "
	      "woken (state %u)", early, idle.n_recs, idle_state);
	x = record_at(&ticked, ALLOC_REALLOC, printed(&ticked, "realloc"));
	CHECK(x && x->size == 4000 && record_at(&ticked, ALLOC_FREE, x->arg),
	      "with a tick page, a block older than 5 ms still goes out with its free");
	check_contend_tick(fixture, shim);

	x = record_at(&shimmed, ALLOC_CALLOC, printed(&shimmed, "calloc"));
	CHECK(x && x->size == 120 && x->arg == 3 && x->frames[0], "calloc(3, 40): count and size");
	x = record_at(&shimmed, ALLOC_ALIGNED_ALLOC, printed(&shimmed, "aligned_alloc"));
	CHECK(x && x->size == 128 && x->arg == 64, "aligned_alloc(64, 128)");
	x = record_at(&shimmed, ALLOC_POSIX_MEMALIGN, printed(&shimmed, "posix_memalign"));
	CHECK(x && x->size == 256 && x->arg == 128, "posix_memalign(128, 256)");
	x = record_at(&shimmed, ALLOC_MEMALIGN, printed(&shimmed, "memalign"));
	CHECK(x && x->size == 100 && x->arg == 32, "memalign(32, 100)");
	x = record_at(&shimmed, ALLOC_MALLOC, printed(&shimmed, "strdup"));
	CHECK(x && x->size == 8, "strdup's malloc(8), from inside libc");
	if (printed(&shimmed, "junkframe")) {     /* x86-64: rbp at a string */
		x = record_at(&shimmed, ALLOC_MALLOC, printed(&shimmed, "junkframe"));
		CHECK(x && x->size == 72 && x->frames[0] && !x->frames[1],
		      "rbp at a string: the call's site, no caller made of its bytes (0x%llx)",
		      x ? (unsigned long long)x->frames[1] : 0ull);
	}
	x = record_at(&shimmed, ALLOC_MALLOC, printed(&shimmed, "big"));
	CHECK(x && x->size == 300000, "a block past the mmap threshold");
	x = record_at(&shimmed, ALLOC_REALLOC, printed(&shimmed, "realloc"));
	CHECK(x && x->size == 4000 && x->arg != 0, "realloc(old, 4000), old address in arg");
	CHECK(x && record_at(&shimmed, ALLOC_FREE, x->arg), "... and the old block's free");

	/* into the table: the reused block is the second malloc(24) */
	t = alloc_table_new();
	for (size_t i = 0; i < shimmed.n_recs; i++)
		alloc_table_add(t, &shimmed.recs[i], NULL);
	b = alloc_table_find(t, shimmed.recs[0].pid, printed(&shimmed, "calloc") + 100);
	CHECK(!b || b->freed, "the calloc'd block is freed at the end: not live");
	alloc_table_free(t);
	check_cxx(top ? top : ".", shim);
	return test_done();
}
