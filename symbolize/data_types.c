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
 *
 * This file holds the object and its caches (data_types_internal.h);
 * type layouts and offsets walked through types are in data_types_layout.c,
 * globals in data_types_globals.c, pointers in registers, on the stack and
 * in members in data_types_pointers.c.
 */
#include "symbolize/data_types.h"
#include "symbolize/data_types_internal.h"
#include "symbolize/dwarf_scopes.h"
#include "symbolize/dwarf_type.h"
#include "symbolize/symbolizer.h"
#include "common/hashmap.h"
#include "common/util.h"

#include <dlfcn.h>
#include <elfutils/libdwelf.h>
#include <elfutils/libdwfl.h>
#include <dwarf.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *dt_intern(struct data_types *dt, const char *s)
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
	[DT_DEBUG_NOT_INSTALLED] = "debug info not installed",
	[DT_DEBUG_NOT_SERVED] = "debug info not installed or served by debuginfod",
};

const char *data_types_miss_name(enum data_types_miss m)
{
	return (unsigned)m < DT__COUNT ? miss_names[m] : "unknown";
}

const char *data_types_debug_split(struct Dwfl_Module *mod)
{
	Dwarf_Addr bias;
	GElf_Word crc;
	Elf *elf;

	if (!mod || dwfl_module_getdwarf(mod, &bias))
		return NULL;
	elf = dwfl_module_getelf(mod, &bias);
	return elf ? dwelf_elf_gnu_debuglink(elf, &crc) : NULL;
}

bool data_types_debuginfod_asked(void)
{
	const char *urls = getenv("DEBUGINFOD_URLS");
	void *lib;

	if (!urls || !*urls)
		return false;
	lib = dlopen("libdebuginfod.so.1", RTLD_LAZY | RTLD_NOLOAD);
	if (lib)
		dlclose(lib);
	return lib != NULL;
}

struct data_types *data_types_new(void)
{
	struct data_types *dt = xcalloc(1, sizeof(*dt));

	hashmap_init(&dt->modules, sizeof(struct key));
	hashmap_init(&dt->results, sizeof(struct key));
	hashmap_init(&dt->lookups, sizeof(struct key));
	hashmap_init(&dt->pointers, sizeof(struct key));
	hashmap_init(&dt->layouts, sizeof(struct key));
	dt->scopes = dwarf_scopes_new();
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
	dwarf_scopes_free(dt->scopes);
	free(dt);
}

/* NULL when there is no module or it has no debug info. */
struct dt_module *dt_module_get(struct data_types *dt, Dwfl_Module *mod)
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

const char *dt_variable_name(struct data_types *dt, Dwarf_Die *var)
{
	const char *name = die_name(var), *scope = dwarf_scopes_prefix(dt->scopes, var);
	char *q;

	if (!name || !*scope)
		return name;
	q = xasprintf("%s%s", scope, name);
	name = dt_intern(dt, q);
	free(q);
	return name;
}

const char *dt_type_name(struct data_types *dt, Dwarf_Die *type)
{
	struct strbuf sb = STRBUF_INIT;
	const char *name;

	format_type(type, &sb, 0, dt->scopes);
	name = dt_intern(dt, sb.buf);
	strbuf_release(&sb);
	return name;
}
