/* pointer_origin.h - the type of an access whose base register no DWARF
 * variable describes, found by following the register back to the load
 * that set it.
 *
 * At -O2 the register an access goes through often holds no variable: a
 * pointer reloaded from a global in each iteration (c->rx.packets with a
 * static struct conn *c), std::vector's _M_start plus an index.  As perf
 * annotate --data-type does, the instructions before the access (same
 * function, a bounded linear scan back) are searched for the one that
 * wrote the register.  A load from a global, or from a member of an object
 * already typed this way, gives the pointer's type; an lea, a copy or an
 * addition carries it along (data_types.h, dt_pointer).  Index registers,
 * register additions and branch targets crossed on the way make the
 * element unknown: only the offset modulo the element size is trusted.
 *
 * Answers are cached per (module, code address, register, offset, size).
 * The symbolizer and the data_types must outlive the pointer_origins.
 */
#ifndef CONTEND_POINTER_ORIGIN_H
#define CONTEND_POINTER_ORIGIN_H

#include <stdint.h>
#include <sys/types.h>

#include "symbolize/data_types.h"

struct symbolizer;
struct pointer_origins;

/* NULL if no decoder opens (Capstone). */
struct pointer_origins *pointer_origins_new(struct symbolizer *sym,
					    struct data_types *dt);
void pointer_origins_free(struct pointer_origins *po);

/* The access of size bytes at addr, made by the instruction at pc (absolute)
 * through base register dwarf_reg, base_off bytes from its value: the DWARF
 * variable in the register if there is one, else the trail back.  Misses:
 * DT_NO_DWARF when the code has no debug info, DT_NO_ORIGIN when no
 * variable or load could be found for the register. */
enum data_types_miss pointer_origin_access(struct pointer_origins *po, pid_t pid,
					   uint64_t pc, int dwarf_reg, int64_t base_off,
					   uint64_t addr, unsigned size,
					   struct data_attribution *out);

#endif
