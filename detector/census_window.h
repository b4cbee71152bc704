/* census_window.h - one window of execute breakpoints (census.h).
 *
 * Up to WATCH_SLOTS instructions, in every thread of pid that exists when
 * the window opens (per-thread events, no inherit), each hit sampled
 * (period 1) with the thread's user registers and, with stack set, the
 * 8 bytes at its stack pointer: at a function's entry, the return address.
 * The window ends after max_s seconds or max_hits hits.  The samples
 * reach hit() in the order each thread's ring holds them.
 */
#ifndef CONTEND_CENSUS_WINDOW_H
#define CONTEND_CENSUS_WINDOW_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

struct perf_sample;

/* Breakpoint length the kernel wants for an instruction: AArch64 4,
 * x86-64 sizeof(long). */
unsigned census_bp_len(void);

/* Returns the hits, or -errno: -ESRCH if the process is gone, -ENOSPC if
 * no thread had a free debug register, else the first thread's error. */
int census_window_run(pid_t pid, const uint64_t *ips, unsigned n, bool stack, double max_s,
		      unsigned max_hits, void (*hit)(void *ctx, const struct perf_sample *ps),
		      void *ctx);

#endif
