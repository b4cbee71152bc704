/* glibc_heap.h - the malloc block holding an address, read from a live
 * process's glibc heap, without its help and without stopping it.
 *
 * Under `attach` no allocation call was seen, but glibc's heap says where
 * each block starts and how long it is: every chunk has a header (the
 * previous chunk's size, then size | PREV_INUSE 1 | IS_MMAPPED 2 |
 * NON_MAIN_ARENA 4; the block at +16) and chunks lie end to end, so a walk
 * from a known first chunk reaches the one holding an address.  Where the
 * walk starts:
 *  - main arena: the [heap] mapping's start;
 *  - thread arena: a heap of GLIBC_HEAP_MAX bytes aligned to it, opening
 *    with a heap_info (ar_ptr, prev, size, mprotect_size[, pagesize]); its
 *    first chunk follows it and, in an arena's first heap (ar_ptr points
 *    right after the heap_info), the arena's malloc_state;
 *  - a block over the mmap threshold: a mapping of its own (adjacent ones
 *    may show as one), its chunk header at the mapping's start.
 * The process runs on while we read: every size is checked (a multiple of
 * 16, at least 32, inside the region), the walk stops at the first that is
 * not, and a block is only answered when it holds the address and the
 * chunk after it says it is in use.  It is a hint, never a certainty.
 * Reads are bounded: at most GLIBC_HEAP_READ_MAX bytes and
 * GLIBC_HEAP_CHUNKS_MAX chunk headers per lookup, GLIBC_HEAP_READ_TOTAL
 * bytes per object, in windows of GLIBC_HEAP_WINDOW; where a region was
 * walked, checkpoints (a chunk at each window) let later lookups start
 * near their address, or go on from where an earlier one stopped.  The target's
 * memory is only read (process_vm_readv): never written.  64-bit glibc
 * layout (SIZE_SZ 8, MALLOC_ALIGNMENT 16, as on x86-64 and AArch64).
 * Nothing is allocated during a lookup (glibc_heap_open() on the caller's
 * own pid reads a heap that its own mallocs would change).  Not
 * thread-safe.
 */
#ifndef CONTEND_GLIBC_HEAP_H
#define CONTEND_GLIBC_HEAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define GLIBC_HEAP_MAX (64ull << 20)          /* HEAP_MAX_SIZE: 2 x the 32 MiB mmap threshold max */
#define GLIBC_HEAP_WINDOW (256u << 10)
#define GLIBC_HEAP_READ_MAX (64ull << 20)       /* per lookup */
#define GLIBC_HEAP_READ_TOTAL (256ull << 20)    /* per object */
#define GLIBC_HEAP_CHUNKS_MAX (4u << 20)        /* per lookup */
#define GLIBC_HEAP_MAPS_MAX 4096              /* candidate mappings kept */

/* A mapping a block may lie in: [heap], or anonymous, private, read-write. */
struct glibc_heap_map {
	uint64_t start, end;
	bool main_heap;          /* [heap] */
};

/* Reads len bytes of the target at addr into buf; returns how many it
 * read (fewer, or 0, where the memory is gone or not readable). */
typedef size_t (*glibc_heap_read_fn)(void *ctx, uint64_t addr, void *buf, size_t len);

enum glibc_heap_arena {
	GLIBC_HEAP_MAIN = 1,     /* the main arena, in [heap] */
	GLIBC_HEAP_THREAD,       /* a thread arena's heap */
	GLIBC_HEAP_MMAPPED,      /* a chunk mapped on its own */
};

struct glibc_heap_block {
	uint64_t start;          /* what malloc returned: the chunk + 16 */
	uint64_t usable;         /* malloc_usable_size() of it */
	enum glibc_heap_arena arena;
};

struct glibc_heap_stats {
	uint64_t lookups, found;
	uint64_t bytes_read, reads, chunks;
	double seconds;          /* spent in lookups */
	bool refused;            /* a read of a mapping failed outright */
};

struct glibc_heap;

/* For process pid: its mappings as /proc/PID/maps says now, read through
 * process_vm_readv.  NULL when the maps cannot be read. */
struct glibc_heap *glibc_heap_open(pid_t pid);
/* Over any memory (the tests'): maps copied; read and ctx must outlive it. */
struct glibc_heap *glibc_heap_new(const struct glibc_heap_map *maps, size_t n,
				  glibc_heap_read_fn read, void *ctx);
/* The blocks a walk found, as `record` wrote them (the report of a data
 * file reads no memory): lookups answer from them alone.  Blocks that
 * overlap one before them are dropped. */
struct glibc_heap *glibc_heap_recorded(pid_t pid, const struct glibc_heap_block *v, size_t n);
void glibc_heap_free(struct glibc_heap *h);
pid_t glibc_heap_pid(const struct glibc_heap *h);     /* 0 for glibc_heap_new() */

/* The in-use block holding addr (start <= addr < start + usable), or
 * false: not in a glibc heap, not found within the bounds, in a free
 * chunk, or the memory made no sense. */
bool glibc_heap_find(struct glibc_heap *h, uint64_t addr, struct glibc_heap_block *out);

/* The blocks lookups found so far, each once, in the order found: at
 * most GLIBC_HEAP_FOUND_MAX (what `record` keeps for its report). */
#define GLIBC_HEAP_FOUND_MAX 4096
const struct glibc_heap_block *glibc_heap_found(const struct glibc_heap *h, size_t *n);

/* The sizes malloc could have been asked for to make a block of this
 * usable size: [*lo, *hi]. */
void glibc_heap_asked(const struct glibc_heap_block *b, uint64_t *lo, uint64_t *hi);

void glibc_heap_stats(const struct glibc_heap *h, struct glibc_heap_stats *out);

#endif
