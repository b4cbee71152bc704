/* symbolizer_dwarf.c - source lines and inlined functions from DWARF: the
 * CU holding an address (with an index of our own where .debug_aranges is
 * missing), its line, and the chain of inlined scopes around it.
 */
#include <dwarf.h>
#include <elfutils/libdwfl.h>
#include <stdlib.h>
#include <string.h>

#include "symbolize/symbolizer.h"
#include "symbolize/symbolizer_internal.h"
#include "common/sorted.h"
#include "common/util.h"

/* The name a function DIE (subprogram or inlined instance) goes by: the
 * demangled linkage name, which qualifies C++ methods, else DW_AT_name. */
static const char *die_function_name(struct symbolizer *s, Dwarf_Die *die)
{
	Dwarf_Attribute attr;
	const char *name;

	name = dwarf_formstring(dwarf_attr_integrate(die, DW_AT_linkage_name, &attr));
	if (!name)
		name = dwarf_formstring(dwarf_attr_integrate(die, DW_AT_MIPS_linkage_name, &attr));
	if (name)
		return intern_demangled(s, name);
	return intern_str(s, dwarf_diename(die));
}

static bool is_function_scope(Dwarf_Die *die)
{
	int tag = dwarf_tag(die);

	return tag == DW_TAG_subprogram || tag == DW_TAG_inlined_subroutine;
}

static int cu_range_cmp(const void *a, const void *b)
{
	const struct cu_range *x = a, *y = b;

	return x->low < y->low ? -1 : x->low > y->low;
}

static void cu_index_build(struct cu_index *ci, Dwarf *dw)
{
	Dwarf_CU *cu = NULL;
	Dwarf_Die cudie;
	uint8_t unit_type;

	while (dw && !dwarf_get_units(dw, cu, &cu, NULL, &unit_type, &cudie, NULL)) {
		Dwarf_Addr base, low, high;
		ptrdiff_t it = 0;

		if (unit_type != DW_UT_compile)
			continue;
		while ((it = dwarf_ranges(&cudie, it, &base, &low, &high)) > 0) {
			ALLOC_GROW(ci->ranges, ci->nr + 1, ci->alloc);
			ci->ranges[ci->nr++] = (struct cu_range){
				.low = low, .high = high,
				.die_off = dwarf_dieoffset(&cudie),
			};
		}
	}
	sort_items(ci->ranges, ci->nr, sizeof(*ci->ranges), cu_range_cmp);
	ci->built = true;
}

/* The CU DIE holding addr, and the module's DWARF bias. */
static Dwarf_Die *module_cu(Dwfl_Module *mod,
			    uint64_t addr, Dwarf_Die *mem, Dwarf_Addr *bias)
{
	Dwarf_Die *cudie = dwfl_module_addrdie(mod, addr, bias);
	struct elf_file *f = module_file(mod);
	struct cu_index *ci;
	size_t lo;
	Dwarf *dw;

	if (cudie || !f)
		return cudie;
	dw = dwfl_module_getdwarf(mod, bias);
	if (!dw)
		return NULL;
	ci = &f->cus;
	if (!ci->built)
		cu_index_build(ci, dw);
	lo = FIRST_ABOVE(ci->ranges, ci->nr, low, addr - *bias);
	if (!lo || addr - *bias >= ci->ranges[lo - 1].high)
		return NULL;
	return dwarf_offdie(dw, ci->ranges[lo - 1].die_off, mem);
}

/* The file of an inlined instance's call site (DW_AT_call_file), absolute. */
static const char *call_site_file(struct symbolizer *s, Dwarf_Die *cudie, Dwarf_Die *inl)
{
	Dwarf_Attribute attr;
	Dwarf_Files *files;
	Dwarf_Word idx;
	size_t n;

	if (dwarf_formudata(dwarf_attr(inl, DW_AT_call_file, &attr), &idx) ||
	    dwarf_getsrcfiles(cudie, &files, &n) || idx >= n)
		return NULL;
	return absolute_source(s, cudie, dwarf_filesrc(files, idx, NULL, NULL));
}

/* chain[0..n): the concrete scopes of an inlined instance, innermost
 * first.  When the access's line is in a system header, the site becomes
 * the innermost call site outside them: function and file:line of the
 * user's code, via = the library function inlined there. */
static void hoist_out_of_system_headers(struct symbolizer *s, Dwarf_Die *cudie,
					Dwarf_Die *chain, int n, struct source_loc *out)
{
	for (int j = 0; j < n; j++) {
		Dwarf_Attribute attr;
		Dwarf_Word line;
		const char *file;
		int k, m;

		if (dwarf_tag(&chain[j]) != DW_TAG_inlined_subroutine)
			continue;
		file = call_site_file(s, cudie, &chain[j]);
		if (!file || symbolizer_system_source(file) ||
		    dwarf_formudata(dwarf_attr(&chain[j], DW_AT_call_line, &attr), &line))
			continue;
		for (k = j + 1; k < n && !is_function_scope(&chain[k]); k++)
			;
		if (k == n)
			return;
		out->via = out->function;
		out->file = file;
		out->line = (int)line;
		out->function = die_function_name(s, &chain[k]);
		out->inlined_into = NULL;
		for (m = k + 1; m < n && !is_function_scope(&chain[m]); m++)
			;
		if (m < n && dwarf_tag(&chain[k]) == DW_TAG_inlined_subroutine)
			out->inlined_into = die_function_name(s, &chain[m]);
		return;
	}
}

/* Nesting of scopes walked down to pc: far beyond real code, and what
 * stops a cycle of imported units in bad DWARF. */
#define SCOPE_MAX_DEPTH 128

/*
 * The innermost subprogram or inlined instance holding pc among the DIEs
 * under parent, the way libdw's dwarf_getscopes() walks: into every scope
 * whose ranges hold pc, and through the DIEs that own scopes without
 * having addresses (namespaces, classes, imported units).  Not
 * dwarf_getscopes() itself: on an inlined instance whose abstract origin
 * is missing or unreadable it leaks the array it built (elfutils 0.188 and
 * later; found by tests/fuzz_elf.c), once per address looked up.
 */
static bool innermost_function(Dwarf_Die *parent, Dwarf_Addr pc, int depth, Dwarf_Die *out)
{
	Dwarf_Die child, imported, *under;
	Dwarf_Attribute attr;

	if (depth >= SCOPE_MAX_DEPTH || dwarf_child(parent, &child) != 0)
		return false;
	do {
		switch (dwarf_tag(&child)) {
		case DW_TAG_subprogram:
		case DW_TAG_inlined_subroutine:
		case DW_TAG_lexical_block:
		case DW_TAG_module:
		case DW_TAG_with_stmt:
		case DW_TAG_catch_block:
		case DW_TAG_try_block:
		case DW_TAG_entry_point:
			if (dwarf_haspc(&child, pc) != 1)
				break;
			/* the scope holding pc: nothing beside it can */
			if (innermost_function(&child, pc, depth + 1, out))
				return true;
			if (!is_function_scope(&child))
				return false;
			*out = child;
			return true;
		case DW_TAG_namespace:
		case DW_TAG_class_type:
		case DW_TAG_structure_type:
			if (innermost_function(&child, pc, depth + 1, out))
				return true;
			break;
		case DW_TAG_imported_unit:
			under = dwarf_formref_die(dwarf_attr(&child, DW_AT_import, &attr),
						  &imported);
			if (under && innermost_function(under, pc, depth + 1, out))
				return true;
			break;
		}
	} while (dwarf_siblingof(&child, &child) == 0);
	return false;
}

/* function = the innermost subprogram or inlined instance at pc;
 * inlined_into = the function it was inlined into, found in the concrete
 * tree (dwarf_getscopes_die), not among the scopes of the abstract
 * definition. */
static void lookup_inline_chain(struct symbolizer *s, Dwarf_Die *cudie,
				Dwarf_Addr pc, struct source_loc *out)
{
	Dwarf_Die fn, *chain = NULL;
	int nc;

	if (!innermost_function(cudie, pc, 0, &fn))
		return;
	out->function = die_function_name(s, &fn);
	if (dwarf_tag(&fn) != DW_TAG_inlined_subroutine)
		return;
	nc = dwarf_getscopes_die(&fn, &chain);
	for (int j = 1; j < nc; j++) {
		if (is_function_scope(&chain[j])) {
			out->inlined_into = die_function_name(s, &chain[j]);
			break;
		}
	}
	if (symbolizer_system_source(out->file))
		hoist_out_of_system_headers(s, cudie, chain, nc, out);
	free(chain);
}

static void lookup_dwarf_source(struct symbolizer *s, Dwfl_Module *mod,
				uint64_t addr, struct source_loc *out)
{
	Dwarf_Die mem, *cudie;
	Dwarf_Line *line;
	Dwarf_Addr bias;

	cudie = module_cu(mod, addr, &mem, &bias);
	if (!cudie)
		return;
	line = dwarf_getsrc_die(cudie, addr - bias);
	if (line) {
		out->file = absolute_source(s, cudie, dwarf_linesrc(line, NULL, NULL));
		if (!out->file || dwarf_lineno(line, &out->line))
			out->line = 0;
	}
	lookup_inline_chain(s, cudie, addr - bias, out);
}

unsigned lookup_inline_callers(struct symbolizer *s, Dwfl_Module *mod, uint64_t addr,
			       struct source_loc *out, unsigned max)
{
	Dwarf_Die mem, *cudie, fn, *chain = NULL;
	Dwarf_Addr bias;
	unsigned n = 0;
	int nc;

	cudie = module_cu(mod, addr, &mem, &bias);
	if (!cudie || !innermost_function(cudie, addr - bias, 0, &fn) ||
	    dwarf_tag(&fn) != DW_TAG_inlined_subroutine)
		return 0;
	/* chain[0] is fn; each inlined instance's call site lies in the
	 * next function scope out */
	nc = dwarf_getscopes_die(&fn, &chain);
	for (int j = 0; j < nc && n < max; j++) {
		Dwarf_Attribute attr;
		Dwarf_Word line;
		int k;

		if (dwarf_tag(&chain[j]) != DW_TAG_inlined_subroutine)
			continue;
		for (k = j + 1; k < nc && !is_function_scope(&chain[k]); k++)
			;
		if (k == nc)
			break;
		out[n] = (struct source_loc){
			.function = die_function_name(s, &chain[k]),
			.file = call_site_file(s, cudie, &chain[j]),
		};
		if (!dwarf_formudata(dwarf_attr(&chain[j], DW_AT_call_line, &attr), &line))
			out[n].line = (int)line;
		n++;
	}
	free(chain);
	return n;
}

static const char *module_basename(struct symbolizer *s, const char *path)
{
	const char *slash = strrchr(path, '/');

	return intern_str(s, slash ? slash + 1 : path);
}

bool lookup_source(struct symbolizer *s, struct proc *p, uint64_t addr,
			  struct source_loc *out)
{
	Dwfl_Module *mod = proc_module(s, p, addr);
	struct func_info fi;

	if (mod) {
		const char *name = dwfl_module_info(mod, NULL, NULL, NULL, NULL,
						    NULL, NULL, NULL);
		Dwarf_Addr bias = 0;

		dwfl_module_getelf(mod, &bias);
		out->module = module_basename(s, name ? name : "");
		out->module_off = addr - bias;
		lookup_dwarf_source(s, mod, addr, out);
	} else {
		const struct mapping *m = maps_find(&p->maps, addr);

		if (!m)
			return false;
		out->module = m->kind == MAPPING_FILE ? module_basename(s, m->name) : m->name;
		out->module_off = addr - m->start + (m->kind == MAPPING_FILE ? m->pgoff : 0);
	}
	if (!out->function && symbolizer_function(s, p->pid, addr, &fi))
		out->function = fi.name;
	return out->function || out->file;
}
