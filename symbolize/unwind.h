/* unwind.h - the callers of sampled code, from a copy of its user stack.
 *
 * A perf sample with PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER holds
 * the interrupted registers and the top of the user stack; the unwinder
 * replays the CFI of the code (.eh_frame, .debug_frame) over that copy,
 * long after the process may have exited: code and CFI come from the files
 * the symbolizer's mapping table names, never from the live process.
 * Where CFI yields no caller (JIT code, hand-written assembly) it walks the
 * frame-pointer chain instead.  Two methods replay the CFI, libdw's and
 * libunwind's (--call-graph=dwarf|libunwind); x86-64 and AArch64, the
 * decoder's architectures.
 */
#ifndef CONTEND_UNWIND_H
#define CONTEND_UNWIND_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "symbolize/decode.h"

struct symbolizer;
struct unwinder;

/* The methods, by index: 0 is the default.  NULL past the last. */
const char *unwind_method_name(unsigned i);
/* The index of the method called name, -1 if none is. */
int unwind_method_find(const char *name);

struct unwinder *unwinder_new(struct symbolizer *sym, unsigned method);
void unwinder_free(struct unwinder *u);

/*
 * The callers of the code at regs' IP in process pid, innermost first, at
 * most max: each is its call instruction's address (the return address
 * less one), so that it symbolizes to the calling line.  regs: the user
 * registers, perf numbering (decode.h); stack: the bytes sampled at regs'
 * SP.  Returns how many were found, 0 if none.
 */
unsigned unwind_callers(struct unwinder *u, pid_t pid, const struct regs *regs,
			const uint8_t *stack, size_t stack_size,
			uint64_t *pcs, unsigned max);

/* The frame-pointer walk alone (the fallback; exposed for tests). */
unsigned unwind_frame_pointers(const struct regs *regs, const uint8_t *stack,
			       size_t stack_size, uint64_t *pcs, unsigned max);

/* The library doing the CFI walk ("libdw", "libunwind"), for messages. */
const char *unwinder_describe(const struct unwinder *u);

struct unwind_stats {
	uint64_t samples;             /* unwind_callers() calls with a stack */
	uint64_t by_cfi;              /* ... that got callers from the CFI, */
	uint64_t by_frame_pointers;   /* ... from the frame-pointer fallback */
	uint64_t frames;              /* callers found, all samples together */
	uint64_t ns;                  /* time spent, all samples together */
};
void unwinder_stats(const struct unwinder *u, struct unwind_stats *out);
/* The stats in a sentence ("call graph (libdw): 4119 of 4119 samples
 * unwound ..."), NULL before any sample; caller frees. */
char *unwinder_summary(const struct unwinder *u);

#endif
