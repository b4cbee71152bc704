/* pointer_origin.c - following a base register back to its load (see
 * pointer_origin.h).
 *
 * A function is decoded forward once from its symbol's start (x86 cannot
 * be decoded backwards): its instruction addresses, and the targets of its
 * direct branches.  From the access, at most MAX_SCAN_BACK instructions are
 * searched backwards for the last one that wrote the register; what that
 * one did decides:
 *   mov sym(%rip),%r      the pointer stored in a global
 *   mov off(%rbp),%r      the pointer stored in a variable on the stack
 *   mov off(%b),%r        the pointer stored in a member of what b points to
 *   lea off(%b),%r        b, moved by off
 *   mov %b,%r             b
 *   add $imm,%r           r as before, moved by imm
 *   add %b,%r / add m,%r  one of the two is the pointer, the other an index
 * and b (or r before the instruction) is traced the same way, up to
 * MAX_HOPS times.  A DWARF variable in the register ends the trail early:
 * it is what the compiler says is there.
 *
 * Control flow is not followed, only the straight line back.  A branch
 * target crossed between the writer and the access is a join: another path
 * may have moved the pointer (a loop's p++), so the element becomes
 * unknown.  The type is still trusted: a register rarely holds pointers to
 * different types on two paths to the same access where no variable says
 * so.
 */
#include "symbolize/pointer_origin.h"
#include "symbolize/decode.h"
#include "symbolize/symbolizer.h"
#include "common/hashmap.h"
#include "common/util.h"

#include <stdlib.h>
#include <string.h>

#define MAX_FUNCTION_BYTES (256 * 1024)
#define MAX_SCAN_BACK 64           /* instructions searched for the writer */
#define MAX_HOPS 8                 /* registers traced for one access */

/* A direct branch inside the function. */
struct branch {
	uint64_t from, to;
};

/* One function's code, decoded once. */
struct function_code {
	pid_t pid;
	uint64_t start, end;
	uint8_t *bytes;
	uint64_t *insns;           /* instruction addresses, ascending */
	size_t n_insns, alloc_insns;
	struct branch *branches;
	size_t n_branches, alloc_branches;
};

/* Where a register's pointer came from: it points off bytes from where
 * ptr points (plus an unknown number of elements when any_element). */
struct origin {
	enum data_types_miss miss;
	const struct dt_pointer *ptr;
	int64_t off;
	bool any_element;
};

/* The cache's key; a hashmap key, so no padding. */
struct origin_key {
	const void *mod;
	uint64_t pc, reg;          /* pc relative to the module's bias */
};

struct pointer_origins {
	struct symbolizer *sym;
	struct data_types *dt;
	struct decoder_set decs;   /* by the ELF machine of the code */
	struct decoder *dec;       /* of the access being traced */
	const struct decode_arch *arch;   /* of dec: its stack registers */
	struct function_code fn;   /* the last function decoded */
	struct hashmap cache;      /* origin_key -> struct origin */
};

struct pointer_origins *pointer_origins_new(struct symbolizer *sym,
					    struct data_types *dt)
{
	struct pointer_origins *po = xcalloc(1, sizeof(*po));

	po->dec = decoder_set_get(&po->decs, EM_NONE);
	if (!po->dec) {
		free(po);
		return NULL;
	}
	po->sym = sym;
	po->dt = dt;
	po->arch = decoder_arch(po->dec);
	hashmap_init(&po->cache, sizeof(struct origin_key));
	return po;
}

static void function_release(struct function_code *fn)
{
	free(fn->bytes);
	free(fn->insns);
	free(fn->branches);
	memset(fn, 0, sizeof(*fn));
}

void pointer_origins_free(struct pointer_origins *po)
{
	if (!po)
		return;
	decoder_set_release(&po->decs);
	function_release(&po->fn);
	hashmap_release(&po->cache, free);
	free(po);
}

/* ---- the cache ------------------------------------------------------------- */

static const struct origin *cache_get(const struct pointer_origins *po,
				      const void *mod, uint64_t pc, int reg)
{
	struct origin_key k = { mod, pc, (uint64_t)reg };

	return hashmap_get(&po->cache, &k);
}

static void cache_put(struct pointer_origins *po, const void *mod, uint64_t pc,
		      int reg, const struct origin *o)
{
	struct origin_key k = { mod, pc, (uint64_t)reg };
	struct origin *copy = xmalloc(sizeof(*copy));

	*copy = *o;
	free(hashmap_put(&po->cache, &k, copy));
}

/* ---- the function's code ------------------------------------------------------ */

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return (x > y) - (x < y);
}

/* Decodes until the end, or the first bytes that are no instruction
 * (a jump table, padding): what comes after is not needed. */
static void function_decode(struct pointer_origins *po, struct function_code *fn,
			    size_t len)
{
	struct insn_info ii;
	size_t off = 0;

	while (off < len &&
	       decoder_insn(po->dec, fn->bytes + off, len - off, fn->start + off, &ii)) {
		ALLOC_GROW(fn->insns, fn->n_insns + 1, fn->alloc_insns);
		fn->insns[fn->n_insns++] = fn->start + off;
		if (ii.has_target && !ii.is_call &&
		    ii.target >= fn->start && ii.target < fn->end) {
			ALLOC_GROW(fn->branches, fn->n_branches + 1, fn->alloc_branches);
			fn->branches[fn->n_branches++] =
				(struct branch){ fn->start + off, ii.target };
		}
		off += ii.length;
	}
}

/* The function holding pc, decoded (kept until another one is needed). */
static const struct function_code *function_at(struct pointer_origins *po,
					       pid_t pid, uint64_t pc)
{
	struct function_code *fn = &po->fn;
	struct func_info fi;
	uint8_t *code;
	size_t len;

	if (fn->insns && fn->pid == pid && pc >= fn->start && pc < fn->end)
		return fn;
	if (!(code = symbolizer_function_code(po->sym, pid, pc, MAX_FUNCTION_BYTES, &fi, &len)))
		return NULL;
	function_release(fn);
	fn->pid = pid;
	fn->start = fi.start;
	fn->end = fi.end;
	fn->bytes = code;
	function_decode(po, fn, len);
	if (!fn->n_insns) {
		function_release(fn);
		return NULL;
	}
	return fn;
}

/* Index of the instruction at pc; -1 if pc is not an instruction start. */
static long insn_index(const struct function_code *fn, uint64_t pc)
{
	const uint64_t *hit = search_items(&pc, fn->insns, fn->n_insns, sizeof(*fn->insns),
				      cmp_u64);

	return hit ? hit - fn->insns : -1;
}

static bool writes_reg(struct pointer_origins *po, const struct function_code *fn,
		       size_t i, int reg)
{
	uint64_t ip = fn->insns[i];
	struct reg_flow flow;

	/* bytes that do not decode: assume the worst */
	return !decoder_reg_flow(po->dec, fn->bytes + (ip - fn->start), fn->end - ip,
				 ip, reg, &flow) || flow.kind != FLOW_NONE;
}

/* reg is written in [insns[from], to]. */
static bool written_in(struct pointer_origins *po, const struct function_code *fn,
		       size_t from, uint64_t to, int reg)
{
	for (size_t i = from; i < fn->n_insns && fn->insns[i] <= to; i++)
		if (writes_reg(po, fn, i, reg))
			return true;
	return false;
}

/*
 * Can reg reach the instruction at index at with another value than the
 * writer's (index w), by a branch landing between them?  A jump from
 * before the writer skips it; a loop's back edge brings whatever the loop
 * body after the access did to reg (p++).  A branch from between the two
 * brings the writer's value: no instruction between them writes reg.
 */
static bool joined(struct pointer_origins *po, const struct function_code *fn,
		   long w, long at, int reg)
{
	uint64_t writer = fn->insns[w], pc = fn->insns[at];

	for (size_t i = 0; i < fn->n_branches; i++) {
		const struct branch *b = &fn->branches[i];

		if (b->to <= writer || b->to > pc)
			continue;
		if (b->from <= writer)
			return true;
		if (b->from >= pc && written_in(po, fn, (size_t)at, b->from, reg))
			return true;
	}
	return false;
}

/* The last instruction before pc (index at) that wrote reg, and what it
 * did; -1 if none within MAX_SCAN_BACK. */
static long find_writer(struct pointer_origins *po, const struct function_code *fn,
			long at, int reg, struct reg_flow *flow)
{
	for (long i = at - 1; i >= 0 && at - i <= MAX_SCAN_BACK; i--) {
		uint64_t ip = fn->insns[i];

		if (!decoder_reg_flow(po->dec, fn->bytes + (ip - fn->start),
				      fn->end - ip, ip, reg, flow))
			return -1;
		if (flow->kind != FLOW_NONE)
			return i;
	}
	return -1;
}

/* ---- tracing ------------------------------------------------------------------- */

struct trace {
	struct pointer_origins *po;
	pid_t pid;
	struct Dwfl_Module *mod;   /* of the code */
	uint64_t bias;
	int hops;
};

static struct origin register_origin(struct trace *t, uint64_t pc, int reg);

static struct origin missed(enum data_types_miss miss)
{
	return (struct origin){ .miss = miss };
}

/* A dt_pointer lookup that found no variable at the source of a load:
 * for the report, that is no origin found, not a missing variable. */
static enum data_types_miss no_origin(enum data_types_miss miss)
{
	return miss == DT_NO_VARIABLE ? DT_NO_ORIGIN : miss;
}

/* &global (plus an unknown index when indexed). */
static struct origin global_origin(struct trace *t, uint64_t addr, bool indexed)
{
	struct origin o = { 0 };
	uint64_t bias;
	struct Dwfl_Module *mod = symbolizer_module(t->po->sym, t->pid, addr, &bias);

	o.miss = no_origin(data_types_global_address(t->po->dt, mod, bias, addr,
						     &o.ptr, &o.off));
	o.any_element = indexed;
	return o;
}

/* &variable for a stack slot at base + disp (a local pointer at -O0, a
 * spill at -O2). */
static struct origin stack_origin(struct trace *t, uint64_t pc, const struct mem_ref *mem)
{
	struct origin o = { 0 };

	o.miss = no_origin(data_types_stack_address(t->po->dt, t->mod, t->bias, pc,
						    mem->base_reg, mem->disp,
						    &o.ptr, &o.off));
	o.any_element = mem->index_reg >= 0;
	return o;
}

/* What mem's address is, before the instruction at pc: a global's, a
 * stack variable's, or a traced register's moved by the displacement. */
static struct origin address_origin(struct trace *t, uint64_t pc, const struct mem_ref *mem)
{
	const struct decode_arch *arch = t->po->arch;
	bool indexed = mem->index_reg >= 0;
	struct origin o;

	if (mem->absolute)
		return global_origin(t, (uint64_t)mem->disp, indexed);
	/* rbp is the frame pointer, or at -O2 maybe just another register */
	if (mem->base_reg == arch->dwarf_sp || mem->base_reg == arch->dwarf_fp) {
		o = stack_origin(t, pc, mem);
		if (o.miss == DT_HIT || mem->base_reg == arch->dwarf_sp)
			return o;
	}
	o = register_origin(t, pc, mem->base_reg);
	o.off += mem->disp;
	o.any_element |= indexed;
	return o;
}

/* The pointer the 8-byte load at mem reads. */
static struct origin loaded_origin(struct trace *t, uint64_t pc, const struct mem_ref *mem)
{
	struct origin at = address_origin(t, pc, mem), o = { 0 };

	if (at.miss != DT_HIT)
		return at;
	o.miss = no_origin(data_types_member_pointer(t->po->dt, at.ptr, at.off,
						     at.any_element, &o.ptr));
	return o;
}

/* reg += something: the pointer is one of the two; the other, an index. */
static struct origin sum_origin(struct trace *t, uint64_t pc, int reg,
				struct origin other)
{
	if (other.miss != DT_HIT)
		other = register_origin(t, pc, reg);
	other.any_element = true;
	return other;
}

static struct origin writer_origin(struct trace *t, uint64_t pc, int reg,
				   const struct reg_flow *f)
{
	struct origin o;

	switch (f->kind) {
	case FLOW_LOAD:
		return loaded_origin(t, pc, &f->mem);
	case FLOW_ADDRESS:
		return address_origin(t, pc, &f->mem);
	case FLOW_COPY:
		return register_origin(t, pc, f->src_reg);
	case FLOW_ADD_IMM:
		o = register_origin(t, pc, reg);
		o.off += f->imm;
		return o;
	case FLOW_ADD_REG:
		return sum_origin(t, pc, reg, register_origin(t, pc, f->src_reg));
	case FLOW_ADD_LOAD:
		return sum_origin(t, pc, reg, loaded_origin(t, pc, &f->mem));
	default:
		return missed(DT_NO_ORIGIN);
	}
}

/* What reg points to just before the instruction at pc executes. */
static struct origin register_origin(struct trace *t, uint64_t pc, int reg)
{
	const struct function_code *fn;
	struct reg_flow flow;
	struct origin o = { 0 };
	bool join;
	long at, w;

	if (reg < 0 || reg == t->po->arch->dwarf_sp)
		return missed(DT_NO_ORIGIN);
	o.miss = data_types_register_pointer(t->po->dt, t->mod, t->bias, pc, reg, &o.ptr);
	if (o.miss != DT_NO_VARIABLE)
		return o;                   /* a variable, or no DWARF to type with */
	if (++t->hops > MAX_HOPS)
		return missed(DT_NO_ORIGIN);
	fn = function_at(t->po, t->pid, pc);
	at = fn ? insn_index(fn, pc) : -1;
	w = at < 0 ? -1 : find_writer(t->po, fn, at, reg, &flow);
	if (w < 0)
		return missed(DT_NO_ORIGIN);
	join = joined(t->po, fn, w, at, reg);
	o = writer_origin(t, fn->insns[w], reg, &flow);
	o.any_element |= join;
	return o;
}

enum data_types_miss pointer_origin_access(struct pointer_origins *po, pid_t pid,
					   uint64_t pc, int dwarf_reg, int64_t base_off,
					   uint64_t addr, unsigned size,
					   struct data_attribution *out)
{
	struct trace t = { .po = po, .pid = pid };
	const struct origin *cached;
	struct origin o;

	memset(out, 0, sizeof(*out));
	out->path = "";
	out->element_index = -1;
	t.mod = symbolizer_module(po->sym, pid, pc, &t.bias);
	if (!t.mod)
		return DT_NO_DWARF;
	/* the code's own architecture: a recording may come from another */
	po->dec = decoder_set_get(&po->decs, symbolizer_machine(po->sym, pid, pc));
	if (!po->dec)
		return DT_NO_ORIGIN;
	po->arch = decoder_arch(po->dec);
	cached = cache_get(po, t.mod, pc - t.bias, dwarf_reg);
	if (cached) {
		o = *cached;
	} else {
		o = register_origin(&t, pc, dwarf_reg);
		cache_put(po, t.mod, pc - t.bias, dwarf_reg, &o);
	}
	if (o.miss != DT_HIT)
		return o.miss;
	return data_types_through_pointer(po->dt, o.ptr, o.off + base_off, o.any_element,
					  addr, size, out);
}
