/* data_types_internal.h - what the data_types files share; nothing
 * outside symbolize/data_types*.c may include it.
 *
 * Every answer is cached in a struct hashmap keyed by five words, the first
 * a KEY_* kind or-ed with the module's serial; every string is interned
 * with dt_intern() and lives as long as the data_types.  DIEs kept point into
 * the module's Dwarf, so the Dwfl must outlive the data_types.
 */
#ifndef CONTEND_DATA_TYPES_INTERNAL_H
#define CONTEND_DATA_TYPES_INTERNAL_H

#include <dwarf.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>
#include <stdbool.h>
#include <stdint.h>

#include "symbolize/data_types.h"
#include "symbolize/dwarf_type.h"
#include "common/hashmap.h"

#define MAX_DEPTH DWARF_TYPE_MAX_DEPTH
#define MAX_DIMS 16

/* Every cache is keyed by five words (see KEY_*); no padding to zero. */
struct key {
	uint64_t a, b, c, d, e;
};

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
	struct dwarf_scopes *scopes;   /* C++ types' namespaces and classes */
	uint64_t n_modules;
};

/* The first key word's kind; the module's serial is or-ed into it. */
#define KEY_GLOBAL          (1ULL << 32)
#define KEY_REGISTER        (2ULL << 32)
#define KEY_THROUGH_POINTER (3ULL << 32)   /* key.b is the dt_pointer */
#define KEY_MEMBER_POINTER  (4ULL << 32)   /* key.b is the dt_pointer */
#define KEY_NAMED           (5ULL << 32)
#define KEY_STACK           (6ULL << 32)

/* The path, offset and layout an offset walked through a type ends at. */
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

/* data_types.c: the object */
const char *dt_intern(struct data_types *dt, const char *s);     /* NULL: "" */
/* die's DW_AT_decl_file, absolute against its CU's comp_dir, interned;
 * NULL: none */
const char *dt_decl_file(struct data_types *dt, Dwarf_Die *die);
/* NULL when there is no module or it has no debug info. */
struct dt_module *dt_module_get(struct data_types *dt, Dwfl_Module *mod);
/* A variable's name, qualified by its C++ namespaces and classes
 * ("app::Registry::created"); interned. */
const char *dt_variable_name(struct data_types *dt, Dwarf_Die *var);
const char *dt_type_name(struct data_types *dt, Dwarf_Die *type);

/* data_types_layout.c: walk off (bytes from the object's start) through
 * type for an access of size bytes (0: unknown); in_array: the object is
 * an array element, so a scalar leaf still gets a layout. */
void resolve_offset(struct data_types *dt, struct dt_module *m,
		    Dwarf_Die *type, uint64_t off, uint64_t size,
		    bool in_array, struct resolution *r);
/* A hit to cache, addresses relative to the object's start; hit_out
 * copies it out with them made absolute. */
struct data_attribution *hit_new(struct data_types *dt, const char *variable,
				 Dwarf_Die *type, const struct resolution *r);
enum data_types_miss hit_out(const struct data_attribution *hit,
			     uint64_t object_start, struct data_attribution *out);
void attribution_clear(struct data_attribution *out);

/* data_types_globals.c: the module's globals and unit code ranges */
void dt_index_module(struct dt_module *m);
const struct range *dt_range_at(const struct range *r, size_t n, uint64_t a);
/* &var as a dt_pointer: to var itself, or an array decayed to its first
 * element. */
enum data_types_miss address_pointer(struct data_types *dt, struct dt_module *m,
				     Dwarf_Die *var, const struct dt_pointer **out);

/* data_types_pointers.c: the one dt_pointer for these fields */
const struct dt_pointer *pointer_get(struct data_types *dt, struct dt_module *m,
				     Dwarf_Die *object, const char *name,
				     bool is_address, bool decayed);
#endif
