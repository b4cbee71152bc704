/* alloc_tick.h - the time the allocation shim reads: one load per call.
 *
 * alloc_tick_start() makes a shared page (struct alloc_tick_page,
 * detector/alloc_record.h) on a descriptor a child inherits (>= 700) and
 * a thread that writes CLOCK_MONOTONIC into it every period (the kernel's
 * tick, 1 to 10 ms) while the shim reads it, and sleeps, woken by the
 * shim, while it does not -- from the start, so a target that does not
 * allocate is not interrupted at all; alloc_tick_fd() is that descriptor,
 * for ALLOC_TICK_ENV.  NULL when any of it fails: the shim then reads the
 * clock itself, as it does without contend.  alloc_tick_stop() ends the
 * thread at once and unmaps the page; a target still running then reads
 * the clock itself.
 */
#ifndef CONTEND_ALLOC_TICK_H
#define CONTEND_ALLOC_TICK_H

struct alloc_tick;

struct alloc_tick *alloc_tick_start(void);
int alloc_tick_fd(const struct alloc_tick *t);
void alloc_tick_stop(struct alloc_tick *t);

#endif
