/* gain.h - how much faster the program would run with a line fixed.
 *
 * Timer samples are time.  Fixing a range saves, on every sample of an
 * access to it, the difference between the access's contended cost (the
 * sample) and the same access uncontended, a residual fraction r of it:
 *
 *   loads and RMWs wait for the line to come back from another core; fixed,
 *   they hit L1: r = GAIN_RESIDUAL_LOAD, or GAIN_L1_CYCLES over the mean
 *   latency where the hardware weighed the samples (PEBS, IBS);
 *   stores wait in the store buffer, and one transfer of the line commits
 *   every store queued for it, so a contended store costs only a few
 *   cycles more than a free one: r = GAIN_RESIDUAL_STORE.  Where the loop
 *   around it stores to that line alone, the queue commits in bursts and
 *   the contention costs little: r = GAIN_RESIDUAL_BURST (store_stream.h;
 *   both measured, bench/store-queue.c);
 *   a load or non-locked RMW of bytes only its own thread writes is served
 *   by that thread's last store: priced as the store;
 *   a locked RMW waits for the line, but uncontended it still drains the
 *   store buffer and takes ~20 cycles: r = GAIN_RESIDUAL_ATOMIC (measured:
 *   true_sharing_counter 2.3-3x against its one-thread speed, store-queue's
 *   atomic loop 2.8-4.1x);
 *   loads of other threads' data wait for the line: loads' r.
 *
 * Queued stores.  x86 commits stores in program order, so a store waiting
 * for a contended line holds back every younger store of its thread; once
 * the buffer is full the thread stalls at whichever store comes next, and
 * the timer samples land on stores to private data (a stack slot, the
 * thread's own objects).  Those samples -- stores by the same thread, in
 * the same function, to lines no other thread touched -- are charged to
 * the contended store they wait behind (measured on false_sharing_counters:
 * 80% of the loop's samples sit on the store to a stack variable).
 *
 * speedup = total / (total - saved), total being every sample of the
 * session.  predicted_gain is for the fix the advice proposes: padding for
 * false and mixed sharing (only the false-sharing ranges stop contending),
 * removing the sharing for true sharing; predicted_gain_all assumes every
 * contended range of the line is fixed.
 */
#ifndef CONTEND_GAIN_H
#define CONTEND_GAIN_H

#include <stdbool.h>
#include <stdint.h>
#include "reports/report.h"
#include "detector/line_table.h"
#include "detector/store_stream.h"

#define GAIN_RESIDUAL_LOAD 0.02    /* ~1.5 ns L1 hit / ~75 ns transfer */
#define GAIN_RESIDUAL_STORE 0.18
#define GAIN_RESIDUAL_BURST 0.8    /* stores that commit in bursts (store_stream.h) */
#define GAIN_RESIDUAL_ATOMIC 0.3   /* ~20 cycles a locked op costs anyway */
#define GAIN_L1_CYCLES 5.0

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

/* Samples a fix of each range would save: saved[ri] for ri < n_ranges,
 * from the line's cells (range_of_cell[i]: cell i's range, n_ranges for
 * none) and the stores queued behind the contended ones (q may be NULL). */
void gain_saved(const struct line *l, const unsigned *range_of_cell,
		unsigned n_ranges, struct gain_queue *q, double *saved);
/* Sets l->predicted_gain and predicted_gain_all from saved (per range). */
void gain_predict(struct report_line *l, const double *saved, uint64_t total_samples);

#endif
