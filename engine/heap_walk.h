/* heap_walk.h - the heap blocks of attach, record -p and top -p: the
 * target's glibc heap, opened for the report to read (detector/
 * glibc_heap.h, reports/report_heapwalk.c) and what reading it cost,
 * said afterwards.
 */
#ifndef CONTEND_CLI_HEAP_WALK_H
#define CONTEND_CLI_HEAP_WALK_H

#include <stdbool.h>
#include <sys/types.h>

#include "engine/options.h"

struct glibc_heap;

/* The heap of a process left running after an attach, or NULL: none
 * (pid <= 0: -a), --no-alloc-sites, or its maps cannot be read. */
struct glibc_heap *heap_walk_open(const struct options *opt, pid_t pid);
/* "contend: heap blocks: 3 of 5 addresses found ..., 0.4 ms, 256 KiB
 * read" on stderr (unless quiet or nothing was looked up); closes it.
 * NULL is fine. */
void heap_walk_done(struct glibc_heap *heap, bool quiet);

#endif
