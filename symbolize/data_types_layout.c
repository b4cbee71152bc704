/* data_types_layout.c - struct layouts (members, holes, bitfields), which
 * of overlapping members an access means, and an offset walked through a
 * type to the member path a report prints (conventions: data_types.c).
 */
#include "symbolize/data_types.h"
#include "symbolize/data_types_internal.h"
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


static bool read_member(struct data_types *dt, Dwarf_Die *child, uint8_t default_access,
			struct member_tmp *out)
{
	uint64_t loc, bit_start, bit_size;
	Dwarf_Word access;
	Dwarf_Die peeled;

	memset(out, 0, sizeof(*out));
	if (!die_type(child, &out->type) || !member_location(child, &loc))
		return false;
	out->m.name = dt_intern(dt, dwarf_tag(child) == DW_TAG_member ?
				 die_name(child) : NULL);
	out->m.type_name = dt_type_name(dt, &out->type);
	out->m.base = dwarf_tag(child) == DW_TAG_inheritance;
	out->m.decl_line = die_decl_line(child);
	if (default_access)
		out->m.access = die_udata(child, DW_AT_accessibility, &access) &&
				access >= MEMBER_PUBLIC && access <= MEMBER_PRIVATE ?
				(uint8_t)access : default_access;
	if (member_bits(child, loc, &bit_start, &bit_size)) {
		struct strbuf sb = STRBUF_INIT;

		out->flags = MEMBER_BITFIELD;
		out->m.offset = bit_start / 8;
		out->m.size = (bit_start + bit_size + 7) / 8 - out->m.offset;
		strbuf_addf(&sb, "%s:%" PRIu64, out->m.type_name, bit_size);
		out->m.type_name = dt_intern(dt, sb.buf);
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
	/* DWARF gives an access only where it is not the default's */
	uint8_t default_access = !in_cxx_unit(s) ? 0 :
		dwarf_tag(s) == DW_TAG_class_type ? MEMBER_PRIVATE : MEMBER_PUBLIC;
	Dwarf_Die child;

	if (dwarf_child(s, &child) == 0) {
		do {
			if (!is_data_member(&child))
				continue;
			ALLOC_GROW(tmp, n + 1, alloc);
			if (read_member(dt, &child, default_access, &tmp[n])) {
				tmp[n].order = n;
				n++;
			}
		} while (dwarf_siblingof(&child, &child) == 0);
	}
	if (n)                 /* an empty class has no array to sort */
		sort_items(tmp, n, sizeof(*tmp), cmp_member);
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

const char *dt_decl_file(struct data_types *dt, Dwarf_Die *die)
{
	const char *file = dwarf_decl_file(die), *ret;
	Dwarf_Attribute attr;
	Dwarf_Die cu;
	char *joined = NULL;

	if (!file)
		return NULL;
	if (dwarf_diecu(die, &cu, NULL, NULL))
		joined = symbolizer_source_under(
			dwarf_formstring(dwarf_attr(&cu, DW_AT_comp_dir, &attr)), file);
	ret = dt_intern(dt, joined ? joined : file);
	free(joined);
	return ret;
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
	const char *file;

	if (le)
		return &le->pub;
	le = xcalloc(1, sizeof(*le));
	le->pub.size = type_size(type);
	le->pub.cxx = in_cxx_unit(type);
	le->pub.rust = die_language(type) == DW_LANG_Rust;
	le->pub.go = die_language(type) == DW_LANG_Go;
	le->pub.cxx_class = le->pub.cxx && dwarf_tag(type) == DW_TAG_class_type;
	file = dwarf_decl_file(type);
	le->pub.library = file && symbolizer_system_source(file);
	le->pub.decl_file = dt_decl_file(dt, type);
	le->pub.decl_line = die_decl_line(type);
	if (is_aggregate(dwarf_tag(type))) {
		le->pub.name = !dwarf_diename(type) && name_hint ?
			       dt_intern(dt, name_hint) : dt_type_name(dt, type);
		le->pub.align = die_udata(type, DW_AT_alignment, &explicit) ?
				explicit : struct_align(type, 0);
		layout_fill_members(dt, type, le);
	} else {
		le->pub.name = dt_type_name(dt, type);
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
 * __atomic_base.  A one-member type a library's source declares counts
 * too, whatever its member's name (Rust's AtomicU64 and UnsafeCell).
 * Types with several such members (pthread_mutex_t's
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
	/* a library's own one-field wrapper needs no reserved name: Rust's
	 * AtomicU64 is { v: UnsafeCell<u64> }, and that { value: u64 } */
	if (dwarf_tag(&only) == DW_TAG_member && die_name(&only))
		return is_reserved_name(die_name(&only)) ||
		       symbolizer_system_source(dwarf_decl_file(&t)) || rust_std_wrapper(&t);
	return die_type(&only, &member_type) && is_internal_wrapper(&member_type, depth + 1);
}

/* Walk off (bytes from the object's start) through type, for an access of
 * size bytes (0: unknown).  in_array: the object is an element of an
 * array, so a scalar leaf still gets a layout. */
void resolve_offset(struct data_types *dt, struct dt_module *m,
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
struct data_attribution *hit_new(struct data_types *dt, const char *variable,
					Dwarf_Die *type, const struct resolution *r)
{
	struct data_attribution *hit = xcalloc(1, sizeof(*hit));

	hit->variable = dt_intern(dt, variable ? variable : "?");
	hit->type_name = dt_type_name(dt, type);
	hit->path = dt_intern(dt, strbuf_str(&r->path));
	hit->member_offset = r->member_offset;
	hit->member_size = r->member_size;
	hit->layout = r->layout;
	hit->layout_start = r->layout_offset;
	hit->element_index = r->element_index;
	return hit;
}

/* Copy a cached hit out, making its addresses absolute. */
enum data_types_miss hit_out(const struct data_attribution *hit,
				    uint64_t object_start,
				    struct data_attribution *out)
{
	*out = *hit;
	out->object_start = object_start;
	out->layout_start = object_start + hit->layout_start;
	return DT_HIT;
}

void attribution_clear(struct data_attribution *out)
{
	memset(out, 0, sizeof(*out));
	out->path = "";
	out->element_index = -1;
}
