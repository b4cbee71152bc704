/* census_window.c - execute breakpoints for one census window
 * (census_window.h).
 *
 * Per thread, one event per instruction; the first owns a small ring and
 * the others write into it (PERF_EVENT_IOC_SET_OUTPUT: same task, same
 * "any CPU").  Every event starts disabled and is enabled once every
 * thread is armed, so that no thread runs with half its breakpoints.
 */
#include "detector/census_window.h"

#include <dirent.h>
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <linux/hw_breakpoint.h>
#include <linux/perf_event.h>

#include "common/util.h"
#include "detector/perf_session.h"
#include "detector/watch.h"
#include "symbolize/decode.h"

#define RING_PAGES 8              /* ~130 records of registers per thread */
#define POLL_MS 2
#define MAX_RECORD 1024           /* registers and 8 bytes of stack: ~260 */

struct census_thread {
	pid_t tid;
	int fd[WATCH_SLOTS];
	unsigned n_fd;
	void *ring;
};

struct window {
	struct perf_event_attr attr;   /* of every event; bp_addr varies */
	size_t page_size;
	struct census_thread *t;
	unsigned n_t, alloc_t;
	unsigned hits;
};

unsigned census_bp_len(void)
{
	return decode_arch_native()->insn_width == 4 ? HW_BREAKPOINT_LEN_4 : sizeof(long);
}

static void init_attr(struct perf_event_attr *a, bool stack)
{
	memset(a, 0, sizeof(*a));
	a->type = PERF_TYPE_BREAKPOINT;
	a->size = sizeof(*a);
	a->bp_type = HW_BREAKPOINT_X;
	a->bp_len = census_bp_len();
	a->sample_period = 1;
	a->sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CPU |
			 PERF_SAMPLE_PERIOD | PERF_SAMPLE_REGS_USER;
	a->sample_regs_user = decode_native_regs_mask();
	if (stack) {
		a->sample_type |= PERF_SAMPLE_STACK_USER;
		a->sample_stack_user = 8;
	}
	a->disabled = 1;
	a->exclude_kernel = 1;
	a->exclude_hv = 1;
}

static void close_thread(struct window *w, struct census_thread *t)
{
	if (t->ring)
		munmap(t->ring, (1 + RING_PAGES) * w->page_size);
	t->ring = NULL;
	for (unsigned i = t->n_fd; i-- > 0;)
		close(t->fd[i]);
	t->n_fd = 0;
}

/* 0, or -errno of the first event that failed (the thread is left
 * unarmed).  Without a ring the thread's hits are lost: unarmed too. */
static int arm_thread(struct window *w, struct census_thread *t, const uint64_t *ips,
		      unsigned n)
{
	for (unsigned i = 0; i < n; i++) {
		struct perf_event_attr a = w->attr;
		int fd;

		a.bp_addr = ips[i];
		fd = (int)syscall(SYS_perf_event_open, &a, t->tid, -1, -1, PERF_FLAG_FD_CLOEXEC);
		if (fd < 0) {
			int e = errno;

			close_thread(w, t);
			return -e;
		}
		t->fd[t->n_fd++] = fd;
	}
	t->ring = mmap(NULL, (1 + RING_PAGES) * w->page_size, PROT_READ | PROT_WRITE,
		       MAP_SHARED, t->fd[0], 0);
	if (t->ring == MAP_FAILED) {
		int e = errno;

		t->ring = NULL;
		close_thread(w, t);
		return -e;
	}
	for (unsigned i = 1; i < t->n_fd; i++) {
		if (ioctl(t->fd[i], PERF_EVENT_IOC_SET_OUTPUT, t->fd[0]) < 0) {
			int e = errno;

			close_thread(w, t);
			return -e;
		}
	}
	return 0;
}

/* Every thread of pid, armed.  Returns the number armed, or -errno. */
static int arm_threads(struct window *w, pid_t pid, const uint64_t *ips, unsigned n)
{
	char path[64];
	struct dirent *de;
	DIR *d;
	int armed = 0, first_err = 0;

	snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
	d = opendir(path);
	if (!d)
		return -ESRCH;
	while ((de = readdir(d))) {
		pid_t tid = (pid_t)atoi(de->d_name);
		struct census_thread *t;
		int err;

		if (tid <= 0)
			continue;
		ALLOC_GROW(w->t, w->n_t + 1, w->alloc_t);
		t = &w->t[w->n_t];
		memset(t, 0, sizeof(*t));
		t->tid = tid;
		err = arm_thread(w, t, ips, n);
		if (err < 0) {
			if (err != -ESRCH && err != -ENODEV && !first_err)
				first_err = err;
			continue;
		}
		w->n_t++;
		armed++;
	}
	closedir(d);
	if (!armed)
		return first_err ? first_err : -ESRCH;
	return armed;
}

static void drain(struct window *w, struct census_thread *t,
		  void (*hit)(void *ctx, const struct perf_sample *ps), void *ctx)
{
	struct perf_event_mmap_page *meta = t->ring;
	const uint8_t *data = (const uint8_t *)t->ring + w->page_size;
	size_t size = RING_PAGES * w->page_size;
	uint64_t head = __atomic_load_n(&meta->data_head, __ATOMIC_ACQUIRE);
	uint64_t tail = meta->data_tail;
	uint8_t rec[MAX_RECORD];

	while (tail < head) {
		struct perf_event_header h;
		size_t off = tail & (size - 1);
		struct perf_sample ps;

		for (size_t i = 0; i < sizeof(h); i++)
			((uint8_t *)&h)[i] = data[(off + i) & (size - 1)];
		if (h.size < sizeof(h) || h.size > head - tail)
			break;
		if (h.type == PERF_RECORD_LOST && h.size >= sizeof(h) + 2 * sizeof(uint64_t)) {
			uint64_t lost;   /* { id, lost }: hits all the same */

			for (size_t i = 0; i < sizeof(lost); i++)
				((uint8_t *)&lost)[i] = data[(off + sizeof(h) + 8 + i) & (size - 1)];
			w->hits += lost > UINT32_MAX ? UINT32_MAX : (unsigned)lost;
		} else if (h.type == PERF_RECORD_SAMPLE && h.size <= sizeof(rec)) {
			for (size_t i = 0; i < h.size; i++)
				rec[i] = data[(off + i) & (size - 1)];
			if (perf_parse_sample(&w->attr, rec, h.size, &ps)) {
				w->hits++;
				hit(ctx, &ps);
			}
		}
		tail += h.size;
	}
	__atomic_store_n(&meta->data_tail, tail, __ATOMIC_RELEASE);
}

int census_window_run(pid_t pid, const uint64_t *ips, unsigned n, bool stack, double max_s,
		      unsigned max_hits, void (*hit)(void *ctx, const struct perf_sample *ps),
		      void *ctx)
{
	struct window w = { 0 };
	long page = sysconf(_SC_PAGESIZE);
	double t0;
	int armed;

	if (!n || n > WATCH_SLOTS)
		return -EINVAL;
	w.page_size = page > 0 ? (size_t)page : 4096;
	init_attr(&w.attr, stack);
	armed = arm_threads(&w, pid, ips, n);
	if (armed < 0) {
		free(w.t);
		return armed;
	}
	for (unsigned i = 0; i < w.n_t; i++)
		for (unsigned k = 0; k < w.t[i].n_fd; k++)
			ioctl(w.t[i].fd[k], PERF_EVENT_IOC_ENABLE, 0);
	t0 = monotonic_s();
	do {
		poll(NULL, 0, POLL_MS);
		for (unsigned i = 0; i < w.n_t; i++)
			drain(&w, &w.t[i], hit, ctx);
	} while (w.hits < max_hits && monotonic_s() - t0 < max_s);
	for (unsigned i = 0; i < w.n_t; i++) {
		for (unsigned k = 0; k < w.t[i].n_fd; k++)
			ioctl(w.t[i].fd[k], PERF_EVENT_IOC_DISABLE, 0);
		drain(&w, &w.t[i], hit, ctx);
		close_thread(&w, &w.t[i]);
	}
	free(w.t);
	return (int)w.hits;
}
