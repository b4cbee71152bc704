/* data_types_globals.c - global variables: each module's DWARF variables
 * and units' code ranges indexed once, found by address or by the name of
 * their ELF symbol (copy relocations), and a global's address as a
 * pointer.
 */
#include "symbolize/data_types.h"
#include "symbolize/data_types_internal.h"
#include "symbolize/dwarf_type.h"
#include "symbolize/symbolizer.h"
#include "common/hashmap.h"
#include "common/sorted.h"
#include "common/util.h"

#include <elfutils/libdwfl.h>
#include <dwarf.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

/* The alignment the declaration gives var itself, or 0: DW_AT_alignment
 * on the variable (or on the declaration a C++ static member's definition
 * completes); the type's own is the layout's.  Only for storage the
 * DWARF places: a copy relocation's copy is aligned as the linker chose. */
static uint64_t variable_align(Dwarf_Die *var)
{
	Dwarf_Attribute attr;
	Dwarf_Word align;

	return dwarf_attr_integrate(var, DW_AT_alignment, &attr) &&
	       dwarf_formudata(&attr, &align) == 0 ? align : 0;
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
		return;            /* r is NULL */
	sort_items(r, *n, sizeof(*r), cmp_range);
	for (size_t i = 0; i < *n; i++)
		if (!kept || r[i].start != r[kept - 1].start)
			r[kept++] = r[i];
	*n = kept;
}

const struct range *dt_range_at(const struct range *r, size_t n, uint64_t a)
{
	size_t lo = FIRST_ABOVE(r, n, start, a);

	return lo && a < r[lo - 1].end ? &r[lo - 1] : NULL;
}

static int cmp_named(const void *a, const void *b)
{
	return strcmp(((const struct named_var *)a)->name,
		      ((const struct named_var *)b)->name);
}

/* One pass over the units: the globals, and the code each unit covers
 * (dwarf_addrdie needs .debug_aranges, which clang does not emit). */
void dt_index_module(struct dt_module *m)
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
		sort_items(m->names, m->n_names, sizeof(*m->names), cmp_named);
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
	struct key k = { KEY_NAMED | m->serial, (uintptr_t)dt_intern(dt, name),
			 addr - object_start, size, 0 };
	struct data_attribution *hit = hashmap_get(&dt->results, &k);

	if (!hit) {
		struct resolution r = { .whole_internals = true, .path = STRBUF_INIT };
		const struct named_var *v;
		Dwarf_Die var, type;

		if (!m->indexed)
			dt_index_module(m);
		v = named_lookup(m, name);
		if (!v)
			return DT_NO_VARIABLE;
		var = v->die;
		die_type(&var, &type);
		resolve_offset(dt, m, &type, addr - object_start, size, false, &r);
		hit = hit_new(dt, dt_variable_name(dt, &var), &type, &r);
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
	struct dt_module *m = dt_module_get(dt, other_mod);
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
	struct dt_module *m = dt_module_get(dt, mod);
	const struct range *v;
	struct data_attribution *hit;
	uint64_t start;
	struct key k;

	attribution_clear(out);
	if (!m)
		return DT_NO_DWARF;
	if (!m->indexed)
		dt_index_module(m);
	v = dt_range_at(m->vars, m->n_vars, addr - bias);
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
		hit = hit_new(dt, dt_variable_name(dt, &var), &type, &r);
		hit->variable_align = variable_align(&var);
		hit->variable_decl_line = die_decl_line(&var);
		if (hit->variable_decl_line)
			hit->variable_decl_file = dt_decl_file(dt, &var);
		strbuf_release(&r.path);
		hashmap_put(&dt->results, &k, hit);
	}
	return hit_out(hit, v->start + bias, out);
}

/* ---- globals as pointers --------------------------------------------------- */

/* &var as a dt_pointer: to var itself, or, as in C, an array decayed to
 * its first element. */
enum data_types_miss address_pointer(struct data_types *dt, struct dt_module *m,
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
	*out = pointer_get(dt, m, &object, dt_variable_name(dt, var) ?: "?", !decayed, decayed);
	return DT_HIT;
}

enum data_types_miss data_types_global_address(struct data_types *dt,
					       struct Dwfl_Module *mod, uint64_t bias,
					       uint64_t addr,
					       const struct dt_pointer **out,
					       int64_t *off)
{
	struct dt_module *m = dt_module_get(dt, mod);
	const struct range *v;
	Dwarf_Die var;

	*out = NULL;
	*off = 0;
	if (!m)
		return DT_NO_DWARF;
	if (!m->indexed)
		dt_index_module(m);
	v = dt_range_at(m->vars, m->n_vars, addr - bias);
	if (!v)
		return DT_NO_VARIABLE;
	var = v->die;
	*off = (int64_t)(addr - bias - v->start);
	return address_pointer(dt, m, &var, out);
}
