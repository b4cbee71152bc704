/* report_heapwalk.c - heap blocks of an attached process, read from its
 * glibc heap (detector/glibc_heap.h) where no allocation was tracked.
 *
 * Under attach the shim never ran: a heap address has no block.  For the
 * cells of the lines a report shows (contended, minor, latent: nothing
 * else asks), the chunk holding the address is looked up in the live
 * heap, read-only, and kept as a block like the shim's, with no call and
 * no site.  Its size is glibc's usable size, a little more than was asked
 * for; its type, having no allocating code to read it from, is guessed by
 * size from the accessing code's unit (symbolize/data_types_sized.h) at
 * the first access into it that gives a guess, and the block's size is
 * then the n elements that fill it.  A block is only ever kept when it
 * holds the address looked up.  At most HEAPWALK_BLOCKS blocks and
 * HEAPWALK_LOOKUPS lookups per report.
 */
#include "reports/report_build.h"

#include "detector/alloc_table.h"
#include "detector/glibc_heap.h"
#include "symbolize/data_types_sized.h"
#include "symbolize/symbolizer.h"

#define HEAPWALK_BLOCKS 256
#define HEAPWALK_LOOKUPS 4096

struct walked {
	struct alloc_block blk;      /* addr, size (as asked, as far as known), pid */
	struct glibc_heap_block gb;
	const struct dt_pointer *p;  /* its type, by size; NULL: none found yet */
	uint64_t elem;               /* sizeof that type */
};

struct heapwalk {
	struct glibc_heap *heap;     /* the session's */
	struct walked v[HEAPWALK_BLOCKS];   /* fixed: blocks handed out stay put */
	unsigned n;
	unsigned lookups;
};

void heapwalk_begin(struct build *b, struct glibc_heap *heap)
{
	if (!heap)
		return;
	b->walk = xcalloc(1, sizeof(*b->walk));
	b->walk->heap = heap;
}

void heapwalk_end(struct build *b)
{
	free(b->walk);
	b->walk = NULL;
}

static struct walked *walked_of(struct build *b, const struct alloc_block *blk)
{
	struct heapwalk *w = b->walk;
	uintptr_t p = (uintptr_t)blk;

	if (!w || p < (uintptr_t)w->v || p >= (uintptr_t)(w->v + w->n))
		return NULL;
	return &w->v[(p - (uintptr_t)w->v) / sizeof(w->v[0])];
}

bool heapwalk_owns(struct build *b, const struct alloc_block *blk)
{
	return walked_of(b, blk) != NULL;
}

const struct alloc_block *heapwalk_block(struct build *b, uint32_t pid, uint64_t addr)
{
	struct heapwalk *w = b->walk;
	const struct mapping *m;
	struct walked *k;
	struct glibc_heap_block gb;

	if (!w || pid != (uint32_t)glibc_heap_pid(w->heap))
		return NULL;
	for (unsigned i = 0; i < w->n; i++)
		if (addr >= w->v[i].gb.start && addr - w->v[i].gb.start < w->v[i].gb.usable)
			return &w->v[i].blk;
	/* not in files, stacks or the vdso; the heap may have grown past the
	 * table's [heap] (brk makes no mapping record): the walker's maps,
	 * read now, say the rest */
	m = b->sym ? symbolizer_find_mapping(b->sym, (pid_t)pid, addr) : NULL;
	if ((m && m->kind != MAPPING_HEAP && m->kind != MAPPING_ANON) ||
	    w->n == HEAPWALK_BLOCKS || w->lookups == HEAPWALK_LOOKUPS)
		return NULL;
	w->lookups++;
	if (!glibc_heap_find(w->heap, addr, &gb))
		return NULL;
	k = &w->v[w->n++];
	memset(k, 0, sizeof(*k));
	k->gb = gb;
	k->blk.addr = gb.start;
	k->blk.size = gb.usable;
	k->blk.pid = pid;
	k->blk.site = UINT32_MAX;    /* none */
	return &k->blk;
}

void heapwalk_type(struct build *b, const struct alloc_block *blk, const struct line *l,
		   const struct line_cell *c, const struct cell_attr *ca)
{
	struct walked *k = walked_of(b, blk);
	struct Dwfl_Module *mod;
	uint64_t bias, lo, hi, n, elem, addr = l->addr + c->offset;
	const char *leaf = NULL;
	const struct dt_pointer *p;

	if (!k || k->p || !c->ip || !b->dt)
		return;
	mod = symbolizer_module(b->sym, cell_pid(l, c), c->ip, &bias);
	if (!mod)
		return;
	/* a scalar access says what the member there must be; one typed as
	 * a struct names its own object: no guess against it */
	if (ca->typed && ca->a.layout && ca->a.layout->n_members)
		return;
	if (ca->typed && ca->a.type_name)
		leaf = ca->a.type_name;
	glibc_heap_asked(&k->gb, &lo, &hi);
	if (data_types_sized_pointer(b->dt, mod, bias, c->ip, lo, hi, addr - k->gb.start,
				     c->size, leaf, &p, &elem, &n) != DT_HIT)
		return;
	k->p = p;
	k->elem = elem;
	k->blk.size = n * elem;
}

const struct dt_pointer *heapwalk_pointer(struct build *b, const struct alloc_block *blk,
					  uint64_t *elem)
{
	struct walked *k = walked_of(b, blk);

	*elem = k && k->p ? k->elem : 0;
	return k ? k->p : NULL;
}

uint64_t heapwalk_usable(struct build *b, const struct alloc_block *blk)
{
	struct walked *k = walked_of(b, blk);

	return k ? k->gb.usable : 0;
}
