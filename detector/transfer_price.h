/* transfer_price.h - what moving a cache line between cores costs on this
 * machine, measured: reports/gain.h scales its residuals by it.
 *
 * Two threads run a loop, each on its own word: on one line (contended),
 * then on lines of their own (private), interleaved, up to
 * TRANSFER_PRICE_TRIES times.  Two loops, the ones bench/store-queue
 * prints as "atomic" and "rmw":
 *   locked  a locked add alone (Intel Icelake VM 7.2x, AMD EPYC Zen 5 VM
 *           2.5-3.2x).  Uncontended it costs about the same everywhere,
 *           so the ratio says what a transfer costs against an L1 hit.
 *   store   a plain add to memory alone: the store buffer may commit its
 *           stores to the line in bursts, and how well it does is the
 *           machine's (Icelake 1.26x, Zen 5 2.4-3.2x).
 *   fenced  a store and a full fence, a Java volatile store (Icelake
 *           3.7-4.3x): the fence waits for the store to reach the line,
 *           so less than a locked add's and far more than a plain one's.
 * Each price is the median ratio of the contended loop's time to the
 * private one's.  A try counts only if both threads ran on their CPUs
 * (their CPU time nine tenths of their loop's) and, contended, at once
 * (the loops overlapping by four fifths), on two CPUs of different cores
 * where sysfs tells.  On a busy
 * machine (an attach to a target that keeps every CPU busy) too few
 * count: the price stays unmeasured, with the reason and busy set, and
 * the gains are unknown.  About 0.4 s of two CPUs, and no try starts after
 * TRANSFER_PRICE_BUDGET_S; never run while the target is sampled.
 */
#ifndef CONTEND_TRANSFER_PRICE_H
#define CONTEND_TRANSFER_PRICE_H

#include <stdbool.h>

struct strbuf;

#define TRANSFER_PRICE_TRIES 12       /* loops of each kind, at most */
#define TRANSFER_PRICE_NEEDED 3       /* tries that must count */
#define TRANSFER_PRICE_BUDGET_S 0.5   /* no try starts after this long */
/* what a data file may claim: a contended loop faster than a private one,
 * or a thousand times slower, is no measurement */
#define TRANSFER_PRICE_MIN 1.0
#define TRANSFER_PRICE_MAX 1000.0

enum transfer_loop { TRANSFER_LOCKED, TRANSFER_STORE, TRANSFER_FENCED, TRANSFER_LOOPS };

struct transfer_price {
	/* contended / private time; both 0: not measured */
	double locked, store;
	double fenced;                 /* 0 also where a cache or data file
	                                  from before it has none */
	unsigned runs;                 /* tries that counted, the fewer of the two */
	bool cached;                   /* measured earlier this boot (price_cache.h) */
	/* not measured because the machine was busy: the probe's threads
	 * never ran at once.  The gains are then unknown, not the
	 * reference's (reports/gain.h). */
	bool busy;
};

/* The loops, by shape: bench/store-queue times each of them (its table
 * says what each does); the probe runs LOOP_ATOMIC and LOOP_RMW.  One
 * function with the switch inside the loop, so that every shape pays
 * the same dispatch, here and there. */
enum loop_shape { LOOP_RMW, LOOP_LOAD_STORE, LOOP_STACK, LOOP_RMW_STACK, LOOP_ATOMIC,
		  LOOP_FENCED, LOOP_SHAPES };
void transfer_loop_run(enum loop_shape shape, volatile long *c, long iters);

/* Is ratio a price a data file may hold (0, or within the bounds)? */
bool transfer_price_valid(double ratio);

/* Is p one the probe can give: all 0 (not measured), or both prices
 * within the bounds from 1..TRANSFER_PRICE_TRIES runs, the fenced one 0
 * or within them too? */
bool transfer_price_holds(const struct transfer_price *p);

/* Measures p; 0, or -1 with p zeroed and the reason (one line) in why. */
int transfer_price_measure(struct transfer_price *p, struct strbuf *why);

#endif
