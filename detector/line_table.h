/* line_table.h - streaming aggregation of access samples by cache line.
 *
 * Keyed by (pid, line address), or, for memory shared between processes
 * (the sample's obj_ino set), by the object and the line's offset in it
 * (device, inode, offset): the accesses of every process that maps it
 * meet on one line.  Each cell and thread keeps its own pid; the line's
 * pid and addr are the first sampled process's view of it.  Per line: one cell per distinct
 * (thread, code site, offset, size, kind) with its sample count, and per
 * thread the time of its last access.  Memory grows with distinct lines,
 * threads and code sites, never with the number of samples.
 *
 * Interleaving: an access is "concurrent" when another thread touched the
 * same line within window_ns of it, and this access writes or one of the
 * two threads wrote the line within 50 windows.  Stores are sampled far
 * less often than the loads that stall on the same line (they retire into
 * the store buffer), so "is a writer" needs the longer horizon; "both are
 * active now" keeps the short one, and threads that use a line in
 * different phases produce (almost) no concurrent accesses.  Samples
 * should arrive roughly in time order (the session sorts each batch); the
 * test is symmetric in time.
 *
 * An access that straddles a line boundary counts for the line of its
 * first byte, clipped to the line.
 *
 * Call chains do not split cells: each cell keeps the LINE_CELL_CHAINS
 * chains (callchain.h ids) sampled most often at it, by the space-saving
 * algorithm: a chain that finds every slot taken replaces the least
 * counted one and inherits its count, plus one.  So a chain with more
 * than 1/LINE_CELL_CHAINS of the cell's chained samples is always kept,
 * and a count may overstate by what the slot held before.
 *
 * A line's cells and threads are each one heap block that free() releases
 * (the cells' block also holds the table's index of them).  A caller may
 * replace them, as merging watched evidence does, only when nothing more
 * will be added to the table: the table keeps private data about both.
 */
#ifndef CONTEND_LINE_TABLE_H
#define CONTEND_LINE_TABLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "detector/sample.h"

#define LINE_CELL_CHAINS 4

struct line_chain {
	uint32_t id;             /* callchain.h id; 0: slot unused */
	uint64_t count;          /* samples (see above) */
};

struct line_cell {
	uint32_t tid;
	uint32_t pid;            /* of tid: ip is in its address space */
	uint8_t offset;          /* in the line, 0..line_size-1 */
	uint8_t size;            /* clipped to the line */
	uint8_t kind;            /* enum access_kind */
	int8_t base_reg;         /* representative, from the first sample */
	bool fenced;             /* ip is a fenced store (ACCESS_SAMPLE_FENCED) */
	uint64_t ip;
	int64_t base_off;        /* representative, from the first sample */
	uint64_t count;          /* samples */
	uint64_t concurrent;     /* of which concurrent */
	uint64_t weight;         /* sum of sample weights (latency), 0 if none */
	uint64_t weighted;       /* samples that carried a weight */
	/* From the hardware's data source (data_src.h), 0 without one: loads
	 * that found the line modified in another core of this node, or of
	 * another node or socket; other transfers from a peer core's cache. */
	uint64_t hitm_local, hitm_remote, peer;
	struct line_chain chains[LINE_CELL_CHAINS];   /* unordered */
};

struct line_thread {
	uint32_t tid;
	uint32_t pid;            /* the process of tid */
	uint64_t first_time;     /* its first and last sample on the line: two */
	uint64_t last_time;      /* threads whose spans never meet never contend;
	                            both 0: unknown (watched, never sampled) */
	uint8_t last_writes;     /* last access wrote */
	uint8_t has_written;
	uint64_t last_write_time;  /* time of its last write, if has_written */
	uint64_t count, concurrent;
};

#define LINE_CPUS_MAX 256

struct line {
	uint32_t pid;            /* shared: the first process sampled on it */
	uint64_t addr;           /* line address (aligned), in pid */
	/* obj_ino != 0: memory shared between processes, the object
	 * (device, inode) it is, and the line's offset in it (sample.h) */
	uint64_t obj_dev, obj_ino, obj_off;
	uint64_t count;          /* samples on the line */
	uint64_t concurrent;
	/* watchpoints saw two threads share it at once, one writing
	 * (confirm_merge_evidence): exact evidence, whatever the samples */
	bool watch_shared;
	/* The CPUs its samples ran on: bit n of cpus[n / 64], for CPUs below
	 * LINE_CPUS_MAX; cpus_beyond: some ran on a higher one */
	uint64_t cpus[LINE_CPUS_MAX / 64];
	bool cpus_beyond;
	struct line_cell *cells;
	unsigned n_cells, alloc_cells;
	struct line_thread *threads;
	unsigned n_threads, alloc_threads;
};

struct line_table;

struct line_table *line_table_new(unsigned line_size, uint64_t window_ns);
void line_table_free(struct line_table *t);
void line_table_add(struct line_table *t, const struct access_sample *s);

unsigned line_table_line_size(const struct line_table *t);
uint64_t line_table_samples(const struct line_table *t);   /* all added */
size_t line_table_count(const struct line_table *t);        /* distinct lines */
/* Lines in unspecified order; valid until the next add or free. */
struct line *line_table_line(struct line_table *t, size_t i);
/* The private line of pid at addr (not a shared one), or NULL. */
struct line *line_table_find(struct line_table *t, uint32_t pid, uint64_t addr);
/* Does l hold accesses of more than one process? */
bool line_cross_process(const struct line *l);
/* Whether goroutines, not OS threads, made its samples (Go code,
 * common/access.h): counts by OS thread do not mix with them. */
bool line_by_goroutines(const struct line *l);
/* The process of c's code address (a cell built without one: l's). */
static inline uint32_t cell_pid(const struct line *l, const struct line_cell *c)
{
	return c->pid ? c->pid : l->pid;
}
/* Once nothing more will be added: l (a line of t) takes over with's cells,
 * threads and counts (with is left empty), and the table's sample total
 * follows the change of l's count.  A merge of watched evidence rounds and
 * keeps a missed writer's one write, so a line can come out a few samples
 * heavier than it was: without the total following, a line holding every
 * sample showed a share (and a score) above 100%. */
void line_table_replace_line(struct line_table *t, struct line *l, struct line *with);

#endif
