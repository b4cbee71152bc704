/* data_types.h - data addresses to variables, types and struct members (DWARF).
 *
 * Two ways in, both per libdwfl module:
 *  - data_types_global(): addr lies inside a global/static variable
 *    (DW_TAG_variable with a DW_OP_addr location), or inside an ELF data
 *    symbol a declaration of the same name describes (copy relocations);
 *  - data_types_in_register(): at code address pc, the memory operand's
 *    base register (DWARF number) holds a variable or parameter whose type
 *    is a pointer; the access is base_off bytes from the pointer's value.
 *    This is the approach of `perf annotate --data-type`;
 *  - dt_pointer chains (below): when no variable is in the register, the
 *    pointer is followed back to the global, or the member of another
 *    typed object, it was loaded from (detector/pointer_origin.h).
 * Every way, the offset is resolved through the type to a member path,
 * arrays and nested structs included: "[1]", ".secondary_super_cache",
 * "[3].hits", ".inner.a[2]".
 *
 * Conventions: through a pointer, p[0] gives ".member" and p[i] (i > 0)
 * gives "[i].member"; padding resolves to the enclosing struct with the
 * hole's offset/size; bitfields resolve to the bytes covering them; layout
 * members named NULL are padding holes, "" are anonymous members.  A
 * variable located at DW_OP_bregN 0 (the register points to it, as for a
 * struct passed by invisible reference) counts as held in register N.
 *
 * Results are cached (per module and pc/register, and per global address).
 * Returned pointers are owned by the data_types object.  The Dwfl must
 * outlive it (cached DIEs point into its Dwarf); free the data_types with
 * or before its Dwfl.  Not thread-safe.
 */
#ifndef CONTEND_DATA_TYPES_H
#define CONTEND_DATA_TYPES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct Dwfl_Module;
struct data_types;

/* A C++ member's access as declared (DWARF's DW_ACCESS_* numbers): a
 * class's members are private where DWARF says nothing, a struct's public.
 * NONE: a hole, a base class, a C or Rust member. */
enum member_access { MEMBER_ACCESS_NONE, MEMBER_PUBLIC, MEMBER_PROTECTED, MEMBER_PRIVATE };
/* "public", "protected", "private"; NULL for none */
static inline const char *member_access_name(unsigned access)
{
	return access == MEMBER_PUBLIC ? "public" : access == MEMBER_PROTECTED ? "protected" :
	       access == MEMBER_PRIVATE ? "private" : NULL;
}

struct type_member {
	const char *name;         /* "secondary_super_cache", or NULL for padding */
	const char *type_name;    /* "Klass *", "long", "struct arr" */
	uint64_t offset, size;    /* bytes, relative to the struct */
	uint8_t access;           /* enum member_access */
	bool base;                /* a C++ base class's subobject (name NULL) */
	unsigned decl_line;       /* DW_AT_decl_line, 0: unknown (in the
	                             struct's decl_file: C and C++ cannot
	                             declare a member elsewhere) */
};

/* The layout of one struct/union type, or of an array's element when the
 * object is an array of scalars (members empty, elem_size set). */
struct type_layout {
	const char *name;         /* "struct Klass", "long" */
	uint64_t size;            /* sizeof */
	uint64_t align;           /* alignment of the type (from DWARF, else guessed) */
	struct type_member *members;
	unsigned n_members;
	bool cxx;                 /* from a C++ unit: advice in C++ spelling */
	bool rust;                /* from a Rust unit: advice in Rust spelling */
	bool go;                  /* from a Go unit: advice in Go spelling */
	bool cxx_class;           /* a C++ class, not a struct: layouts say so */
	bool library;             /* declared in a system header (libstdc++'s
	                             std::thread state): not the user's to pad */
	const char *decl_file;    /* where DWARF says it is declared (as the
	                             compiler saw the path), NULL: unknown */
	unsigned decl_line;       /*   and its line, 0: unknown */
};

struct data_attribution {
	const char *variable;     /* "counters", "klass_c1", or the pointer
	                             variable's name ("sub", "stats") */
	bool via_pointer;         /* found through data_types_in_register */
	const char *type_name;    /* type of the object: "long[4]", "struct Klass" */
	const char *path;         /* member path at the offset, "" if whole object */
	uint64_t object_start;    /* absolute address of the object (pointee for pointers) */
	uint64_t member_offset;   /* of the innermost member/element, from object_start */
	uint64_t member_size;
	/* The innermost struct containing the access (or the array element
	 * type), for layout advice; NULL when none. */
	const struct type_layout *layout;
	uint64_t layout_start;    /* absolute address of that struct/element instance */
	long element_index;       /* index in the outermost array, -1 if not an array */
	/* A global's own declared alignment (_Alignas(64) or alignas(64) on
	 * the variable, not its type: DW_AT_alignment on the variable), 0 if
	 * none; what keeps the object where it starts, as an aligned
	 * allocation does a heap block.  For a struct the code carves out of
	 * such a global through a pointer, what that declaration gives the
	 * struct's start (reports/report_objects.c, arena_struct). */
	uint64_t variable_align;
	/* A global's declaration (DW_AT_decl_file/line of the variable):
	 * NULL/0 for a pointer's target or unknown */
	const char *variable_decl_file;
	unsigned variable_decl_line;
};

enum data_types_miss {
	DT_HIT = 0,
	DT_NO_DWARF,              /* module has no debug info */
	DT_NO_VARIABLE,           /* no variable at addr / no variable in that register at pc */
	DT_NOT_POINTER,           /* variable in register is not a pointer */
	DT_NO_TYPE,               /* pointee type incomplete or void */
	DT_NO_ORIGIN,             /* no variable in the base register, and no
	                             load of it found (detector/pointer_origin.h) */
	DT_DEBUG_NOT_INSTALLED,   /* DT_NO_DWARF of a binary built with -g whose
	                             DWARF was split off to a file not found here
	                             (its .gnu_debuglink): data_types_debug_split */
	DT_DEBUG_NOT_SERVED,      /* DT_DEBUG_NOT_INSTALLED, and libdwfl asked the
	                             debuginfod servers DEBUGINFOD_URLS names:
	                             data_types_debuginfod_asked */
	DT__COUNT
};
const char *data_types_miss_name(enum data_types_miss m);
/* The name of the separate debug file mod's .gnu_debuglink names (its
 * DWARF was split off, as distributions ship it), or NULL: mod has its
 * DWARF, names none, or is NULL.  Points into mod's ELF data. */
const char *data_types_debug_split(struct Dwfl_Module *mod);
/* True when libdwfl asks debuginfod for missing debug info: DEBUGINFOD_URLS
 * was set when this process started and libdebuginfod is loaded (libdwfl
 * loads it then, from its constructor, and says nothing when it cannot). */
bool data_types_debuginfod_asked(void);

struct data_types *data_types_new(void);
void data_types_free(struct data_types *dt);

/* addr and pc are absolute; bias is the module's load bias.  size is the
 * access's, in bytes (0: unknown): where members overlap (unions, C++
 * empty bases) it picks the member the access fits best. */
enum data_types_miss data_types_global(struct data_types *dt,
				       struct Dwfl_Module *mod, uint64_t bias,
				       uint64_t addr, struct data_attribution *out);
enum data_types_miss data_types_global_access(struct data_types *dt,
					      struct Dwfl_Module *mod, uint64_t bias,
					      uint64_t addr, unsigned size,
					      struct data_attribution *out);
/*
 * A copy relocation puts a library's variable in the executable's .bss:
 * the executable's DWARF only declares it (data_types_global_access reads
 * such a declaration when it has the type), the library's defines it.
 * addr lies in a data symbol of data_mod; this answers with the variable
 * of that symbol's name as other_mod's DWARF knows it (typically the
 * module of the code making the access).
 */
enum data_types_miss data_types_global_elsewhere(struct data_types *dt,
						 struct Dwfl_Module *data_mod,
						 uint64_t addr, unsigned size,
						 struct Dwfl_Module *other_mod,
						 struct data_attribution *out);
enum data_types_miss data_types_in_register(struct data_types *dt,
					    struct Dwfl_Module *mod, uint64_t bias,
					    uint64_t pc, int dwarf_reg,
					    int64_t base_off, uint64_t addr,
					    struct data_attribution *out);

/*
 * Pointers, for following a pointer from where it was loaded when no
 * variable describes the register an access goes through (the
 * instruction-level part is detector/pointer_origin.h).  A dt_pointer is
 * a pointer whose target type DWARF gives: a variable in a register, the
 * address of a global or of a variable on the stack (an array decays to
 * its first element, as in C), or a pointer loaded from a member of what
 * another dt_pointer points to.
 * Owned by dt, and equal pointers are the same object.
 *
 * off counts bytes from where the pointer points, so off >= sizeof the
 * target is p[i].  any_element: an unknown multiple of the target's size
 * was added to the pointer (an index register, a join in the code), so
 * only the offset modulo that size is known; negative offsets are then
 * fine, otherwise they are refused (container_of() is not worth a guess).
 */
struct dt_pointer;

/* The pointer a DWARF variable in dwarf_reg holds at pc (as above). */
enum data_types_miss data_types_register_pointer(struct data_types *dt,
						 struct Dwfl_Module *mod, uint64_t bias,
						 uint64_t pc, int dwarf_reg,
						 const struct dt_pointer **out);
/* The address of the global variable holding addr; *off is addr's
 * offset from where that pointer points. */
enum data_types_miss data_types_global_address(struct data_types *dt,
					       struct Dwfl_Module *mod, uint64_t bias,
					       uint64_t addr,
					       const struct dt_pointer **out,
					       int64_t *off);
/* The variable whose storage holds the stack slot at dwarf_reg + off just
 * before pc (dwarf_reg: the stack or frame pointer; DW_OP_fbreg, the
 * frame base through the CFI, or DW_OP_bregN locations): its address,
 * and *ptr_off, the slot's offset from it. */
enum data_types_miss data_types_stack_address(struct data_types *dt,
					      struct Dwfl_Module *mod, uint64_t bias,
					      uint64_t pc, int dwarf_reg, int64_t off,
					      const struct dt_pointer **out,
					      int64_t *ptr_off);
/* The pointer a load of 8 bytes at p + off reads: p's target must have a
 * pointer member starting there (DT_NOT_POINTER otherwise). */
enum data_types_miss data_types_member_pointer(struct data_types *dt,
					       const struct dt_pointer *p,
					       int64_t off, bool any_element,
					       const struct dt_pointer **out);
/* sizeof what p points to (0 if unknown). */
uint64_t data_types_pointer_size(const struct dt_pointer *p);
/* An access of size bytes (0: unknown) at addr, which is p + off. */
enum data_types_miss data_types_through_pointer(struct data_types *dt,
						const struct dt_pointer *p,
						int64_t off, bool any_element,
						uint64_t addr, unsigned size,
						struct data_attribution *out);

#endif
