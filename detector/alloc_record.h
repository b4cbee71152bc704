/* alloc_record.h - one heap event as the allocation shim sends it.
 *
 * The shim (detector/alloc_shim.c, preloaded into a `run` target) writes
 * these, packed in batches of at most ALLOC_BATCH, to the pipe whose write
 * end it finds in the environment (ALLOC_FD_ENV); each batch is one
 * write() of under PIPE_BUF bytes, so batches of different threads never
 * interleave.  A thread's records are in its order; across threads, time
 * orders them (a free of an address in one thread against its reuse by a
 * malloc in another), but only when further apart than ALLOC_TIME_SLACK:
 * the shim's time moves by the kernel's tick (1 to 10 ms): the one contend
 * publishes (ALLOC_TICK_ENV, below), else CLOCK_MONOTONIC_COARSE, never a
 * cycle counter, which would be most of its cost per call.  Both
 * sides are built from this header, so the layout is native and needs no
 * version.
 */
#ifndef CONTEND_ALLOC_RECORD_H
#define CONTEND_ALLOC_RECORD_H

#include <stdint.h>

#define ALLOC_FD_ENV "CONTEND_ALLOC_FD"
#define ALLOC_FRAMES 4
#define ALLOC_BATCH 48
#define ALLOC_TIME_SLACK 10000000ull   /* ns: the coarsest kernel tick (HZ=100) */

enum alloc_call {
	ALLOC_MALLOC = 1,
	ALLOC_CALLOC,          /* arg: the count; size is count x elem */
	ALLOC_REALLOC,         /* arg: the old address (freed, when it moved) */
	ALLOC_ALIGNED_ALLOC,   /* arg: the alignment, also for the two below */
	ALLOC_POSIX_MEMALIGN,
	ALLOC_MEMALIGN,
	ALLOC_NEW,             /* operator new; arg: C++17's std::align_val_t, */
	ALLOC_NEW_ARRAY,       /* operator new[]; or 0 (nothrow or not) */
	ALLOC_FREE,            /* free, delete, delete[]; size 0 */
	ALLOC__COUNT
};

/* Not a call: a record of this call is a spurious debug trap the shim
 * absorbed (detector/trap_guard.c); addr: the code it came at. */
#define ALLOC_TRAP 0x7472u

struct alloc_record {
	uint64_t time;                  /* ns, by the tick: orders records across threads only */
	uint64_t addr;
	uint64_t size;                  /* bytes asked for */
	uint64_t arg;
	uint64_t frames[ALLOC_FRAMES];  /* return addresses, the call's first; 0 ends */
	uint32_t pid, tid;
	uint32_t call;                  /* enum alloc_call */
	uint32_t flags;                 /* ALLOC_FLAG_*; 0 from the shim */
};

/* The tick contend publishes (detector/alloc_tick.c) in a shared page
 * named by ALLOC_TICK_ENV (a descriptor, like ALLOC_FD_ENV): CLOCK_MONOTONIC
 * in ns, rewritten every period_ns, so that the shim's time per call is
 * one load, not a clock read.  One value for every thread of the target,
 * never going back: of two records, the one with the later time came
 * later; equal times (closer than a period, or more while contend is not
 * scheduled) are no order, as within ALLOC_TIME_SLACK.
 *
 * contend ticks only while the shim reads: each wake-up takes a CPU from
 * a target that keeps them busy (250 a second cost a 1 s run 1.4%).
 * state says who reads.  The tick sets UNREAD each period; the shim's
 * first read after it sets READ (a compare-and-swap, once a period).
 * After ALLOC_TICK_IDLE_NS of UNREAD the tick sets IDLE and sleeps on the
 * word (a futex); the shim, finding IDLE, reads the clock itself, as
 * without contend, and sets WANTED with one FUTEX_WAKE; the tick then
 * publishes a fresh ns and sets READ.  Any other value (WANTED, or a
 * stopped tick's) means: read the clock.  The tick starts IDLE: a target
 * that never allocates never wakes it.  ALLOC_TICK_IDLE_NS is 4 periods
 * of a 250 Hz kernel: a burst of allocations then costs the shim one
 * FUTEX_WAKE and contend about 4 wake-ups after it, where 100 ms cost 25
 * (the target's involuntary context switches under `contend run`,
 * bench/RESULTS.md). */
#define ALLOC_TICK_ENV "CONTEND_ALLOC_TICK"
#define ALLOC_TICK_MAGIC 0x326b63697420646eull   /* "nd tick2" */
#define ALLOC_TICK_IDLE_NS 16000000ull          /* unread this long: IDLE */

enum alloc_tick_state {
	ALLOC_TICK_READ,                /* ns is current; read since the last period */
	ALLOC_TICK_UNREAD,              /* ns is current; not read this period */
	ALLOC_TICK_IDLE,                /* contend sleeps: wake it, read the clock */
	ALLOC_TICK_WANTED,              /* woken, or stopped: read the clock */
};

struct alloc_tick_page {
	uint64_t magic;                 /* ALLOC_TICK_MAGIC once ns is set */
	uint64_t period_ns;             /* ns is at most this (and a delay) behind */
	uint64_t ns;                    /* written by contend, read by the shim */
	uint32_t state;                 /* enum alloc_tick_state; a futex word */
	uint32_t reserved;
};

/* A data file's block that was freed before the end (the table kept it
 * for the samples in it). */
#define ALLOC_FLAG_FREED 1u

#endif
