/* report_alloc.c - heap data named by the block that holds it.
 *
 * With allocation tracking (detector/alloc_table.h), an address in the
 * heap has a block: where it starts, its size, the call that made it and
 * the code that called.  The variable that code kept the block in gives
 * its type (symbolize/alloc_type.h), and the offset into the block then
 * gives the element and the member: "arg[0].blue[254]", "arg[1].red[0]".
 * That beats what the access itself says when the access goes through a
 * scalar pointer (int *red = arg->red) or through a pointer to one
 * element of the same struct (the element index is then known); a typed
 * access to a struct of another type (an object nested in the block, or
 * a block whose allocating code kept it as void *) keeps its own.
 * Without tracking, under attach, the blocks come from the target's heap
 * instead (report_heapwalk.c): no call or site, a type guessed by size.
 */
#include "reports/report_build.h"

#include <inttypes.h>

#include "detector/alloc_table.h"
#include "detector/glibc_heap.h"
#include "reports/naming.h"
#include "symbolize/alloc_type.h"
#include "symbolize/symbolizer.h"

void alloc_build_begin(struct build *b, struct alloc_table *allocs, struct glibc_heap *heap)
{
	b->allocs = allocs;
	b->alloc_paths = (struct strset)STRSET_INIT;
	if (allocs) {
		struct alloc_stats st;

		alloc_table_stats(allocs, &st);
		b->r->traps_absorbed = st.traps;
	}
	if (allocs && b->r->n_lines && b->sym && b->dt)
		b->alloc_types = alloc_types_new(b->sym, b->dt);
	if (!allocs && b->sym && b->dt)
		heapwalk_begin(b, heap);
}

void alloc_build_end(struct build *b)
{
	alloc_types_free(b->alloc_types);
	b->alloc_types = NULL;
	heapwalk_end(b);
	strset_release(&b->alloc_paths);
}

/* The name of the variable the allocating code kept the block in, unless
 * the implementation's own: inside std::vector it is libstdc++'s __cur or
 * _M_start, which would name a user's array "__cur[1]". */
static const char *user_variable(const char *v)
{
	if (!v || (v[0] == '_' && (v[1] == '_' || (v[1] >= 'A' && v[1] <= 'Z'))))
		return NULL;
	return v;
}

/* The block holding addr: tracked (run), else read from the heap (attach). */
static const struct alloc_block *block_at(struct build *b, uint32_t pid, uint64_t addr)
{
	if (b->allocs)
		return alloc_table_find(b->allocs, pid, addr);
	return heapwalk_block(b, pid, addr);
}

static const struct alloc_site *site_of(struct build *b, const struct alloc_block *blk)
{
	return b->allocs ? alloc_table_site(b->allocs, blk->site) : NULL;
}

/* The block's element type, through the pointer its allocator kept it
 * in; *elem the type's size (0: not a struct, or unknown). */
static const struct dt_pointer *block_pointer(struct build *b, const struct alloc_block *blk,
					      uint64_t *elem)
{
	const struct alloc_site *site = site_of(b, blk);
	const struct dt_pointer *p;
	struct data_attribution whole;

	if (heapwalk_owns(b, blk))
		return heapwalk_pointer(b, blk, elem);
	*elem = 0;
	if (!site || !b->alloc_types || !site->frames[0] ||
	    alloc_type_at(b->alloc_types, (pid_t)blk->pid, site->frames[0], &p) != DT_HIT)
		return NULL;
	/* the pointee's size, not that of the innermost struct at its start
	 * (a struct whose first member is a struct: Rust's ArcInner) */
	if (data_types_through_pointer(b->dt, p, 0, false, blk->addr, 0, &whole) == DT_HIT &&
	    whole.layout && whole.layout_start == blk->addr && whole.layout->n_members)
		*elem = data_types_pointer_size(p);
	return p;
}

/* Should the block's attribution replace what the access said? */
static bool block_knows_better(const struct cell_attr *ca, const struct data_attribution *a)
{
	const struct type_layout *have = ca->a.layout;

	if (!ca->typed || !have || !have->n_members)
		return true;        /* nothing, or a scalar: int *red */
	return a->layout && have->name && a->layout->name &&
	       !strcmp(have->name, a->layout->name);   /* same struct: the index */
}

/*
 * The allocating code kept the block where no type says what it is (a
 * std::vector's _M_start, a void *), but the access went through a pointer
 * to a struct that starts in the block a whole number of its sizes in, in
 * a block that many sizes long: the block is an array of that struct,
 * and the access is to one element of it, "[1].processed" of
 * "WorkerStats[]".
 */
static void block_from_access_type(struct build *b, const struct alloc_block *blk,
				   struct cell_attr *ca)
{
	struct data_attribution *a = &ca->a;
	uint64_t size = a->layout ? a->layout->size : 0;

	/* a block read from the heap has its usable size, up to 15 bytes
	 * more than was asked for */
	uint64_t slack = heapwalk_owns(b, blk) ? 16 : 1;

	/* "[]": the block has room for size/blk->size of them, but whether
	 * the program uses them all (a block sized for a padded layout) the
	 * size cannot say; a block of one is no array */
	if (!ca->typed || !size || blk->size / size < 2 || blk->size % size >= slack ||
	    a->object_start < blk->addr ||
	    a->object_start - blk->addr >= blk->size || !attribution_as_element(b, a, blk->addr, 0))
		return;
	a->variable = NULL;
}

void alloc_attribute_cell(struct build *b, const struct line *l,
			  const struct line_cell *c, struct cell_attr *ca)
{
	uint64_t addr = l->addr + c->offset, off, elem;
	const struct alloc_block *blk;
	const struct dt_pointer *p;
	struct data_attribution a;
	char *path;

	if ((!b->allocs && !b->walk) || !(blk = block_at(b, l->pid, addr)))
		return;
	if (heapwalk_owns(b, blk))
		heapwalk_type(b, blk, l, c, ca);
	/* kept as no struct (char *, a buffer carved into structs): the
	 * block's type says no more than a void * would */
	if (!(p = block_pointer(b, blk, &elem)) || !elem) {
		block_from_access_type(b, blk, ca);
		return;
	}
	off = addr - blk->addr;
	/* past the first element of a block that is no array of the type
	 * (a struct with a tail, say): the type says nothing there */
	if (off >= elem && blk->size % elem)
		return;
	if (data_types_through_pointer(b->dt, p, (int64_t)off, false, addr, c->size, &a) != DT_HIT ||
	    !block_knows_better(ca, &a))
		return;
	/* "[1].red[0]" stays, ".blue[254]" is element 0's: "[0].blue[254]";
	 * named from the variable, like a global array: "arg[0].blue[254]".
	 * A block of one struct is no array: "c->hits_", as the code says. */
	if (blk->size / elem == 1 && a.path && a.path[0] == '.' && user_variable(a.variable))
		path = xasprintf("->%s", a.path + 1);
	else
		path = a.path && a.path[0] == '[' ? xstrdup(a.path) :
		       xasprintf("[0]%s", a.path ? a.path : "");
	a.path = strset_own(&b->alloc_paths, path);
	/* the block is an array of the type, as a global array would be */
	if (a.type_name && blk->size / elem > 1)
		a.type_name = strset_own(&b->alloc_paths,
					 xasprintf("%s[%" PRIu64 "]", a.type_name, blk->size / elem));
	a.variable = user_variable(a.variable);
	a.via_pointer = false;
	a.object_start = blk->addr;
	a.element_index = (long)(off / elem);
	ca->a = a;
	ca->typed = true;
	ca->why = DT_HIT;
	ca->why_here = NULL;
}

static void name_frame(struct build *b, uint32_t pid, uint64_t ret, struct report_alloc *ra)
{
	struct report_site s = { .ip = ret - 1 };   /* the call, not the next line */

	symbolize_site(b->sym, pid, &s);
	ra->function = s.function;
	ra->file = s.file;
	ra->line = s.line;
	ra->site = frame_name(b->sym, pid, ret - 1);
	free(s.inlined_into);
	free(s.via);
	free(s.module);
	free(s.build_id);
}

#define ALLOC_CALLERS_MAX 8     /* stack frames and inlined calls together */

static void add_caller(struct report_alloc *ra, char *name)
{
	if (ra->n_callers == ALLOC_CALLERS_MAX) {
		free(name);
		return;
	}
	ra->callers = xrealloc(ra->callers, (ra->n_callers + 1) * sizeof(*ra->callers));
	ra->callers[ra->n_callers++] = name;
}

static bool same_place(const struct source_loc *x, const struct source_loc *y)
{
	return x->line == y->line && x->function && y->function && x->file && y->file &&
	       !strcmp(x->function, y->function) && !strcmp(x->file, y->file);
}

/*
 * The calls that inlined pc's code, outward: at -O2 a static allocation
 * wrapper is inlined into its caller, and no frame-pointer walk sees the
 * caller ("gs_calloc_aligned gain_set.h:52" alone says little).  pc was
 * named by frame_name(), which hoists code inlined from the C/C++
 * library's headers out to the user's call; the frames up to that one,
 * and any other in those headers, are skipped.
 */
static void add_inline_callers(struct build *b, uint32_t pid, uint64_t pc,
			       struct report_alloc *ra)
{
	struct source_loc in[ALLOC_CALLERS_MAX], at;
	unsigned n, from = 0;

	if (!b->sym || !symbolizer_source(b->sym, (pid_t)pid, pc, &at))
		return;
	n = symbolizer_inline_callers(b->sym, (pid_t)pid, pc, in, ALLOC_CALLERS_MAX);
	for (unsigned k = 0; k < n; k++)
		if (same_place(&in[k], &at))
			from = k + 1;
	for (unsigned k = from; k < n; k++) {
		if (!in[k].function || !in[k].file || symbolizer_system_source(in[k].file))
			continue;
		add_caller(ra, in[k].line > 0 ?
			   xasprintf("%s %s:%d", in[k].function, basename_of(in[k].file),
				     in[k].line) :
			   xasprintf("%s %s", in[k].function, basename_of(in[k].file)));
	}
}

/* The call's return address: one call reached from two callers is two
 * sites of the table, and one call to fix. */
static uint64_t call_of(struct build *b, const struct alloc_block *blk)
{
	const struct alloc_site *site = site_of(b, blk);

	return site ? site->frames[0] : 0;
}

#define LINE_BLOCKS_MAX 16     /* 128-byte line, 16-byte granules: 8 */

/* Which blocks the line's samples lie in, whether one call made them all,
 * and whether each is touched by one thread alone (ignoring threads with
 * under 2% of its samples: a stray read at a join) -- what a fix that
 * moves blocks apart (alloc_fix.h) can act on. */
static void line_blocks(struct build *b, const struct line *l, const struct alloc_block *top_blk,
			struct report_alloc *ra)
{
	const struct alloc_block *blk[LINE_BLOCKS_MAX];
	unsigned n = 0;

	ra->blocks_one_site = ra->blocks_private = true;
	for (unsigned i = 0; i < l->n_cells; i++) {
		const struct alloc_block *x = block_at(b, l->pid, l->addr + l->cells[i].offset);
		unsigned k = 0;

		while (k < n && blk[k] != x)
			k++;
		if (!x || k < n || n == LINE_BLOCKS_MAX)
			continue;
		blk[n++] = x;
		if (x->site != top_blk->site && call_of(b, x) != call_of(b, top_blk))
			ra->blocks_one_site = false;
	}
	ra->blocks_on_line = n;
	for (unsigned k = 0; k < n; k++) {
		uint64_t all = 0, top = 0, others = 0;
		uint32_t top_tid = 0;

		for (unsigned pass = 0; pass < 2; pass++)
			for (unsigned i = 0; i < l->n_cells; i++) {
				const struct line_cell *c = &l->cells[i];
				uint64_t a = l->addr + c->offset;

				if (a < blk[k]->addr || a >= blk[k]->addr + blk[k]->size)
					continue;
				if (!pass) {
					all += c->count;
					if (c->count > top) {
						top = c->count;
						top_tid = c->tid;
					}
				} else if (c->tid != top_tid) {
					others += c->count;
				}
			}
		if (others * 50 > all)
			ra->blocks_private = false;
	}
}

/* The call's file and offset there, the same in the next run. */
static void site_identity(struct build *b, uint32_t pid, uint64_t ret, struct report_alloc *ra)
{
	const struct mapping *m = b->sym ? symbolizer_find_mapping(b->sym, (pid_t)pid, ret) : NULL;

	if (!m || m->kind != MAPPING_FILE || !m->obj.ino || ret < m->start)
		return;
	ra->site_dev = m->obj.dev;
	ra->site_ino = m->obj.ino;
	ra->site_off = ret - m->start + m->pgoff;
}

/* The block in words: its call, size, site and callers, and the type the
 * allocating code kept it as. */
static struct report_alloc *describe_block(struct build *b, const struct alloc_block *blk)
{
	const struct alloc_site *site;
	struct report_alloc *ra;
	uint64_t elem = 0;
	const struct dt_pointer *p = NULL;
	struct data_attribution whole;

	ra = xcalloc(1, sizeof(*ra));
	ra->start = blk->addr;
	ra->size = blk->size;
	ra->usable = heapwalk_usable(b, blk);
	ra->walked = ra->usable != 0;
	ra->call = ra->walked ? NULL : alloc_call_name(blk->call);
	ra->freed = blk->freed;
	ra->tid = blk->tid;
	if (blk->call == ALLOC_CALLOC && blk->arg) {
		ra->count = blk->arg;
		ra->elem_size = blk->size / blk->arg;
	}
	/* new's arg: the std::align_val_t of C++17's aligned new, else 0 */
	if (blk->call == ALLOC_ALIGNED_ALLOC || blk->call == ALLOC_POSIX_MEMALIGN ||
	    blk->call == ALLOC_MEMALIGN || blk->call == ALLOC_NEW || blk->call == ALLOC_NEW_ARRAY)
		ra->align = blk->arg;
	site = site_of(b, blk);
	if (site && site->frames[0]) {
		ra->address = site->frames[0];
		site_identity(b, blk->pid, site->frames[0], ra);
		name_frame(b, blk->pid, site->frames[0], ra);
		add_inline_callers(b, blk->pid, site->frames[0] - 1, ra);
		for (unsigned k = 1; k < ALLOC_FRAMES && site->frames[k]; k++) {
			add_caller(ra, frame_name(b->sym, blk->pid, site->frames[k] - 1));
			add_inline_callers(b, blk->pid, site->frames[k] - 1, ra);
		}
	} else if (!ra->walked) {
		return ra;
	}
	if ((p = block_pointer(b, blk, &elem)) &&
	    data_types_through_pointer(b->dt, p, 0, false, blk->addr, 0, &whole) == DT_HIT) {
		ra->variable = strdup_or_null(user_variable(whole.variable));
		ra->type_name = strdup_or_null(whole.type_name);
		ra->type_size = elem;
	}
	return ra;
}

void alloc_describe_line(struct build *b, const struct line *l, struct report_line *rl)
{
	const struct alloc_block *blk = NULL;
	uint64_t best = 0;
	bool own;

	if (!b->allocs && !b->walk)
		return;
	/* the block of the line's object (report_build chose it: the user's
	 * own before a library's beside it), else the one most of the line's
	 * samples went to */
	own = rl->object_start && (blk = block_at(b, l->pid, rl->object_start));
	for (unsigned i = 0; !own && i < l->n_cells; i++) {
		const struct alloc_block *x = block_at(b, l->pid, l->addr + l->cells[i].offset);
		uint64_t n = 0;

		if (!x || x == blk)
			continue;
		for (unsigned j = 0; j < l->n_cells; j++) {
			uint64_t a = l->addr + l->cells[j].offset;

			if (a >= x->addr && a < x->addr + x->size)
				n += l->cells[j].count;
		}
		if (n > best) {
			best = n;
			blk = x;
		}
	}
	if (!blk)
		return;
	rl->alloc = describe_block(b, blk);
	line_blocks(b, l, blk, rl->alloc);
}

struct report_alloc *alloc_describe_address(struct build *b, uint32_t pid, uint64_t addr)
{
	const struct alloc_block *blk;

	if ((!b->allocs && !b->walk) || !(blk = block_at(b, pid, addr)))
		return NULL;
	return describe_block(b, blk);
}

void report_alloc_free(struct report_alloc *a)
{
	if (!a)
		return;
	free(a->site);
	free(a->function);
	free(a->file);
	for (unsigned i = 0; i < a->n_callers; i++)
		free(a->callers[i]);
	free(a->callers);
	free(a->variable);
	free(a->type_name);
	free(a);
}
