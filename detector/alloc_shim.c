/* alloc_shim.c - libcontend-alloc.so, preloaded into a `run` target: tells
 * contend where each heap allocation came from.
 *
 * Wraps malloc, calloc, realloc, free, aligned_alloc, posix_memalign,
 * memalign and operator new/new[]/delete, their C++17 aligned and nothrow
 * forms (found with dlsym(RTLD_NEXT)), and
 * passes every call through unchanged: same sizes, same alignments, and no
 * allocation of its own, so the target's heap is laid out exactly as
 * without it (its mappings -- the library, contend's tick page, a ring
 * per thread -- move the mmap area by whole pages: an mmap'd block keeps
 * its offset in every page and line).
 * Each call becomes a struct alloc_record (address, size, the call, its
 * return address and a short frame-pointer chain, a tick as time) in a
 * ring of the calling thread, where it waits DEFER_NS (less a tick; see
 * young()): a block the thread frees in that time leaves with its free
 * (cancel_pending) -- temporaries, the bulk of a malloc-heavy program's
 * calls, cost a copy and never a byte of pipe.  Per call: two loads of
 * the time contend publishes and its state (ALLOC_TICK_ENV; without it,
 * or while contend's tick sleeps, a read of the vDSO's coarse clock), one
 * index entry, one record; no lock, no system call, and an atomic only
 * once per tick (ALLOC_TICK_UNREAD) or to wake the tick (ALLOC_TICK_IDLE:
 * one futex wake).
 * Older records go to the pipe named by CONTEND_ALLOC_FD in batches of
 * ALLOC_BATCH, one write() each (detector/alloc_record.h); a thread's
 * last records go at its exit and the process's, or with its next call
 * once older than FLUSH_NS (a main thread that allocates, then waits for
 * its workers, sends them when it exits; one killed by a signal never).
 *
 * Fix mode (detector/alloc_fix.h, `contend run --measure-fix`): the blocks
 * of the sites named in ALLOC_FIX_ENV are allocated line-aligned and
 * padded to whole lines; without it nothing moves.
 *
 * Nothing here may call malloc: dlsym may, while the real functions are
 * looked up, and gets a small static arena (bootstrap) for that.  A
 * thread-local depth keeps the allocations the real operator new makes
 * through malloc from being reported twice.
 */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/futex.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "detector/alloc_fix.h"
#include "detector/alloc_record.h"
#include "detector/alloc_shim_pipe.h"
#include "detector/trap_guard.h"

#define EXPORT __attribute__((visibility("default")))
#define TLS __thread __attribute__((tls_model("initial-exec")))
#define FLUSH_NS 20000000ull     /* 20 ms: the report sees a lone allocation soon */
#define DEFER_NS 5000000ull       /* 5 ms: a block freed sooner is a temporary */

typedef void *malloc_fn(size_t);
typedef void *calloc_fn(size_t, size_t);
typedef void *realloc_fn(void *, size_t);
typedef void free_fn(void *);
typedef void *aligned_fn(size_t, size_t);
typedef int posix_memalign_fn(void **, size_t, size_t);
/* C++'s other operators, by their ABI: std::align_val_t is a size_t, a
 * const std::nothrow_t & a pointer */
typedef void *aligned_new_fn(size_t, size_t);
typedef void *nothrow_new_fn(size_t, const void *);
typedef void *aligned_nothrow_new_fn(size_t, size_t, const void *);
typedef void aligned_delete_fn(void *, size_t);
typedef void sized_aligned_delete_fn(void *, size_t, size_t);

static malloc_fn *real_malloc;
static calloc_fn *real_calloc;
static realloc_fn *real_realloc;
static free_fn *real_free;
static aligned_fn *real_aligned_alloc, *real_memalign;
static posix_memalign_fn *real_posix_memalign;
static malloc_fn *real_new, *real_new_array;
static free_fn *real_delete, *real_delete_array;
static aligned_new_fn *real_new_aligned, *real_new_array_aligned;
static nothrow_new_fn *real_new_nothrow, *real_new_array_nothrow;
static aligned_nothrow_new_fn *real_new_aligned_nothrow, *real_new_array_aligned_nothrow;
static aligned_delete_fn *real_delete_aligned, *real_delete_array_aligned;
static sized_aligned_delete_fn *real_delete_sized_aligned, *real_delete_array_sized_aligned;

static uint32_t my_pid;
static pthread_key_t exit_key;
extern void *__libc_stack_end;

/* A thread's records wait here for DEFER_NS: a block freed by the same
 * thread within that time was never worth a record, and leaves with its
 * free (cancel_pending).  The ring is mmap'd at the thread's first call,
 * never malloc'd; without it records go out one by one. */
#define PENDING 2048                 /* records held back, a power of 2: 160 KiB */
#define INDEX (2 * PENDING)          /* pending allocations by address */

/* The index is a cache, not a table: one entry per hash of an address,
 * the ring position of the newest allocation there, overwritten by the
 * next allocation with that hash, never deleted: a free believes it only
 * if that position is still pending and holds its address.  An entry
 * lost to a collision costs a block its cancel (two records go out), never
 * a wrong one; in exchange a call touches one entry, with no probing. */
struct pending {
	struct alloc_record rec[PENDING];   /* a ring: positions [tail, head) */
	uint32_t index[INDEX];              /* ring position, its low 32 bits */
};

#define DEPTH 2u                     /* in tb.gate: one wrapper deeper */

struct thread_buffer {
	struct pending *p;
	uint64_t head, tail;
	uint64_t young_until;         /* the oldest record is young until then */
	uint64_t flush_at;            /* ... or, fewer than a batch, waits until then */
	uint32_t tid;
	uintptr_t stack_top;          /* frame pointers are followed below it */
	unsigned gate;                /* bit 0: registered (thread_start); DEPTH */
	                              /* per wrapper we are in: 1, report (one test) */
};
static TLS struct thread_buffer tb;

/* --- the real functions, and dlsym's allocations while finding them ---- */

static char bootstrap[8192] __attribute__((aligned(16)));
static size_t bootstrap_used;
static int resolving;

static void *bootstrap_alloc(size_t n)
{
	size_t at = (bootstrap_used + 15) & ~(size_t)15;

	if (n > sizeof(bootstrap) - at)
		return NULL;
	bootstrap_used = at + n;
	return bootstrap + at;
}

static int in_bootstrap(const void *p)
{
	return (uintptr_t)p - (uintptr_t)bootstrap < sizeof(bootstrap);
}

static void *next(const char *name)
{
	return dlsym(RTLD_NEXT, name);
}

static void resolve(void)
{
	resolving = 1;
	real_malloc = (malloc_fn *)next("malloc");
	real_calloc = (calloc_fn *)next("calloc");
	real_realloc = (realloc_fn *)next("realloc");
	real_free = (free_fn *)next("free");
	real_aligned_alloc = (aligned_fn *)next("aligned_alloc");
	real_memalign = (aligned_fn *)next("memalign");
	real_posix_memalign = (posix_memalign_fn *)next("posix_memalign");
	resolving = 0;
}

/* Only once a C++ operator is called: in a C program dlsym would miss
 * them, and glibc allocates its error message on the real heap. */
static void resolve_cxx(void)
{
	if (!real_malloc)
		resolve();
	real_new = (malloc_fn *)next("_Znwm");
	real_new_array = (malloc_fn *)next("_Znam");
	real_delete = (free_fn *)next("_ZdlPv");
	real_delete_array = (free_fn *)next("_ZdaPv");
	/* C++17 (GCC 7): NULL from an older libstdc++ */
	real_new_aligned = (aligned_new_fn *)next("_ZnwmSt11align_val_t");
	real_new_array_aligned = (aligned_new_fn *)next("_ZnamSt11align_val_t");
	real_new_nothrow = (nothrow_new_fn *)next("_ZnwmRKSt9nothrow_t");
	real_new_array_nothrow = (nothrow_new_fn *)next("_ZnamRKSt9nothrow_t");
	real_new_aligned_nothrow =
		(aligned_nothrow_new_fn *)next("_ZnwmSt11align_val_tRKSt9nothrow_t");
	real_new_array_aligned_nothrow =
		(aligned_nothrow_new_fn *)next("_ZnamSt11align_val_tRKSt9nothrow_t");
	real_delete_aligned = (aligned_delete_fn *)next("_ZdlPvSt11align_val_t");
	real_delete_array_aligned = (aligned_delete_fn *)next("_ZdaPvSt11align_val_t");
	real_delete_sized_aligned = (sized_aligned_delete_fn *)next("_ZdlPvmSt11align_val_t");
	real_delete_array_sized_aligned =
		(sized_aligned_delete_fn *)next("_ZdaPvmSt11align_val_t");
}

static void flush(void);
static void clock_init(void);
static void tick_init(void);

static void thread_exit(void *unused)
{
	(void)unused;
	flush();
	if (tb.p)
		munmap(tb.p, sizeof(struct pending));
	tb.p = NULL;
}

static void reset_after_fork(void)
{
	my_pid = (uint32_t)getpid();
	tb.tid = (uint32_t)syscall(SYS_gettid);
	tb.head = tb.tail = 0;     /* the parent's records are the parent's */
	tb.young_until = tb.flush_at = 0;
	if (tb.p)
		memset(tb.p->index, 0, sizeof(tb.p->index));
}

/* --- fix mode ----------------------------------------------------------- */

static struct alloc_fix fix;        /* align 0: off, the blocks stay put */
static uint64_t fixed_blocks;       /* placed by fix_alloc(), this process */
static dev_t fix_fd_dev;            /* the pipe fix.report_fd was at init */
static ino_t fix_fd_ino;

static int fix_fd_ours(int first)
{
	struct stat st;

	if (fix.report_fd < 0 || fstat(fix.report_fd, &st) < 0 || !S_ISFIFO(st.st_mode))
		return 0;
	if (first) {
		fix_fd_dev = st.st_dev;
		fix_fd_ino = st.st_ino;
	}
	return st.st_dev == fix_fd_dev && st.st_ino == fix_fd_ino;
}

static void fix_after_fork(void)
{
	fixed_blocks = 0;      /* the parent's are the parent's */
}

/* The sites' addresses, from /proc/self/maps read without malloc: what
 * is mapped now (the program and the libraries it links) can be fixed. */
static void fix_resolve(void)
{
	static char buf[4096];
	size_t have = 0;
	int fd = open("/proc/self/maps", O_RDONLY | O_CLOEXEC), skip = 0;

	if (fd < 0)
		return;
	for (;;) {
		ssize_t n = read(fd, buf + have, sizeof(buf) - have);
		char *nl;

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		have += (size_t)n;
		while ((nl = memchr(buf, '\n', have))) {
			if (!skip)
				alloc_fix_map_line(&fix, buf, (size_t)(nl - buf));
			skip = 0;
			have -= (size_t)(nl + 1 - buf);
			memmove(buf, nl + 1, have);
		}
		if (have == sizeof(buf)) {      /* a long path: its fields came first */
			if (!skip)
				alloc_fix_map_line(&fix, buf, have);
			skip = 1;
			have = 0;
		}
	}
	close(fd);
}

static void fix_init(void)
{
	const char *spec = getenv(ALLOC_FIX_ENV);

	if (!spec || !alloc_fix_parse(spec, &fix))
		return;
	fix_resolve();
	if (!fix_fd_ours(1))
		fix.report_fd = -1;
	pthread_atfork(NULL, NULL, fix_after_fork);
}

static void fix_report(void)
{
	uint64_t n = __atomic_load_n(&fixed_blocks, __ATOMIC_RELAXED);

	if (fix.align && fix_fd_ours(0))
		shim_write_quietly(fix.report_fd, &n, sizeof(n));
}

/* Is this call's block one to place on lines of its own? */
static inline int fix_here(const void *ret)
{
	return __builtin_expect(fix.align != 0, 0) && alloc_fix_match(&fix, (uintptr_t)ret);
}

/* The fix: the block starts a line and fills whole lines (at least the
 * alignment asked for, a power of 2). */
static void *fix_alloc(size_t align, size_t size)
{
	size_t n = alloc_fix_size(&fix, size);
	void *p;

	if (!n) {
		errno = ENOMEM;
		return NULL;
	}
	p = real_aligned_alloc(align > fix.align ? align : fix.align, n);
	if (p)
		__atomic_add_fetch(&fixed_blocks, 1, __ATOMIC_RELAXED);
	return p;
}

static int power_of_2(size_t a)
{
	return a && !(a & (a - 1));
}

__attribute__((constructor)) static void shim_init(void)
{
	const char *fd = getenv(ALLOC_FD_ENV);

	if (!real_malloc)
		resolve();
	fix_init();
	my_pid = (uint32_t)getpid();
	clock_init();
	if (fd && *fd)
		shim_pipe_open(atoi(fd));
	if (shim_channel >= 0) {
		trap_guard_install();
		tick_init();
		pthread_key_create(&exit_key, thread_exit);
		pthread_atfork(NULL, NULL, reset_after_fork);
	}
}

__attribute__((destructor)) static void shim_fini(void)
{
	flush();
	fix_report();
}

/* --- records ------------------------------------------------------------ */

/* Below this age (by the tick) a record is young: a block freed that soon
 * is a temporary.  A block DEFER_NS old or more is never young: its age
 * reads at most a tick short (young_ns is at least 1: the same tick) --
 * with contend's tick, a period short, or more while contend waits for a
 * CPU. */
static uint64_t young_ns = DEFER_NS;

static void set_young(uint64_t tick)
{
	young_ns = tick < DEFER_NS ? DEFER_NS - tick : 1;
}

/* The time contend publishes (detector/alloc_tick.c): every call reads
 * it, and a load is a tenth of a clock read.  NULL: no such page.
 * Written only to say that it is read (alloc_record.h). */
static struct alloc_tick_page *tick_page;

static void tick_init(void)
{
	const char *env = getenv(ALLOC_TICK_ENV);
	struct alloc_tick_page *page;
	struct stat st;
	void *m;
	int fd;

	if (!env || !*env)
		return;
	fd = atoi(env);
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) ||
	    st.st_size < (off_t)sizeof(struct alloc_tick_page))
		return;
	m = mmap(NULL, sizeof(struct alloc_tick_page), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (m == MAP_FAILED)
		return;
	page = m;
	if (page->magic != ALLOC_TICK_MAGIC || !page->period_ns ||
	    page->period_ns > ALLOC_TIME_SLACK) {
		munmap(m, sizeof(struct alloc_tick_page));
		return;
	}
	tick_page = page;
	set_young(page->period_ns);
}

/* Without contend's tick: the kernel's, read from the vDSO without a TSC
 * read (a few ns where rdtsc costs 20 in a VM).  Two threads' records
 * closer than a tick are in no known order: alloc_table.c sorts them out
 * (ALLOC_TIME_SLACK). */
static __attribute__((noinline)) uint64_t clock_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC_COARSE, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void clock_init(void)
{
	struct timespec res;
	uint64_t tick = 0;

	if (clock_getres(CLOCK_MONOTONIC_COARSE, &res) == 0)
		tick = (uint64_t)res.tv_sec * 1000000000ull + (uint64_t)res.tv_nsec;
	set_young(tick);
}

/* The tick's state is not READ (alloc_record.h): say it is read, or
 * wake it and read the clock meanwhile. */
static __attribute__((noinline)) uint64_t tick_slow(uint32_t state)
{
	uint32_t seen = state;

	if (state == ALLOC_TICK_UNREAD) {
		__atomic_compare_exchange_n(&tick_page->state, &seen, ALLOC_TICK_READ, false,
					    __ATOMIC_RELAXED, __ATOMIC_RELAXED);
		return __atomic_load_n(&tick_page->ns, __ATOMIC_RELAXED);
	}
	if (state == ALLOC_TICK_IDLE &&
	    __atomic_compare_exchange_n(&tick_page->state, &seen, ALLOC_TICK_WANTED, false,
					__ATOMIC_RELAXED, __ATOMIC_RELAXED)) {
		int saved = errno;

		syscall(SYS_futex, &tick_page->state, FUTEX_WAKE, 1, NULL, NULL, 0);
		errno = saved;
	}
	return clock_now();
}

static inline uint64_t now(void)
{
	if (__builtin_expect(tick_page != NULL, 1)) {
		uint32_t state = __atomic_load_n(&tick_page->state, __ATOMIC_ACQUIRE);

		if (__builtin_expect(state == ALLOC_TICK_READ, 1))
			return __atomic_load_n(&tick_page->ns, __ATOMIC_RELAXED);
		return tick_slow(state);
	}
	return clock_now();
}

static int young(const struct alloc_record *r, uint64_t t)
{
	return t - r->time < young_ns;
}

static int is_alloc(const struct alloc_record *r)
{
	return r->call - 1u < ALLOC_FREE - 1u;      /* not 0 (cancelled), not a free */
}

/* Blocks of one 64 KiB window never collide, and neighbours share a line
 * of the index: a thread's temporaries, from its own cache of chunks,
 * touch a few lines of it, not one each.  The window's number scrambles
 * the windows (page-aligned mmap'd blocks would all land on one slot). */
static inline uint32_t index_home(uint64_t addr)
{
	return (uint32_t)((addr >> 4) ^ (addr >> 16)) & (INDEX - 1);
}

/* The pending allocation at addr, or NULL. */
static inline __attribute__((always_inline)) struct alloc_record *
index_find(struct pending *p, uint64_t addr)
{
	uint32_t pos = p->index[index_home(addr)];
	struct alloc_record *r;

	if ((uint32_t)tb.head - pos - 1 >= (uint32_t)(tb.head - tb.tail))
		return NULL;             /* not in [tail, head): sent, or never set */
	r = &p->rec[pos & (PENDING - 1)];
	return r->addr == addr && is_alloc(r) ? r : NULL;
}


/* Sends the oldest records, up to a batch; all: regardless of age
 * (else only those older than DEFER_NS at t). */
static void send_batch(struct pending *p, uint64_t t, int all)
{
	struct alloc_record batch[ALLOC_BATCH];
	size_t n = 0;

	while (tb.tail != tb.head && n < ALLOC_BATCH) {
		uint32_t slot = (uint32_t)(tb.tail & (PENDING - 1));
		struct alloc_record *r = &p->rec[slot];

		if (r->call && !all && young(r, t))
			break;
		if (r->call) {
			batch[n] = *r;
			batch[n].pid = my_pid;       /* see fill() */
			batch[n++].tid = tb.tid;
		}
		tb.tail++;
	}
	shim_pipe_send(batch, n * sizeof(*batch));
}

/* Everything pending goes out: at the thread's and the process's end. */
static void flush(void)
{
	if (!tb.p)
		return;
	while (tb.tail != tb.head)
		send_batch(tb.p, 0, 1);
}

/* Out go the records past DEFER_NS, in whole batches while a thread
 * allocates fast; a lone old record waits no more than FLUSH_NS.  Most
 * calls learn from two numbers of their own that nothing can go yet: the
 * oldest record, hundreds back in the ring, stays out of the cache. */
static __attribute__((noinline)) void send_due(uint64_t t)
{
	struct pending *p = tb.p;

	while (tb.tail != tb.head) {
		const struct alloc_record *oldest = &p->rec[tb.tail & (PENDING - 1)];

		if (!oldest->call) {                 /* cancelled */
			tb.tail++;
			continue;
		}
		if (young(oldest, t)) {
			tb.young_until = oldest->time + young_ns;
			return;
		}
		if (tb.head - tb.tail < ALLOC_BATCH && t - oldest->time < FLUSH_NS) {
			tb.flush_at = oldest->time + FLUSH_NS;
			return;
		}
		send_batch(p, t, 0);
	}
}

static inline void send_old(uint64_t t)
{
	if (t < tb.young_until || (t < tb.flush_at && tb.head - tb.tail < ALLOC_BATCH))
		return;
	send_due(t);
}

static void thread_start(void)
{
	tb.tid = (uint32_t)syscall(SYS_gettid);
	/* glibc puts a thread's descriptor at the top of its stack; the main
	 * thread's stack ends at __libc_stack_end */
	tb.stack_top = tb.tid == my_pid ? (uintptr_t)__libc_stack_end : (uintptr_t)pthread_self();
	tb.gate |= 1;
	tb.p = mmap(NULL, sizeof(struct pending), PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (tb.p == MAP_FAILED)
		tb.p = NULL;
	tb.head = tb.tail = 0;
	pthread_setspecific(exit_key, &tb);
}

/* Could v be a return address?  Code lies above the first 64 KiB, in the
 * canonical lower half, and not in the stack we walk: code without frame
 * pointers leaves rbp pointing anywhere, often at a local (a string, a
 * counter), whose bytes would each make a new call site. */
#define CODE_MIN 0x10000ull
#if defined(__aarch64__)
#define USER_END (1ull << 52)       /* the most a kernel with 52-bit VAs hands out */
#else
#define USER_END (1ull << 47)
#endif

static inline __attribute__((always_inline)) bool plausible_code(uintptr_t v, uintptr_t lo,
								  uintptr_t hi)
{
	return v >= CODE_MIN && v < USER_END && (v < lo || v >= hi);
}

/* frames[0] is the call's return address; then the saved frame pointers
 * from the caller's, fp0, as long as they climb the stack above ours and
 * hold what could be a return address (code without frame pointers
 * leaves something else in rbp: the chain then ends, or now and then
 * names a wrong caller).  Inlined, a fixed three steps. */
static inline __attribute__((always_inline)) void walk(uint64_t *frames, void *ret, void *fp0)
{
	uintptr_t lo = (uintptr_t)__builtin_frame_address(0), hi = tb.stack_top;
	uintptr_t stack_lo = lo;
	uintptr_t *fp = fp0;

	frames[0] = (uintptr_t)ret;
	for (int i = 1; i < ALLOC_FRAMES; i++)
		frames[i] = 0;       /* stores, cheaper than a loop after a short chain */
#pragma GCC unroll 4
	for (int i = 1; i < ALLOC_FRAMES; i++) {
		if ((uintptr_t)fp <= lo || (uintptr_t)fp + 16 > hi || ((uintptr_t)fp & 7) ||
		    !plausible_code(fp[1], stack_lo, hi))
			return;
		frames[i] = fp[1];
		lo = (uintptr_t)fp;
		fp = (uintptr_t *)fp[0];
	}
}

/* A free of a block this thread allocated less than DEFER_NS ago, whose
 * record is still pending, cancels it: true if it did.  A block that lived
 * longer goes out with its free: it may have been sampled (a main
 * thread's array, freed after the workers it fed are joined). */
static inline __attribute__((always_inline)) int cancel_pending(uint64_t addr, uint64_t t)
{
	struct pending *p = tb.p;
	struct alloc_record *r = index_find(p, addr);

	if (!r || !young(r, t))
		return 0;
	r->call = 0;            /* skipped when its turn to go comes */
	/* The newest record is never a cancelled one: below one that is not,
	 * holes wait; the newest, cancelled, goes with the holes under it
	 * (temporaries are mostly freed last in, first out). */
	if (r == &p->rec[(tb.head - 1) & (PENDING - 1)]) {
		do
			tb.head--;
		while (tb.head != tb.tail && !p->rec[(tb.head - 1) & (PENDING - 1)].call);
	}
	return 1;
}

static inline __attribute__((always_inline)) void
fill(struct alloc_record *r, enum alloc_call call, const void *ptr, size_t size,
     uint64_t arg, uint64_t t, void *ret, void *fp)
{
	r->time = t;               /* pid and tid: when it goes (one ring a thread) */
	r->addr = (uintptr_t)ptr;
	r->size = size;
	r->arg = arg;
	r->call = call;
	r->flags = 0;
	if (call == ALLOC_FREE)
		memset(r->frames, 0, sizeof(r->frames));
	else
		walk(r->frames, ret, fp);
}

/* A thread without a ring (its mmap failed): records go out one by one. */
static __attribute__((noinline)) void note_unbuffered(enum alloc_call call, const void *ptr,
						      size_t size, uint64_t arg, uint64_t t,
						      void *ret, void *fp)
{
	struct alloc_record one;

	fill(&one, call, ptr, size, arg, t, ret, fp);
	one.pid = my_pid;
	one.tid = tb.tid;
	shim_pipe_send(&one, sizeof(one));
}

/* Whether this call is reported: a pipe to report to, and not a call
 * that operator new or delete makes (their own record says it). */
static inline int reporting(void)
{
	if (__builtin_expect(tb.gate == 1, 1))
		return shim_channel >= 0;
	if (shim_channel < 0 || tb.gate >= DEPTH)
		return 0;
	thread_start();
	return 1;
}

/* Every call's record, allocation or free, comes through here, at time
 * t: needed both by a free (a temporary or not) and an allocation (which
 * of two blocks at one address came last).  Inlined into each wrapper:
 * the call and its arguments cost more than the work, for a temporary. */
static inline __attribute__((always_inline)) void
note_at(enum alloc_call call, const void *ptr, size_t size, uint64_t arg, uint64_t t,
	void *ret, void *fp)
{
	struct pending *p;

	if (!ptr)
		return;
	if (!(p = tb.p)) {
		note_unbuffered(call, ptr, size, arg, t, ret, fp);
		return;
	}
	if (call == ALLOC_FREE && cancel_pending((uintptr_t)ptr, t))
		return;
	if (tb.head - tb.tail == PENDING)
		send_batch(p, t, 1);            /* full: the oldest go, young or not */
	fill(&p->rec[tb.head & (PENDING - 1)], call, ptr, size, arg, t, ret, fp);
	if (call != ALLOC_FREE)
		p->index[index_home((uintptr_t)ptr)] = (uint32_t)tb.head;
	tb.head++;
	send_old(t);
}

static inline __attribute__((always_inline)) void
note(enum alloc_call call, const void *ptr, size_t size, uint64_t arg, void *ret, void *fp)
{
	if (ptr && reporting())
		note_at(call, ptr, size, arg, now(), ret, fp);
}

/* the call's return address and its caller's frame pointer */
#define HERE __builtin_return_address(0), *(void **)__builtin_frame_address(0)
#define RET __builtin_return_address(0)

/* --- the wrappers ------------------------------------------------------- */

EXPORT void *malloc(size_t size)
{
	void *p;

	if (!real_malloc) {
		if (resolving)
			return bootstrap_alloc(size);
		resolve();
	}
	p = fix_here(RET) ? fix_alloc(0, size) : real_malloc(size);
	note(ALLOC_MALLOC, p, size, 0, HERE);
	return p;
}

EXPORT void *calloc(size_t n, size_t size)
{
	size_t total;
	void *p;

	if (!real_calloc) {
		if (resolving)
			return bootstrap_alloc(n * size);   /* static: zeroed */
		resolve();
	}
	if (fix_here(RET) && !__builtin_mul_overflow(n, size, &total)) {
		if ((p = fix_alloc(0, total)))
			memset(p, 0, total);
	} else {
		p = real_calloc(n, size);
	}
	note(ALLOC_CALLOC, p, n * size, n, HERE);
	return p;
}

EXPORT void free(void *p)
{
	if (!p || in_bootstrap(p))
		return;
	if (!real_free)
		resolve();
	note(ALLOC_FREE, p, 0, 0, HERE);
	real_free(p);
}

EXPORT void *realloc(void *old, size_t size)
{
	void *p;

	if (in_bootstrap(old)) {
		p = malloc(size);
		if (p)
			memcpy(p, old, size);   /* the arena's blocks are few and small */
		return p;
	}
	if (!real_realloc)
		resolve();
	p = real_realloc(old, size);
	if ((p || !size) && reporting()) {
		uint64_t t = now();   /* one clock read for both */

		note_at(ALLOC_FREE, old, 0, 0, t, HERE);
		note_at(ALLOC_REALLOC, p, size, (uintptr_t)old, t, HERE);
	}
	return p;
}

EXPORT void *aligned_alloc(size_t align, size_t size)
{
	void *p;

	if (!real_aligned_alloc)
		resolve();
	p = fix_here(RET) && power_of_2(align) ? fix_alloc(align, size) :
					     real_aligned_alloc(align, size);
	note(ALLOC_ALIGNED_ALLOC, p, size, align, HERE);
	return p;
}

EXPORT void *memalign(size_t align, size_t size)
{
	void *p;

	if (!real_memalign)
		resolve();
	p = fix_here(RET) && power_of_2(align) ? fix_alloc(align, size) :
					     real_memalign(align, size);
	note(ALLOC_MEMALIGN, p, size, align, HERE);
	return p;
}

EXPORT int posix_memalign(void **out, size_t align, size_t size)
{
	void *fixed = NULL;
	int ret;

	if (!real_posix_memalign)
		resolve();
	if (fix_here(RET) && power_of_2(align) && !(align % sizeof(void *)) &&
	    (fixed = fix_alloc(align, size))) {
		*out = fixed;
		ret = 0;
	} else {
		ret = real_posix_memalign(out, align, size);
	}
	if (!ret)
		note(ALLOC_POSIX_MEMALIGN, *out, size, align, HERE);
	return ret;
}

/* operator new calls malloc through the PLT: the depth keeps that inner
 * call quiet, so the report names the code that said `new`. */
static void *new_common(malloc_fn *real, enum alloc_call call, size_t size,
			void *ret, void *fp)
{
	void *p;

	if (!real) {
		/* libstdc++ came after us (dlopen): its new is malloc's */
		if (!(p = malloc(size ? size : 1)))
			abort();
		return p;
	}
	tb.gate += DEPTH;
	p = fix_here(ret) ? fix_alloc(0, size) : NULL;
	if (!p)
		p = real(size);       /* and its bad_alloc when out of memory */
	tb.gate -= DEPTH;
	note(call, p, size, 0, ret, fp);
	return p;
}

EXPORT void *_Znwm(size_t size)
{
	if (!real_new)
		resolve_cxx();
	return new_common(real_new, ALLOC_NEW, size, HERE);
}

EXPORT void *_Znam(size_t size)
{
	if (!real_new_array)
		resolve_cxx();
	return new_common(real_new_array, ALLOC_NEW_ARRAY, size, HERE);
}

static void delete_common(free_fn *real, void *p, void *ret, void *fp)
{
	if (!p)
		return;
	if (!real) {
		free(p);
		return;
	}
	note(ALLOC_FREE, p, 0, 0, ret, fp);
	tb.gate += DEPTH;
	real(p);
	tb.gate -= DEPTH;
}

EXPORT void _ZdlPv(void *p)
{
	if (!real_delete)
		resolve_cxx();
	delete_common(real_delete, p, HERE);
}

EXPORT void _ZdaPv(void *p)
{
	if (!real_delete_array)
		resolve_cxx();
	delete_common(real_delete_array, p, HERE);
}

/* --- C++17's aligned operators, and the nothrow ones -------------------- */

/* new with std::align_val_t (a type aligned above 16, or new
 * (std::align_val_t(64)) T[n]) allocates with aligned_alloc, and a
 * nothrow new calls plain new: the depth keeps that inner call quiet, and
 * the record carries the alignment in arg, as aligned_alloc's does.
 * Without the real one (an older libstdc++, or one dlopen'd after us):
 * aligned_alloc or malloc, which say it themselves. */
static void *new_aligned_common(aligned_new_fn *real, enum alloc_call call, size_t size,
				size_t align, void *ret, void *fp)
{
	void *p;

	if (!real) {
		if (!(p = aligned_alloc(align, (size + align - 1) / align * align ?: align)))
			abort();
		return p;
	}
	tb.gate += DEPTH;
	p = fix_here(ret) && power_of_2(align) ? fix_alloc(align, size) : NULL;
	if (!p)
		p = real(size, align);    /* and its bad_alloc */
	tb.gate -= DEPTH;
	note(call, p, size, align, ret, fp);
	return p;
}

/* nothrow: NULL instead of bad_alloc; one of real and aligned is set */
static void *new_nothrow_common(nothrow_new_fn *real, aligned_nothrow_new_fn *aligned,
				enum alloc_call call, size_t size, size_t align,
				const void *tag, void *ret, void *fp)
{
	void *p;

	if (!real && !aligned)
		return align ? aligned_alloc(align, (size + align - 1) / align * align ?: align) :
			       malloc(size ? size : 1);
	tb.gate += DEPTH;
	p = aligned ? aligned(size, align, tag) : real(size, tag);
	tb.gate -= DEPTH;
	note(call, p, size, align, ret, fp);
	return p;
}

/* An aligned delete: the record, then the real one, whose free is quiet;
 * one of real and sized is set, else free. */
static void delete_aligned_common(aligned_delete_fn *real, sized_aligned_delete_fn *sized,
				  void *p, size_t size, size_t align, void *ret, void *fp)
{
	if (!p)
		return;
	if (!real && !sized) {
		free(p);
		return;
	}
	note(ALLOC_FREE, p, 0, 0, ret, fp);
	tb.gate += DEPTH;
	if (sized)
		sized(p, size, align);
	else
		real(p, align);
	tb.gate -= DEPTH;
}

/* One wrapper per mangled name: look the real one up, then the common part. */
#define CXX_WRAPPER(type, name, params, real, body)	\
	EXPORT type name params				\
	{						\
		if (!real)				\
			resolve_cxx();			\
		body;					\
	}

CXX_WRAPPER(void *, _ZnwmSt11align_val_t, (size_t size, size_t align), real_new_aligned,
	    return new_aligned_common(real_new_aligned, ALLOC_NEW, size, align, HERE))
CXX_WRAPPER(void *, _ZnamSt11align_val_t, (size_t size, size_t align), real_new_array_aligned,
	    return new_aligned_common(real_new_array_aligned, ALLOC_NEW_ARRAY, size, align,
				      HERE))
CXX_WRAPPER(void *, _ZnwmRKSt9nothrow_t, (size_t size, const void *tag), real_new_nothrow,
	    return new_nothrow_common(real_new_nothrow, NULL, ALLOC_NEW, size, 0, tag, HERE))
CXX_WRAPPER(void *, _ZnamRKSt9nothrow_t, (size_t size, const void *tag), real_new_array_nothrow,
	    return new_nothrow_common(real_new_array_nothrow, NULL, ALLOC_NEW_ARRAY, size, 0,
				      tag, HERE))
CXX_WRAPPER(void *, _ZnwmSt11align_val_tRKSt9nothrow_t,
	    (size_t size, size_t align, const void *tag), real_new_aligned_nothrow,
	    return new_nothrow_common(NULL, real_new_aligned_nothrow, ALLOC_NEW, size, align,
				      tag, HERE))
CXX_WRAPPER(void *, _ZnamSt11align_val_tRKSt9nothrow_t,
	    (size_t size, size_t align, const void *tag), real_new_array_aligned_nothrow,
	    return new_nothrow_common(NULL, real_new_array_aligned_nothrow, ALLOC_NEW_ARRAY,
				      size, align, tag, HERE))
CXX_WRAPPER(void, _ZdlPvSt11align_val_t, (void *p, size_t align), real_delete_aligned,
	    delete_aligned_common(real_delete_aligned, NULL, p, 0, align, HERE))
CXX_WRAPPER(void, _ZdaPvSt11align_val_t, (void *p, size_t align), real_delete_array_aligned,
	    delete_aligned_common(real_delete_array_aligned, NULL, p, 0, align, HERE))
CXX_WRAPPER(void, _ZdlPvmSt11align_val_t, (void *p, size_t size, size_t align),
	    real_delete_sized_aligned,
	    delete_aligned_common(NULL, real_delete_sized_aligned, p, size, align, HERE))
CXX_WRAPPER(void, _ZdaPvmSt11align_val_t, (void *p, size_t size, size_t align),
	    real_delete_array_sized_aligned,
	    delete_aligned_common(NULL, real_delete_array_sized_aligned, p, size, align, HERE))
