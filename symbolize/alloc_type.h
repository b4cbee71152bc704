/* alloc_type.h - the type of a heap block, read from the code that
 * allocated it.
 *
 * At an allocation call's return address the block's address is in the
 * return register.  The DWARF variable the caller keeps it in (a pointer,
 * say struct worker_arg *arg) is the block's type: in the return register
 * itself, or -- at -O2 the location list often starts an instruction or
 * two later -- in a register the value is copied to.  The instructions
 * after the call are followed (falling through only, past a conditional
 * branch such as an "if (!p)" check's, up to a call or a jump, at most
 * ALLOC_TYPE_INSNS, until the value is overwritten everywhere), asking at
 * each which variable holds it.  A block stored straight to memory with
 * no variable describing it (p->items = malloc(...)) is not typed here.
 * Answers are cached per return address; the symbolizer and data_types
 * must outlive the alloc_types.
 */
#ifndef CONTEND_ALLOC_TYPE_H
#define CONTEND_ALLOC_TYPE_H

#include <stdint.h>
#include <sys/types.h>

#include "symbolize/data_types.h"

#define ALLOC_TYPE_INSNS 12

struct symbolizer;
struct alloc_types;

/* NULL if no decoder opens (Capstone, or an architecture without one). */
struct alloc_types *alloc_types_new(struct symbolizer *sym, struct data_types *dt);
void alloc_types_free(struct alloc_types *at);

/* The pointer the allocation returning to ret (absolute, in pid) was kept
 * in; DT_NO_DWARF without debug info at ret, DT_NO_VARIABLE when no
 * variable holds the returned value. */
enum data_types_miss alloc_type_at(struct alloc_types *at, pid_t pid, uint64_t ret,
				   const struct dt_pointer **out);

#endif
