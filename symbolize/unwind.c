/* unwind.c - the callers of sampled code: a method's CFI walk, else the
 * frame-pointer chain, cut at the first address that is not code.
 *
 * Two methods replay CFI (unwind_methods[]): libdwfl's unwinder, which
 * reuses the symbolizer's per-pid libdwfl session, and libunwind's remote
 * mode with accessors over the stack copy, as perf's two unwinders do.
 * bench/unwinders.sh compares them (bench/RESULTS.md); the first row is
 * the default.
 */
#include "symbolize/unwind.h"

#include <inttypes.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

#include "symbolize/symbolizer.h"
#include "symbolize/unwind_method.h"
#include "common/util.h"

static const struct unwind_method *const unwind_methods[] = {
	&unwind_libdw,          /* the default: see bench/RESULTS.md */
	&unwind_libunwind,
};

struct unwinder {
	struct symbolizer *sym;
	const struct decode_arch *arch;   /* NULL: no unwinding here */
	const struct unwind_method *method;
	void *state;                      /* the method's */
	struct unwind_stats stats;
};

const char *unwind_method_name(unsigned i)
{
	return i < ARRAY_SIZE(unwind_methods) ? unwind_methods[i]->name : NULL;
}

int unwind_method_find(const char *name)
{
	for (unsigned i = 0; i < ARRAY_SIZE(unwind_methods); i++)
		if (!strcmp(unwind_methods[i]->name, name))
			return (int)i;
	return -1;
}

struct unwinder *unwinder_new(struct symbolizer *sym, unsigned method)
{
	struct unwinder *u = xcalloc(1, sizeof(*u));

	u->sym = sym;
	u->arch = decode_arch_native();
	u->method = unwind_methods[method < ARRAY_SIZE(unwind_methods) ? method : 0];
	if (u->arch)
		u->state = u->method->new(sym, u->arch);
	return u;
}

void unwinder_free(struct unwinder *u)
{
	if (!u)
		return;
	if (u->state)
		u->method->free(u->state);
	free(u);
}

const char *unwinder_describe(const struct unwinder *u)
{
	return u->method->library;
}

void unwinder_stats(const struct unwinder *u, struct unwind_stats *out)
{
	*out = u->stats;
}

char *unwinder_summary(const struct unwinder *u)
{
	const struct unwind_stats *st = &u->stats;

	if (!st->samples)
		return NULL;
	return xasprintf("call graph (%s): %" PRIu64 " of %" PRIu64 " samples unwound "
			 "(%" PRIu64 " by frame pointers), %.2f frames per sample, "
			 "%.1f us per sample", u->method->library,
			 st->by_cfi + st->by_frame_pointers, st->samples, st->by_frame_pointers,
			 (double)st->frames / (double)st->samples,
			 (double)st->ns / 1e3 / (double)st->samples);
}

void *unwind_proc_get(void *array_p, size_t *n, size_t *alloc, size_t size, pid_t pid)
{
	char **array = array_p;
	char *e;

	for (size_t i = 0; i < *n; i++)
		if (*(pid_t *)(*array + i * size) == pid)
			return *array + i * size;
	if (*n == *alloc) {
		*alloc = *alloc ? 2 * *alloc : 4;
		*array = xrealloc(*array, *alloc * size);
	}
	e = *array + (*n)++ * size;
	memset(e, 0, size);
	*(pid_t *)e = pid;
	return e;
}

/* ------------------------------------------------------------------ */
/* frame pointers */

unsigned unwind_frame_pointers(const struct regs *regs, const uint8_t *stack,
			       size_t stack_size, uint64_t *pcs, unsigned max)
{
	const struct decode_arch *arch = decode_arch_native();
	uint64_t sp, fp, need;
	unsigned n = 0;

	if (!arch)
		return 0;
	sp = regs->val[arch->perf_sp];
	fp = regs->val[arch->perf_fp];
	need = 1ULL << arch->perf_sp | 1ULL << arch->perf_fp;
	if ((regs->mask & need) != need || stack_size < 16)
		return 0;
	while (n < max) {
		uint64_t frame[2];      /* the caller's rbp, the return address */

		if (fp < sp || fp % 8 || fp - sp > stack_size - sizeof(frame))
			break;
		memcpy(frame, stack + (fp - sp), sizeof(frame));
		if (!frame[1])
			break;
		pcs[n++] = frame[1] - 1;
		/* the stack grows down: a caller's frame lies above */
		if (frame[0] <= fp)
			break;
		fp = frame[0];
	}
	return n;
}

/*
 * In code built without frame pointers rbp holds anything, and a walk of
 * the frame-pointer chain reads whatever it points at: keep the chain up
 * to the first address that is not in executable memory.
 */
static unsigned keep_code(struct unwinder *u, pid_t pid, const uint64_t *pcs, unsigned n)
{
	for (unsigned i = 0; i < n; i++) {
		const struct mapping *m = symbolizer_find_mapping(u->sym, pid, pcs[i]);

		if (!m || !(m->prot & PROT_EXEC))
			return i;
	}
	return n;
}

/*
 * Outside the copy only the contents of mapped files: anything else in the
 * live process (if it still runs) has changed since the sample.
 */
bool unwind_read_word(struct symbolizer *sym, pid_t pid, uint64_t sp,
		      const uint8_t *stack, size_t stack_size,
		      uint64_t addr, uint64_t *word)
{
	const struct mapping *m;

	if (addr >= sp && stack_size >= sizeof(*word) &&
	    addr - sp <= stack_size - sizeof(*word)) {
		memcpy(word, stack + (addr - sp), sizeof(*word));
		return true;
	}
	m = symbolizer_find_mapping(sym, pid, addr);
	return m && m->kind == MAPPING_FILE &&
	       symbolizer_read(sym, pid, addr, (uint8_t *)word, sizeof(*word)) == sizeof(*word);
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static unsigned walk(struct unwinder *u, pid_t pid, const struct regs *regs,
		     const uint8_t *stack, size_t stack_size, uint64_t *pcs, unsigned max)
{
	unsigned n;

	/* both methods walk frame pointers themselves through code they
	 * have no CFI for */
	n = u->method->callers(u->state, pid, regs, stack, stack_size, pcs, max);
	n = keep_code(u, pid, pcs, n);
	if (n) {
		u->stats.by_cfi++;
		return n;
	}
	n = keep_code(u, pid, pcs, unwind_frame_pointers(regs, stack, stack_size, pcs, max));
	if (n)
		u->stats.by_frame_pointers++;
	return n;
}

unsigned unwind_callers(struct unwinder *u, pid_t pid, const struct regs *regs,
			const uint8_t *stack, size_t stack_size,
			uint64_t *pcs, unsigned max)
{
	uint64_t need, t0;
	unsigned n;

	if (!u->arch)
		return 0;
	need = 1ULL << u->arch->perf_ip | 1ULL << u->arch->perf_sp;
	if (!max || !stack || !stack_size || (regs->mask & need) != need)
		return 0;
	t0 = now_ns();
	n = walk(u, pid, regs, stack, stack_size, pcs, max);
	u->stats.samples++;
	u->stats.frames += n;
	u->stats.ns += now_ns() - t0;
	return n;
}
