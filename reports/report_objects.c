/* report_objects.c - what data a line's cells touched, and its layout.
 *
 * Every cell of a reported line gets a type attribution of its own, looked
 * up at the exact address it accessed: a line often holds the tail of one
 * object and the head of the next, and the cells that touch each tell
 * which is which.  The line, each range and the struct layout then take
 * the attribution that covers the most samples (most_sampled()).
 */
#include "reports/report_build.h"

#include <inttypes.h>

#include "symbolize/pointer_origin.h"
#include "symbolize/symbolizer.h"

/* untyped_by_reason when no type lookup was asked for (no sym or dt). */
#define NO_TYPE_LOOKUP "no type lookup"
/* ... when no lookup could run: the data is in no module's globals and
 * the pointer to it is unknown, for want of the accessing code (watched
 * hits no sample caught) or of a base register (an absolute address). */
#define NO_CODE_ADDRESS "no code address"
#define NO_POINTER_REGISTER "no pointer register"

/* The header's count of untyped accesses for reason why, or NULL. */
static struct named_count *untyped_count(struct report *r, const char *why)
{
	for (unsigned i = 0; i < r->n_untyped_why; i++)
		if (!strcmp(r->untyped_why[i].what, why))
			return &r->untyped_why[i];
	return NULL;
}

static void count_untyped(struct build *b, const char *why, uint64_t n)
{
	struct report *r = b->r;
	struct named_count *have = untyped_count(r, why);

	if (have) {
		have->n += n;
		return;
	}
	ALLOC_GROW(r->untyped_why, r->n_untyped_why + 1, b->alloc_why);
	r->untyped_why[r->n_untyped_why].what = xstrdup(why);
	r->untyped_why[r->n_untyped_why].n = n;
	r->n_untyped_why++;
}

/* ------------------------------------------------------------------ */
/* type attribution */

/* The alignment the declaration of the global holding addr gives addr
 * itself: the global's own (_Alignas(64)) where addr is its start, less
 * by the largest power of two dividing addr's offset into it. */
static uint64_t declared_align_at(const struct data_attribution *global, uint64_t addr)
{
	uint64_t align = global->variable_align;

	if (!align || addr < global->object_start)
		return 0;
	while (align > 1 && (addr - global->object_start) % align)
		align /= 2;
	return align;
}

/*
 * A global of bytes or scalars that the code reaches as a struct through
 * a pointer (structs carved out of a static buffer: an arena) is named by
 * the struct, as a heap block is.  Where the struct lies a whole number
 * of its sizes into the global, the global is an array of it
 * (block_from_access_type's rule): "stats_arena[1].misses" of "struct
 * stats[4]", placed by the global's declared alignment (_Alignas(64) on
 * the buffer).  Elsewhere the pointer's own view stands ("struct stats
 * at stats_arena+0x28", member "misses"), with what the declaration gives
 * its start.
 */
static void arena_struct(struct build *b, const struct line *l, const struct line_cell *c,
			 struct cell_attr *out)
{
	const struct type_layout *have = out->a.layout;
	struct data_attribution via;
	struct data_symbol ds;
	uint64_t addr = l->addr + c->offset, size;

	if ((have && have->n_members) || !c->ip || c->base_reg < 0 || !b->origins ||
	    pointer_origin_access(b->origins, cell_pid(l, c), c->ip, c->base_reg, c->base_off,
				  addr, c->size, &via) != DT_HIT ||
	    !via.layout || !via.layout->n_members || !via.via_pointer)
		return;
	size = via.layout->size;
	if (!size || !symbolizer_data_symbol(b->sym, l->pid, out->a.object_start, &ds) ||
	    ds.start != out->a.object_start || ds.size < size || ds.size % size ||
	    !attribution_as_element(b, &via, out->a.object_start, ds.size / size)) {
		via.variable_align = declared_align_at(&out->a, via.object_start);
		out->a = via;
		return;
	}
	via.variable = out->a.variable;
	via.variable_align = out->a.variable_align;
	out->a = via;
}

/*
 * A global variable at the accessed address wins: as the data's module
 * describes it, else (a library's variable copied into the executable) as
 * the accessing code's module does -- unless it is only bytes or scalars
 * and the code reaches it as a struct (arena_struct).  Otherwise the
 * pointer held in the memory operand's base register at the accessing
 * code (a variable there, else the load that set it: pointer_origin.h).
 * The reason kept for a miss is that of the last lookup tried: the
 * pointer's, for heap data.
 */
void attribute_cell(struct build *b, const struct line *l,
		    const struct line_cell *c, struct cell_attr *out)
{
	uint64_t addr = l->addr + c->offset;
	struct Dwfl_Module *data_mod, *code_mod;
	uint64_t data_bias, code_bias;

	memset(out, 0, sizeof(*out));
	data_mod = symbolizer_module(b->sym, l->pid, addr, &data_bias);
	/* the code is the cell's process's; the data address is the line's
	 * first process's view of it, for every process: one object */
	code_mod = c->ip ? symbolizer_module(b->sym, cell_pid(l, c), c->ip, &code_bias) : NULL;
	if (!data_mod && (!c->ip || c->base_reg < 0)) {
		/* heap data and no pointer to follow: say what was missing */
		out->why_here = !c->ip ? NO_CODE_ADDRESS : NO_POINTER_REGISTER;
		alloc_attribute_cell(b, l, c, out);
		return;
	}

	out->why = data_mod || code_mod ? DT_NO_VARIABLE : DT_NO_DWARF;
	if (data_mod)
		out->why = data_types_global_access(b->dt, data_mod, data_bias, addr,
						    c->size, &out->a);
	if (out->why != DT_HIT && data_mod && code_mod && code_mod != data_mod &&
	    data_types_global_elsewhere(b->dt, data_mod, addr, c->size, code_mod,
					&out->a) == DT_HIT)
		out->why = DT_HIT;
	if (out->why == DT_HIT && code_mod)
		arena_struct(b, l, c, out);
	if (out->why != DT_HIT && code_mod && c->base_reg >= 0 && b->origins)
		out->why = pointer_origin_access(b->origins, cell_pid(l, c), c->ip, c->base_reg,
						 c->base_off, addr, c->size, &out->a);
	/* "build with -g" is wrong advice for a distribution's binary: it was
	 * built so, and its DWARF ships in a package of its own */
	if (out->why == DT_NO_DWARF && data_types_debug_split(code_mod ? code_mod : data_mod))
		out->why = data_types_debuginfod_asked() ? DT_DEBUG_NOT_SERVED :
			DT_DEBUG_NOT_INSTALLED;
	out->typed = out->why == DT_HIT;
	alloc_attribute_cell(b, l, c, out);
}

static const char *untyped_reason(bool lookup, const struct cell_attr *a)
{
	return !lookup ? NO_TYPE_LOOKUP : a->why_here ? a->why_here : data_types_miss_name(a->why);
}

void attribute_line(struct build *b, const struct line *l,
			   struct report_line *rl, struct cell_attr *attrs)
{
	bool lookup = b->sym && b->dt;
	uint64_t why[DT__COUNT] = { 0 }, most = 0;
	const char *here = NULL;

	for (unsigned i = 0; i < l->n_cells; i++) {
		const struct line_cell *c = &l->cells[i];

		if (lookup)
			attribute_cell(b, l, c, &attrs[i]);
		if (b->sym) {
			const struct mapping *m = symbolizer_find_mapping(b->sym,
								(pid_t)cell_pid(l, c), c->ip);

			attrs[i].system_code = m && symbolizer_system_module(m->name);
		}
		if (attrs[i].typed) {
			rl->typed += c->count;
			continue;
		}
		rl->untyped += c->count;
		count_untyped(b, untyped_reason(lookup, &attrs[i]), c->count);
		if (attrs[i].why_here)
			here = attrs[i].why_here;
		else if ((unsigned)attrs[i].why < DT__COUNT)
			why[attrs[i].why] += c->count;
	}
	/* the line's own reason, for advice that must not say "build with
	 * -g" of a binary that has its debug info */
	if (rl->untyped && !lookup)
		rl->untyped_why = NO_TYPE_LOOKUP;
	else if (rl->untyped)
		rl->untyped_why = here;
	for (int w = 0; lookup && w < DT__COUNT; w++) {
		if (why[w] > most) {
			most = why[w];
			rl->untyped_why = data_types_miss_name(w);
		}
	}
	b->r->typed += rl->typed;
	b->r->untyped += rl->untyped;
}

void attribute_line_named_elsewhere(struct build *b, const struct line *l,
				    struct report_line *rl, const struct cell_attr *attrs)
{
	struct report *r = b->r;
	bool lookup = b->sym && b->dt;

	for (unsigned i = 0; i < l->n_cells; i++) {
		struct named_count *have;

		if (attrs[i].typed || !(have = untyped_count(r, untyped_reason(lookup, &attrs[i]))))
			continue;
		have->n = have->n > l->cells[i].count ? have->n - l->cells[i].count : 0;
	}
	r->typed += rl->untyped;
	r->untyped -= rl->untyped;
	rl->typed += rl->untyped;
	rl->untyped = 0;
	rl->untyped_why = NULL;
}

/* Both name the same object: the line's variable/type_name/object_start. */
bool same_object(const struct data_attribution *x, const struct data_attribution *y)
{
	return x->object_start == y->object_start && x->via_pointer == y->via_pointer &&
	       str_eq(x->variable, y->variable) && str_eq(x->type_name, y->type_name);
}

/* Both name the same member of it: a range's member. */
bool same_member(const struct data_attribution *x, const struct data_attribution *y)
{
	return same_object(x, y) && str_eq(x->path, y->path);
}

static bool same_layout(const struct type_layout *x, const struct type_layout *y)
{
	if (!x || !y)
		return x == y;
	return x == y || (x->size == y->size && str_eq(x->name, y->name));
}

static bool same_instance(const struct data_attribution *x, const struct data_attribution *y)
{
	return same_layout(x->layout, y->layout) && x->layout_start == y->layout_start;
}

/*
 * Among the typed cells selected by mask (all if NULL), the attribution
 * that the most samples share under eq; NULL if none is typed.  Quadratic
 * in the cells of one line, which stay few.
 */
const struct data_attribution *
most_sampled(const struct line *l, const struct cell_attr *attrs,
	     const bool *mask, attr_eq_fn eq)
{
	const struct data_attribution *best = NULL;
	uint64_t best_n = 0;

	for (unsigned i = 0; i < l->n_cells; i++) {
		uint64_t n = 0;

		if (!attrs[i].typed || (mask && !mask[i]))
			continue;
		for (unsigned j = 0; j < l->n_cells; j++)
			if (attrs[j].typed && (!mask || mask[j]) &&
			    eq(&attrs[i].a, &attrs[j].a))
				n += l->cells[j].count;
		if (n > best_n) {
			best = &attrs[i].a;
			best_n = n;
		}
	}
	return best;
}

/*
 * "counters[1]", "klass_c1.secondary_super_cache" for globals; for an
 * object reached through a pointer the path alone, as the pointer's name
 * says little about the struct ("secondary_super_cache", "[2].hits"), or
 * "*p" for the whole pointee.
 */
char *member_name(const struct data_attribution *a)
{
	const char *path = a->path ? a->path : "";

	if (!a->via_pointer)
		return xasprintf("%s%s", a->variable ? a->variable : "", path);
	if (!*path)
		return xasprintf("*%s", a->variable ? a->variable : "");
	return xstrdup(path[0] == '.' ? path + 1 : path);
}

char *element_member(uint64_t k, const char *path)
{
	path = path ? path : "";
	return xasprintf("[%" PRIu64 "]%s%s", k, *path && *path != '.' && *path != '[' ? "." : "",
			 path);
}

bool attribution_as_element(struct build *b, struct data_attribution *a, uint64_t base,
			    uint64_t n)
{
	uint64_t size = a->layout ? a->layout->size : 0, k;

	if (!a->via_pointer || !size || !a->layout->n_members ||
	    a->layout_start != a->object_start || a->object_start < base ||
	    (a->object_start - base) % size)
		return false;
	k = (a->object_start - base) / size;
	a->path = strset_own(&b->alloc_paths, element_member(k, a->path));
	a->type_name = strset_own(&b->alloc_paths, n ?
				  xasprintf("%s[%" PRIu64 "]", a->layout->name, n) :
				  xasprintf("%s[]", a->layout->name));
	a->via_pointer = false;
	a->member_offset += a->object_start - base;
	a->object_start = base;
	a->element_index = (long)k;
	return true;
}

char *member_span_name(char *name, const struct data_attribution *a, uint64_t addr,
		       uint64_t size)
{
	const struct type_layout *lay = a->layout;
	uint64_t last = addr + size - 1;

	if (!lay || !size || last < a->object_start + a->member_offset + a->member_size ||
	    last < a->layout_start || last - a->layout_start >= lay->size)
		return name;
	last -= a->layout_start;
	for (unsigned k = 0; k < lay->n_members; k++) {
		const struct type_member *m = &lay->members[k];
		char *spanned;

		if (last < m->offset || last >= m->offset + m->size || !m->name || !*m->name)
			continue;
		if (a->layout_start + m->offset <= a->object_start + a->member_offset)
			return name;        /* the member it starts in, or an outer one */
		spanned = xasprintf("%s..%s", name, m->name);
		free(name);
		return spanned;
	}
	return name;
}

/*
 * A range no typed cell names may still lie in the line's struct (written
 * by code without debug info): name it by the layout's member when the
 * struct is the object itself, so that no path prefix is missing.
 */
char *member_from_layout(const struct data_attribution *inst, uint64_t addr,
				unsigned size)
{
	const struct type_layout *lay = inst ? inst->layout : NULL;

	if (!lay || inst->layout_start != inst->object_start)
		return NULL;
	for (unsigned k = 0; k < lay->n_members; k++) {
		const struct type_member *m = &lay->members[k];
		uint64_t start = inst->layout_start + m->offset;

		if (!m->name || addr < start || addr + size > start + m->size)
			continue;
		if (inst->via_pointer)
			return xstrdup(m->name);
		return xasprintf("%s.%s", inst->variable ? inst->variable : "", m->name);
	}
	return NULL;
}

/* ------------------------------------------------------------------ */
/* members of the contended struct */

struct member_acc {
	struct tid_set writers, readers;
};

static void member_count(struct report_member *m, struct member_acc *acc,
			 const struct line_cell *c)
{
	m->reads += cell_reads(c);
	m->writes += cell_writes(c);
	if (access_kind_writes(c->kind))
		tid_set_add(&acc->writers, c->tid);
	if (access_kind_reads(c->kind))
		tid_set_add(&acc->readers, c->tid);
}

static void members_finish(struct report_line *rl, struct member_acc *acc)
{
	for (unsigned i = 0; i < rl->n_members; i++) {
		struct report_member *m = &rl->members[i];

		sort(acc[i].writers.v, acc[i].writers.n, sizeof(uint32_t), cmp_u32);
		sort(acc[i].readers.v, acc[i].readers.n, sizeof(uint32_t), cmp_u32);
		m->writers = acc[i].writers.v;
		m->n_writers = acc[i].writers.n;
		m->readers = acc[i].readers.v;
		m->n_readers = acc[i].readers.n;
	}
	free(acc);
}

static void count_cells(const struct line *l, const struct data_attribution *inst,
			struct report_line *rl, struct member_acc *acc)
{
	for (unsigned i = 0; i < l->n_cells; i++) {
		const struct line_cell *c = &l->cells[i];
		uint64_t start = l->addr + c->offset, end = start + c->size;

		for (unsigned k = 0; k < rl->n_members; k++) {
			struct report_member *m = &rl->members[k];
			uint64_t m_start = inst->layout_start + m->offset;

			if (start < m_start + m->size && m_start < end)
				member_count(m, &acc[k], c);
		}
	}
}

/*
 * Members of the struct instance at inst->layout_start.  Every cell whose
 * bytes land in the instance counts for the members they overlap, typed
 * or not: the address alone says which member it is, also for code that
 * has no debug info (JIT code, a stripped library).  So do the cells of
 * the other lines the instance spans: a member another thread writes one
 * line away is as much the advice's business as one on this line, for a
 * proposal that aligns the instance would bring the two together.  Not
 * for pooled instances (a line built from several) or memory shared
 * between processes, whose neighbours are not this instance's.
 */
static void struct_members(struct line_table *lines, const struct line *l,
			   const struct data_attribution *inst, struct report_line *rl)
{
	const struct type_layout *lay = inst->layout;
	struct member_acc *acc = xcalloc(lay->n_members, sizeof(*acc));
	unsigned L = lines ? line_table_line_size(lines) : 0;

	rl->members = xcalloc(lay->n_members, sizeof(*rl->members));
	rl->n_members = lay->n_members;
	for (unsigned k = 0; k < lay->n_members; k++) {
		rl->members[k].name = strdup_or_null(lay->members[k].name);
		rl->members[k].type_name = strdup_or_null(lay->members[k].type_name);
		rl->members[k].offset = lay->members[k].offset;
		rl->members[k].size = lay->members[k].size;
		rl->members[k].access = lay->members[k].access;
		rl->members[k].base = lay->members[k].base;
		rl->members[k].decl_line = lay->members[k].decl_line;
	}
	count_cells(l, inst, rl, acc);
	if (L && !l->obj_ino && line_table_find(lines, l->pid, l->addr) == l) {
		for (uint64_t a = inst->layout_start / L * L;
		     a < inst->layout_start + lay->size; a += L) {
			const struct line *other = a != l->addr ?
						   line_table_find(lines, l->pid, a) : NULL;

			if (other)
				count_cells(other, inst, rl, acc);
		}
	}
	members_finish(rl, acc);
}

static int cmp_member(const void *a, const void *b)
{
	const struct report_member *x = a, *y = b;

	return (x->offset > y->offset) - (x->offset < y->offset);
}

/*
 * An array of scalars has no members: one per element of that array
 * touched on the line, named like a range ("counters[1]").
 */
static void element_members(const struct line *l, const struct cell_attr *attrs,
			    const struct data_attribution *obj, struct report_line *rl)
{
	const struct type_layout *lay = obj->layout;
	struct member_acc *acc = NULL;
	size_t alloc = 0, alloc_acc = 0;

	for (unsigned i = 0; i < l->n_cells; i++) {
		const struct data_attribution *a = &attrs[i].a;
		uint64_t offset = a->layout_start - a->object_start;
		unsigned k;

		if (!attrs[i].typed || !same_object(a, obj) ||
		    !same_layout(a->layout, lay) || a->layout_start < a->object_start)
			continue;
		for (k = 0; k < rl->n_members; k++)
			if (rl->members[k].offset == offset)
				break;
		if (k == rl->n_members) {
			struct report_member *m;

			ALLOC_GROW(rl->members, k + 1, alloc);
			ALLOC_GROW(acc, k + 1, alloc_acc);
			m = &rl->members[k];
			memset(m, 0, sizeof(*m));
			memset(&acc[k], 0, sizeof(acc[k]));
			m->name = member_name(a);
			m->type_name = strdup_or_null(lay->name);
			m->offset = offset;
			m->size = lay->size;
			rl->n_members++;
		}
		member_count(&rl->members[k], &acc[k], &l->cells[i]);
	}
	members_finish(rl, acc);
	sort(rl->members, rl->n_members, sizeof(*rl->members), cmp_member);
}

void report_decls_release(struct report_line *rl)
{
	free(rl->struct_decl.file);
	free(rl->variable_decl.file);
	rl->struct_decl = rl->variable_decl = (struct report_decl){ 0 };
}

/* Fills the layout of the line's object; returns the instance used, or NULL. */
const struct data_attribution *
build_members(struct line_table *lines, const struct line *l, const struct cell_attr *attrs,
	      const bool *in_lock, const struct data_attribution *obj,
	      struct report_line *rl)
{
	bool *mask = xcalloc(l->n_cells, sizeof(*mask));
	const struct data_attribution *inst;

	if (obj->variable_decl_file && !obj->via_pointer)
		rl->variable_decl = (struct report_decl){ xstrdup(obj->variable_decl_file),
							  obj->variable_decl_line };

	/* the most sampled layout instance inside the line's object; not
	 * a lock's insides, which are the library's to lay out */
	for (unsigned i = 0; i < l->n_cells; i++)
		mask[i] = attrs[i].typed && same_object(&attrs[i].a, obj) &&
			  attrs[i].a.layout && !in_lock[i];
	inst = most_sampled(l, attrs, mask, same_instance);
	free(mask);
	if (!inst)
		return NULL;
	rl->struct_size = inst->layout->size;
	rl->struct_align = inst->layout->align;
	rl->struct_name = strdup_or_null(inst->layout->name);
	if (inst->layout->decl_file && inst->layout->decl_line)
		rl->struct_decl = (struct report_decl){ xstrdup(inst->layout->decl_file),
							inst->layout->decl_line };
	rl->cxx = inst->layout->cxx;
	rl->rust = inst->layout->rust;
	rl->go = inst->layout->go;
	rl->cxx_class = inst->layout->cxx_class;
	/* a C++ library's type (std::atomic<long>) is not the user's to
	 * lay out: its instances are elements, as scalars' are, and the
	 * advice wraps them rather than redefine the library's type */
	if (inst->layout->n_members && !(inst->layout->library && inst->layout->cxx))
		struct_members(lines, l, inst, rl);
	else
		element_members(l, attrs, inst, rl);
	return inst;
}
