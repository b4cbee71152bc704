/* line_table.c - streaming aggregation of access samples by cache line.
 *
 * Lines live in a dense array so that iterating over them is a plain loop;
 * an open-addressing hash maps (pid, line address) to an index in it.
 * Cells are found through one table-wide hash keyed by (line index, tid,
 * ip, offset, size, kind): a line touched by a thousand threads from a few
 * sites has thousands of cells, and a per-line scan would not keep up.
 * Threads are a per-line array scanned linearly: the concurrency test has
 * to look at every other thread of the line anyway.
 */
#include "line_table.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "data_src.h"
#include "util.h"

#define MIN_LINE_SIZE 8
#define MAX_LINE_SIZE 256     /* offsets must fit line_cell.offset */
#define NO_LINE UINT32_MAX

struct cell_slot {
	uint64_t hash;        /* of the cell's key; cheap rejection, rehashing */
	uint32_t line;        /* index in lines[], NO_LINE if the slot is empty */
	uint32_t cell;        /* index in lines[line].cells[] */
};

struct line_table {
	unsigned line_size;
	uint64_t window_ns;
	uint64_t samples;

	struct line *lines;
	size_t n_lines, alloc_lines;

	uint32_t *line_slots;  /* index in lines[] + 1, 0 if empty */
	size_t line_mask;

	struct cell_slot *cell_slots;
	size_t cell_mask, n_cells;
};

/* Both tables are grown before they pass 70% load. */
static bool over_load(size_t used, size_t mask)
{
	return (used + 1) * 10 > (mask + 1) * 7;
}

static uint64_t line_hash(uint32_t pid, uint64_t addr)
{
	return hash_u64(addr ^ ((uint64_t)pid * 0x9e3779b97f4a7c15ULL));
}

static uint64_t cell_hash(uint32_t line, uint32_t tid, uint64_t ip,
			  unsigned offset, unsigned size, unsigned kind)
{
	uint64_t who = ((uint64_t)line << 32) | tid;
	uint64_t where = ((uint64_t)offset << 16) | (size << 8) | kind;

	return hash_u64(hash_u64(who) ^ ip ^ (where * 0x9e3779b97f4a7c15ULL));
}

static struct cell_slot *alloc_cell_slots(size_t n)
{
	struct cell_slot *slots = xmalloc(n * sizeof(*slots));

	for (size_t i = 0; i < n; i++)
		slots[i].line = NO_LINE;
	return slots;
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
	t->line_mask = 63;
	t->line_slots = xcalloc(t->line_mask + 1, sizeof(*t->line_slots));
	t->cell_mask = 255;
	t->cell_slots = alloc_cell_slots(t->cell_mask + 1);
	return t;
}

void line_table_free(struct line_table *t)
{
	if (!t)
		return;
	for (size_t i = 0; i < t->n_lines; i++) {
		free(t->lines[i].cells);
		free(t->lines[i].threads);
	}
	free(t->lines);
	free(t->line_slots);
	free(t->cell_slots);
	free(t);
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
	return i < t->n_lines ? &t->lines[i] : NULL;
}

/* The slot holding (pid, addr), or the empty slot where it belongs. */
static uint32_t *line_slot(struct line_table *t, uint32_t pid, uint64_t addr)
{
	size_t i = line_hash(pid, addr) & t->line_mask;

	for (;; i = (i + 1) & t->line_mask) {
		uint32_t *slot = &t->line_slots[i];
		struct line *l;

		if (!*slot)
			return slot;
		l = &t->lines[*slot - 1];
		if (l->addr == addr && l->pid == pid)
			return slot;
	}
}

static void grow_lines(struct line_table *t)
{
	free(t->line_slots);
	t->line_mask = t->line_mask * 2 + 1;
	t->line_slots = xcalloc(t->line_mask + 1, sizeof(*t->line_slots));
	for (size_t i = 0; i < t->n_lines; i++)
		*line_slot(t, t->lines[i].pid, t->lines[i].addr) = i + 1;
}

struct line *line_table_find(struct line_table *t, uint32_t pid, uint64_t addr)
{
	uint32_t *slot = line_slot(t, pid, addr & ~(uint64_t)(t->line_size - 1));

	return *slot ? &t->lines[*slot - 1] : NULL;
}

static uint32_t find_or_add_line(struct line_table *t, uint32_t pid, uint64_t addr)
{
	uint32_t *slot = line_slot(t, pid, addr);
	struct line *l;

	if (*slot)
		return *slot - 1;
	if (t->n_lines >= NO_LINE)
		die("line table: too many lines");
	if (over_load(t->n_lines, t->line_mask)) {
		grow_lines(t);
		slot = line_slot(t, pid, addr);
	}
	ALLOC_GROW(t->lines, t->n_lines + 1, t->alloc_lines);
	l = &t->lines[t->n_lines];
	memset(l, 0, sizeof(*l));
	l->pid = pid;
	l->addr = addr;
	*slot = ++t->n_lines;
	return t->n_lines - 1;
}

/* The cell a clipped sample belongs to (the key fields of *key). */
static struct cell_slot *cell_slot(struct line_table *t, uint32_t line,
				   const struct line_cell *key, uint64_t hash)
{
	size_t i = hash & t->cell_mask;

	for (;; i = (i + 1) & t->cell_mask) {
		struct cell_slot *slot = &t->cell_slots[i];
		const struct line_cell *c;

		if (slot->line == NO_LINE)
			return slot;
		if (slot->hash != hash || slot->line != line)
			continue;
		c = &t->lines[line].cells[slot->cell];
		if (c->tid == key->tid && c->ip == key->ip &&
		    c->offset == key->offset && c->size == key->size &&
		    c->kind == key->kind)
			return slot;
	}
}

static void grow_cells(struct line_table *t)
{
	struct cell_slot *old = t->cell_slots;
	size_t old_n = t->cell_mask + 1;

	t->cell_mask = t->cell_mask * 2 + 1;
	t->cell_slots = alloc_cell_slots(t->cell_mask + 1);
	for (size_t i = 0; i < old_n; i++) {
		size_t j = old[i].hash & t->cell_mask;

		if (old[i].line == NO_LINE)
			continue;
		while (t->cell_slots[j].line != NO_LINE)
			j = (j + 1) & t->cell_mask;
		t->cell_slots[j] = old[i];
	}
	free(old);
}

static struct line_cell *find_or_add_cell(struct line_table *t, uint32_t line,
					  const struct line_cell *key)
{
	uint64_t hash = cell_hash(line, key->tid, key->ip, key->offset,
				  key->size, key->kind);
	struct cell_slot *slot = cell_slot(t, line, key, hash);
	struct line *l = &t->lines[line];

	if (slot->line != NO_LINE)
		return &l->cells[slot->cell];
	if (over_load(t->n_cells, t->cell_mask)) {
		grow_cells(t);
		slot = cell_slot(t, line, key, hash);
	}
	ALLOC_GROW(l->cells, l->n_cells + 1, l->alloc_cells);
	l->cells[l->n_cells] = *key;
	slot->hash = hash;
	slot->line = line;
	slot->cell = l->n_cells;
	t->n_cells++;
	return &l->cells[l->n_cells++];
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

/*
 * Record that s->tid touched line l and say whether the access is
 * concurrent: another thread accessed the line within the window, and
 * this access writes or one of the two threads wrote the line within
 * WRITER_WINDOWS windows.  The scan over all threads is
 * O(threads of the line), which stays small for all but pathological lines.
 */
static struct line_thread *touch_thread(struct line *l,
					const struct access_sample *s,
					uint64_t window, bool *concurrent)
{
	bool writes = access_kind_writes(s->kind);
	uint64_t writer_window = window * WRITER_WINDOWS;
	struct line_thread *self = NULL;
	bool other_near = false, other_writer = false, self_writer = writes;

	*concurrent = false;
	for (unsigned i = 0; i < l->n_threads; i++) {
		struct line_thread *th = &l->threads[i];
		bool near;

		if (th->tid == s->tid) {
			self = th;
			if (th->has_written && within(th->last_write_time, s->time, writer_window))
				self_writer = true;
			continue;
		}
		near = within(th->last_time, s->time, window);
		other_near |= near;
		if (near && th->has_written &&
		    within(th->last_write_time, s->time, writer_window))
			other_writer = true;
	}
	*concurrent = other_near && (self_writer || other_writer);
	if (!self) {
		ALLOC_GROW(l->threads, l->n_threads + 1, l->alloc_threads);
		self = &l->threads[l->n_threads++];
		memset(self, 0, sizeof(*self));
		self->tid = s->tid;
		self->last_time = s->time;
		self->last_writes = writes;
	} else if (s->time >= self->last_time) {
		/* a late sample says nothing about the latest access */
		self->last_time = s->time;
		self->last_writes = writes;
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
	struct line_cell key = {
		.tid = s->tid,
		.ip = s->ip,
		.kind = s->kind,
		.base_reg = s->base_reg,
		.base_off = s->base_off,
	};
	struct line_thread *th;
	struct line_cell *c;
	struct line *l;
	uint32_t line;
	bool concurrent;

	/* A kind we do not know would be taken for a write; drop it. */
	if (s->kind > ACCESS_ATOMIC)
		return;
	if (size > t->line_size - offset)
		size = t->line_size - offset;
	key.offset = offset;
	key.size = size;

	line = find_or_add_line(t, s->pid, addr);
	c = find_or_add_cell(t, line, &key);
	l = &t->lines[line];
	th = touch_thread(l, s, t->window_ns, &concurrent);

	t->samples++;
	l->count++;
	th->count++;
	c->count++;
	c->weight += s->weight;
	c->weighted += s->weight != 0;
	count_coherence(c, s->data_src);
	if (s->chain_id)
		count_chain(c, s->chain_id);
	if (concurrent) {
		l->concurrent++;
		th->concurrent++;
		c->concurrent++;
	}
}
