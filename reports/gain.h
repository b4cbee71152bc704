/* gain.h - how much faster the program would run with a line fixed, and
 * the range the model stands by.
 *
 * Timer samples are time.  Fixing a range saves, on every sample of an
 * access to it, the difference between the access's contended cost (the
 * sample) and the same access uncontended, a residual fraction r of it.
 * Each r is a point and bounds (struct gain_bounds); the low end of the
 * range takes every r at its high bound, the high end at its low one:
 *
 *   loads of another thread's data wait for the line; fixed, they hit L1:
 *   GAIN_RESIDUAL_LOAD, or GAIN_L1_CYCLES over the mean latency (within
 *   2x) where the hardware weighed the samples (PEBS, IBS);
 *   the contended store, or a load or non-locked RMW of bytes only its own
 *   thread writes (served by that thread's last store), fixed, is an L1
 *   hit too: GAIN_RESIDUAL_STORE (hpts: 3.2x predicted, 3.26x measured);
 *   where the loop around it stores to that line alone the queue commits
 *   in bursts and the contention costs less and varies with how fast the
 *   loop stores: GAIN_RESIDUAL_BURST, wide (bench/store-queue's loops lose
 *   1.2-1.3x, an accumulator array 2.5x; store_stream.h);
 *   a locked RMW drains the store buffer even uncontended:
 *   GAIN_RESIDUAL_ATOMIC (true_sharing_counter 7.5x, store-queue 7.2x).
 *
 * Queued stores.  x86 commits stores in program order, so a store waiting
 * for a contended line holds back every younger store of its thread; once
 * the buffer is full the thread stalls at whichever store comes next, and
 * the timer samples land on stores to private data (a stack slot, the
 * thread's own objects).  Those samples -- stores by the same thread, in
 * the same function, to lines no other thread touched -- are charged to
 * the contended store they wait behind, less GAIN_RESIDUAL_QUEUED (they
 * are stores still), when that store is the line's own: its instruction
 * goes to the line at least GAIN_DEDICATED_SHARE of the time (its samples
 * on the line against its samples on private lines).  An instruction that
 * goes there now and then (a histogram's increment) holds the queue back
 * that often at most, and the core overlaps the wait with the private
 * work around it: only the high end charges the queue, times that share.
 *
 * speedup = total / (total - saved), total being every sample of the
 * session.  predicted_gain is for the fix the advice proposes: padding for
 * false and mixed sharing (only the false-sharing ranges stop contending),
 * removing the sharing for true sharing; predicted_gain_all assumes every
 * contended range of the line is fixed.  What the samples cannot show:
 * time lost on instructions that touch no memory (a branch mispredicted on
 * a value another thread changed: the caller states a lower bound, no high
 * end, and a note), and whether two threads sampled "at once" really ran
 * at once (a VM whose virtual CPUs the host does not run together shows
 * the samples of contention without its cost).
 */
#ifndef CONTEND_GAIN_H
#define CONTEND_GAIN_H

#include <stdbool.h>
#include <stdint.h>
#include "reports/report.h"
#include "detector/line_table.h"
#include "detector/store_stream.h"

/* A fraction the model is unsure of: its best guess and the bounds it
 * stands by ({ point, low, high }). */
struct gain_bounds {
	double point, low, high;
};

#define GAIN_RESIDUAL_LOAD 0.02    /* ~1.5 ns L1 hit / ~75 ns transfer */
#define GAIN_RESIDUAL_LOAD_BOUNDS { GAIN_RESIDUAL_LOAD, 0.01, 0.1 }
#define GAIN_RESIDUAL_STORE 0.03   /* the contended store or own-word RMW, fixed: an L1 hit */
#define GAIN_RESIDUAL_STORE_BOUNDS { GAIN_RESIDUAL_STORE, 0.02, 0.25 }
#define GAIN_RESIDUAL_QUEUED 0.2   /* a private store behind it: still a store */
#define GAIN_RESIDUAL_QUEUED_BOUNDS { GAIN_RESIDUAL_QUEUED, 0.12, 0.35 }
#define GAIN_RESIDUAL_BURST 0.55   /* stores that commit in bursts (store_stream.h) */
#define GAIN_RESIDUAL_BURST_BOUNDS { GAIN_RESIDUAL_BURST, 0.35, 0.85 }
#define GAIN_RESIDUAL_ATOMIC 0.14  /* ~20 cycles a locked op costs anyway */
#define GAIN_RESIDUAL_ATOMIC_BOUNDS { GAIN_RESIDUAL_ATOMIC, 0.1, 0.35 }
#define GAIN_L1_CYCLES 5.0
/* a store whose instruction goes to the line at least this often is the
 * line's own (a counter, a field): the stores behind it wait every pass */
#define GAIN_DEDICATED_SHARE 0.9

/* What a fix of a range saves, in samples: point, and the low and high
 * ends of the model's range. */
struct gain_saving {
	double point, low, high;
};

/* Stores to private lines, by thread and code address, and what the code
 * around an access stores. */
struct gain_queue;

/* [*start, *end) of the function that contains ip; false if unknown. */
typedef bool (*gain_function_fn)(void *ctx, uint32_t pid, uint64_t ip,
				 uint64_t *start, uint64_t *end);
/* store_stream_of() for the function around ip. */
typedef enum store_stream (*gain_stream_fn)(void *ctx, uint32_t pid, uint64_t ip);

/* From the table's lines that one thread alone touched. */
struct gain_queue *gain_queue_new(struct line_table *t, gain_function_fn function_of,
				  gain_stream_fn stream_of, void *ctx);
void gain_queue_free(struct gain_queue *q);
/* Samples of tid's private stores in the function that contains ip; *func
 * is that function's start (0 and no samples if it is not known). */
uint64_t gain_queue_samples(struct gain_queue *q, uint32_t pid, uint32_t tid,
			    uint64_t ip, uint64_t *func);

/* Samples of tid's stores at exactly ip to private lines. */
uint64_t gain_queue_ip_samples(struct gain_queue *q, uint32_t pid, uint32_t tid, uint64_t ip);

/* Samples a fix of each range would save: saved[ri] for ri < n_ranges,
 * from the line's cells (range_of_cell[i]: cell i's range, n_ranges for
 * none) and the stores queued behind the contended ones (q may be NULL). */
void gain_saved(const struct line *l, const unsigned *range_of_cell,
		unsigned n_ranges, struct gain_queue *q, struct gain_saving *saved);
/* Sets l->predicted_gain, predicted_gain_all and their ranges (gain_low,
 * gain_high, gain_all_*) from saved (per range). */
void gain_predict(struct report_line *l, const struct gain_saving *saved,
		  uint64_t total_samples);

#endif
