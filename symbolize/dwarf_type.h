/* dwarf_type.h - reading C types out of DWARF DIEs.
 *
 * Small, stateless helpers over libdw: follow a DIE's type, peel typedefs
 * and qualifiers, sizes and completeness, array bounds, member offsets and
 * bitfields, alignment (DW_AT_alignment, else computed as the compiler
 * does), and a type's name in C declarator syntax ("const char *[8]",
 * "void (*)(int)").  data_types.c builds variables, paths and layouts on
 * top of them.  Depth-bounded: bad or cyclic DWARF cannot loop.
 */
#ifndef CONTEND_DWARF_TYPE_H
#define CONTEND_DWARF_TYPE_H

#include <stdbool.h>
#include <stdint.h>
#include <elfutils/libdw.h>

#include "common/util.h"

/* Bound on type nesting and typedef chains; also stops cycles in bad DWARF. */
#define DWARF_TYPE_MAX_DEPTH 32

/* A DIE's name (through abstract_origin/specification), its DW_AT_type,
 * and an unsigned attribute. */
const char *die_name(Dwarf_Die *die);
bool die_type(Dwarf_Die *die, Dwarf_Die *type);
bool die_udata(Dwarf_Die *die, unsigned name, Dwarf_Word *val);
/* Its DW_AT_decl_line (bounded to what a source file can have), 0: none */
unsigned die_decl_line(Dwarf_Die *die);

/* Tags. */
bool is_aggregate(int tag);      /* struct, union, class */
bool is_pointer(int tag);        /* pointer, reference, rvalue reference */

/* Through typedefs and qualifiers to the type itself (peel_type also
 * reports the outermost typedef's name); false if it ends in void. */
bool peel_type(Dwarf_Die *type, const char **typedef_name);
bool strip_qualifiers(Dwarf_Die *type);
uint64_t type_size(Dwarf_Die *type);
bool is_complete(Dwarf_Die *type);
/* The DW_LANG_* of die's unit, -1 if it has none; is it C++? */
int die_language(Dwarf_Die *die);
bool in_cxx_unit(Dwarf_Die *die);
/* A type of Rust's standard library that wraps one value (AtomicU64,
 * UnsafeCell<u64>): rustc gives its types no DW_AT_decl_file to tell. */
bool rust_std_wrapper(Dwarf_Die *type);
void subrange_bounds(Dwarf_Die *sub, int64_t *lower, uint64_t *count);

/* Members: is this child a data member, its byte offset, and for a
 * bitfield the bits it covers (false for ordinary members). */
bool is_data_member(Dwarf_Die *child);
bool member_location(Dwarf_Die *member, uint64_t *off);
bool member_bits(Dwarf_Die *member, uint64_t byte_loc,
		 uint64_t *bit_start, uint64_t *bit_size);

/* Alignment: DW_AT_alignment, else as the compiler lays it out. */
uint64_t type_align(Dwarf_Die *type, int depth);
uint64_t struct_align(Dwarf_Die *s, int depth);

/* The type's name in C declarator syntax, appended to out (depth 0); a
 * C++ type qualified by its namespaces and classes when sc is given
 * ("std::atomic<long>", "net::Pool::Slot *"). */
struct dwarf_scopes;
void format_type(Dwarf_Die *type, struct strbuf *out, int depth, struct dwarf_scopes *sc);

#endif
