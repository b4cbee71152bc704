/* dwarf_scopes.c - the namespaces and classes around a C++ type, one
 * read of its unit. */
#include "symbolize/dwarf_scopes.h"

#include <dwarf.h>
#include <stdlib.h>
#include <string.h>

#include "common/hashmap.h"
#include "common/util.h"
#include "symbolize/dwarf_type.h"

/* Nesting deeper than this is bad DWARF; its inner scopes get no prefix. */
#define SCOPES_MAX_DEPTH 32

/* A DIE holding others, [start, end) in .debug_info, and what it gives
 * the types in it. */
struct scope {
	Dwarf_Off start, end;
	int parent;               /* index, -1 at unit level */
	const char *prefix;       /* "" in a function */
};

struct unit_scopes {
	struct scope *v;          /* by start: a preorder walk's order */
	size_t n, alloc;
};

struct unit_key {
	uintptr_t dw;
	Dwarf_Off cu;
};

struct dwarf_scopes {
	struct hashmap units;     /* unit_key -> unit_scopes */
	struct strset prefixes;
};

struct dwarf_scopes *dwarf_scopes_new(void)
{
	struct dwarf_scopes *sc = xcalloc(1, sizeof(*sc));

	hashmap_init(&sc->units, sizeof(struct unit_key));
	return sc;
}

static void free_unit(void *p)
{
	struct unit_scopes *u = p;

	free(u->v);
	free(u);
}

void dwarf_scopes_free(struct dwarf_scopes *sc)
{
	if (!sc)
		return;
	hashmap_release(&sc->units, free_unit);
	strset_release(&sc->prefixes);
	free(sc);
}

static int scope_add(struct unit_scopes *u, Dwarf_Off start, Dwarf_Off end, int parent,
		     const char *prefix)
{
	ALLOC_GROW(u->v, u->n + 1, u->alloc);
	u->v[u->n] = (struct scope){ start, end, parent, prefix };
	return (int)u->n++;
}

static bool is_local_scope(int tag)
{
	return tag == DW_TAG_subprogram || tag == DW_TAG_lexical_block ||
	       tag == DW_TAG_inlined_subroutine;
}

/* What a scope DIE gives the DIEs in it, or NULL if it is no scope. */
static const char *scope_prefix(struct dwarf_scopes *sc, Dwarf_Die *die, const char *outer)
{
	const char *name = dwarf_diename(die);

	switch (dwarf_tag(die)) {
	case DW_TAG_namespace:
		if (!name || !*name)
			return outer;     /* anonymous */
		break;
	case DW_TAG_structure_type:
	case DW_TAG_class_type:
	case DW_TAG_union_type:
		if (!name || !*name)
			return outer;
		break;
	default:
		return is_local_scope(dwarf_tag(die)) ? "" : NULL;
	}
	return strset_own(&sc->prefixes, xasprintf("%s%s::", outer, name));
}

static void read_scopes(struct dwarf_scopes *sc, struct unit_scopes *u, Dwarf_Die *parent,
			int parent_idx, Dwarf_Off parent_end, const char *outer, int depth)
{
	Dwarf_Die child, next;
	int more;

	if (depth >= SCOPES_MAX_DEPTH || dwarf_child(parent, &child) != 0)
		return;
	do {
		const char *prefix;
		Dwarf_Off end;

		more = dwarf_siblingof(&child, &next);
		end = more == 0 ? dwarf_dieoffset(&next) : parent_end;
		if (dwarf_haschildren(&child) && (prefix = scope_prefix(sc, &child, outer))) {
			int idx = scope_add(u, dwarf_dieoffset(&child), end, parent_idx, prefix);

			/* a function's inside is all local: no need to read it */
			if (!is_local_scope(dwarf_tag(&child)))
				read_scopes(sc, u, &child, idx, end, prefix, depth + 1);
		}
		child = next;
	} while (more == 0);
}

static struct unit_scopes *unit_get(struct dwarf_scopes *sc, Dwarf_Die *die)
{
	struct unit_key k;
	struct unit_scopes *u;
	Dwarf_Die cu;
	Dwarf *dw;

	if (!die->cu || !dwarf_diecu(die, &cu, NULL, NULL) || !(dw = dwarf_cu_getdwarf(die->cu)))
		return NULL;
	memset(&k, 0, sizeof(k));
	k.dw = (uintptr_t)dw;
	k.cu = dwarf_dieoffset(&cu);
	u = hashmap_get(&sc->units, &k);
	if (u)
		return u;
	u = xcalloc(1, sizeof(*u));
	if (in_cxx_unit(&cu))
		read_scopes(sc, u, &cu, -1, (Dwarf_Off)-1, "", 0);
	hashmap_put(&sc->units, &k, u);
	return u;
}

const char *dwarf_scopes_prefix(struct dwarf_scopes *sc, Dwarf_Die *die)
{
	struct unit_scopes *u;
	Dwarf_Off off;
	size_t lo = 0, hi;
	int i;

	Dwarf_Attribute attr;
	Dwarf_Die decl;

	if (!sc || !die)
		return "";
	/* a definition outside its namespace's DIE names its declaration */
	if (dwarf_attr(die, DW_AT_specification, &attr) && dwarf_formref_die(&attr, &decl))
		die = &decl;
	if (!(u = unit_get(sc, die)) || !u->n)
		return "";
	off = dwarf_dieoffset(die);
	/* the last scope that starts before die, then out to one holding it */
	hi = u->n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (u->v[mid].start < off)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (i = (int)lo - 1; i >= 0; i = u->v[i].parent)
		if (off < u->v[i].end)
			return u->v[i].prefix;
	return "";
}
