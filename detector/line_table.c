/* line_table.c - streaming aggregation of access samples by cache line.
 *
 * Every sample looks up its line, its cell and its thread.  On a session's
 * scale the cells do not fit in any cache, so a sample costs a miss or two
 * whatever is done; what is left to decide is how many more, and how much
 * work sits between one sample's misses and the next's (the processor
 * overlaps them only when little does).
 *
 * Lines live in a dense array so that iterating over them is a plain loop;
 * a hash map (common/hashmap.h) maps the line's key (pid and line
 * address, or for shared memory the object and offset: line_table.h) to
 * an index in it.  Its slots keep the whole hash, so a probe past another key rarely
 * reads that key's line.
 *
 * Cells are found through an index of their own line, keyed by (tid,
 * ip, offset, size, kind): a line touched by a thousand threads from a few
 * sites has thousands of cells, and a scan would not keep up.  The index
 * is the hash map's compact form (struct hash_index): four-byte entries
 * that carry high bits of the key's hash besides the cell's number, so a
 * probe past another key rarely reads that key's cell (another miss).  It
 * lives in the same allocation as the cells, after them, two entries per
 * cell allocated: it grows when the cells do, is rebuilt from cells just
 * copied, costs no allocation of its own, and goes away with the cells
 * whoever frees them.  The map form, sixteen-byte slots in a block of
 * their own, made this index eight times the size and measured (bench/
 * analysis, 1000 lines) a fifth slower per sample; so would a table-wide
 * index, far from anything else the sample touches.
 *
 * Threads are a per-line array.  Whether an access is concurrent is
 * decided from the line's two latest threads and the thread's own record
 * where that is enough, which is almost always (touch_thread()).
 *
 * A line's arrays start with one element, not eight: most lines of a
 * session get a sample or two, and at a million lines spare cells would be
 * most of the memory.  A line that gets a second cell or thread usually
 * gets more, and reallocation is a good part of the cost of a sample that
 * adds one: cells grow 1, 4, 16, then double, threads 1, 4, then double.
 */
#include "detector/line_table.h"

#include "common/access.h"

#include <limits.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "detector/data_src.h"
#include "common/hashmap.h"
#include "common/util.h"

#define MIN_LINE_SIZE 8
#define MAX_LINE_SIZE 256     /* offsets must fit line_cell.offset */
#define NO_LINE UINT32_MAX

/* Cell index entries per cell allocated: the index stays at most half
 * full, so probes are short. */
#define INDEX_PER_CELL 2

/* A line's cells are not grown past this: its index, a power of two, has
 * to fit 32-bit entries. */
#define MAX_LINE_CELLS (1U << 30)

/* What a line is: (0, pid, address) for private memory, (inode, device,
 * offset) for an object shared between processes.  No file has inode 0. */
struct line_key {
	uint64_t ino, space, addr;
};

/*
 * One line and what only the table needs about it; line_table_line() and
 * line_table_find() hand out the address of the public part.
 */
struct line_rec {
	struct line line;
	struct line_key key;
	struct hash_index cells; /* of line.cells, by cell_hash() */
	/* The thread that accessed the line last and the one before it that
	 * is not the same, with their last_time; the second counts once the
	 * line has two threads.  Valid while the table alone changes the
	 * line's threads (line_table.h). */
	uint64_t recent_time[2];
	uint32_t recent_tid[2];
};

struct line_table {
	unsigned line_size;
	uint64_t window_ns;
	uint64_t samples;

	struct line_rec *lines;
	size_t n_lines, alloc_lines;

	struct hashmap line_map;  /* index in lines[] + 1, by line_hash() */
};

static uint64_t line_hash(const struct line_key *k)
{
	return hash_u64(k->addr ^ ((k->space ^ (k->ino << 20)) * 0x9e3779b97f4a7c15ULL));
}

/* The ip and the packed small fields are both dense in their low bits:
 * spreading the small ones over the word first keeps the xor from
 * colliding systematically, and one mix is enough after that. */
static uint64_t cell_hash(uint32_t tid, uint64_t ip, unsigned offset,
			  unsigned size, unsigned kind)
{
	uint64_t small = ((uint64_t)tid << 32) | (offset << 16) | (size << 8) | kind;

	return hash_u64(ip ^ (small * 0x9e3779b97f4a7c15ULL));
}

/*
 * A line's cell index: after its alloc_cells cells, in the same block,
 * INDEX_PER_CELL * alloc_cells entries of the hash map's compact form.
 * It stays valid only while the table alone changes the line's cells
 * (line_table.h).
 */
static uint32_t *cell_index_entries(const struct line *l)
{
	return (uint32_t *)(l->cells + l->alloc_cells);
}

/* The index of a line without cells: one empty entry, never written (the
 * first cell grows the line first). */
static uint32_t no_cells_entries[1];

/*
 * Make room for one more cell on a full line: grow its block (see the top
 * of the file) and rebuild the index there, from the cells realloc() has
 * just copied.
 */
static void grow_cells(struct line_rec *r)
{
	struct line *l = &r->line;
	unsigned alloc;

	if (l->alloc_cells >= MAX_LINE_CELLS)
		die("line table: too many cells on one line");
	alloc = l->alloc_cells == 0 ? 1 :
		l->alloc_cells < 16 ? l->alloc_cells * 4 : l->alloc_cells * 2;
	l->cells = xrealloc(l->cells, (size_t)alloc * (sizeof(*l->cells) +
				INDEX_PER_CELL * sizeof(uint32_t)));
	l->alloc_cells = alloc;
	hash_index_init(&r->cells, cell_index_entries(l), (size_t)INDEX_PER_CELL * alloc);
	for (unsigned n = 0; n < l->n_cells; n++) {
		const struct line_cell *c = &l->cells[n];

		hash_index_add(&r->cells,
			       cell_hash(c->tid, c->ip, c->offset, c->size, c->kind), n);
	}
}

static void grow_threads(struct line *l)
{
	unsigned alloc;

	if (l->alloc_threads > UINT_MAX / 2)
		die("line table: too many threads on one line");
	alloc = l->alloc_threads == 0 ? 1 :
		l->alloc_threads == 1 ? 4 : l->alloc_threads * 2;
	l->threads = xrealloc(l->threads, (size_t)alloc * sizeof(*l->threads));
	l->alloc_threads = alloc;
}

struct line_table *line_table_new(unsigned line_size, uint64_t window_ns)
{
	struct line_table *t;

	if (line_size < MIN_LINE_SIZE || line_size > MAX_LINE_SIZE ||
	    (line_size & (line_size - 1))) {
		error("line size %u: want a power of two from %d to %d",
		      line_size, MIN_LINE_SIZE, MAX_LINE_SIZE);
		return NULL;
	}
	t = xcalloc(1, sizeof(*t));
	t->line_size = line_size;
	t->window_ns = window_ns;
	hashmap_init(&t->line_map, 0);
	return t;
}

void line_table_free(struct line_table *t)
{
	if (!t)
		return;
	for (size_t i = 0; i < t->n_lines; i++) {
		free(t->lines[i].line.cells);      /* and the cell index */
		free(t->lines[i].line.threads);
	}
	free(t->lines);
	hashmap_release(&t->line_map, NULL);
	free(t);
}

void line_table_replace_line(struct line_table *t, struct line *l, struct line *with)
{
	t->samples = t->samples - l->count + with->count;   /* l->count is in it */
	free(l->cells);
	free(l->threads);
	l->cells = with->cells;
	l->n_cells = with->n_cells;
	l->alloc_cells = with->alloc_cells;
	l->threads = with->threads;
	l->n_threads = with->n_threads;
	l->alloc_threads = with->alloc_threads;
	l->count = with->count;
	l->concurrent = with->concurrent;
	memset(with, 0, sizeof(*with));
}

unsigned line_table_line_size(const struct line_table *t)
{
	return t->line_size;
}

uint64_t line_table_samples(const struct line_table *t)
{
	return t->samples;
}

size_t line_table_count(const struct line_table *t)
{
	return t->n_lines;
}

struct line *line_table_line(struct line_table *t, size_t i)
{
	return i < t->n_lines ? &t->lines[i].line : NULL;
}

/* The record of line k, whose line_hash() is hash, or NULL.
 * Inline: every sample comes here, and the call was a tenth of the time. */
static inline __attribute__((always_inline)) struct line_rec *
lookup_line(struct line_table *t, uint64_t hash, const struct line_key *k)
{
	size_t pos;

	for (void *v = hashmap_first_of(&t->line_map, hash, &pos); v;
	     v = hashmap_next_of(&t->line_map, hash, &pos)) {
		struct line_rec *r = &t->lines[(uintptr_t)v - 1];

		if (((r->key.addr ^ k->addr) | (r->key.space ^ k->space) |
		     (r->key.ino ^ k->ino)) == 0)
			return r;
	}
	return NULL;
}

struct line *line_table_find(struct line_table *t, uint32_t pid, uint64_t addr)
{
	struct line_key k = { 0, pid, addr & ~(uint64_t)(t->line_size - 1) };
	struct line_rec *r = lookup_line(t, line_hash(&k), &k);

	return r ? &r->line : NULL;
}

bool line_cross_process(const struct line *l)
{
	for (unsigned i = 1; i < l->n_threads; i++)
		if (l->threads[i].pid != l->threads[0].pid)
			return true;
	for (unsigned i = 1; i < l->n_cells; i++)
		if (l->cells[i].pid != l->cells[0].pid)
			return true;
	return false;
}

bool line_by_goroutines(const struct line *l)
{
	for (unsigned i = 0; i < l->n_threads; i++)
		if (tid_is_goroutine(l->threads[i].tid))
			return true;
	return false;
}

/* A new line, seen first by s at line address addr of its process. */
static struct line_rec *add_line(struct line_table *t, uint64_t hash,
				 const struct line_key *k,
				 const struct access_sample *s, uint64_t addr)
{
	struct line_rec *r;

	if (t->n_lines >= NO_LINE)
		die("line table: too many lines");
	ALLOC_GROW(t->lines, t->n_lines + 1, t->alloc_lines);
	r = &t->lines[t->n_lines];
	memset(r, 0, sizeof(*r));
	r->key = *k;
	r->line.pid = s->pid;
	r->line.addr = addr;
	if (k->ino) {
		r->line.obj_dev = s->obj_dev;
		r->line.obj_ino = s->obj_ino;
		r->line.obj_off = k->addr;
	}
	r->cells = (struct hash_index){ no_cells_entries, 0 };
	/* the index + 1: never NULL, and stays right as lines[] grows */
	hashmap_add(&t->line_map, hash, (void *)(uintptr_t)++t->n_lines);
	return r;
}

/* The line of s, whose line address in its process is addr. */
static struct line_rec *find_or_add_line(struct line_table *t,
					 const struct access_sample *s, uint64_t addr)
{
	struct line_key k = { 0, s->pid, addr };
	uint64_t hash;
	struct line_rec *r;

	if (s->obj_ino) {
		k.ino = s->obj_ino;
		k.space = s->obj_dev;
		k.addr = s->obj_off & ~(uint64_t)(t->line_size - 1);
	}
	hash = line_hash(&k);
	r = lookup_line(t, hash, &k);
	return r ? r : add_line(t, hash, &k, s, addr);
}

/* One test, not five: this runs for every sample. */
static bool same_cell(const struct line_cell *c, const struct access_sample *s,
		      unsigned offset, unsigned size)
{
	return ((c->ip ^ s->ip) | (c->tid ^ s->tid) | (c->offset ^ offset) |
		(c->size ^ size) | (c->kind ^ s->kind)) == 0;
}

/* The cell of a clipped sample, new (zero counts, the sample's base
 * register and offset) if the line has none yet. */
static struct line_cell *find_or_add_cell(struct line_rec *r,
					  const struct access_sample *s,
					  unsigned offset, unsigned size)
{
	uint64_t hash = cell_hash(s->tid, s->ip, offset, size, s->kind);
	struct line *l = &r->line;
	struct line_cell *c;
	uint32_t n;
	size_t pos;

	for (hash_index_start(&r->cells, hash, &pos);
	     hash_index_next(&r->cells, hash, &pos, &n);) {
		c = &l->cells[n];
		if (same_cell(c, s, offset, size))
			return c;
	}
	if (l->n_cells == l->alloc_cells)
		grow_cells(r);
	hash_index_add(&r->cells, hash, l->n_cells);
	c = &l->cells[l->n_cells++];
	*c = (struct line_cell){
		.tid = s->tid,
		.pid = s->pid,
		.offset = offset,
		.size = size,
		.kind = s->kind,
		.base_reg = s->base_reg,
		.ip = s->ip,
		.base_off = s->base_off,
	};
	return c;
}

/* Stores retire into the store buffer and are sampled far less often than
 * the loads that stall on the same line: whether a thread writes the line
 * is judged over a longer horizon than whether two threads are active on
 * it at the same time. */
#define WRITER_WINDOWS 50

static bool within(uint64_t a, uint64_t b, uint64_t window)
{
	return (a > b ? a - b : b - a) <= window;
}

/* The thread's record on the line, NULL if it has none yet. */
static struct line_thread *find_thread(struct line *l, uint32_t tid)
{
	for (unsigned i = 0; i < l->n_threads; i++)
		if (l->threads[i].tid == tid)
			return &l->threads[i];
	return NULL;
}

/*
 * Over the line's threads other than s->tid: did one access the line
 * within the window of s, and did such a one write it within the writer
 * horizon?  O(threads of the line).
 */
static void scan_others(const struct line *l, const struct access_sample *s,
			uint64_t window, bool *near_out, bool *writer_out)
{
	uint64_t writer_window = window * WRITER_WINDOWS;
	bool other_near = false, other_writer = false;

	for (unsigned i = 0; i < l->n_threads; i++) {
		const struct line_thread *th = &l->threads[i];
		bool near;

		if (th->tid == s->tid)
			continue;
		near = within(th->last_time, s->time, window);
		other_near |= near;
		if (near && th->has_written &&
		    within(th->last_write_time, s->time, writer_window))
			other_writer = true;
	}
	*near_out = other_near;
	*writer_out = other_writer;
}

/*
 * Did another thread access the line within the window of s?  From the
 * two latest threads when s is not older than any thread's last access:
 * then the other thread that came last is the nearest.  A late sample
 * scans.
 */
static bool other_thread_near(const struct line_rec *r, const struct access_sample *s,
		       uint64_t window)
{
	uint64_t from = s->time > window ? s->time - window : 0;
	bool other_writer;
	bool near;

	if (s->time >= r->recent_time[0]) {
		if (r->recent_tid[0] != s->tid)
			return r->line.n_threads >= 1 && r->recent_time[0] >= from;
		return r->line.n_threads >= 2 && r->recent_time[1] >= from;
	}
	scan_others(&r->line, s, window, &near, &other_writer);
	return near;
}

/* Thread tid's last access moved forward to time (last_times only grow):
 * keep the two latest threads. */
static void note_recent(struct line_rec *r, uint32_t tid, uint64_t time)
{
	unsigned known = r->line.n_threads;   /* tid counted */

	if (known == 1 || tid == r->recent_tid[0]) {
		r->recent_tid[0] = tid;
		r->recent_time[0] = time;
		return;
	}
	if (known > 2 && tid != r->recent_tid[1] && time <= r->recent_time[1])
		return;        /* a third thread that stays behind both */
	r->recent_tid[1] = tid;
	r->recent_time[1] = time;
	if (time > r->recent_time[0]) {
		r->recent_tid[1] = r->recent_tid[0];
		r->recent_time[1] = r->recent_time[0];
		r->recent_tid[0] = tid;
		r->recent_time[0] = time;
	}
}

/*
 * Record that s->tid touched the line and say whether the access is
 * concurrent: another thread accessed the line within the window, and
 * this access writes or one of the two threads wrote the line within
 * WRITER_WINDOWS windows.
 *
 * Every sample pays for this, and a scan over the line's threads costs
 * more than the rest of an add: so it is decided from the two latest
 * threads and the thread's own record where that is enough (no other
 * thread near, or this one a writer), and the other threads are scanned
 * for a writer only when a non-writer has company.
 */
static struct line_thread *touch_thread(struct line_rec *r,
					const struct access_sample *s,
					uint64_t window, bool *concurrent)
{
	struct line *l = &r->line;
	bool writes = access_kind_writes(s->kind);
	struct line_thread *self = find_thread(l, s->tid);
	bool self_writer = writes;
	bool near, other_writer;

	if (self && self->has_written &&
	    within(self->last_write_time, s->time, window * WRITER_WINDOWS))
		self_writer = true;
	*concurrent = false;
	if (other_thread_near(r, s, window)) {
		if (self_writer) {
			*concurrent = true;
		} else {
			scan_others(l, s, window, &near, &other_writer);
			*concurrent = other_writer;
		}
	}
	if (!self) {
		if (l->n_threads == l->alloc_threads)
			grow_threads(l);
		self = &l->threads[l->n_threads++];
		memset(self, 0, sizeof(*self));
		self->tid = s->tid;
		self->pid = s->pid;
		self->first_time = s->time;
		self->last_time = s->time;
		self->last_writes = writes;
		note_recent(r, s->tid, s->time);
	} else if (s->time < self->first_time) {
		self->first_time = s->time;
	} else if (s->time >= self->last_time) {
		/* a late sample says nothing about the latest access */
		self->last_time = s->time;
		self->last_writes = writes;
		note_recent(r, s->tid, s->time);
	}
	/* A thread that writes and then reads must not hide its write from
	 * the readers that come after: remember the last write separately. */
	if (writes && (!self->has_written || s->time >= self->last_write_time)) {
		self->last_write_time = s->time;
		self->has_written = 1;
	}
	return self;
}

/* Space-saving top-k (line_table.h): count the chain in its slot, else in
 * a free one, else in place of the least counted. */
static void count_chain(struct line_cell *c, uint32_t id)
{
	struct line_chain *min = &c->chains[0];

	for (unsigned i = 0; i < LINE_CELL_CHAINS; i++) {
		struct line_chain *ch = &c->chains[i];

		if (ch->id == id) {
			ch->count++;
			return;
		}
		if (ch->count < min->count)
			min = ch;
	}
	min->id = id;
	min->count++;
}

static void count_coherence(struct line_cell *c, uint64_t data_src)
{
	switch (data_src_coherence(data_src)) {
	case COHERENCE_HITM_LOCAL: c->hitm_local++; break;
	case COHERENCE_HITM_REMOTE: c->hitm_remote++; break;
	case COHERENCE_PEER: c->peer++; break;
	case COHERENCE_NONE: break;
	}
}

void line_table_add(struct line_table *t, const struct access_sample *s)
{
	uint64_t addr = s->addr & ~(uint64_t)(t->line_size - 1);
	unsigned offset = s->addr - addr;
	unsigned size = s->size ? s->size : 1;
	struct line_thread *th;
	struct line_cell *c;
	struct line_rec *r;
	struct line *l;
	bool concurrent;

	/* A kind we do not know would be taken for a write; drop it. */
	if (s->kind > ACCESS_ATOMIC)
		return;
	if (size > t->line_size - offset)
		size = t->line_size - offset;

	r = find_or_add_line(t, s, addr);
	l = &r->line;
	c = find_or_add_cell(r, s, offset, size);
	th = touch_thread(r, s, t->window_ns, &concurrent);

	t->samples++;
	l->count++;
	th->count++;
	c->count++;
	c->fenced |= (s->flags & ACCESS_SAMPLE_FENCED) != 0;
	c->weight += s->weight;
	c->weighted += s->weight != 0;
	if (s->data_src)     /* 0 decodes to nothing (data_src.h): skip the call */
		count_coherence(c, s->data_src);
	if (s->chain_id)
		count_chain(c, s->chain_id);
	if (concurrent) {
		l->concurrent++;
		th->concurrent++;
		c->concurrent++;
	}
	if (s->cpu < LINE_CPUS_MAX)
		l->cpus[s->cpu / 64] |= 1ULL << (s->cpu % 64);
	else if (s->cpu != UINT32_MAX)
		l->cpus_beyond = true;
}
