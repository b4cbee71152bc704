/* unwind.h - the callers of sampled code, from a copy of its user stack.
 *
 * A perf sample with PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER holds
 * the interrupted registers and the top of the user stack; the unwinder
 * replays the CFI of the code (.eh_frame, .debug_frame) over that copy,
 * long after the process may have exited: code and CFI come from the files
 * the symbolizer's mapping table names, never from the live process.
 * Where CFI yields no caller (JIT code, hand-written assembly) it walks the
 * frame-pointer chain instead.  x86-64 only, like the decoder.
 */
#ifndef CONTEND_UNWIND_H
#define CONTEND_UNWIND_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "symbolize/decode.h"

struct symbolizer;
struct unwinder;

struct unwinder *unwinder_new(struct symbolizer *sym);
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

/* Samples unwound with CFI, and with the frame-pointer fallback. */
void unwinder_stats(const struct unwinder *u, uint64_t *cfi, uint64_t *frame_pointers);

#endif
