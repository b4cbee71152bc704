/* alloc_table.h - the target's heap blocks and the call sites that made them.
 *
 * Fed with struct alloc_record (detector/alloc_record.h: the preloaded shim
 * under `run`, the data file under `report`), answers "which block holds
 * this address, and who allocated it".  Memory stays bounded by what can
 * matter to a report, never by the number of calls:
 *  - sites are kept once each (pid, call, frames);
 *  - live blocks, at most ALLOC_LIVE_MAX (past that only blocks of
 *    ALLOC_LARGE bytes and more are taken; the rest are counted dropped);
 *  - a freed block is forgotten, unless a line of the line table (a line
 *    some sample touched) falls in it: then it is kept, marked freed, at
 *    most ALLOC_KEPT_MAX of them; the ALLOC_RECENT_MAX most recent frees
 *    are kept too, for samples not yet in the line table when their
 *    block's free arrived.
 * Records of different threads arrive out of order; their times decide
 * which of two blocks at one address is the newer.
 * Not thread-safe.
 */
#ifndef CONTEND_ALLOC_TABLE_H
#define CONTEND_ALLOC_TABLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "detector/alloc_record.h"

#define ALLOC_LIVE_MAX (1u << 20)
#define ALLOC_LARGE 4096
#define ALLOC_KEPT_MAX 65536
#define ALLOC_RECENT_MAX 4096

struct line_table;

struct alloc_site {
	uint32_t pid;
	uint32_t call;                    /* enum alloc_call */
	uint64_t frames[ALLOC_FRAMES];    /* frames[0]: the call's return address */
	uint64_t blocks;                  /* allocations seen from it */
};

struct alloc_block {
	uint64_t addr, size;              /* as asked for */
	uint64_t arg;                     /* calloc's count, the alignment, ... */
	uint64_t time;
	uint32_t pid, tid;
	uint32_t site;                    /* alloc_table_site() */
	uint32_t call;
	bool freed;                       /* kept after its free: a sampled line is in it */
};

struct alloc_stats {
	uint64_t records;                 /* taken in */
	uint64_t live, kept_freed;        /* blocks held now */
	uint64_t dropped;                 /* small blocks past ALLOC_LIVE_MAX */
	uint64_t sites;
	uint64_t traps;                   /* ALLOC_TRAP records: spurious debug
	                                     traps the target's shim absorbed */
};

struct alloc_table;

struct alloc_table *alloc_table_new(void);
void alloc_table_free(struct alloc_table *t);

/* lines may be NULL (no freed block is then kept for its samples). */
void alloc_table_add(struct alloc_table *t, const struct alloc_record *r,
		     struct line_table *lines);

/* The block holding addr in pid, or NULL: a live one first, else the
 * newest freed one kept.  Valid until the next add. */
const struct alloc_block *alloc_table_find(struct alloc_table *t, uint32_t pid, uint64_t addr);
const struct alloc_site *alloc_table_site(const struct alloc_table *t, uint32_t id);
void alloc_table_stats(const struct alloc_table *t, struct alloc_stats *out);

/* Every block held (live and kept), in no order, as records (frames from
 * their sites): what the data file stores, only those a line of
 * only_sampled falls in unless it is NULL.  Returns false when done. */
bool alloc_table_next(const struct alloc_table *t, struct line_table *only_sampled,
		      size_t *pos, struct alloc_record *out);

/* "malloc", "calloc", ..., "operator new[]"; "free" */
const char *alloc_call_name(uint32_t call);

#endif
