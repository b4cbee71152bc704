/* data_types.c - data addresses to variables, types and struct members.
 *
 * Globals: each module's DW_TAG_variables with a DW_OP_addr location
 * (function-scope statics included) are indexed once into a sorted array of
 * [start, end) ranges and found by binary search; the units' code ranges
 * are indexed the same way, in the same pass.
 *
 * Registers: at a code address, the variables and parameters in scope whose
 * location is exactly "in register N" (DW_OP_regN) and whose type is a
 * pointer name the object the register points to, as perf annotate
 * --data-type does.  A variable located at DW_OP_bregN 0 (the object itself
 * lives where the register points, e.g. a struct passed by invisible
 * reference) is accepted too.
 *
 * Pointers: a dt_pointer names a target type and how the pointer was
 * found; chains of them (a global's address, the pointer loaded from one
 * of its members, ...) type registers no variable describes.
 *
 * Every way, the offset into the object is walked through the type: arrays
 * give "[i]", struct and union members ".name", anonymous members and C++
 * base classes nothing (as in C's own syntax).  Conventions:
 *  - through a pointer, base_off beyond the pointee is p[i]: element_index
 *    is i (0 for p->x), the path is ".writes" for p[0] and "[2].reads" for
 *    p[2], and member_offset/layout_start count from p[0]; when which
 *    element is unknown (any_element), the element is the object, and the
 *    path has no index;
 *  - padding is no member: the path stops at the struct holding it, and
 *    member_offset/member_size give the hole; layouts list holes as members
 *    named NULL, anonymous struct/union members are named "";
 *  - bitfields answer with the bytes covering them ("int:20", 3 bytes).
 *
 * Every string handed out is interned here, every DIE-derived answer is
 * cached: memory grows with distinct modules, types, code sites and data
 * addresses, never with the number of queries.
 */
#include "symbolize/data_types.h"
#include "symbolize/dwarf_type.h"
#include "symbolize/symbolizer.h"
#include "common/hashmap.h"
#include "common/util.h"

#include <elfutils/libdwfl.h>
#include <dwarf.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_DEPTH DWARF_TYPE_MAX_DEPTH
#define MAX_DIMS 16

/* Every cache is keyed by five words (see KEY_*); no padding to zero. */
struct key {
	uint64_t a, b, c, d, e;
};

/* ---- the object ------------------------------------------------------ */

/* A global variable or a compilation unit's code: [start, end) in DWARF
 * addresses, and its DIE. */
struct range {
	uint64_t start, end;
	Dwarf_Die die;
};

/* One (Dwfl_Module, Dwarf) pair; its serial keys the caches.  The DIEs
 * kept here point into the Dwarf: the Dwfl must outlive the data_types. */
struct dt_module {
	Dwarf *dw;
	uint64_t serial;
	bool indexed;
	struct range *vars;
	size_t n_vars, alloc_vars;
	struct range *cus;         /* .debug_aranges is optional (clang) */
	size_t n_cus, alloc_cus;
	struct named_var *names;   /* external variables, by symbol name */
	size_t n_names, alloc_names;
};

/* An external variable, defined or only declared here, under the name its
 * ELF symbol has: for a global whose storage this module's DWARF does not
 * describe (a copy relocation). */
struct named_var {
	const char *name;          /* the linkage name, else the name */
	Dwarf_Die die;
	bool defined;
};

/* A pointer whose target type DWARF gives (data_types.h). */
struct dt_pointer {
	struct dt_module *m;
	Dwarf_Die object;          /* the target type: qualifiers stripped, complete */
	const char *name;          /* interned, for the report: "sub", "c->next" */
	bool is_address;           /* &name: name is the object itself (a global) */
	bool decayed;              /* name is an array, the pointer its first element */
};

/* A pointer lookup's answer, cached: what a register holds at one code
 * address, or the pointer stored in a member. */
struct ptr_lookup {
	enum data_types_miss miss;
	const struct dt_pointer *ptr;   /* DT_HIT */
	int64_t off;                    /* stack slots: from where ptr points */
};

enum member_flags {
	MEMBER_BITFIELD = 1,
	MEMBER_FLEX = 2,           /* trailing array without bound: open-ended */
};

struct layout_entry {
	struct type_layout pub;
	Dwarf_Die *types;          /* parallel to pub.members; unset for padding */
	uint8_t *flags;
};

struct data_types {
	struct hashmap modules;        /* (Dwfl_Module *, Dwarf *) -> dt_module */
	struct hashmap results;        /* (kind|serial or pointer, address or offset,
	                              ..., size) -> hit, its addresses relative
	                              to the object */
	struct hashmap lookups;        /* (kind|serial or pointer, pc or offset, ...)
	                              -> ptr_lookup */
	struct hashmap pointers;       /* (serial, DIE address, name, flags) -> dt_pointer */
	struct hashmap layouts;        /* (serial, DIE address) -> layout_entry */
	struct strset strings;
	uint64_t n_modules;
};

/* The first key word's kind; the module's serial is or-ed into it. */
#define KEY_GLOBAL          (1ULL << 32)
#define KEY_REGISTER        (2ULL << 32)
#define KEY_THROUGH_POINTER (3ULL << 32)   /* key.b is the dt_pointer */
#define KEY_MEMBER_POINTER  (4ULL << 32)   /* key.b is the dt_pointer */
#define KEY_NAMED           (5ULL << 32)
#define KEY_STACK           (6ULL << 32)

static const char *intern(struct data_types *dt, const char *s)
{
	return strset_intern(&dt->strings, s ? s : "");
}

static const char *const miss_names[DT__COUNT] = {
	[DT_HIT] = "ok",
	[DT_NO_DWARF] = "no debug info",
	[DT_NO_VARIABLE] = "no variable",
	[DT_NOT_POINTER] = "not a pointer",
	[DT_NO_TYPE] = "incomplete type",
	[DT_NO_ORIGIN] = "no variable or load found for the base register",
};

const char *data_types_miss_name(enum data_types_miss m)
{
	return (unsigned)m < DT__COUNT ? miss_names[m] : "unknown";
}

struct data_types *data_types_new(void)
{
	struct data_types *dt = xcalloc(1, sizeof(*dt));

	hashmap_init(&dt->modules, sizeof(struct key));
	hashmap_init(&dt->results, sizeof(struct key));
	hashmap_init(&dt->lookups, sizeof(struct key));
	hashmap_init(&dt->pointers, sizeof(struct key));
	hashmap_init(&dt->layouts, sizeof(struct key));
	return dt;
}

static void free_module(void *p)
{
	struct dt_module *m = p;

	free(m->vars);
	free(m->cus);
	free(m->names);
	free(m);
}

static void free_layout(void *p)
{
	struct layout_entry *le = p;

	free(le->pub.members);
	free(le->types);
	free(le->flags);
	free(le);
}

void data_types_free(struct data_types *dt)
{
	if (!dt)
		return;
	hashmap_release(&dt->modules, free_module);
	hashmap_release(&dt->results, free);
	hashmap_release(&dt->lookups, free);
	hashmap_release(&dt->pointers, free);
	hashmap_release(&dt->layouts, free_layout);
	strset_release(&dt->strings);
	free(dt);
}

/* NULL when there is no module or it has no debug info. */
static struct dt_module *module_get(struct data_types *dt, Dwfl_Module *mod)
{
	Dwarf_Addr dwbias;
	Dwarf *dw = mod ? dwfl_module_getdwarf(mod, &dwbias) : NULL;
	struct key k = { (uintptr_t)mod, (uintptr_t)dw, 0, 0 };
	struct dt_module *m;

	if (!dw)
		return NULL;
	m = hashmap_get(&dt->modules, &k);
	if (!m) {
		m = xcalloc(1, sizeof(*m));
		m->dw = dw;
		m->serial = dt->n_modules++;
		hashmap_put(&dt->modules, &k, m);
	}
	return m;
}

static const char *type_name(struct data_types *dt, Dwarf_Die *type)
{
	struct strbuf sb = STRBUF_INIT;
	const char *name;

	format_type(type, &sb, 0);
	name = intern(dt, sb.buf);
	strbuf_release(&sb);
	return name;
}

/* ---- layouts ------------------------------------------------------------ */

struct member_tmp {
	struct type_member m;
	Dwarf_Die type;
	uint8_t flags;
	unsigned order;
};

static int cmp_member(const void *a, const void *b)
{
	const struct member_tmp *x = a, *y = b;

	if (x->m.offset != y->m.offset)
		return x->m.offset < y->m.offset ? -1 : 1;
	return x->order < y->order ? -1 : x->order > y->order;
}

static bool read_member(struct data_types *dt, Dwarf_Die *child,
			struct member_tmp *out)
{
	uint64_t loc, bit_start, bit_size;
	Dwarf_Die peeled;

	memset(out, 0, sizeof(*out));
	if (!die_type(child, &out->type) || !member_location(child, &loc))
		return false;
	out->m.name = intern(dt, dwarf_tag(child) == DW_TAG_member ?
				 die_name(child) : NULL);
	out->m.type_name = type_name(dt, &out->type);
	if (member_bits(child, loc, &bit_start, &bit_size)) {
		struct strbuf sb = STRBUF_INIT;

		out->flags = MEMBER_BITFIELD;
		out->m.offset = bit_start / 8;
		out->m.size = (bit_start + bit_size + 7) / 8 - out->m.offset;
		strbuf_addf(&sb, "%s:%" PRIu64, out->m.type_name, bit_size);
		out->m.type_name = intern(dt, sb.buf);
		strbuf_release(&sb);
		return true;
	}
	out->m.offset = loc;
	out->m.size = type_size(&out->type);
	peeled = out->type;
	if (!out->m.size && peel_type(&peeled, NULL) &&
	    dwarf_tag(&peeled) == DW_TAG_array_type)
		out->flags = MEMBER_FLEX;
	return true;
}

static void layout_add(struct layout_entry *le, unsigned *alloc,
		       const struct type_member *m, const Dwarf_Die *type,
		       uint8_t flags)
{
	unsigned n = le->pub.n_members;

	if (n >= *alloc) {
		*alloc = *alloc ? *alloc * 2 : 8;
		le->pub.members = xrealloc(le->pub.members, *alloc * sizeof(*le->pub.members));
		le->types = xrealloc(le->types, *alloc * sizeof(*le->types));
		le->flags = xrealloc(le->flags, *alloc * sizeof(*le->flags));
	}
	le->pub.members[n] = *m;
	if (type)
		le->types[n] = *type;
	else
		memset(&le->types[n], 0, sizeof(le->types[n]));
	le->flags[n] = flags;
	le->pub.n_members = n + 1;
}

/* Members in offset order, with the holes between them (and at the tail)
 * as unnamed entries, as pahole shows them. */
static void layout_fill_members(struct data_types *dt, Dwarf_Die *s,
				struct layout_entry *le)
{
	struct member_tmp *tmp = NULL;
	size_t n = 0, alloc = 0;
	unsigned alloc_members = 0;
	uint64_t end = 0;
	bool is_union = dwarf_tag(s) == DW_TAG_union_type;
	Dwarf_Die child;

	if (dwarf_child(s, &child) == 0) {
		do {
			if (!is_data_member(&child))
				continue;
			ALLOC_GROW(tmp, n + 1, alloc);
			if (read_member(dt, &child, &tmp[n])) {
				tmp[n].order = n;
				n++;
			}
		} while (dwarf_siblingof(&child, &child) == 0);
	}
	if (n)                 /* an empty class has no array to sort */
		qsort(tmp, n, sizeof(*tmp), cmp_member);
	for (size_t i = 0; i <= n; i++) {
		uint64_t next = i < n ? tmp[i].m.offset : le->pub.size;

		if (!is_union && next > end) {
			struct type_member hole = { NULL, NULL, end, next - end };

			layout_add(le, &alloc_members, &hole, NULL, 0);
		}
		if (i == n)
			break;
		layout_add(le, &alloc_members, &tmp[i].m, &tmp[i].type, tmp[i].flags);
		if (tmp[i].m.offset + tmp[i].m.size > end)
			end = tmp[i].m.offset + tmp[i].m.size;
	}
	free(tmp);
}

static bool in_cxx_unit(Dwarf_Die *die)
{
	Dwarf_Die cu;

	if (!dwarf_diecu(die, &cu, NULL, NULL))
		return false;
	switch (dwarf_srclang(&cu)) {
	case DW_LANG_C_plus_plus:
	case DW_LANG_C_plus_plus_03:
	case DW_LANG_C_plus_plus_11:
	case DW_LANG_C_plus_plus_14:
	case 0x2a:              /* DW_LANG_C_plus_plus_17 (DWARF 6) */
	case 0x2b:              /* DW_LANG_C_plus_plus_20 */
		return true;
	}
	return false;
}

/* The layout of a struct/union (type already peeled), or of a scalar
 * element type (members empty).  name_hint names anonymous structs. */
static const struct type_layout *layout_get(struct data_types *dt,
					    struct dt_module *m,
					    Dwarf_Die *type,
					    const char *name_hint)
{
	struct key k = { m->serial, (uintptr_t)type->addr, 0, 0 };
	struct layout_entry *le = hashmap_get(&dt->layouts, &k);
	Dwarf_Word explicit;

	if (le)
		return &le->pub;
	le = xcalloc(1, sizeof(*le));
	le->pub.size = type_size(type);
	le->pub.cxx = in_cxx_unit(type);
	if (is_aggregate(dwarf_tag(type))) {
		le->pub.name = !dwarf_diename(type) && name_hint ?
			       intern(dt, name_hint) : type_name(dt, type);
		le->pub.align = die_udata(type, DW_AT_alignment, &explicit) ?
				explicit : struct_align(type, 0);
		layout_fill_members(dt, type, le);
	} else {
		le->pub.name = type_name(dt, type);
		le->pub.align = type_align(type, 0);
	}
	hashmap_put(&dt->layouts, &k, le);
	return &le->pub;
}

static const struct layout_entry *entry_of(const struct type_layout *l)
{
	return (const struct layout_entry *)l;
}

static bool member_holds(const struct layout_entry *le, unsigned i, uint64_t off)
{
	const struct type_member *mb = &le->pub.members[i];

	return off >= mb->offset &&
	       (off - mb->offset < mb->size || (le->flags[i] & MEMBER_FLEX));
}

/* The member holding off: a named (or anonymous) member first, else the
 * hole; -1 past the end. */
static int member_at(const struct layout_entry *le, uint64_t off)
{
	int hole = -1;

	for (unsigned i = 0; i < le->pub.n_members; i++) {
		if (!member_holds(le, i, off))
			continue;
		if (le->pub.members[i].name)
			return (int)i;
		hole = (int)i;
	}
	return hole;
}

/* ---- which of overlapping members an access means ------------------------ */

/*
 * Union members overlap, and so do a C++ empty base and the member after
 * it.  The first member holding the offset is not always the one an access
 * of a given size touches: a 4-byte store at offset 4 of
 * union { long raw; struct { int lo, hi; } parts; } is parts.hi, not raw.
 * The access is walked down each candidate to the scalar it lands on; an
 * exact fit (same start, same size) beats one that merely contains the
 * access, which beats one it spills out of; then the smaller scalar wins.
 */
struct fit {
	int rank;                  /* 2 exact, 1 inside, 0 spills out */
	uint64_t leaf_size;
};

static bool fit_better(struct fit a, struct fit b)
{
	return a.rank != b.rank ? a.rank > b.rank : a.leaf_size < b.leaf_size;
}

static struct fit leaf_fit(uint64_t leaf_size, uint64_t off, uint64_t size)
{
	struct fit f = { 0, leaf_size };

	if (off == 0 && size == leaf_size)
		f.rank = 2;
	else if (off + size <= leaf_size)
		f.rank = 1;
	return f;
}

static struct fit member_fit(struct data_types *dt, struct dt_module *m,
			     const struct layout_entry *le, unsigned i,
			     uint64_t off, uint64_t size, int depth);

static struct fit type_fit(struct data_types *dt, struct dt_module *m,
			   Dwarf_Die *type, uint64_t off, uint64_t size, int depth)
{
	Dwarf_Die t = *type, elem;
	const struct layout_entry *le;
	struct fit best = { 0, UINT64_MAX };
	uint64_t elem_size;

	if (depth >= MAX_DEPTH || !peel_type(&t, NULL))
		return best;
	if (dwarf_tag(&t) == DW_TAG_array_type && !dwarf_hasattr(&t, DW_AT_GNU_vector) &&
	    die_type(&t, &elem) && (elem_size = type_size(&elem)))
		return type_fit(dt, m, &elem, off % elem_size, size, depth + 1);
	if (!is_aggregate(dwarf_tag(&t)))
		return leaf_fit(type_size(&t), off, size);
	le = entry_of(layout_get(dt, m, &t, NULL));
	for (unsigned i = 0; i < le->pub.n_members; i++) {
		struct fit f;

		if (!member_holds(le, i, off))
			continue;
		f = member_fit(dt, m, le, i, off, size, depth + 1);
		if (fit_better(f, best))
			best = f;
	}
	return best;
}

static struct fit member_fit(struct data_types *dt, struct dt_module *m,
			     const struct layout_entry *le, unsigned i,
			     uint64_t off, uint64_t size, int depth)
{
	const struct type_member *mb = &le->pub.members[i];

	/* holes and bitfields: their bytes are the leaf */
	if (!mb->name || (le->flags[i] & MEMBER_BITFIELD))
		return leaf_fit(mb->size, off - mb->offset, size);
	return type_fit(dt, m, &le->types[i], off - mb->offset, size, depth);
}

/* member_at(), choosing among overlapping named members by how well an
 * access of size bytes fits (size 0: unknown, the first one). */
static int member_for_access(struct data_types *dt, struct dt_module *m,
			     const struct layout_entry *le, uint64_t off,
			     uint64_t size)
{
	int best = member_at(le, off);
	struct fit best_fit;

	if (!size || best < 0 || !le->pub.members[best].name)
		return best;
	best_fit = member_fit(dt, m, le, (unsigned)best, off, size, 0);
	for (unsigned i = (unsigned)best + 1; i < le->pub.n_members; i++) {
		struct fit f;

		if (!le->pub.members[i].name || !member_holds(le, i, off))
			continue;
		f = member_fit(dt, m, le, i, off, size, 0);
		if (fit_better(f, best_fit)) {
			best = (int)i;
			best_fit = f;
		}
	}
	return best;
}

/* ---- walking an offset through a type ------------------------------------ */

struct resolution {
	bool whole_internals;      /* in: stop at implementation wrappers */
	struct strbuf path;
	uint64_t member_offset, member_size;
	const struct type_layout *layout;
	uint64_t layout_offset;
	long element_index;
	bool has_leaf;             /* the walk ended on a scalar or pointer: */
	Dwarf_Die leaf;            /* its declared type */
};

/* Step into the array element holding *off: appends "[i]" per dimension,
 * moves *base and *off into the element, *elem becomes its type. */
static bool array_step(Dwarf_Die *array, uint64_t *base, uint64_t *off,
		       long *first_index, struct strbuf *path, Dwarf_Die *elem)
{
	int64_t lower[MAX_DIMS];
	uint64_t count[MAX_DIMS], stride[MAX_DIMS];
	unsigned n = 0;
	Dwarf_Die child;

	if (!die_type(array, elem) || !(stride[0] = type_size(elem)))
		return false;
	if (dwarf_child(array, &child) == 0) {
		do {
			if (dwarf_tag(&child) != DW_TAG_subrange_type)
				continue;
			if (n == MAX_DIMS)
				return false;
			subrange_bounds(&child, &lower[n], &count[n]);
			n++;
		} while (dwarf_siblingof(&child, &child) == 0);
	}
	if (!n) {
		lower[0] = 0;
		count[0] = 0;
		n = 1;
	}
	/* Row-major: the last dimension varies fastest. */
	stride[n - 1] = stride[0];
	for (unsigned i = n - 1; i > 0; i--) {
		if (!count[i])
			return false;
		stride[i - 1] = stride[i] * count[i];
	}
	for (unsigned i = 0; i < n; i++) {
		uint64_t idx = *off / stride[i];

		if (count[i] && idx >= count[i])
			return false;
		strbuf_addf(path, "[%" PRId64 "]", lower[i] + (int64_t)idx);
		if (i == 0 && first_index)
			*first_index = (long)idx;
		*off -= idx * stride[i];
		*base += idx * stride[i];
	}
	return true;
}

/* A name C and C++ reserve for the implementation: __x, _X. */
static bool is_reserved_name(const char *name)
{
	return name && name[0] == '_' &&
	       (name[1] == '_' || (name[1] >= 'A' && name[1] <= 'Z'));
}

/*
 * An aggregate with one data member, named with a reserved name (a base
 * class or an anonymous member counts by its own single member): the
 * library's inside of a value the user sees whole.  std::atomic<long> is
 * __atomic_base<long> holding _M_i: "requests" says more than
 * "requests._M_i", and the layout to advise on is the user's struct, not
 * __atomic_base.  Types with several such members (pthread_mutex_t's
 * __lock, __owner, ...) keep their paths: which word is hit matters.
 */
static bool is_internal_wrapper(Dwarf_Die *type, int depth)
{
	Dwarf_Die t = *type, child, only, member_type;
	unsigned n = 0;

	if (depth >= MAX_DEPTH || !peel_type(&t, NULL) || !is_aggregate(dwarf_tag(&t)) ||
	    dwarf_child(&t, &child) != 0)
		return false;
	do {
		if (is_data_member(&child) && n++ == 0)
			only = child;
	} while (dwarf_siblingof(&child, &child) == 0);
	if (n != 1)
		return false;
	if (dwarf_tag(&only) == DW_TAG_member && die_name(&only))
		return is_reserved_name(die_name(&only));
	return die_type(&only, &member_type) && is_internal_wrapper(&member_type, depth + 1);
}

/* Walk off (bytes from the object's start) through type, for an access of
 * size bytes (0: unknown).  in_array: the object is an element of an
 * array, so a scalar leaf still gets a layout. */
static void resolve_offset(struct data_types *dt, struct dt_module *m,
			   Dwarf_Die *type, uint64_t off, uint64_t size,
			   bool in_array, struct resolution *r)
{
	Dwarf_Die decl = *type, t, elem;
	uint64_t base = 0;
	bool top = true;

	r->element_index = -1;
	r->layout = NULL;
	r->layout_offset = 0;
	for (int depth = 0; depth < MAX_DEPTH; depth++) {
		const char *typedef_name = NULL;
		const struct layout_entry *le;
		const struct type_member *mb;
		int i;

		t = decl;
		if (!peel_type(&t, &typedef_name))
			break;
		if (dwarf_tag(&t) == DW_TAG_array_type &&
		    !dwarf_hasattr(&t, DW_AT_GNU_vector)) {
			uint64_t b = base, o = off;

			if (!array_step(&t, &b, &o, top ? &r->element_index : NULL,
					&r->path, &elem))
				break;
			base = b;
			off = o;
			decl = elem;
			in_array = true;
			top = false;
			continue;
		}
		if (!is_aggregate(dwarf_tag(&t)))
			break;
		if (r->whole_internals && is_internal_wrapper(&t, 0))
			break;

		r->layout = layout_get(dt, m, &t, typedef_name);
		r->layout_offset = base;
		le = entry_of(r->layout);
		i = member_for_access(dt, m, le, off, size);
		if (i < 0)
			break;
		mb = &le->pub.members[i];
		if (!mb->name || (le->flags[i] & MEMBER_BITFIELD)) {
			/* a hole or a bitfield: the bytes are the answer */
			if (mb->name && *mb->name)
				strbuf_addf(&r->path, ".%s", mb->name);
			r->member_offset = base + mb->offset;
			r->member_size = mb->size;
			return;
		}
		if (*mb->name)
			strbuf_addf(&r->path, ".%s", mb->name);
		base += mb->offset;
		off -= mb->offset;
		decl = le->types[i];
		top = false;
	}
	/* A scalar, pointer, enum or vector: the access lands on it whole. */
	r->member_offset = base;
	r->member_size = type_size(&decl);
	r->has_leaf = true;
	r->leaf = decl;
	if (!r->layout && in_array) {
		r->layout = layout_get(dt, m, &decl, NULL);
		r->layout_offset = base;
	}
}

/* A hit to cache: addresses are relative to the object's start. */
static struct data_attribution *hit_new(struct data_types *dt, const char *variable,
					Dwarf_Die *type, const struct resolution *r)
{
	struct data_attribution *hit = xcalloc(1, sizeof(*hit));

	hit->variable = intern(dt, variable ? variable : "?");
	hit->type_name = type_name(dt, type);
	hit->path = intern(dt, strbuf_str(&r->path));
	hit->member_offset = r->member_offset;
	hit->member_size = r->member_size;
	hit->layout = r->layout;
	hit->layout_start = r->layout_offset;
	hit->element_index = r->element_index;
	return hit;
}

/* Copy a cached hit out, making its addresses absolute. */
static enum data_types_miss hit_out(const struct data_attribution *hit,
				    uint64_t object_start,
				    struct data_attribution *out)
{
	*out = *hit;
	out->object_start = object_start;
	out->layout_start = object_start + hit->layout_start;
	return DT_HIT;
}

static void attribution_clear(struct data_attribution *out)
{
	memset(out, 0, sizeof(*out));
	out->path = "";
	out->element_index = -1;
}

/* ---- globals -------------------------------------------------------------- */

/* The address a one-operation location expression names, if it is one. */
static bool op_address(Dwarf_Attribute *attr, Dwarf_Op *op, Dwarf_Addr *addr)
{
	Dwarf_Attribute target;

	switch (op->atom) {
	case DW_OP_addr:
		*addr = op->number;
		return true;
	case DW_OP_addrx:
	case DW_OP_GNU_addr_index:
		return dwarf_getlocation_attr(attr, op, &target) == 0 &&
		       dwarf_formaddr(&target, addr) == 0;
	default:
		return false;
	}
}

static void add_range(struct range **arr, size_t *n, size_t *alloc,
		      uint64_t start, uint64_t end, Dwarf_Die *die)
{
	ALLOC_GROW(*arr, *n + 1, *alloc);
	(*arr)[(*n)++] = (struct range){ start, end, *die };
}

/* The name an external variable's ELF symbol has. */
static const char *symbol_name(Dwarf_Die *var)
{
	Dwarf_Attribute attr;

	if (dwarf_attr_integrate(var, DW_AT_linkage_name, &attr) ||
	    dwarf_attr_integrate(var, DW_AT_MIPS_linkage_name, &attr))
		return dwarf_formstring(&attr);
	return die_name(var);
}

static void index_name(struct dt_module *m, Dwarf_Die *var, bool defined)
{
	Dwarf_Attribute attr;
	bool external;
	const char *name;

	if (dwarf_attr_integrate(var, DW_AT_external, &attr) == NULL ||
	    dwarf_formflag(&attr, &external) != 0 || !external ||
	    !(name = symbol_name(var)))
		return;
	ALLOC_GROW(m->names, m->n_names + 1, m->alloc_names);
	m->names[m->n_names++] = (struct named_var){ name, *var, defined };
}

static void index_variable(struct dt_module *m, Dwarf_Die *var)
{
	Dwarf_Attribute attr;
	Dwarf_Op *expr;
	size_t len;
	Dwarf_Addr start;
	Dwarf_Die type;
	uint64_t size;

	/* TLS variables (DW_OP_form_tls_address) and pieces are not plain
	 * addresses: they take more than one operation. */
	if (dwarf_hasattr(var, DW_AT_declaration) ||
	    !dwarf_attr(var, DW_AT_location, &attr) ||
	    dwarf_getlocation(&attr, &expr, &len) != 0 || len != 1 ||
	    !op_address(&attr, expr, &start)) {
		index_name(m, var, false);
		return;
	}
	index_name(m, var, true);
	if (!die_type(var, &type) || !(size = type_size(&type)))
		return;
	add_range(&m->vars, &m->n_vars, &m->alloc_vars, start, start + size, var);
}

/* Variables live at unit level, in namespaces, and (statics) in functions
 * and their blocks; types and inlined copies hold none with storage. */
static void index_scope(struct dt_module *m, Dwarf_Die *scope, int depth)
{
	Dwarf_Die child;

	if (depth > MAX_DEPTH || dwarf_child(scope, &child) != 0)
		return;
	do {
		switch (dwarf_tag(&child)) {
		case DW_TAG_variable:
			index_variable(m, &child);
			break;
		case DW_TAG_subprogram:
		case DW_TAG_lexical_block:
		case DW_TAG_namespace:
		case DW_TAG_module:
			index_scope(m, &child, depth + 1);
			break;
		default:
			break;
		}
	} while (dwarf_siblingof(&child, &child) == 0);
}

/* A unit's code ranges, from its DW_AT_low_pc/high_pc or DW_AT_ranges;
 * scopes DIE is where its functions are (the split unit, for skeletons). */
static void index_unit_code(struct dt_module *m, Dwarf_Die *cudie,
			    Dwarf_Die *scopes)
{
	Dwarf_Addr base, start, end;
	ptrdiff_t off = 0;

	while ((off = dwarf_ranges(cudie, off, &base, &start, &end)) > 0)
		if (start < end)
			add_range(&m->cus, &m->n_cus, &m->alloc_cus, start, end, scopes);
}

static int cmp_range(const void *a, const void *b)
{
	const struct range *x = a, *y = b;

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return x->end > y->end ? -1 : x->end < y->end;   /* larger first */
}

/* Sort; of ranges starting at the same address (aliases, LTO copies)
 * keep the largest. */
static void sort_ranges(struct range *r, size_t *n)
{
	size_t kept = 0;

	if (!*n)
		return;            /* r is NULL: qsort() must not see it */
	qsort(r, *n, sizeof(*r), cmp_range);
	for (size_t i = 0; i < *n; i++)
		if (!kept || r[i].start != r[kept - 1].start)
			r[kept++] = r[i];
	*n = kept;
}

static const struct range *range_at(const struct range *r, size_t n, uint64_t a)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (r[mid].start <= a)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo && a < r[lo - 1].end ? &r[lo - 1] : NULL;
}

static int cmp_named(const void *a, const void *b)
{
	return strcmp(((const struct named_var *)a)->name,
		      ((const struct named_var *)b)->name);
}

/* One pass over the units: the globals, and the code each unit covers
 * (dwarf_addrdie needs .debug_aranges, which clang does not emit). */
static void index_module(struct dt_module *m)
{
	Dwarf_CU *cu = NULL, *next;
	Dwarf_Half version;
	uint8_t unit_type;
	Dwarf_Die cudie, subdie;

	while (dwarf_get_units(m->dw, cu, &next, &version, &unit_type,
			       &cudie, &subdie) == 0) {
		Dwarf_Die *unit = &cudie;

		cu = next;
		if (unit_type == DW_UT_skeleton && dwarf_tag(&subdie) != DW_TAG_invalid)
			unit = &subdie;
		else if (unit_type != DW_UT_compile && unit_type != DW_UT_partial)
			continue;
		index_scope(m, unit, 0);
		index_unit_code(m, &cudie, unit);
	}
	sort_ranges(m->vars, &m->n_vars);
	sort_ranges(m->cus, &m->n_cus);
	if (m->n_names)
		qsort(m->names, m->n_names, sizeof(*m->names), cmp_named);
	m->indexed = true;
}

/* The variable called name (its symbol's name) with a complete type: a
 * definition if there is one, else a declaration. */
static const struct named_var *named_lookup(struct dt_module *m, const char *name)
{
	const struct named_var *best = NULL;
	size_t lo = 0, hi = m->n_names;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (strcmp(m->names[mid].name, name) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (; lo < m->n_names && !strcmp(m->names[lo].name, name); lo++) {
		Dwarf_Die var = m->names[lo].die, type;

		if (!die_type(&var, &type) || !is_complete(&type))
			continue;
		if (!best || (m->names[lo].defined && !best->defined))
			best = &m->names[lo];
	}
	return best;
}

/* The ELF data symbol holding addr in mod: its name, and its start. */
static const char *data_symbol_at(Dwfl_Module *mod, uint64_t addr, uint64_t *start)
{
	GElf_Off off;
	GElf_Sym sym;
	const char *name = mod ? dwfl_module_addrinfo(mod, addr, &off, &sym, NULL,
						      NULL, NULL) : NULL;

	if (!name || GELF_ST_TYPE(sym.st_info) != STT_OBJECT || off >= sym.st_size)
		return NULL;
	*start = addr - off;
	return name;
}

/* The global at object_start, called name in its symbol table, as m's
 * DWARF declares or defines it. */
static enum data_types_miss named_global(struct data_types *dt, struct dt_module *m,
					 const char *name, uint64_t object_start,
					 uint64_t addr, unsigned size,
					 struct data_attribution *out)
{
	/* by name and offset: the same address may be another process's */
	struct key k = { KEY_NAMED | m->serial, (uintptr_t)intern(dt, name),
			 addr - object_start, size, 0 };
	struct data_attribution *hit = hashmap_get(&dt->results, &k);

	if (!hit) {
		struct resolution r = { .whole_internals = true, .path = STRBUF_INIT };
		const struct named_var *v;
		Dwarf_Die var, type;

		if (!m->indexed)
			index_module(m);
		v = named_lookup(m, name);
		if (!v)
			return DT_NO_VARIABLE;
		var = v->die;
		die_type(&var, &type);
		resolve_offset(dt, m, &type, addr - object_start, size, false, &r);
		hit = hit_new(dt, die_name(&var), &type, &r);
		strbuf_release(&r.path);
		hashmap_put(&dt->results, &k, hit);
	}
	return hit_out(hit, object_start, out);
}

enum data_types_miss data_types_global_elsewhere(struct data_types *dt,
						 struct Dwfl_Module *data_mod,
						 uint64_t addr, unsigned size,
						 struct Dwfl_Module *other_mod,
						 struct data_attribution *out)
{
	struct dt_module *m = module_get(dt, other_mod);
	const char *name;
	uint64_t start;

	attribution_clear(out);
	if (!m)
		return DT_NO_DWARF;
	name = data_symbol_at(data_mod, addr, &start);
	return name ? named_global(dt, m, name, start, addr, size, out) : DT_NO_VARIABLE;
}

enum data_types_miss data_types_global(struct data_types *dt,
				       struct Dwfl_Module *mod, uint64_t bias,
				       uint64_t addr, struct data_attribution *out)
{
	return data_types_global_access(dt, mod, bias, addr, 0, out);
}

enum data_types_miss data_types_global_access(struct data_types *dt,
					      struct Dwfl_Module *mod, uint64_t bias,
					      uint64_t addr, unsigned size,
					      struct data_attribution *out)
{
	struct dt_module *m = module_get(dt, mod);
	const struct range *v;
	struct data_attribution *hit;
	uint64_t start;
	struct key k;

	attribution_clear(out);
	if (!m)
		return DT_NO_DWARF;
	if (!m->indexed)
		index_module(m);
	v = range_at(m->vars, m->n_vars, addr - bias);
	if (!v) {
		/* storage the DWARF does not place, e.g. a copy relocation's:
		 * the symbol there may be declared here */
		const char *name = data_symbol_at(mod, addr, &start);

		return name ? named_global(dt, m, name, start, addr, size, out) :
		       DT_NO_VARIABLE;
	}
	k = (struct key){ KEY_GLOBAL | m->serial, addr, 0, 0, size };
	hit = hashmap_get(&dt->results, &k);
	if (!hit) {
		struct resolution r = { .whole_internals = true, .path = STRBUF_INIT };
		Dwarf_Die var = v->die, type;

		die_type(&var, &type);    /* indexed variables have one */
		resolve_offset(dt, m, &type, addr - bias - v->start, size, false, &r);
		hit = hit_new(dt, die_name(&var), &type, &r);
		strbuf_release(&r.path);
		hashmap_put(&dt->results, &k, hit);
	}
	return hit_out(hit, v->start + bias, out);
}

/* ---- pointers ------------------------------------------------------------ */

static const struct dt_pointer *pointer_get(struct data_types *dt,
					    struct dt_module *m,
					    Dwarf_Die *object, const char *name,
					    bool is_address, bool decayed)
{
	const char *iname = intern(dt, name);
	struct key k = { m->serial, (uintptr_t)object->addr, (uintptr_t)iname,
			 is_address, decayed };
	struct dt_pointer *p = hashmap_get(&dt->pointers, &k);

	if (!p) {
		p = xcalloc(1, sizeof(*p));
		*p = (struct dt_pointer){ m, *object, iname, is_address, decayed };
		hashmap_put(&dt->pointers, &k, p);
	}
	return p;
}

/* The complete type a pointer type points to (typedefs of the pointer
 * peeled, the target's qualifiers stripped). */
static enum data_types_miss pointer_target(Dwarf_Die *type, Dwarf_Die *object)
{
	Dwarf_Die t = *type;

	if (!peel_type(&t, NULL) || !is_pointer(dwarf_tag(&t)))
		return DT_NOT_POINTER;
	if (!die_type(&t, &t))
		return DT_NO_TYPE;        /* void * */
	if (!strip_qualifiers(&t) || !is_complete(&t))
		return DT_NO_TYPE;
	*object = t;
	return DT_HIT;
}

/* off is out of what p may reach: below a pointer (container_of() and
 * friends are not worth a guess), or off a lone global's end. */
static bool out_of_reach(const struct dt_pointer *p, int64_t off, bool any_element)
{
	Dwarf_Die object = p->object;

	if (any_element)
		return false;
	return off < 0 || (p->is_address && (uint64_t)off >= type_size(&object));
}

/* Where off (bytes from where p points) falls: the element index and the
 * offset inside the element.  any_element: p points to some element of an
 * array, which one is unknown, so only the offset inside one is. */
static void element_of(const struct dt_pointer *p, int64_t off, bool any_element,
		       int64_t *index, uint64_t *in_element)
{
	Dwarf_Die object = p->object;
	int64_t size = (int64_t)type_size(&object);

	if (any_element) {
		*index = -1;
		*in_element = (uint64_t)(((off % size) + size) % size);
		return;
	}
	*index = off / size;
	*in_element = (uint64_t)(off % size);
}

/* The path of an access through p, as the report shows it: ".writes" for
 * p[0], "[2].reads" for p[2], ".x" for some unknown element. */
static void pointer_path(const struct dt_pointer *p, int64_t index,
			 struct strbuf *path)
{
	if (index > 0 || (index == 0 && p->decayed))
		strbuf_addf(path, "[%" PRId64 "]", index);
}

/* How the report names a pointer found in p's target at path: "c->next",
 * "st->_M_impl._M_start", "g.ptr", "table[2].ptr", "arr[].next". */
static char *member_pointer_name(const struct dt_pointer *p, int64_t index,
				 const char *path)
{
	struct strbuf sb = STRBUF_INIT;

	strbuf_addf(&sb, "%s", p->name);
	if (index < 0)
		strbuf_addf(&sb, "[]%s", path);
	else if (index > 0 || p->decayed || p->is_address)
		strbuf_addf(&sb, "%s", path);    /* path has the index */
	else
		strbuf_addf(&sb, "->%s", path[0] == '.' ? path + 1 : path);
	return strbuf_detach(&sb);
}

/* ---- variables in registers ---------------------------------------------- */

enum reg_loc {
	LOC_ELSEWHERE,
	LOC_VALUE,                 /* DW_OP_regN: the register is the variable */
	LOC_ADDRESS,               /* DW_OP_bregN 0: the variable is where it points */
};

static enum reg_loc location_at(Dwarf_Die *var, Dwarf_Addr pc, int reg)
{
	Dwarf_Attribute attr;
	Dwarf_Op *expr;
	size_t len;
	unsigned atom;

	if (!dwarf_attr(var, DW_AT_location, &attr) ||
	    dwarf_getlocation_addr(&attr, pc, &expr, &len, 1) != 1 || len != 1)
		return LOC_ELSEWHERE;
	atom = expr[0].atom;
	if (atom >= DW_OP_reg0 && atom <= DW_OP_reg31)
		return (int)(atom - DW_OP_reg0) == reg ? LOC_VALUE : LOC_ELSEWHERE;
	if (atom == DW_OP_regx)
		return expr[0].number == (Dwarf_Word)reg ? LOC_VALUE : LOC_ELSEWHERE;
	if (atom >= DW_OP_breg0 && atom <= DW_OP_breg31)
		return (int)(atom - DW_OP_breg0) == reg && expr[0].number == 0 ?
		       LOC_ADDRESS : LOC_ELSEWHERE;
	if (atom == DW_OP_bregx)
		return expr[0].number == (Dwarf_Word)reg && expr[0].number2 == 0 ?
		       LOC_ADDRESS : LOC_ELSEWHERE;
	return LOC_ELSEWHERE;
}

/* The type of the object a register-located variable points to. */
static enum data_types_miss pointee(Dwarf_Die *var, enum reg_loc loc,
				    Dwarf_Die *object)
{
	Dwarf_Die t;

	if (!die_type(var, &t))
		return DT_NOT_POINTER;
	if (loc == LOC_VALUE)
		return pointer_target(&t, object);
	if (!strip_qualifiers(&t) || !is_complete(&t))
		return DT_NO_TYPE;
	*object = t;
	return DT_HIT;
}

/* The DIEs whose code holds pc, outermost first: the function, its blocks,
 * inlined instances and their blocks.  Unlike dwarf_getscopes(), which
 * follows lexical scope, an inlined callee keeps its caller's scopes: the
 * caller's variables are in registers there too. */
static int code_scopes(Dwarf_Die *parent, Dwarf_Addr pc, Dwarf_Die *chain,
		       int n, int max)
{
	Dwarf_Die child;

	if (n >= max || dwarf_child(parent, &child) != 0)
		return n;
	do {
		int found;

		switch (dwarf_tag(&child)) {
		case DW_TAG_namespace:
		case DW_TAG_module:
			found = code_scopes(&child, pc, chain, n, max);
			if (found > n)
				return found;
			break;
		case DW_TAG_subprogram:
		case DW_TAG_inlined_subroutine:
		case DW_TAG_lexical_block:
			if (dwarf_haspc(&child, pc) > 0) {
				chain[n] = child;
				return code_scopes(&child, pc, chain, n + 1, max);
			}
			break;
		default:
			break;
		}
	} while (dwarf_siblingof(&child, &child) == 0);
	return n;
}

/* Code inlined from a library header (std::atomic's fetch_add): its
 * variables (the atomic's "this") say less than the caller's (the Stats&
 * it was called on). */
static bool inlined_from_system(Dwarf_Die *scope)
{
	return dwarf_tag(scope) == DW_TAG_inlined_subroutine &&
	       symbolizer_system_source(dwarf_decl_file(scope));
}

/* Innermost scope first, but a library's inlined code after its user's; a
 * pointer wins over any other variable in the register.  Misses are
 * ordered from vague to specific in the enum, and the most specific one
 * seen is reported. */
static void find_reg_var(struct data_types *dt, struct dt_module *m,
			 Dwarf_Addr pc, int reg, struct ptr_lookup *rv)
{
	const struct range *unit;
	Dwarf_Die unit_die, scopes[MAX_DEPTH], child, object;
	int n;

	if (!m->indexed)
		index_module(m);
	unit = range_at(m->cus, m->n_cus, pc);
	if (!unit) {
		rv->miss = DT_NO_DWARF;   /* code the debug info does not cover */
		return;
	}
	rv->miss = DT_NO_VARIABLE;
	unit_die = unit->die;
	n = code_scopes(&unit_die, pc, scopes, 0, MAX_DEPTH);
	for (int pass = 0; pass < 2; pass++)
	for (int i = n - 1; i >= 0; i--) {
		/* pass 0: the user's scopes; pass 1: the library's */
		if (inlined_from_system(&scopes[i]) != (pass == 1) ||
		    dwarf_child(&scopes[i], &child) != 0)
			continue;
		do {
			int tag = dwarf_tag(&child);
			enum reg_loc loc;
			enum data_types_miss miss;

			if (tag != DW_TAG_variable && tag != DW_TAG_formal_parameter)
				continue;
			loc = location_at(&child, pc, reg);
			if (loc == LOC_ELSEWHERE)
				continue;
			miss = pointee(&child, loc, &object);
			if (miss == DT_HIT) {
				rv->ptr = pointer_get(dt, m, &object,
						      die_name(&child) ?: "?",
						      false, false);
				rv->miss = DT_HIT;
				return;
			}
			if (miss > rv->miss)
				rv->miss = miss;
		} while (dwarf_siblingof(&child, &child) == 0);
	}
}

static const struct ptr_lookup *reg_var_get(struct data_types *dt,
					    struct dt_module *m,
					    Dwarf_Addr pc, int reg)
{
	struct key k = { KEY_REGISTER | m->serial, pc, (uint64_t)reg, 0, 0 };
	struct ptr_lookup *rv = hashmap_get(&dt->lookups, &k);

	if (!rv) {
		rv = xcalloc(1, sizeof(*rv));
		find_reg_var(dt, m, pc, reg, rv);
		hashmap_put(&dt->lookups, &k, rv);
	}
	return rv;
}

enum data_types_miss data_types_register_pointer(struct data_types *dt,
						 struct Dwfl_Module *mod, uint64_t bias,
						 uint64_t pc, int dwarf_reg,
						 const struct dt_pointer **out)
{
	struct dt_module *m = module_get(dt, mod);
	const struct ptr_lookup *rv;

	*out = NULL;
	if (!m)
		return DT_NO_DWARF;
	if (dwarf_reg < 0)
		return DT_NO_VARIABLE;
	rv = reg_var_get(dt, m, pc - bias, dwarf_reg);
	*out = rv->ptr;
	return rv->miss;
}

/* ---- globals as pointers --------------------------------------------------- */

/* &var as a dt_pointer: to var itself, or, as in C, an array decayed to
 * its first element. */
static enum data_types_miss address_pointer(struct data_types *dt, struct dt_module *m,
					    Dwarf_Die *var, const struct dt_pointer **out)
{
	Dwarf_Die type, object, elem;
	bool decayed = false;

	if (!die_type(var, &type))
		return DT_NO_TYPE;
	object = type;
	if (peel_type(&object, NULL) && dwarf_tag(&object) == DW_TAG_array_type &&
	    !dwarf_hasattr(&object, DW_AT_GNU_vector) && die_type(&object, &elem)) {
		object = elem;
		decayed = true;
	} else {
		object = type;
	}
	if (!strip_qualifiers(&object) || !is_complete(&object))
		return DT_NO_TYPE;
	*out = pointer_get(dt, m, &object, die_name(var) ?: "?", !decayed, decayed);
	return DT_HIT;
}

enum data_types_miss data_types_global_address(struct data_types *dt,
					       struct Dwfl_Module *mod, uint64_t bias,
					       uint64_t addr,
					       const struct dt_pointer **out,
					       int64_t *off)
{
	struct dt_module *m = module_get(dt, mod);
	const struct range *v;
	Dwarf_Die var;

	*out = NULL;
	*off = 0;
	if (!m)
		return DT_NO_DWARF;
	if (!m->indexed)
		index_module(m);
	v = range_at(m->vars, m->n_vars, addr - bias);
	if (!v)
		return DT_NO_VARIABLE;
	var = v->die;
	*off = (int64_t)(addr - bias - v->start);
	return address_pointer(dt, m, &var, out);
}

/* ---- variables on the stack ------------------------------------------------- */

/* An address as a register's value plus an offset. */
struct reg_addr {
	int reg;
	int64_t off;
};

static bool op_reg_addr(const Dwarf_Op *op, struct reg_addr *out)
{
	if (op->atom >= DW_OP_breg0 && op->atom <= DW_OP_breg31)
		*out = (struct reg_addr){ op->atom - DW_OP_breg0, (int64_t)op->number };
	else if (op->atom == DW_OP_bregx)
		*out = (struct reg_addr){ (int)op->number, (int64_t)op->number2 };
	else
		return false;
	return true;
}

/* The canonical frame address at pc (absolute), from the module's CFI. */
static bool cfa_at(Dwfl_Module *mod, uint64_t pc, struct reg_addr *out)
{
	Dwarf_Addr bias[2];
	Dwarf_CFI *cfi[2] = { dwfl_module_dwarf_cfi(mod, &bias[0]),
			      dwfl_module_eh_cfi(mod, &bias[1]) };

	for (int i = 0; i < 2; i++) {
		Dwarf_Frame *frame;
		Dwarf_Op *ops;
		size_t n;
		bool ok;

		if (!cfi[i] || dwarf_cfi_addrframe(cfi[i], pc - bias[i], &frame) != 0)
			continue;
		ok = dwarf_frame_cfa(frame, &ops, &n) == 0 && n == 1 && op_reg_addr(ops, out);
		free(frame);
		if (ok)
			return true;
	}
	return false;
}

/* The function's DW_AT_frame_base at pc: the CFA (GCC), or a register
 * (clang at -O0: rbp). */
static bool frame_base_at(Dwfl_Module *mod, Dwarf_Die *fn, Dwarf_Addr dw_pc,
			  uint64_t pc, struct reg_addr *out)
{
	Dwarf_Attribute attr;
	Dwarf_Op *expr;
	size_t len;

	if (!dwarf_attr(fn, DW_AT_frame_base, &attr) ||
	    dwarf_getlocation_addr(&attr, dw_pc, &expr, &len, 1) != 1 || len != 1)
		return false;
	if (expr[0].atom == DW_OP_call_frame_cfa)
		return cfa_at(mod, pc, out);
	if (expr[0].atom >= DW_OP_reg0 && expr[0].atom <= DW_OP_reg31) {
		*out = (struct reg_addr){ expr[0].atom - DW_OP_reg0, 0 };
		return true;
	}
	return op_reg_addr(&expr[0], out);
}

/* Where var is in memory at dw_pc, relative to a register; fb is the frame
 * base (NULL: unknown). */
static bool var_address(Dwarf_Die *var, Dwarf_Addr dw_pc, const struct reg_addr *fb,
			struct reg_addr *out)
{
	Dwarf_Attribute attr;
	Dwarf_Op *expr;
	size_t len;

	if (!dwarf_attr(var, DW_AT_location, &attr) ||
	    dwarf_getlocation_addr(&attr, dw_pc, &expr, &len, 1) != 1 || len != 1)
		return false;
	if (expr[0].atom == DW_OP_fbreg) {
		if (!fb)
			return false;
		*out = (struct reg_addr){ fb->reg, fb->off + (int64_t)expr[0].number };
		return true;
	}
	return op_reg_addr(&expr[0], out);
}

/* The variable in scope at pc whose storage holds reg + off. */
static void find_stack_var(struct data_types *dt, struct dt_module *m, Dwfl_Module *mod,
			   uint64_t bias, uint64_t pc, int reg, int64_t off,
			   struct ptr_lookup *out)
{
	Dwarf_Addr dw_pc = pc - bias;
	const struct range *unit = range_at(m->cus, m->n_cus, dw_pc);
	Dwarf_Die unit_die, scopes[MAX_DEPTH], child, type;
	struct reg_addr fb, at;
	bool has_fb = false;
	int n;

	out->miss = unit ? DT_NO_VARIABLE : DT_NO_DWARF;
	if (!unit)
		return;
	unit_die = unit->die;
	n = code_scopes(&unit_die, dw_pc, scopes, 0, MAX_DEPTH);
	/* the frame is the outermost function's; inlined code has none */
	for (int i = 0; i < n && !has_fb; i++)
		if (dwarf_tag(&scopes[i]) == DW_TAG_subprogram)
			has_fb = frame_base_at(mod, &scopes[i], dw_pc, pc, &fb);
	for (int i = n - 1; i >= 0; i--) {
		if (dwarf_child(&scopes[i], &child) != 0)
			continue;
		do {
			int tag = dwarf_tag(&child);
			uint64_t size;

			if ((tag != DW_TAG_variable && tag != DW_TAG_formal_parameter) ||
			    !var_address(&child, dw_pc, has_fb ? &fb : NULL, &at) ||
			    at.reg != reg || off < at.off || !die_type(&child, &type) ||
			    !(size = type_size(&type)) || (uint64_t)(off - at.off) >= size)
				continue;
			out->miss = address_pointer(dt, m, &child, &out->ptr);
			out->off = off - at.off;
			return;
		} while (dwarf_siblingof(&child, &child) == 0);
	}
}

enum data_types_miss data_types_stack_address(struct data_types *dt,
					      struct Dwfl_Module *mod, uint64_t bias,
					      uint64_t pc, int dwarf_reg, int64_t off,
					      const struct dt_pointer **out,
					      int64_t *ptr_off)
{
	struct dt_module *m = module_get(dt, mod);
	struct ptr_lookup *l;
	struct key k;

	*out = NULL;
	*ptr_off = 0;
	if (!m)
		return DT_NO_DWARF;
	if (!m->indexed)
		index_module(m);
	k = (struct key){ KEY_STACK | m->serial, pc - bias, (uint64_t)dwarf_reg,
			  (uint64_t)off, 0 };
	l = hashmap_get(&dt->lookups, &k);
	if (!l) {
		l = xcalloc(1, sizeof(*l));
		find_stack_var(dt, m, mod, bias, pc, dwarf_reg, off, l);
		hashmap_put(&dt->lookups, &k, l);
	}
	*out = l->ptr;
	*ptr_off = l->off;
	return l->miss;
}

/* ---- through a pointer ----------------------------------------------------- */

static void lookup_member_pointer(struct data_types *dt, const struct dt_pointer *p,
				  int64_t off, bool any_element, struct ptr_lookup *out)
{
	/* the pointer may be a library's own (std::vector's _M_start) */
	struct resolution r = { .whole_internals = false, .path = STRBUF_INIT };
	Dwarf_Die object = p->object, target;
	int64_t index;
	uint64_t in_element;
	char *name;

	element_of(p, off, any_element, &index, &in_element);
	pointer_path(p, index, &r.path);
	resolve_offset(dt, p->m, &object, in_element, sizeof(void *), true, &r);
	out->miss = DT_NOT_POINTER;
	/* a load of the whole pointer, not of a byte inside one */
	if (r.has_leaf && r.member_offset == in_element)
		out->miss = pointer_target(&r.leaf, &target);
	if (out->miss == DT_HIT) {
		name = member_pointer_name(p, index, strbuf_str(&r.path));
		out->ptr = pointer_get(dt, p->m, &target, name, false, false);
		free(name);
	}
	strbuf_release(&r.path);
}

enum data_types_miss data_types_member_pointer(struct data_types *dt,
					       const struct dt_pointer *p,
					       int64_t off, bool any_element,
					       const struct dt_pointer **out)
{
	struct key k = { KEY_MEMBER_POINTER, (uintptr_t)p, (uint64_t)off, any_element, 0 };
	struct ptr_lookup *l;

	*out = NULL;
	if (!p || out_of_reach(p, off, any_element))
		return DT_NO_VARIABLE;
	l = hashmap_get(&dt->lookups, &k);
	if (!l) {
		l = xcalloc(1, sizeof(*l));
		lookup_member_pointer(dt, p, off, any_element, l);
		hashmap_put(&dt->lookups, &k, l);
	}
	*out = l->ptr;
	return l->miss;
}

/* The hit for an access through p, its addresses relative to the element
 * (any_element) or to p[0]. */
static struct data_attribution *resolve_through(struct data_types *dt,
						const struct dt_pointer *p,
						int64_t off, bool any_element,
						unsigned size)
{
	struct resolution r = { .whole_internals = true, .path = STRBUF_INIT };
	Dwarf_Die object = p->object;
	uint64_t elem_size = type_size(&object), in_element;
	struct data_attribution *hit;
	int64_t index;

	element_of(p, off, any_element, &index, &in_element);
	pointer_path(p, index, &r.path);
	resolve_offset(dt, p->m, &object, in_element, size, true, &r);
	if (index > 0) {
		r.member_offset += (uint64_t)index * elem_size;
		r.layout_offset += (uint64_t)index * elem_size;
	}
	r.element_index = (long)index;
	hit = hit_new(dt, p->name, &object, &r);
	hit->via_pointer = !p->is_address;
	strbuf_release(&r.path);
	return hit;
}

enum data_types_miss data_types_through_pointer(struct data_types *dt,
						const struct dt_pointer *p,
						int64_t off, bool any_element,
						uint64_t addr, unsigned size,
						struct data_attribution *out)
{
	struct key k = { KEY_THROUGH_POINTER, (uintptr_t)p, (uint64_t)off, size,
			 any_element };
	struct data_attribution *hit;
	int64_t index;
	uint64_t in_element;

	attribution_clear(out);
	if (!p || out_of_reach(p, off, any_element))
		return DT_NO_VARIABLE;
	hit = hashmap_get(&dt->results, &k);
	if (!hit) {
		hit = resolve_through(dt, p, off, any_element, size);
		hashmap_put(&dt->results, &k, hit);
	}
	/* the object is p[0], or the element when which one is unknown */
	element_of(p, off, any_element, &index, &in_element);
	return hit_out(hit, addr - (any_element ? in_element : (uint64_t)off), out);
}

enum data_types_miss data_types_in_register(struct data_types *dt,
					    struct Dwfl_Module *mod, uint64_t bias,
					    uint64_t pc, int dwarf_reg,
					    int64_t base_off, uint64_t addr,
					    struct data_attribution *out)
{
	const struct dt_pointer *p;
	enum data_types_miss miss;

	attribution_clear(out);
	miss = data_types_register_pointer(dt, mod, bias, pc, dwarf_reg, &p);
	if (miss != DT_HIT)
		return miss;
	return data_types_through_pointer(dt, p, base_off, false, addr, 0, out);
}
