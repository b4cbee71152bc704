/* test_census.c - the census (detector/census.h) on this process.
 *
 * Two threads each spend their time in spin() and now and then write
 * their own slot in publish(); the slots share one line.  The census is
 * told that spin() is hot, as the samples would tell it; it must find
 * publish() through spin()'s caller, and hand on each thread's stores to
 * its own slot.  The live part runs once with each instrument that can
 * probe code (execute breakpoints, uprobes), and is skipped, with the
 * self-test's reason, for one that does not work here
 * (detector/instruments.h): on a machine whose breakpoints never fire,
 * the uprobes must find what the breakpoints find elsewhere.
 */
#include <errno.h>
#include <stdlib.h>
#include <pthread.h>
#include <stdint.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "common/util.h"
#include "detector/census.h"
#include "detector/code_probe.h"
#include "detector/instruments.h"
#include "symbolize/symbolizer.h"
#include "tap.h"

struct slot {
	long done;
	long value;
};

static struct slot slots[2] __attribute__((aligned(64)));
static volatile int stop;

static __attribute__((noinline)) unsigned long spin(unsigned long x)
{
	for (int k = 0; k < 20000; k++)
		x = x * 6364136223846793005UL + 1442695040888963407UL;
	return x;
}

static __attribute__((noinline)) void publish(struct slot *s, unsigned long v)
{
	s->done++;
	s->value = (long)v;
}

struct worker_arg {
	struct slot *slot;
	pid_t tid;
};

static __attribute__((noinline)) void *worker(void *p)
{
	struct worker_arg *a = p;
	unsigned long x = (uintptr_t)a->slot;

	a->tid = (pid_t)syscall(SYS_gettid);
	while (!stop) {
		x = spin(x);
		publish(a->slot, x);
	}
	return (void *)x;
}

static void test_function_stores(struct census *c, struct symbolizer *sym, pid_t pid)
{
	struct code_site stores[8];
	uint64_t calls[8];
	unsigned n, n_calls, in_publish = 0, to_spin = 0, to_publish = 0;
	struct func_info fi;

	CHECK(symbolizer_function(sym, pid, (uintptr_t)publish, &fi) && fi.end > fi.start,
	      "publish() has a symbol");
	n = census_function_stores(c, pid, (uintptr_t)publish, stores, 8, calls, 8, &n_calls);
	CHECK(n >= 2, "publish() writes done and value: %u stores", n);
	for (unsigned i = 0; i < n; i++)
		in_publish += stores[i].ip >= fi.start && stores[i].ip < fi.end &&
			      stores[i].alt > stores[i].ip && stores[i].alt <= fi.end;
	CHECK(in_publish == n, "every store is publish()'s own, the next instruction its alt");
	/* (under AddressSanitizer it calls the checks' reports) */
	for (unsigned i = 0; i < n_calls; i++)
		CHECK(calls[i] != (uintptr_t)spin && calls[i] != (uintptr_t)publish,
		      "publish() calls neither spin() nor itself");

	census_function_stores(c, pid, (uintptr_t)worker + 1, stores, 8, calls, 8, &n_calls);
	for (unsigned i = 0; i < n_calls; i++) {
		to_spin += calls[i] == (uintptr_t)spin;
		to_publish += calls[i] == (uintptr_t)publish;
	}
	CHECK(to_spin && to_publish, "worker() calls spin() and publish(): %u calls", n_calls);

	n = census_function_stores(c, pid, 0x10, stores, 8, calls, 8, &n_calls);
	CHECK(n == 0 && n_calls == 0, "no function at 0x10");
}

struct seen {
	pid_t tid[2];
	unsigned done_writes[2], foreign, total;
};

static void on_access(void *ctx, const struct access_sample *a)
{
	struct seen *s = ctx;

	s->total++;
	for (int i = 0; i < 2; i++) {
		if ((pid_t)a->tid != s->tid[i])
			continue;
		if (a->addr == (uintptr_t)&slots[i].done)
			s->done_writes[i]++;
		else if (a->addr != (uintptr_t)&slots[i].value)
			s->foreign++;
	}
}

static void count_hit(void *ctx, const struct perf_sample *ps, const struct code_site *site)
{
	(void)ps;
	(void)site;
	(*(unsigned *)ctx)++;
}

static void test_live(struct census *c, struct symbolizer *sym, pid_t pid,
		      enum code_probe_kind kind)
{
	unsigned probe_hits = 0;
	struct worker_arg args[2] = { { &slots[0], 0 }, { &slots[1], 0 } };
	struct seen seen = { { 0, 0 }, { 0, 0 }, 0, 0 };
	uint64_t spin_ip = (uintptr_t)spin + 4;
	pthread_t th[2];
	struct code_site probe = { .ip = (uintptr_t)spin };
	struct code_probe_window w = {
		.kind = kind, .sym = sym, .pid = pid, .sites = &probe, .n_sites = 1,
		.max_s = 0.01, .max_hits = 10, .hit = count_hit, .ctx = &probe_hits,
	};
	int ret;

	printf("# the census with %s\n", code_probe_kind_name(kind));
	stop = 0;
	for (int i = 0; i < 2; i++)
		pthread_create(&th[i], NULL, worker, &args[i]);
	while (!__atomic_load_n(&args[0].tid, __ATOMIC_ACQUIRE) ||
	       !__atomic_load_n(&args[1].tid, __ATOMIC_ACQUIRE))
		usleep(1000);
	seen.tid[0] = args[0].tid;
	seen.tid[1] = args[1].tid;

	ret = code_probe_run(&w);
	CHECK(ret >= 0, "a window of %s opens: %s", code_probe_kind_name(kind),
	      ret < 0 ? strerror(-ret) : "yes");
	if (ret >= 0) {
		CHECK(probe_hits > 0, "spin()'s entry traps");
		/* the samples: all in spin() */
		for (int i = 0; i < 100; i++)
			census_note_sample(c, (uint32_t)pid, spin_ip);
		CHECK(!census_tick(c, pid, CENSUS_AT_S / 2, on_access, &seen),
		      "nothing before CENSUS_AT_S");
		for (int i = 0; i < 10 && census_tick(c, pid, CENSUS_AT_S + i, on_access, &seen); i++)
			;
		CHECK(census_windows(c) >= 2, "an entry window and a store window: %u",
		      census_windows(c));
		CHECK(seen.done_writes[0] >= 1 && seen.done_writes[1] >= 1,
		      "each thread's store to its own done: %u, %u", seen.done_writes[0],
		      seen.done_writes[1]);
		CHECK(seen.done_writes[0] <= 2 && seen.done_writes[1] <= 2,
		      "first and last hit only: %u, %u", seen.done_writes[0], seen.done_writes[1]);
		CHECK(seen.foreign == 0, "no thread is seen writing another's slot");
		CHECK(seen.total == census_accesses(c), "every access counted");
		CHECK(!census_tick(c, pid, 60, on_access, &seen), "the census runs once");
	}
	stop = 1;
	for (int i = 0; i < 2; i++)
		pthread_join(th[i], NULL);
}

int main(void)
{
	static const struct {
		enum instrument instrument;
		enum code_probe_kind kind;
	} kinds[] = {
		{ INSTRUMENT_EXEC_BREAKPOINTS, CODE_PROBE_BREAKPOINT },
		{ INSTRUMENT_UPROBES, CODE_PROBE_UPROBE },
	};
	struct symbolizer *sym = symbolizer_new();
	struct instruments in;
	pid_t pid = getpid();
	struct census *c;

	warnings_quiet = true;
	symbolizer_load_proc_maps(sym, pid);
	c = census_new(sym, CODE_PROBE_BREAKPOINT);
	test_function_stores(c, sym, pid);
	census_free(c);
	instruments_test(&in, 1000);
	for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++) {
		if (!instrument_works(&in, kinds[i].instrument)) {
			char *why = instrument_result_text(&in, kinds[i].instrument);

			printf("# SKIP the census with %s: %s\n", code_probe_kind_name(kinds[i].kind),
			       why);
			free(why);
			continue;
		}
		memset(slots, 0, sizeof(slots));
		c = census_new(sym, kinds[i].kind);
		test_live(c, sym, pid, kinds[i].kind);
		census_free(c);
	}
	symbolizer_free(sym);
	return test_done();
}
