/* data_types_sized.h - a heap block's type when only its size is known.
 *
 * A block read from the heap (detector/glibc_heap.h, under attach) has no
 * allocation site, so no variable the allocating code kept it in: only
 * its size (within malloc's rounding) and the accesses into it.  Its type
 * is taken to be a struct (or class) of the accessing code's compilation
 * unit, defined at its top level, such that:
 *  - some whole number n >= 1 of it fills the block: n x sizeof lies in
 *    [asked_lo, asked_hi] (glibc_heap_asked());
 *  - the access at off lies in those n elements and, where the access's
 *    own type is known (leaf: "int" for int *red), lands on a scalar
 *    member of that very type name;
 *  - it is the only such type (one name and size: the unit's copies of one
 *    type count once; a struct whose one member, at offset 0, is another
 *    of the same size counts as that other).  Two or more: no answer.  A
 *    guess by size, so the caller must say so.
 * The pointer returned is named as the unit's pointer variables,
 * parameters and members to that type are, when they all agree ("arg"),
 * else "block".  Bounded: at most DT_SIZED_DIES DIEs of the unit looked at.
 */
#ifndef CONTEND_DATA_TYPES_SIZED_H
#define CONTEND_DATA_TYPES_SIZED_H

#include <stdint.h>

#include "symbolize/data_types.h"

#define DT_SIZED_DIES 200000

struct Dwfl_Module;

/* pc and bias as for data_types_in_register(); *elem the type's size,
 * *count the n above. */
enum data_types_miss data_types_sized_pointer(struct data_types *dt, struct Dwfl_Module *mod,
					      uint64_t bias, uint64_t pc,
					      uint64_t asked_lo, uint64_t asked_hi,
					      uint64_t off, unsigned size, const char *leaf,
					      const struct dt_pointer **out, uint64_t *elem,
					      uint64_t *count);

#endif
