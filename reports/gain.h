/* gain.h - how much faster the program would run with a line fixed, and
 * the range the model stands by.
 *
 * Timer samples are time.  Fixing a range saves, on every sample of an
 * access to it, the difference between the access's contended cost (the
 * sample) and the same access uncontended, a residual fraction r of it:
 *
 *   loads of another thread's data wait for the line; fixed, they hit L1:
 *   GAIN_RESIDUAL_LOAD, or GAIN_L1_CYCLES over the mean latency where the
 *   hardware weighed the samples (PEBS, IBS);
 *   the contended store, or a load or non-locked RMW of bytes only its own
 *   thread writes (served by that thread's last store), fixed, is an L1
 *   hit too: GAIN_RESIDUAL_STORE;
 *   where the loop around it stores to that line alone the queue commits
 *   in bursts and the contention costs less: GAIN_RESIDUAL_BURST
 *   (store_stream.h);
 *   a locked RMW drains the store buffer even uncontended:
 *   GAIN_RESIDUAL_ATOMIC of its samples are left -- in a loop that does
 *   nothing else (bench/store-queue's atomic loop: 7.2x on the reference
 *   machine; the residuals are priced per machine, below).  Between other
 *   work they are not: an uncontended locked op orders memory but does
 *   not stop the arithmetic around it, which executes while it waits
 *   (bench/gain-set's work_index: a fetch-and-add per item of a
 *   checksum, 11.2x, the fixed run as fast as its work alone).  A store
 *   the next instruction fences (a Java volatile store's "lock addl
 *   $0,(%rsp)", an mfence: ACCESS_SAMPLE_FENCED) keeps that fence when
 *   fixed: 1 / F of it is left, F the fenced store's price below.  The
 *   point and the high end hide what the locked ops leave under the
 *   run's other remaining samples, up to as many (the fixed loop costs
 *   the longer of the two, not their sum); the low end does not.
 *
 * Queued stores.  x86 commits stores in program order, so a store waiting
 * for a contended line holds back every younger store of its thread; once
 * the buffer is full the thread stalls at whichever store comes next, and
 * the timer samples land on stores to private data.  Those samples --
 * stores by the same thread, in the same function, to lines no other
 * thread touched -- are charged to the contended store they wait behind,
 * less GAIN_RESIDUAL_QUEUED, as often as that store's instruction goes to
 * the line: its samples there against its samples on private lines,
 * corrected for a contended store getting 1/GAIN_RESIDUAL_STORE times the
 * samples of a private one.  The charge moves smoothly with the samples
 * (no threshold for two recordings of one program to fall either side
 * of).  Whether the waits really cost that much the samples cannot say:
 * the saving's low end (struct gain_saving) charges the queue only where
 * the instruction goes nowhere else (a counter), its high end at the
 * samples' share.
 *
 * speedup = total / (total - saved), total being every sample of the
 * session.  predicted_gain is for the fix the advice proposes: padding for
 * false and mixed sharing (only the false-sharing ranges stop contending),
 * removing the sharing for true sharing; predicted_gain_all assumes every
 * contended range of the line is fixed.
 *
 * The range.  It is not a sum of guessed bounds: it is where measured
 * speedups fell from this model's point on the programs it was fitted on
 * (bench/gain-set/FIT.md: 21 cases, the project's testcases and the fit
 * programs of bench/gain-set/SPLIT.md, each measured on two quiet
 * machines, an Intel Icelake VM and an AMD EPYC Zen 5 VM).  Their extremes
 * span 9x (ln -1.17 to +1.05): a range that wide holds any outcome and
 * tells a reader nothing.  So the range is the 2x-wide window of
 * ln(measured / predicted) that holds the most fit cases -- 30 of their 40
 * measurements, 3 in 4 --
 *   low  = max(P * exp(GAIN_LIKELY_LOG_LOW), GAIN_FIT_MEASURED_MIN)
 *   high = P * exp(GAIN_LIKELY_LOG_HIGH)
 * (no fit case's fix measured slower than GAIN_FIT_MEASURED_MIN: a
 * padding does not cost a third of the run).  Where the stores queued
 * behind a contended one decide (the saving's own low and high ends
 * reach outside that window) the samples cannot tell how much the fix
 * gains within 2x: the range is then not stated, gain_range_unknown
 * says why, and the gain is stated as the range's floor ("at least",
 * gain_note), or as unknown (gain_unknown) where that floor is 1x.
 * Otherwise the point is the model's estimate, not the middle of the
 * range; "3 in 4" is a claim the held-out programs check (bench/gain.sh),
 * not a guarantee.
 *
 * What the samples cannot show, and the range does not cover: time lost
 * on instructions that touch no memory.  A branch mispredicted on a value
 * another thread changed is the one this file can tell is there: a range
 * two threads store to (plain stores: each its own value, as a cache of
 * "the last one" is), loaded into a compare and a branch
 * (decoder_value_steers_branch).  Removing such sharing then gains at
 * least the point: gain_predict() states no high end (0) for it and
 * gain_note says why; the JVM's Klass cache is named the same way by
 * jvm_names.c.  So is a line that holds a mutex or rwlock: its waiters
 * sleep in the kernel, unsampled (gain_note_lock).  Other time the
 * samples cannot show: whether two threads sampled "at once" really ran at once
 * (on a loaded machine or a VM whose virtual CPUs the host does not run
 * together, the samples show contention whose cost the run did not pay);
 * a loop bounded by something else (memory bandwidth) that hides the
 * wait; and the cost of the fix itself (a bigger footprint).  The fit
 * cases ran on two kinds of 2-vCPU VM; a machine's prices are measured
 * (below), but what else differs between machines only the range covers.
 */
#ifndef CONTEND_GAIN_H
#define CONTEND_GAIN_H

#include <stdbool.h>
#include <stdint.h>
#include "reports/report.h"
#include "detector/line_table.h"
#include "detector/store_stream.h"
#include "detector/transfer_price.h"

/* The residuals at the reference price, where the fit ran (below). */
#define GAIN_RESIDUAL_LOAD 0.02    /* ~1.5 ns L1 hit / ~75 ns transfer */
#define GAIN_RESIDUAL_STORE 0.03   /* the contended store or own-word RMW, fixed: an L1 hit */
#define GAIN_RESIDUAL_QUEUED 0.2   /* a private store behind it: still a store */
#define GAIN_RESIDUAL_BURST 0.55   /* stores that commit in bursts (store_stream.h) */
#define GAIN_RESIDUAL_ATOMIC 0.14  /* ~20 cycles a locked op costs anyway */
#define GAIN_L1_CYCLES 5.0

/* The machine's prices.  The residuals above are an Intel Icelake VM's,
 * where a contended locked add costs GAIN_REFERENCE_LOCKED times a
 * private one and a plain add to memory alone in a loop
 * GAIN_REFERENCE_STORE times (detector/transfer_price.h measures both,
 * L and S, wherever contend runs).  A locked add's own cost is about the
 * same everywhere, so a transfer costs (L - 1) / (GAIN_REFERENCE_LOCKED -
 * 1) of the reference's against an L1 hit: the residuals of loads and
 * stores (an L1 hit once fixed, over a transfer now) scale by its
 * inverse, a locked op's (its uncontended cost over its contended one)
 * by GAIN_REFERENCE_LOCKED / L.  Stores that commit in bursts keep what
 * the store buffer shields: their residual scales by
 * GAIN_REFERENCE_STORE / S (on an AMD EPYC Zen 5 VM S is 2.4-3.2: its
 * store buffer shields little).  Queued stores keep theirs: a private
 * store is a store anywhere.  A fenced store is priced by the machine's
 * own F, a store and a full fence contended against private (the
 * reference where none was measured); the store waits for the line and
 * the fence for the store, so F lies between S and L. */
#define GAIN_REFERENCE_LOCKED 7.18 /* bench/store-queue's atomic loop there */
#define GAIN_REFERENCE_STORE 1.26  /* and its rmw loop */
#define GAIN_REFERENCE_FENCED 4.0  /* its fenced loop: 3.7-4.3x, 2026-12-07 */

struct gain_prices {
	double locked, store_loop, fenced_loop;   /* the prices L, S and F they are for */
	double load, store, atomic, burst, fenced;   /* residuals */
};

/* The residuals at the prices t (transfer_price.h); NULL, or a price of
 * 0 (not measured), means the reference. */
void gain_prices_at(struct gain_prices *p, const struct transfer_price *t);

/* The 2x-wide window of ln(measured / predicted) that holds the most fit
 * cases over both kinds of machine (bench/gain-set/FIT.md: 30 of 40;
 * bench/gain-fit.sh prints each kind's) */
#define GAIN_LIKELY_LOG_LOW (-0.40)   /* stream_accum on Intel, -0.380, inside */
#define GAIN_LIKELY_LOG_HIGH (GAIN_LIKELY_LOG_LOW + 0.6931471805599453)   /* ln 2 */
/* no fit case's fix measured slower than this: the range's floor */
#define GAIN_FIT_MEASURED_MIN 0.99 /* accum_array, modest_sharing */

/* What a fix of a range saves, in samples: the model's point, and the
 * saving with the queued stores charged as little (low) and as much
 * (high) as the samples allow. */
struct gain_saving {
	double point, low, high;
	/* the range is a check another thread keeps changing: stored by two
	 * threads or more with plain stores, and loaded into a branch */
	bool steers_branch;
	/* samples of locked RMWs the fix leaves (their uncontended cost):
	 * gain_predict() hides them under the rest of the run's work */
	double atomic_left;
};

/* Stores to private lines, by thread and code address, and what the code
 * around an access stores. */
struct gain_queue;

/* [*start, *end) of the function that contains ip; false if unknown. */
typedef bool (*gain_function_fn)(void *ctx, uint32_t pid, uint64_t ip,
				 uint64_t *start, uint64_t *end);
/* store_stream_of() for the function around ip. */
typedef enum store_stream (*gain_stream_fn)(void *ctx, uint32_t pid, uint64_t ip);

/* Does the value loaded at ip decide a branch (decode.h's
 * decoder_value_steers_branch)? */
typedef bool (*gain_steers_fn)(void *ctx, uint32_t pid, uint64_t ip);

/* From the table's lines that one thread alone touched. */
struct gain_queue *gain_queue_new(struct line_table *t, gain_function_fn function_of,
				  gain_stream_fn stream_of, void *ctx);
void gain_queue_free(struct gain_queue *q);
/* Ask steers_of about the loads of true-shared ranges (gain_saved). */
void gain_queue_set_steers(struct gain_queue *q, gain_steers_fn steers_of);
/* Samples of tid's private stores in the function that contains ip; *func
 * is that function's start (0 and no samples if it is not known). */
uint64_t gain_queue_samples(struct gain_queue *q, uint32_t pid, uint32_t tid,
			    uint64_t ip, uint64_t *func);

/* Samples of tid's stores at exactly ip to private lines. */
uint64_t gain_queue_ip_samples(struct gain_queue *q, uint32_t pid, uint32_t tid, uint64_t ip);

/* Samples a fix of each range would save: saved[ri] for ri < n_ranges,
 * from the line's cells (range_of_cell[i]: cell i's range, n_ranges for
 * none) and the stores queued behind the contended ones (q may be NULL),
 * at prices p (NULL: the reference). */
void gain_saved(const struct line *l, const unsigned *range_of_cell,
		unsigned n_ranges, struct gain_queue *q, const struct gain_prices *p,
		struct gain_saving *saved);
/* Sets l->predicted_gain, predicted_gain_all and their ranges (gain_low,
 * gain_high, gain_all_*: the fit's spread around the point, widened to
 * the savings' low and high ends) from saved (per range); where no 2x
 * range holds, the gain is its floor (gain_note) or unknown (gain_unknown). */
void gain_predict(struct report_line *l, const struct gain_saving *saved,
		  uint64_t total_samples);
/* Removing the line's true sharing gains at least predicted_gain_all, for
 * the reason why (static): no high end, and the note (predicted_gain too
 * where the line is true sharing, whose fix is that removal). */
void gain_lower_bound(struct report_line *l, const char *why);
/* A line holding a lock whose waiters sleep (l->lock, lock_type_sleeps:
 * a mutex or rwlock, pthread's or std::'s): threads that wait for it
 * sleep in the kernel (futex), and a timer samples no one asleep, so
 * its time is missing from the samples: a lower bound. */
void gain_note_lock(struct report_line *l);

#endif
