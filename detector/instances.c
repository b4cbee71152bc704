#include "detector/instances.h"

#include <stdlib.h>
#include <string.h>

#include "common/util.h"

/* A thread takes part in a line when it has at least this share of it. */
#define MEMBER_SHARE 0.05

struct keyed {
	struct line *line;
	uint64_t key;
};

static const struct line_cell *hottest_cell(const struct line *l)
{
	const struct line_cell *best = NULL;
	for (unsigned i = 0; i < l->n_cells; i++)
		if (!best || l->cells[i].count > best->count)
			best = &l->cells[i];
	return best;
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	return (x > y) - (x < y);
}

/* Hash of (pid, hottest site and offset, sorted set of taking-part threads). */
static uint64_t instance_key(const struct line *l)
{
	const struct line_cell *c = hottest_cell(l);
	uint32_t *tids = xcalloc(l->n_threads + 1, sizeof(*tids));
	unsigned n = 0;
	uint64_t h;

	for (unsigned i = 0; i < l->n_threads; i++)
		if (l->threads[i].count >= MEMBER_SHARE * l->count)
			tids[n++] = l->threads[i].tid;
	sort_items(tids, n, sizeof(*tids), cmp_u32);
	h = hash_u64(l->pid ^ ((uint64_t)(c ? c->offset : 0) << 32));
	h = hash_u64(h ^ (c ? c->ip : 0));
	for (unsigned i = 0; i < n; i++)
		h = hash_u64(h ^ tids[i]);
	/* Fewer than two threads each with a share of it (a pool's many
	 * short-lived workers): no set of threads to recognise the structure
	 * by, and pooled, different workers' slots would read as one shared
	 * field.  Such a line stands alone. */
	if (n < 2)
		h = hash_u64(h ^ l->addr);
	free(tids);
	return h;
}

static int cmp_keyed(const void *a, const void *b)
{
	const struct keyed *x = a, *y = b;
	if (x->key != y->key)
		return x->key < y->key ? -1 : 1;
	/* hottest first within a group */
	return (x->line->count < y->line->count) - (x->line->count > y->line->count);
}

size_t instance_groups(struct line **lines, size_t n, struct instance_group **out)
{
	struct keyed *k = xcalloc(n + 1, sizeof(*k));
	struct instance_group *g = xcalloc(n + 1, sizeof(*g));
	size_t ng = 0;

	for (size_t i = 0; i < n; i++) {
		k[i].line = lines[i];
		k[i].key = instance_key(lines[i]);
	}
	sort_items(k, n, sizeof(*k), cmp_keyed);
	for (size_t i = 0; i < n;) {
		size_t j = i;
		while (j < n && k[j].key == k[i].key)
			j++;
		g[ng].n = (unsigned)(j - i);
		g[ng].lines = xcalloc(j - i, sizeof(*g[ng].lines));
		for (size_t m = i; m < j; m++)
			g[ng].lines[m - i] = k[m].line;
		ng++;
		i = j;
	}
	free(k);
	*out = g;
	return ng;
}

void instance_groups_free(struct instance_group *g, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(g[i].lines);
	free(g);
}

static void add_cell(struct line *m, const struct line_cell *c)
{
	for (unsigned i = 0; i < m->n_cells; i++) {
		struct line_cell *d = &m->cells[i];
		if (d->tid == c->tid && d->ip == c->ip && d->offset == c->offset &&
		    d->size == c->size && d->kind == c->kind) {
			d->count += c->count;
			d->concurrent += c->concurrent;
			d->weight += c->weight;
			d->weighted += c->weighted;
			d->hitm_local += c->hitm_local;
			d->hitm_remote += c->hitm_remote;
			d->peer += c->peer;
			d->fenced |= c->fenced;
			return;
		}
	}
	ALLOC_GROW(m->cells, m->n_cells + 1, m->alloc_cells);
	m->cells[m->n_cells++] = *c;
}

static void add_thread(struct line *m, const struct line_thread *t)
{
	for (unsigned i = 0; i < m->n_threads; i++) {
		struct line_thread *d = &m->threads[i];
		if (d->tid == t->tid) {
			d->count += t->count;
			d->concurrent += t->concurrent;
			if (t->first_time < d->first_time)
				d->first_time = t->first_time;
			if (t->last_time > d->last_time)
				d->last_time = t->last_time;
			return;
		}
	}
	ALLOC_GROW(m->threads, m->n_threads + 1, m->alloc_threads);
	m->threads[m->n_threads++] = *t;
}

/* ref's cell for c's thread, offset and kind. */
static const struct line_cell *matching_cell(const struct line *ref, const struct line_cell *c)
{
	const struct line_cell *best = NULL;

	for (unsigned i = 0; i < ref->n_cells; i++) {
		const struct line_cell *h = &ref->cells[i];

		if (h->tid == c->tid && h->offset == c->offset && h->size == c->size &&
		    h->kind == c->kind && (!best || h->count > best->count))
			best = h;
	}
	return best;
}

static void add_thread_concurrent(struct line *m, uint32_t tid, uint64_t n)
{
	for (unsigned i = 0; i < m->n_threads; i++)
		if (m->threads[i].tid == tid)
			m->threads[i].concurrent += n;
}

struct line *instance_line(const struct instance_group *g)
{
	struct line *m = xcalloc(1, sizeof(*m));
	const struct line *ref = g->lines[0];

	m->pid = g->lines[0]->pid;
	m->addr = g->lines[0]->addr;
	m->obj_dev = g->lines[0]->obj_dev;    /* shared memory: its object */
	m->obj_ino = g->lines[0]->obj_ino;
	m->obj_off = g->lines[0]->obj_off;
	for (unsigned i = 1; i < g->n; i++)
		if (g->lines[i]->concurrent > ref->concurrent)
			ref = g->lines[i];
	for (unsigned i = 0; i < g->n; i++) {
		const struct line *l = g->lines[i];

		m->count += l->count;
		m->concurrent += l->concurrent;
		m->watch_shared |= l->watch_shared;
		for (unsigned t = 0; t < l->n_threads; t++)
			add_thread(m, &l->threads[t]);
		for (unsigned c = 0; c < l->n_cells; c++) {
			struct line_cell cell = l->cells[c];
			const struct line_cell *h = l != ref ? matching_cell(ref, &cell) : NULL;

			if (h && h->count) {
				uint64_t want = (uint64_t)((double)cell.count * (double)h->concurrent /
							   (double)h->count + 0.5);

				if (want > cell.count)
					want = cell.count;
				if (want > cell.concurrent) {
					m->concurrent += want - cell.concurrent;
					add_thread_concurrent(m, cell.tid, want - cell.concurrent);
					cell.concurrent = want;
				}
			}
			add_cell(m, &cell);
		}
	}
	return m;
}

void instance_line_free(struct line *l)
{
	if (!l)
		return;
	free(l->cells);
	free(l->threads);
	free(l);
}
