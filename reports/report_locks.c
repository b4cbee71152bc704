/* report_locks.c - a lock on a line: found, folded, named.
 *
 * A line whose samples mostly touch one lock (locks.h) is classified as
 * the lock's users see it: one object that the threads take in turn, not
 * __lock written beside __kind read.  Its range is named after the lock.
 */
#include "reports/report_build.h"

/* Samples of the cells whose access lies in the lock named name. */
static uint64_t lock_samples(const struct line *l, const struct lock_ref *refs,
			     const char *name)
{
	uint64_t n = 0;

	for (unsigned i = 0; i < l->n_cells; i++)
		if (refs[i].name && !strcmp(refs[i].name, name))
			n += l->cells[i].count;
	return n;
}

/* Its bytes from an instance that knows them, else those its cells touch. */
static void lock_extent(const struct line *l, const struct lock_ref *refs,
			struct lock_ref *lock)
{
	uint64_t lo = UINT64_MAX, hi = 0;

	for (unsigned i = 0; i < l->n_cells; i++) {
		uint64_t a = l->addr + l->cells[i].offset;

		if (!refs[i].name || strcmp(refs[i].name, lock->name))
			continue;
		if (refs[i].size) {
			lock->start = refs[i].start;
			lock->size = refs[i].size;
			return;
		}
		if (a < lo)
			lo = a;
		if (a + l->cells[i].size > hi)
			hi = a + l->cells[i].size;
	}
	lock->start = lo;
	lock->size = hi > lo ? hi - lo : 0;
}

/* The lock that most of the line's samples touch (locks.h); false if none. */
bool find_lock(const struct line *l, const struct cell_attr *attrs,
		      struct lock_ref *lock)
{
	struct lock_ref *refs = xcalloc(l->n_cells ? l->n_cells : 1, sizeof(*refs));
	uint64_t best_n = 0;
	int best = -1;

	for (unsigned i = 0; i < l->n_cells; i++)
		if (attrs[i].typed)
			lock_of_access(&attrs[i].a, l->addr + l->cells[i].offset,
				       l->cells[i].size, &refs[i]);
	for (unsigned i = 0; i < l->n_cells; i++) {
		uint64_t n = refs[i].name ? lock_samples(l, refs, refs[i].name) : 0;

		if (n > best_n) {
			best_n = n;
			best = (int)i;
		}
	}
	memset(lock, 0, sizeof(*lock));
	if (best >= 0) {
		lock->name = xstrdup(refs[best].name);
		lock->type_name = refs[best].type_name;
		lock_extent(l, refs, lock);
	}
	for (unsigned i = 0; i < l->n_cells; i++)
		lock_ref_release(&refs[i]);
	free(refs);
	return best >= 0;
}

/* The lock's bytes on the line: [*lo, *hi) in line offsets. */
static void lock_on_line(const struct line *l, unsigned line_size,
			 const struct lock_ref *lock, unsigned *lo, unsigned *hi)
{
	uint64_t start = lock->start > l->addr ? lock->start : l->addr;
	uint64_t end = lock->start + lock->size;

	if (end > l->addr + line_size)
		end = l->addr + line_size;
	*lo = (unsigned)(start - l->addr);
	*hi = end > start ? (unsigned)(end - l->addr) : *lo;
}

/*
 * A copy of the line on which every access to the lock's bytes covers
 * all of them on the line: classification then sees one object that the
 * threads write in turn (true sharing), not __lock written beside __kind
 * read (false sharing inside the lock).  in_lock[i] says which cells.
 */
struct line *fold_lock(const struct line *l, unsigned line_size,
			      const struct lock_ref *lock, bool *in_lock)
{
	struct line *f = xmalloc(sizeof(*f));
	unsigned lo, hi;

	*f = *l;
	f->cells = xcalloc(l->n_cells ? l->n_cells : 1, sizeof(*f->cells));
	copy_bytes(f->cells, l->cells, l->n_cells * sizeof(*f->cells));
	lock_on_line(l, line_size, lock, &lo, &hi);
	for (unsigned i = 0; i < l->n_cells && hi > lo; i++) {
		struct line_cell *c = &f->cells[i];

		in_lock[i] = c->offset < hi && lo < c->offset + c->size;
		if (in_lock[i]) {
			c->offset = (uint8_t)lo;
			c->size = (uint8_t)(hi - lo);
		}
	}
	return f;
}

void free_folded(struct line *f)
{
	if (!f)
		return;
	free(f->cells);
	free(f);
}

/* The folded range is named after the lock; the model keeps the lock. */
void name_lock(const struct line *l, const struct lock_ref *lock,
		      struct report_line *rl)
{
	unsigned lo, hi;

	lock_on_line(l, rl->line_size, lock, &lo, &hi);
	for (unsigned i = 0; i < rl->n_ranges; i++) {
		struct report_range *rr = &rl->ranges[i];

		if (rr->offset != lo || rr->size != hi - lo)
			continue;
		free(rr->member);
		rr->member = xstrdup(lock->name);
	}
	rl->lock.name = xstrdup(lock->name);
	rl->lock.type_name = strdup_or_null(lock->type_name);
	rl->lock.addr = lock->start;
	rl->lock.size = lock->size;
}
