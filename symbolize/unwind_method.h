/* unwind_method.h - one way to replay CFI over a sampled stack copy.
 *
 * unwind.c owns what every method shares (the frame-pointer fallback,
 * cutting a chain at the first address that is not code, the counts);
 * a method only turns registers and a stack copy into return addresses,
 * reading code and unwind tables from the files the symbolizer maps,
 * never from the live process.  A new unwinder is a file and a row of
 * unwind_methods[] (unwind.c).
 */
#ifndef CONTEND_UNWIND_METHOD_H
#define CONTEND_UNWIND_METHOD_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "symbolize/decode.h"

struct symbolizer;

struct unwind_method {
	const char *name;       /* as --call-graph spells it */
	const char *library;    /* what does the work, for messages */
	void *(*new)(struct symbolizer *sym, const struct decode_arch *arch);
	void (*free)(void *state);
	/* The callers of regs' IP, innermost first, at most max (> 0): call
	 * sites (return address - 1) except under a signal frame, where the
	 * interrupted pc itself.  0 if the CFI gives none. */
	unsigned (*callers)(void *state, pid_t pid, const struct regs *regs,
			    const uint8_t *stack, size_t stack_size,
			    uint64_t *pcs, unsigned max);
};

extern const struct unwind_method unwind_libdw;
extern const struct unwind_method unwind_libunwind;

/* A word at addr for pid: from the stack copy when it lies there, else
 * from the files mapped there.  Shared by the methods' memory callbacks. */
bool unwind_read_word(struct symbolizer *sym, pid_t pid, uint64_t sp,
		      const uint8_t *stack, size_t stack_size,
		      uint64_t addr, uint64_t *word);

/* A method's per-process state: the element of an array of size-byte
 * elements, each starting with its pid_t, for pid; appended zeroed (pid
 * set) when none is.  *array, *n, *alloc as ALLOC_GROW keeps them.
 * Processes are few (the target and its children): a list will do. */
void *unwind_proc_get(void *array_p, size_t *n, size_t *alloc, size_t size, pid_t pid);

#endif
