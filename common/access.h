/* access.h - what a memory access does: load, store, read-modify-write.
 *
 * The decoder (symbolize/) tells it from an instruction, the backends
 * (detector/) put it in every access sample, classification and the
 * reports count by it.  It lives here because every floor speaks it.
 */
#ifndef CONTEND_ACCESS_H
#define CONTEND_ACCESS_H

enum access_kind {
	ACCESS_LOAD = 0,
	ACCESS_STORE = 1,
	ACCESS_RMW = 2,      /* read-modify-write, not locked (add %rax,(mem)) */
	ACCESS_ATOMIC = 3,   /* locked RMW, xchg with memory, cmpxchg */
};

/* What an access does, for classification: an RMW both reads and writes.
 * Counted, it is one access, a write (reports/report.h says how reports count it). */
static inline int access_kind_writes(int kind) { return kind != ACCESS_LOAD; }
static inline int access_kind_reads(int kind) { return kind != ACCESS_STORE; }
const char *access_kind_name(int kind);   /* "load", "store", "rmw", "atomic" */

/* Who made an access: an OS thread's tid, or in Go code the goroutine
 * that ran (goroutines move between threads, so a thread that wrote two
 * words may be two goroutines each writing its own): GOROUTINE_TID_BASE
 * plus the goroutine's number in order of first sight, above any tid
 * Linux hands out (PID_MAX_LIMIT is 2^22). */
#define GOROUTINE_TID_BASE 0x40000000u
static inline int tid_is_goroutine(unsigned tid) { return tid >= GOROUTINE_TID_BASE; }
/* How reports write one: "2374", or "g3" for the third goroutine seen;
 * into buf, which it returns. */
#define TID_LABEL_MAX 16
char *tid_label(char buf[TID_LABEL_MAX], unsigned tid);

#endif
