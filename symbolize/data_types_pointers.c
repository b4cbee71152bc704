/* data_types_pointers.c - what a pointer points to: pointer variables in
 * registers at a code address, variables on the stack (frame base, CFA),
 * and pointers loaded from members of objects already typed.
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

/* ---- pointers ------------------------------------------------------------ */

const struct dt_pointer *pointer_get(struct data_types *dt,
					    struct dt_module *m,
					    Dwarf_Die *object, const char *name,
					    bool is_address, bool decayed)
{
	const char *iname = dt_intern(dt, name);
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

/* A register holding a struct that is nothing but a pointer holds that
 * pointer: Rust's Arc<T> and Box<T> (a NonNull<T> around *const T), as
 * rustc before 1.65 describes a variable of one kept in a register.  *t
 * becomes the pointer type, found through members at offset 0 as big as
 * the struct. */
static bool unwrap_pointer_struct(Dwarf_Die *t)
{
	for (int depth = 0; depth < 6; depth++) {
		Dwarf_Die member, mt;
		uint64_t size, off;
		bool found = false;

		if (!peel_type(t, NULL) || !strip_qualifiers(t))
			return false;
		if (is_pointer(dwarf_tag(t)))
			return true;
		if (!is_aggregate(dwarf_tag(t)) || !(size = type_size(t)) ||
		    dwarf_child(t, &member) != 0)
			return false;
		do {
			if (is_data_member(&member) && member_location(&member, &off) && !off &&
			    die_type(&member, &mt) && type_size(&mt) == size) {
				*t = mt;
				found = true;
			}
		} while (!found && dwarf_siblingof(&member, &member) == 0);
		if (!found)
			return false;
	}
	return false;
}

/* The type of the object a register-located variable points to. */
static enum data_types_miss pointee(Dwarf_Die *var, enum reg_loc loc,
				    Dwarf_Die *object)
{
	Dwarf_Die t;

	if (!die_type(var, &t))
		return DT_NOT_POINTER;
	if (loc == LOC_VALUE) {
		Dwarf_Die inner = t;

		if (pointer_target(&t, object) == DT_NOT_POINTER && unwrap_pointer_struct(&inner))
			return pointer_target(&inner, object);
		return pointer_target(&t, object);
	}
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
		dt_index_module(m);
	unit = dt_range_at(m->cus, m->n_cus, pc);
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

uint64_t data_types_pointer_size(const struct dt_pointer *p)
{
	Dwarf_Die t;

	if (!p)
		return 0;
	t = p->object;
	return peel_type(&t, NULL) ? type_size(&t) : 0;
}

enum data_types_miss data_types_register_pointer(struct data_types *dt,
						 struct Dwfl_Module *mod, uint64_t bias,
						 uint64_t pc, int dwarf_reg,
						 const struct dt_pointer **out)
{
	struct dt_module *m = dt_module_get(dt, mod);
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

		/* the CFI's own bias is not pinned (symbolizer.h): nor is pc */
		if (!cfi[i] || dwarf_cfi_addrframe(cfi[i], symbolizer_plain(pc) - bias[i],
						   &frame) != 0)
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
		/* DWARF's offsets are the target's to choose: wrap, as the
		 * address arithmetic does, never overflow */
		*out = (struct reg_addr){ fb->reg, (int64_t)((uint64_t)fb->off + expr[0].number) };
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
	const struct range *unit = dt_range_at(m->cus, m->n_cus, dw_pc);
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
	struct dt_module *m = dt_module_get(dt, mod);
	struct ptr_lookup *l;
	struct key k;

	*out = NULL;
	*ptr_off = 0;
	if (!m)
		return DT_NO_DWARF;
	if (!m->indexed)
		dt_index_module(m);
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
