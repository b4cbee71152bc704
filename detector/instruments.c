/* instruments.c - the instruments' self-test (instruments.h).
 *
 * Every test runs on the calling thread, against contend's own accesses,
 * calls and CPU time, so that it knows exactly what happened.  The events
 * are counting (no ring) except the timer's, whose samples are the point.
 */
#include "detector/instruments.h"

#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <linux/hw_breakpoint.h>
#include <linux/perf_event.h>

#include "common/procfs.h"
#include "detector/code_probe.h"
#include "detector/perf_event.h"
#include "detector/perf_ring.h"
#include "detector/uprobe_event.h"

#define TRIES 25                    /* stores, loads, calls per test: each
                                       traps, tens of us on a VM */
#define TIMER_SPIN_NS 10000000ULL   /* CPU time the timer is tested over, */
#define TIMER_SPIN_MAX_NS 40000000ULL   /* and at most while it falls short */
#define TIMER_MIN_SHARE 0.7         /* of the requested rate: works */

static const char *const names[INSTRUMENT__COUNT] = {
	[INSTRUMENT_WATCHPOINTS] = "watchpoints",
	[INSTRUMENT_EXEC_BREAKPOINTS] = "execute breakpoints",
	[INSTRUMENT_UPROBES] = "uprobes",
	[INSTRUMENT_TIMER] = "timer samples",
};

static const char *const state_names[] = {
	[INSTRUMENT_UNTESTED] = "untested",
	[INSTRUMENT_WORKS] = "works",
	[INSTRUMENT_DEAD] = "dead",
	[INSTRUMENT_SHORT] = "short",
	[INSTRUMENT_REFUSED] = "refused",
};

/* what each test did, for the text: "a self-test store and load" */
static const char *const what_happened[INSTRUMENT__COUNT] = {
	[INSTRUMENT_WATCHPOINTS] = "self-test stores and loads",
	[INSTRUMENT_EXEC_BREAKPOINTS] = "self-test calls",
	[INSTRUMENT_UPROBES] = "self-test calls",
	[INSTRUMENT_TIMER] = "samples due",
};

static volatile uint64_t test_words[2] __attribute__((aligned(64)));

/* The function the code instruments are tested on: never inlined, never
 * merged with another. */
__attribute__((noinline, noipa)) static void test_call(void)
{
	__asm__ volatile("" ::: "memory");
}

static double thread_cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static double now_ms(void)
{
	return monotonic_s() * 1e3;
}

static void judge(struct instrument_test *t)
{
	if (t->counted >= t->expected)
		t->state = INSTRUMENT_WORKS;
	else
		t->state = t->counted ? INSTRUMENT_SHORT : INSTRUMENT_DEAD;
}

static void counting_attr(struct perf_event_attr *a, uint32_t type)
{
	memset(a, 0, sizeof(*a));
	a->size = sizeof(*a);
	a->type = type;
	a->disabled = 1;
	a->exclude_kernel = 1;
	a->exclude_hv = 1;
}

/* Open on this thread; false (and the test refused) if the kernel says no. */
static bool open_counting(struct perf_event_attr *a, int *fd, struct instrument_test *t)
{
	*fd = perf_event_open_fd(a, 0, -1, -1);
	if (*fd >= 0)
		return true;
	t->state = INSTRUMENT_REFUSED;
	t->err = -*fd;
	return false;
}

static uint64_t read_count(int fd)
{
	uint64_t v = 0;

	ioctl(fd, PERF_EVENT_IOC_DISABLE, 0);
	if (read(fd, &v, sizeof(v)) != (ssize_t)sizeof(v))
		v = 0;
	close(fd);
	return v;
}

static void test_watchpoints(struct instrument_test *t)
{
	struct perf_event_attr w, rw;
	int fw, frw;

	counting_attr(&w, PERF_TYPE_BREAKPOINT);
	w.bp_type = HW_BREAKPOINT_W;
	w.bp_addr = (uintptr_t)&test_words[0];
	w.bp_len = HW_BREAKPOINT_LEN_8;
	rw = w;
	rw.bp_type = HW_BREAKPOINT_RW;
	rw.bp_addr = (uintptr_t)&test_words[1];
	if (!open_counting(&w, &fw, t))
		return;
	if (!open_counting(&rw, &frw, t)) {
		close(fw);
		return;
	}
	ioctl(fw, PERF_EVENT_IOC_ENABLE, 0);
	ioctl(frw, PERF_EVENT_IOC_ENABLE, 0);
	for (unsigned i = 0; i < TRIES; i++) {
		test_words[0] = i;
		(void)test_words[1];
	}
	t->expected = 2 * TRIES;
	t->counted = read_count(fw) + read_count(frw);
	judge(t);
}

/* Calls of test_call() the event on fd counted; fd stays open. */
static void count_calls_open(int fd, struct instrument_test *t)
{
	void (*volatile call)(void) = test_call;
	uint64_t v = 0;

	ioctl(fd, PERF_EVENT_IOC_ENABLE, 0);
	for (unsigned i = 0; i < TRIES; i++)
		call();
	ioctl(fd, PERF_EVENT_IOC_DISABLE, 0);
	if (read(fd, &v, sizeof(v)) != (ssize_t)sizeof(v))
		v = 0;
	t->expected = TRIES;
	t->counted = v;
	judge(t);
}

static void test_exec_breakpoints(struct instrument_test *t)
{
	struct perf_event_attr a;
	int fd;

	counting_attr(&a, PERF_TYPE_BREAKPOINT);
	a.bp_type = HW_BREAKPOINT_X;
	a.bp_addr = (uintptr_t)test_call;
	a.bp_len = code_probe_bp_len();
	if (open_counting(&a, &fd, t)) {
		count_calls_open(fd, t);
		close(fd);
	}
}

/* Where test_call() lies in contend's executable file. */
static bool own_file_offset(uint64_t addr, uint64_t *off)
{
	FILE *f = fopen("/proc/self/maps", "re");
	char line[4096];
	bool found = false;

	if (!f)
		return false;
	while (!found && fgets(line, sizeof(line), f)) {
		uint64_t start, end, pgoff;
		uint32_t prot;
		const char *name;

		if (parse_maps_line(line, &start, &end, &pgoff, &prot, &name) && addr >= start &&
		    addr < end && name[0] == '/') {
			*off = addr - start + pgoff;
			found = true;
		}
	}
	fclose(f);
	return found;
}

/* As code_probe.c uses them: one trace event (uprobe_event.h), whose
 * closing is left to a thread of its own. */
static void test_uprobes(struct instrument_test *t)
{
	struct uprobe_place place = { .path = "/proc/self/exe" };
	struct uprobe_event ev;
	struct perf_event_attr a;
	int fd, err;

	if (!own_file_offset((uintptr_t)test_call, &place.offset)) {
		t->state = INSTRUMENT_REFUSED;
		t->err = ENOENT;
		return;
	}
	if ((err = uprobe_event_define(&ev, &place, 1)) < 0) {
		t->state = INSTRUMENT_REFUSED;
		t->err = -err;
		return;
	}
	counting_attr(&a, PERF_TYPE_TRACEPOINT);
	a.config = ev.id;
	a.exclude_kernel = 0;
	if (open_counting(&a, &fd, t)) {
		count_calls_open(fd, t);
		uprobe_event_release(&ev, &fd, 1);
	} else {
		uprobe_event_release(&ev, NULL, 0);
	}
}

static void count_sample(void *ctx, const struct perf_event_header *h)
{
	if (h->type == PERF_RECORD_SAMPLE)
		(*(uint64_t *)ctx)++;
}

/* counted samples over cpu_s seconds of CPU time, freq Hz asked for.  The
 * rate, not the count, is what was asked for: kept as samples per second
 * of CPU time. */
static void judge_timer(struct instrument_test *t, unsigned freq, uint64_t counted, double cpu_s)
{
	double due = cpu_s * (double)freq;

	if ((double)counted >= TIMER_MIN_SHARE * due)
		t->state = INSTRUMENT_WORKS;
	else
		t->state = counted ? INSTRUMENT_SHORT : INSTRUMENT_DEAD;
	t->expected = freq;
	t->counted = (uint64_t)((double)counted / cpu_s + 0.5);
}

static void test_timer(struct instrument_test *t, unsigned freq)
{
	struct perf_event_attr a;
	struct perf_ring ring;
	uint64_t period = 1000000000ULL / (freq ? freq : 1000), counted = 0;
	double start, spent;
	volatile uint64_t x = 1;
	int fd, err;

	counting_attr(&a, PERF_TYPE_SOFTWARE);
	a.config = PERF_COUNT_SW_CPU_CLOCK;
	a.sample_period = period;
	a.sample_type = PERF_SAMPLE_TIME;
	if (!open_counting(&a, &fd, t))
		return;
	if ((err = perf_ring_map(&ring, fd, 8)) < 0) {
		close(fd);
		t->state = INSTRUMENT_REFUSED;
		t->err = -err;
		return;
	}
	ioctl(fd, PERF_EVENT_IOC_ENABLE, 0);
	start = thread_cpu_ns();
	/* 10 ms is 10 samples at 1000 Hz, and on a loaded VM one timer
	 * delayed past its period loses a sample: 6 of 10 was seen where
	 * the timer works.  Short, the test goes on (to 40 ms), and the rate
	 * over all of it is judged: a timer that is short stays short. */
	for (double limit = TIMER_SPIN_NS;; limit += TIMER_SPIN_NS) {
		do {
			for (int i = 0; i < 10000; i++)
				x = x * 6364136223846793005ULL + 1;
			spent = thread_cpu_ns() - start;
		} while (spent < limit);
		perf_ring_read(&ring, count_sample, &counted);
		if ((double)counted >= TIMER_MIN_SHARE * spent / 1e9 * (double)freq ||
		    limit >= (double)TIMER_SPIN_MAX_NS)
			break;
	}
	ioctl(fd, PERF_EVENT_IOC_DISABLE, 0);
	perf_ring_read(&ring, count_sample, &counted);
	perf_ring_unmap(&ring);
	close(fd);
	judge_timer(t, freq, counted, spent / 1e9);
}

void instruments_timer_from_run(struct instruments *in, unsigned freq, uint64_t samples,
				double user_s)
{
	struct instrument_test *t = &in->t[INSTRUMENT_TIMER];

	if (!freq || user_s * freq < TIMER_MIN_DUE)
		return;
	memset(t, 0, sizeof(*t));
	judge_timer(t, freq, samples, user_s);
}

static void test_one(struct instruments *in, enum instrument which, unsigned freq)
{
	struct instrument_test *t = &in->t[which];
	double t0 = now_ms();

	memset(t, 0, sizeof(*t));
	switch (which) {
	case INSTRUMENT_WATCHPOINTS: test_watchpoints(t); break;
	case INSTRUMENT_EXEC_BREAKPOINTS: test_exec_breakpoints(t); break;
	case INSTRUMENT_UPROBES: test_uprobes(t); break;
	case INSTRUMENT_TIMER: test_timer(t, freq); break;
	case INSTRUMENT__COUNT: break;
	}
	t->ms = now_ms() - t0;
}

void instruments_test(struct instruments *in, unsigned freq)
{
	for (int i = 0; i < INSTRUMENT__COUNT; i++)
		test_one(in, (enum instrument)i, freq);
}

/* A session's (instruments_wanted). */
static void instruments_test_needed(struct instruments *in, unsigned freq, unsigned wanted)
{
	memset(in, 0, sizeof(*in));
	if (wanted & INSTRUMENTS_TIMER)
		test_one(in, INSTRUMENT_TIMER, freq);
	if (!(wanted & INSTRUMENTS_PROBES))
		return;
	test_one(in, INSTRUMENT_WATCHPOINTS, freq);
	test_one(in, INSTRUMENT_EXEC_BREAKPOINTS, freq);
	if (!instrument_works(in, INSTRUMENT_WATCHPOINTS) ||
	    !instrument_works(in, INSTRUMENT_EXEC_BREAKPOINTS))
		test_one(in, INSTRUMENT_UPROBES, freq);
}

struct instruments_pending {
	pthread_t thread;
	bool started;
	struct instruments *in;
	unsigned freq, wanted;
};

static void *test_thread(void *arg)
{
	struct instruments_pending *p = arg;

	instruments_test_needed(p->in, p->freq, p->wanted);
	return NULL;
}

struct instruments_pending *instruments_test_start(struct instruments *in, unsigned freq,
						    unsigned wanted)
{
	struct instruments_pending *p = xcalloc(1, sizeof(*p));

	p->in = in;
	p->freq = freq;
	p->wanted = wanted;
	if (!wanted) {      /* nothing to test: no thread either */
		memset(in, 0, sizeof(*in));
		return p;
	}
	p->started = pthread_create(&p->thread, NULL, test_thread, p) == 0;
	if (!p->started)
		instruments_test_needed(in, freq, wanted);
	return p;
}

void instruments_test_wait(struct instruments_pending *p)
{
	if (!p)
		return;
	if (p->started)
		pthread_join(p->thread, NULL);
	free(p);
}

bool instrument_works(const struct instruments *in, enum instrument which)
{
	return in && in->t[which].state == INSTRUMENT_WORKS;
}

static bool first_working(const struct instruments *in, enum instrument a, enum instrument b,
			  enum instrument *out)
{
	if (instrument_works(in, a))
		*out = a;
	else if (instrument_works(in, b))
		*out = b;
	else
		return false;
	return true;
}

bool instruments_for_confirmation(const struct instruments *in, enum instrument *out)
{
	return first_working(in, INSTRUMENT_WATCHPOINTS, INSTRUMENT_UPROBES, out);
}

bool instruments_for_census(const struct instruments *in, enum instrument *out)
{
	return first_working(in, INSTRUMENT_EXEC_BREAKPOINTS, INSTRUMENT_UPROBES, out);
}

const char *instrument_name(enum instrument which)
{
	return which < INSTRUMENT__COUNT ? names[which] : "?";
}

const char *instrument_state_name(enum instrument_state state)
{
	return state <= INSTRUMENT_REFUSED ? state_names[state] : "?";
}

bool instrument_state_parse(const char *name, enum instrument_state *out)
{
	for (unsigned i = 0; i <= INSTRUMENT_REFUSED; i++)
		if (!strcmp(name, state_names[i])) {
			*out = (enum instrument_state)i;
			return true;
		}
	return false;
}

bool instrument_parse(const char *name, enum instrument *out)
{
	for (unsigned i = 0; i < INSTRUMENT__COUNT; i++)
		if (!strcmp(name, names[i])) {
			*out = (enum instrument)i;
			return true;
		}
	return false;
}

char *instrument_result_text(const struct instruments *in, enum instrument which)
{
	const struct instrument_test *t = &in->t[which];
	bool timer = which == INSTRUMENT_TIMER;

	switch (t->state) {
	case INSTRUMENT_WORKS:
		if (timer)
			return xasprintf("works: %" PRIu64 " Hz delivered of %" PRIu64 " requested",
					 t->counted, t->expected);
		return xasprintf("works: %" PRIu64 " of %" PRIu64 " %s counted", t->counted,
				 t->expected, what_happened[which]);
	case INSTRUMENT_DEAD:
		if (timer)
			return xasprintf("unavailable on this machine: 0 Hz delivered of %" PRIu64
					 " requested", t->expected);
		return xasprintf("unavailable on this machine: armed, never fired on %s "
				 "(0 of %" PRIu64 ")", what_happened[which], t->expected);
	case INSTRUMENT_SHORT:
		if (timer)
			return xasprintf("short: %" PRIu64 " Hz delivered of %" PRIu64 " requested",
					 t->counted, t->expected);
		return xasprintf("unreliable on this machine: counted %" PRIu64 " of %" PRIu64
				 " %s", t->counted, t->expected, what_happened[which]);
	case INSTRUMENT_REFUSED:
		return xasprintf("refused: %s", which == INSTRUMENT_UPROBES && t->err != ESRCH ?
				 uprobe_event_hint(t->err) : perf_open_hint(t->err));
	case INSTRUMENT_UNTESTED:
		break;
	}
	return xstrdup("not tested");
}
