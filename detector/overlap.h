/* overlap.h - did the target's threads run at the same time?
 *
 * Contention needs two threads on two CPUs at once.  On a busy machine
 * (other jobs keeping the load at 6-14 on 2 vCPUs) the target's threads
 * take turns: their accesses to a shared line rarely fall in one
 * interleaving window, the line's concurrent fraction falls below the
 * thresholds, and a report said "no contended cache lines found" of a
 * program that loses half its time to false sharing on a quiet one.
 *
 * The timer samples each running thread every period of its CPU time, so
 * time cut into buckets of the interleaving window shows who ran: the
 * overlap is the share of buckets with a sample of some thread that have
 * samples of two or more.  Two busy threads on an idle 2-CPU machine:
 * about 1; taking turns on one CPU: about 0.  It says what the program's
 * threads did, not why: CPU pressure (procfs.h) says whether the machine
 * was the cause.  Memory: a few words, whatever the samples.
 *
 * Samples must come in time order (the session sorts each drain); one
 * from before the current bucket is counted in it.
 */
#ifndef CONTEND_OVERLAP_H
#define CONTEND_OVERLAP_H

#include <stdbool.h>
#include <stdint.h>

struct overlap {
	uint64_t bucket_ns;
	uint64_t bucket;             /* index of the current bucket */
	uint32_t tid;                /* its first thread, 0: none yet */
	int multi;                   /* a second thread was seen in it */
	uint64_t active, shared;     /* buckets with >= 1, >= 2 threads, closed */
};

void overlap_init(struct overlap *o, uint64_t bucket_ns);
void overlap_note(struct overlap *o, uint64_t time_ns, uint32_t tid);
/* The share of active buckets that two threads shared, the current one
 * included; -1 with fewer than OVERLAP_MIN_BUCKETS active. */
#define OVERLAP_MIN_BUCKETS 20
double overlap_share(const struct overlap *o);

/*
 * Was the machine busy enough to keep the target's threads apart?  Both:
 * they overlapped less than OVERLAP_BUSY of their sampled time, and some
 * task waited for a CPU at least PRESSURE_BUSY of the session (a program
 * whose threads take turns by design, on an idle machine, is not busy).
 * Unknown values (-1) are not busy.
 */
#define OVERLAP_BUSY 0.7
#define PRESSURE_BUSY 0.2
bool machine_busy(double overlap, double cpu_pressure);
/* What a busy machine scales the concurrency thresholds by: the share of
 * the time the threads could meet, against the OVERLAP_FULL that two
 * busy threads reach on an idle machine; in [0.1, 1]. */
#define OVERLAP_FULL 0.9
double overlap_scale(double overlap);

#endif
