#include "detector/transfer_price.h"

#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common/util.h"

/* Iterations: 10-30 ms per contended loop on the VMs of gain.h, long
 * enough that a timer tick's noise is small. */
static const long loop_iters[TRANSFER_LOOPS] = { 1000000L, 2000000L, 1000000L };

static struct {
	_Alignas(128) long words[2];   /* contended: one line */
	_Alignas(128) long own0;       /* private: a line each, prefetchers apart */
	_Alignas(128) long own1;
	char pad[120];
} cells;

struct probe_thread {
	pthread_t thread;
	int cpu;                       /* -1: not pinned */
	volatile long *word;
	enum transfer_loop loop;
	volatile int *ready;           /* threads at the start line */
	volatile int *give_up;         /* the other thread never came */
	uint64_t start_ns, end_ns;
	uint64_t cpu_ns;               /* the thread's CPU time in the loop */
};

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static uint64_t thread_cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* The switch stays in the loop (bench/store-queue's shape, where gain.h's
 * references were measured): each iteration pays its dispatch.  Without
 * it a plain add alone costs ~7x contended on Zen 5, not 2.5x: the
 * private loop runs faster. */
__attribute__((noinline)) void transfer_loop_run(enum loop_shape shape, volatile long *c,
						 long iters)
{
	volatile long mine;

	for (long i = 0; i < iters; i++) {
		switch (shape) {
		case LOOP_RMW: *c += i & 7; break;
		case LOOP_LOAD_STORE: { long v = *c; *c = v + 1; break; }
		case LOOP_STACK: { mine = i; long v = *c; *c = v + 1; break; }
		case LOOP_RMW_STACK: mine = i; *c += i & 7; break;
		case LOOP_ATOMIC: __atomic_fetch_add(c, 1, __ATOMIC_RELAXED); break;
		case LOOP_FENCED: *c = i; __atomic_thread_fence(__ATOMIC_SEQ_CST); break;
		default: break;
		}
	}
	(void)mine;
}

static const enum loop_shape shape_of[TRANSFER_LOOPS] = { LOOP_ATOMIC, LOOP_RMW, LOOP_FENCED };

static void *probe_loop(void *arg)
{
	struct probe_thread *t = arg;

	if (t->cpu >= 0) {
		cpu_set_t set;

		CPU_ZERO(&set);
		CPU_SET(t->cpu, &set);
		pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
	}
	/* the two start when both are on their CPUs, not when a third
	 * thread (ours, on one of those CPUs on a 2-CPU machine) says so */
	__atomic_fetch_add(t->ready, 1, __ATOMIC_ACQ_REL);
	while (__atomic_load_n(t->ready, __ATOMIC_ACQUIRE) < 2 &&
	       !__atomic_load_n(t->give_up, __ATOMIC_ACQUIRE))
		;
	t->cpu_ns = thread_cpu_ns();
	t->start_ns = now_ns();
	transfer_loop_run(shape_of[t->loop], t->word, loop_iters[t->loop]);
	t->end_ns = now_ns();
	t->cpu_ns = thread_cpu_ns() - t->cpu_ns;
	return NULL;
}

/* The loop on w0 and w1 at once; its time in seconds, or 0 if the
 * threads were off their CPUs, or (together: on one line) did not run
 * side by side; -1 with errno set if a thread could not start. */
static double timed_loop(enum transfer_loop loop, volatile long *w0, volatile long *w1,
			 const int cpus[2], bool together)
{
	struct probe_thread t[2];
	volatile int give_up = 0, ready = 0;
	volatile long *words[2] = { w0, w1 };
	int started = 0, err = 0;

	for (int i = 0; i < 2 && !err; i++) {
		t[i] = (struct probe_thread){ .cpu = cpus[i], .word = words[i], .loop = loop,
					     .ready = &ready, .give_up = &give_up };
		err = pthread_create(&t[i].thread, NULL, probe_loop, &t[i]);
		started += !err;
	}
	if (err) {
		__atomic_store_n(&give_up, 1, __ATOMIC_RELEASE);
		for (int i = 0; i < started; i++)
			pthread_join(t[i].thread, NULL);
		errno = err;
		return -1;
	}
	for (int i = 0; i < 2; i++)
		pthread_join(t[i].thread, NULL);

	uint64_t first_end = t[0].end_ns < t[1].end_ns ? t[0].end_ns : t[1].end_ns;
	uint64_t last_start = t[0].start_ns > t[1].start_ns ? t[0].start_ns : t[1].start_ns;
	uint64_t d0 = t[0].end_ns - t[0].start_ns, d1 = t[1].end_ns - t[1].start_ns;
	uint64_t longest = d0 > d1 ? d0 : d1;

	/* a thread off its CPU for more than a tenth of its loop, or a
	 * fifth of a contended loop run alone (a vCPU's start can lag by a
	 * millisecond or two), did not pay (or make the other pay) what
	 * running side by side costs */
	if (t[0].cpu_ns * 10 < d0 * 9 || t[1].cpu_ns * 10 < d1 * 9)
		return 0;
	if (together && (first_end <= last_start || (first_end - last_start) * 5 < longest * 4))
		return 0;
	return (double)longest / 1e9;
}

static bool read_siblings(int cpu, cpu_set_t *set)
{
	char path[96], list[256];
	FILE *f;

	CPU_ZERO(set);
	snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu%d/topology/thread_siblings_list",
		 cpu);
	if (!(f = fopen(path, "re")))
		return false;
	bool ok = fgets(list, sizeof(list), f) != NULL;
	fclose(f);
	if (!ok)
		return false;
	for (char *p = list; *p && *p != '\n';) {       /* "0,4" or "0-1" */
		char *end;
		long a = strtol(p, &end, 10), b = a;

		if (end == p || a < 0 || a >= CPU_SETSIZE)
			return false;
		if (*end == '-') {
			p = end + 1;
			b = strtol(p, &end, 10);
			if (end == p || b < a || b >= CPU_SETSIZE)
				return false;
		}
		for (long c = a; c <= b; c++)
			CPU_SET((int)c, set);
		if (*end == ',')
			p = end + 1;
		else if (*end == '\n' || !*end)
			break;
		else
			return false;
	}
	return true;
}

/* Two allowed CPUs of different cores: a line moving between hyperthreads
 * of one core never leaves its L1.  false if there are no two. */
static bool pick_cpus(int cpus[2])
{
	cpu_set_t allowed, siblings;

	cpus[0] = cpus[1] = -1;
	if (sched_getaffinity(0, sizeof(allowed), &allowed) != 0)
		return true;                  /* unknown: let the scheduler place them */
	if (CPU_COUNT(&allowed) < 2)
		return false;
	for (int c = 0; c < CPU_SETSIZE; c++) {
		if (!CPU_ISSET(c, &allowed))
			continue;
		if (cpus[0] < 0) {
			cpus[0] = c;
			if (!read_siblings(c, &siblings))
				CPU_ZERO(&siblings);
			continue;
		}
		if (!CPU_ISSET(c, &siblings)) {
			cpus[1] = c;
			return true;
		}
	}
	cpus[0] = cpus[1] = -1;               /* one core: no transfer to price */
	return false;
}

bool transfer_price_valid(double ratio)
{
	return ratio == 0 || (isfinite(ratio) && ratio >= TRANSFER_PRICE_MIN &&
			      ratio <= TRANSFER_PRICE_MAX);
}

bool transfer_price_holds(const struct transfer_price *p)
{
	if (!p->locked && !p->store && !p->runs)
		return true;
	return p->locked && transfer_price_valid(p->locked) && p->store &&
	       transfer_price_valid(p->store) && transfer_price_valid(p->fenced) &&
	       p->runs && p->runs <= TRANSFER_PRICE_TRIES;
}

static double bounded(double r)
{
	return r < TRANSFER_PRICE_MIN ? TRANSFER_PRICE_MIN :
	       r > TRANSFER_PRICE_MAX ? TRANSFER_PRICE_MAX : r;
}

int transfer_price_measure(struct transfer_price *p, struct strbuf *why)
{
	double ratios[TRANSFER_LOOPS][TRANSFER_PRICE_TRIES];
	unsigned n[TRANSFER_LOOPS] = { 0 }, tries = 0;
	bool enough = false;
	int cpus[2];

	*p = (struct transfer_price){ 0 };
	if (!pick_cpus(cpus)) {
		strbuf_addf(why, "not measured: fewer than two cores to run on");
		return -1;
	}
	uint64_t deadline = now_ns() + (uint64_t)(TRANSFER_PRICE_BUDGET_S * 1e9);

	/* a busy machine's tries take longer and fail: the budget keeps an
	 * attach from starting late by more than it */
	while (tries < TRANSFER_PRICE_TRIES && !enough && now_ns() < deadline) {
		tries++;
		enough = true;
		for (int k = 0; k < TRANSFER_LOOPS; k++) {
			double shared = timed_loop(k, &cells.words[0], &cells.words[1], cpus, true);
			double own = timed_loop(k, &cells.own0, &cells.own1, cpus, false);

			if (shared < 0 || own < 0) {
				strbuf_addf(why, "not measured: cannot start a thread (%s)",
					    strerror(errno));
				return -1;
			}
			if (shared > 0 && own > 0)
				ratios[k][n[k]++] = shared / own;
			enough = enough && n[k] >= TRANSFER_PRICE_NEEDED + 2;
		}
	}
	for (int k = 0; k < TRANSFER_LOOPS; k++)
		if (n[k] < TRANSFER_PRICE_NEEDED) {
			strbuf_addf(why, "not measured: in %u of %u tries the probe's two threads "
				    "did not run at once (a busy machine)", tries - n[k], tries);
			p->busy = true;
			return -1;
		}
	p->locked = bounded(median_of(ratios[TRANSFER_LOCKED], n[TRANSFER_LOCKED]));
	p->store = bounded(median_of(ratios[TRANSFER_STORE], n[TRANSFER_STORE]));
	p->fenced = bounded(median_of(ratios[TRANSFER_FENCED], n[TRANSFER_FENCED]));
	p->runs = n[TRANSFER_LOCKED];
	for (int k = 1; k < TRANSFER_LOOPS; k++)
		p->runs = n[k] < p->runs ? n[k] : p->runs;
	return 0;
}
