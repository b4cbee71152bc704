/* data_types_sized.c - a heap block's type from its size (data_types_sized.h). */
#include "symbolize/data_types_sized.h"
#include "symbolize/data_types_internal.h"
#include "symbolize/dwarf_type.h"
#include "common/util.h"

#include <dwarf.h>
#include <elfutils/libdw.h>
#include <string.h>

struct fit {
	Dwarf_Die die;
	uint64_t size, count;
	unsigned n;                  /* distinct types that fit: 0, 1 or more */
};

static bool is_struct_tag(int tag)
{
	return tag == DW_TAG_structure_type || tag == DW_TAG_class_type;
}

/* Does type t fit the block and the access (data_types_sized.h)? */
static bool fits(struct data_types *dt, struct dt_module *m, Dwarf_Die *t,
		 uint64_t lo, uint64_t hi, uint64_t off, unsigned size, const char *leaf,
		 uint64_t *count)
{
	struct resolution r = { .whole_internals = true, .path = STRBUF_INIT };
	uint64_t s = type_size(t), n;
	bool ok;

	if (!s || !die_name(t) || dwarf_hasattr(t, DW_AT_declaration))
		return false;
	n = hi / s;
	if (!n || n * s < lo || off >= n * s)
		return false;
	if (!leaf) {
		*count = n;
		return true;
	}
	resolve_offset(dt, m, t, off % s, size, true, &r);
	ok = r.has_leaf && !strcmp(dt_type_name(dt, &r.leaf), leaf);
	strbuf_release(&r.path);
	if (ok)
		*count = n;
	return ok;
}

static bool same_type(Dwarf_Die *a, Dwarf_Die *b)
{
	const char *na, *nb;

	if (a->addr == b->addr)
		return true;
	na = die_name(a);
	nb = die_name(b);
	return dwarf_tag(a) == dwarf_tag(b) && na && nb && !strcmp(na, nb) &&
	       type_size(a) == type_size(b);
}

/* Is outer inner wrapped: its one data member, at offset 0, of the same
 * size (struct padded { struct arg a; } _Alignas(64), when the size is
 * a multiple of 64 already)?  Then both fit alike, and inner is the type. */
static bool wraps(Dwarf_Die *outer, Dwarf_Die *inner)
{
	Dwarf_Die child, ty;
	uint64_t off;
	unsigned members = 0;
	bool first_is_inner = false;

	if (type_size(outer) != type_size(inner) || dwarf_child(outer, &child) != 0)
		return false;
	do {
		if (!is_data_member(&child))
			continue;
		if (members++)
			return false;
		first_is_inner = member_location(&child, &off) && off == 0 &&
				 die_type(&child, &ty) && peel_type(&ty, NULL) &&
				 same_type(&ty, inner);
	} while (dwarf_siblingof(&child, &child) == 0);
	return first_is_inner;
}

/* The name pointers to t go by in unit: the one all agree on, or NULL. */
static const char *pointer_name(Dwarf_Die *unit, Dwarf_Die *t)
{
	Dwarf_Die stack[DWARF_TYPE_MAX_DEPTH], die, ty;
	const char *name = NULL;
	unsigned depth = 0, seen = 0;
	bool conflict = false;

	if (dwarf_child(unit, &stack[0]) != 0)
		return NULL;
	for (;;) {
		int tag;

		die = stack[depth];
		tag = dwarf_tag(&die);
		if ((tag == DW_TAG_variable || tag == DW_TAG_formal_parameter ||
		     tag == DW_TAG_member) && die_name(&die) && die_type(&die, &ty) &&
		    peel_type(&ty, NULL) && is_pointer(dwarf_tag(&ty)) && die_type(&ty, &ty) &&
		    peel_type(&ty, NULL) && same_type(&ty, t)) {
			if (!name)
				name = die_name(&die);
			else if (strcmp(name, die_name(&die)))
				conflict = true;
		}
		if (++seen >= DT_SIZED_DIES || conflict)
			break;
		/* depth first: into the children, else on to the next sibling */
		if (dwarf_haschildren(&die) && depth + 1 < DWARF_TYPE_MAX_DEPTH &&
		    dwarf_child(&die, &stack[depth + 1]) == 0) {
			depth++;
			continue;
		}
		while (dwarf_siblingof(&stack[depth], &stack[depth]) != 0)
			if (depth-- == 0)
				return conflict ? NULL : name;
	}
	return conflict ? NULL : name;
}

enum data_types_miss data_types_sized_pointer(struct data_types *dt, struct Dwfl_Module *mod,
					      uint64_t bias, uint64_t pc,
					      uint64_t asked_lo, uint64_t asked_hi,
					      uint64_t off, unsigned size, const char *leaf,
					      const struct dt_pointer **out, uint64_t *elem,
					      uint64_t *count)
{
	struct dt_module *m = dt_module_get(dt, mod);
	const struct range *unit;
	struct fit best = { .n = 0 };
	Dwarf_Die unit_die, child;
	const char *name;
	unsigned seen = 0;

	*out = NULL;
	*elem = *count = 0;
	if (!m)
		return DT_NO_DWARF;
	if (!m->indexed)
		dt_index_module(m);
	unit = dt_range_at(m->cus, m->n_cus, pc - bias);
	if (!unit)
		return DT_NO_DWARF;
	unit_die = unit->die;
	if (dwarf_child(&unit_die, &child) != 0)
		return DT_NO_TYPE;
	do {
		uint64_t n;

		if (++seen > DT_SIZED_DIES)
			break;
		if (!is_struct_tag(dwarf_tag(&child)) ||
		    !fits(dt, m, &child, asked_lo, asked_hi, off, size, leaf, &n))
			continue;
		if (best.n && (same_type(&best.die, &child) || wraps(&child, &best.die)))
			continue;
		if (best.n && !wraps(&best.die, &child))
			return DT_NO_TYPE;          /* two types fit: no guess */
		best.n = 1;
		best.die = child;
		best.size = type_size(&child);
		best.count = n;
	} while (dwarf_siblingof(&child, &child) == 0);
	if (!best.n)
		return DT_NO_TYPE;
	name = pointer_name(&unit_die, &best.die);
	*out = pointer_get(dt, m, &best.die, name ? name : "block", false, false);
	*elem = best.size;
	*count = best.count;
	return DT_HIT;
}
