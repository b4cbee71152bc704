#include "detector/soft.h"

#include <stdlib.h>
#include <string.h>

#include "symbolize/decode.h"
#include "common/hashmap.h"
#include "common/access.h"
#include "common/util.h"
#include "symbolize/symbolizer.h"

#define MAX_FUNC_BYTES (1u << 20)

enum soft_drop {
	DROP_NO_REGS,          /* sample without user registers */
	DROP_NO_DECODER,       /* code of an architecture without a decoder */
	DROP_BAD_ADDRESS,      /* computed address is not a user address */
	DROP_CODE_UNREADABLE,
	DROP_DECODE,           /* + decode_status */
	DROP__COUNT = DROP_DECODE + DECODE__COUNT
};

/* A direct branch from source to target, offsets in the function. */
struct branch_edge {
	uint32_t target, source;
};

/* Instruction boundaries and branch targets of one function, decoded once. */
struct func_code {
	uint32_t pid;
	uint64_t start, end;
	struct decoder *dec;     /* of the architecture of the function's file */
	unsigned width;          /* its fixed instruction length, 0: variable */
	uint8_t *bytes;
	uint32_t *insn;          /* offsets of instruction starts, ascending */
	unsigned n_insn;
	struct branch_edge *edges;   /* direct branches within it, by target */
	unsigned n_edges;
	uint32_t *fences;        /* offsets of its fences (insn_info.is_fence), ascending */
	unsigned n_fences;
	bool ok;
	bool go;                 /* Go code: its g register names the goroutine */
};

struct soft {
	struct symbolizer *sym;
	struct decoder_set decs;      /* by the ELF machine of the sampled code */
	struct hashmap funcs;         /* struct func_code *, by func_hash() */
	struct hashmap goroutines;    /* (pid, g) -> number + 1 (GOROUTINE_TID_BASE) */
	uint32_t n_goroutines;
	uint64_t seen, decoded;
	uint64_t drops[DROP__COUNT];
};

void soft_event_attr(struct perf_event_attr *attr, unsigned freq, bool callchain)
{
	memset(attr, 0, sizeof(*attr));
	attr->size = sizeof(*attr);
	attr->type = PERF_TYPE_SOFTWARE;
	attr->config = PERF_COUNT_SW_CPU_CLOCK;
	/* cpu-clock counts nanoseconds of CPU time: a fixed period gives every
	 * running thread exactly freq samples per second.  Frequency mode would
	 * let the kernel re-tune the period per inherited event and, measured
	 * here, halves the rate of threads created after exec. */
	attr->sample_period = 1000000000ULL / (freq ? freq : 1);
	attr->sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
			    PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD | PERF_SAMPLE_REGS_USER;
	attr->sample_regs_user = decode_native_regs_mask();
	if (callchain) {
		attr->sample_type |= PERF_SAMPLE_STACK_USER;
		attr->sample_stack_user = 16384;
	}
	attr->disabled = 1;
	attr->inherit = 1;
	attr->exclude_kernel = 1;
	attr->exclude_hv = 1;
	attr->mmap = 1;
	attr->mmap2 = 1;
	attr->mmap_data = 1;
	attr->comm = 1;
	attr->comm_exec = 1;
	attr->task = 1;
	attr->sample_id_all = 1;
	attr->watermark = 1;
	attr->wakeup_watermark = 64 * 1024;
}

struct soft *soft_new(struct symbolizer *sym)
{
	struct soft *s = xcalloc(1, sizeof(*s));
	s->sym = sym;
	hashmap_init(&s->funcs, 0);
	hashmap_init(&s->goroutines, 2 * sizeof(uint64_t));
	if (!decoder_set_get(&s->decs, EM_NONE))
		die("cannot initialise the instruction decoder (Capstone): %s",
		    decoder_unavailable(decode_arch_native() ?
					decode_arch_native()->elf_machine : EM_NONE));
	return s;
}

static void func_code_free(void *p)
{
	struct func_code *f = p;

	if (!f)
		return;
	free(f->bytes);
	free(f->insn);
	free(f->edges);
	free(f->fences);
	free(f);
}

void soft_free(struct soft *s)
{
	if (!s)
		return;
	hashmap_release(&s->funcs, func_code_free);
	hashmap_release(&s->goroutines, NULL);
	decoder_set_release(&s->decs);
	free(s);
}

static int cmp_edge(const void *a, const void *b)
{
	const struct branch_edge *x = a, *y = b;

	if (x->target != y->target)
		return x->target < y->target ? -1 : 1;
	return x->source < y->source ? -1 : x->source > y->source;
}

/* Walk the function linearly from its symbol start.  Compilers do not put
 * data inside x86 functions, so a linear sweep finds the real boundaries.
 * With fixed-width instructions (AArch64) every word is one: a word that
 * does not decode (a literal pool, an instruction Capstone does not know)
 * is kept as a boundary, and the walk only collects branch targets. */
static struct func_code *func_code_build(struct soft *s, uint32_t pid,
					 uint64_t start, uint64_t end)
{
	struct func_code *f = xcalloc(1, sizeof(*f));
	size_t len = end - start, alloc_insn = 0, alloc_t = 0, alloc_f = 0, off = 0;

	f->pid = pid;
	f->start = start;
	f->end = end;
	f->dec = decoder_set_get(&s->decs, symbolizer_machine(s->sym, pid, start));
	if (len == 0 || len > MAX_FUNC_BYTES || !f->dec)
		return f;
	f->go = decoder_arch(f->dec)->perf_go_g >= 0 &&
		symbolizer_language(s->sym, pid, start) == CODE_LANG_GO;
	f->width = decoder_arch(f->dec)->insn_width;
	f->bytes = xmalloc(len);
	if (symbolizer_read(s->sym, pid, start, f->bytes, len) != len)
		return f;
	while (off < len) {
		struct insn_info ii;
		if (!decoder_insn(f->dec, f->bytes + off, len - off, start + off, &ii) ||
		    ii.length == 0) {
			if (!f->width || len - off < f->width)
				break;
			ii = (struct insn_info){ .length = (uint8_t)f->width,
						 .falls_through = true };
		}
		ALLOC_GROW(f->insn, f->n_insn + 1, alloc_insn);
		f->insn[f->n_insn++] = (uint32_t)off;
		if (ii.is_fence) {
			ALLOC_GROW(f->fences, f->n_fences + 1, alloc_f);
			f->fences[f->n_fences++] = (uint32_t)off;
		}
		if (ii.has_target && !ii.is_call && ii.target >= start && ii.target < end) {
			ALLOC_GROW(f->edges, f->n_edges + 1, alloc_t);
			f->edges[f->n_edges++] = (struct branch_edge){
				.target = (uint32_t)(ii.target - start),
				.source = (uint32_t)off,
			};
		}
		off += ii.length;
	}
	if (f->n_edges)
		sort_items(f->edges, f->n_edges, sizeof(*f->edges), cmp_edge);
	f->ok = f->n_insn > 0;
	return f;
}

static uint64_t func_hash(uint32_t pid, uint64_t start)
{
	return hash_u64(start ^ ((uint64_t)pid << 48));
}

/* The function's decoded code, decoded on first use. */
static struct func_code *func_code_get(struct soft *s, uint32_t pid,
				       const struct func_info *fi)
{
	uint64_t hash = func_hash(pid, fi->start);
	struct func_code *f;
	size_t pos;

	for (f = hashmap_first_of(&s->funcs, hash, &pos); f;
	     f = hashmap_next_of(&s->funcs, hash, &pos))
		if (f->pid == pid && f->start == fi->start)
			return f;
	f = func_code_build(s, pid, fi->start, fi->end);
	hashmap_add(&s->funcs, hash, f);
	return f;
}

static bool u32_find(const uint32_t *a, unsigned n, uint32_t v, unsigned *idx)
{
	unsigned lo = 0, hi = n;
	while (lo < hi) {
		unsigned mid = lo + (hi - lo) / 2;
		if (a[mid] < v)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (idx)
		*idx = lo;
	return lo < n && a[lo] == v;
}

/* The index of the instruction at offset off.  With fixed-width
 * instructions the walk kept every word, so it is off / width and the
 * predecessor is the word before; otherwise the boundaries the walk found
 * say whether off is one. */
static bool insn_index(const struct func_code *f, uint32_t off, unsigned *idx)
{
	if (f->width) {
		if (off % f->width || off / f->width >= f->n_insn)
			return false;
		*idx = off / f->width;
		return true;
	}
	return u32_find(f->insn, f->n_insn, off, idx);
}

/* The index of the first edge whose target is at or after off. */
static unsigned first_edge_from(const struct func_code *f, uint32_t off)
{
	unsigned lo = 0, hi = f->n_edges;

	while (lo < hi) {
		unsigned mid = lo + (hi - lo) / 2;
		if (f->edges[mid].target < off)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* The index of the first edge into off; n_edges if none. */
static unsigned first_edge_to(const struct func_code *f, uint32_t off)
{
	unsigned e = first_edge_from(f, off);

	return e < f->n_edges && f->edges[e].target == off ? e : f->n_edges;
}

static bool is_branch_target(const struct func_code *f, uint32_t off)
{
	return first_edge_to(f, off) < f->n_edges;
}

static bool insn_touches_memory(const struct func_code *f, unsigned idx)
{
	struct insn_mem m;
	uint32_t off = f->insn[idx];
	size_t len = idx + 1 < f->n_insn ? f->insn[idx + 1] - off : f->end - f->start - off;

	return !decoder_memory(f->dec, f->bytes + off, len, f->start + off, &m) || m.access;
}

/* Whether the branch at source, at or after the join off, ends a block
 * laid out of line (an else the compiler moved past the loop) rather
 * than a loop around off: walking back from source to the block's entry
 * (an instruction the one before cannot fall into) passes no instruction
 * at or before off, and every branch into that stretch comes from before
 * off.  At most JOIN_WALK_MAX instructions are walked. */
#define JOIN_WALK_MAX 64
static bool ends_out_of_line_block(const struct func_code *f, unsigned src, uint32_t off)
{
	for (unsigned k = src, n = 0; n < JOIN_WALK_MAX; k--, n++) {
		struct insn_info ii;

		if (f->insn[k] <= off || k == 0)
			return false;
		for (unsigned e = first_edge_to(f, f->insn[k]);
		     e < f->n_edges && f->edges[e].target == f->insn[k]; e++)
			if (f->edges[e].source >= off)
				return false;
		if (!decoder_insn(f->dec, f->bytes + f->insn[k - 1], f->insn[k] - f->insn[k - 1],
				  f->start + f->insn[k - 1], &ii))
			return false;
		if (!ii.falls_through)
			return true;
	}
	return false;
}

/* Whether a sample at a join (an offset that is both the fall-through of
 * the instruction before it and the target of branches) belongs to the
 * fall-through path.  A stall sampled at the join can only come from an
 * instruction that waits; on a branch's path the instruction that retired
 * last is the branch itself -- a jmp, or a jcc fused with the compare
 * before it -- which waits only if that compare reads memory.  So when
 * every branch into off is an if's (from before it, or from an else laid
 * out of line), not a loop's back edge (which runs far more often than
 * the code above the loop), and none follows a memory access, the sample
 * is the fall-through's -- if that instruction is a locked RMW, which
 * holds retirement until its line is owned (~20 cycles uncontended, a
 * transfer contended).  Anything cheaper does not outwait the other
 * paths: in a tight loop the timer lands on whichever instruction starts
 * a retirement group, and a join after a plain store every 16th pass got
 * 14% of bench/gain-set/neighbour_flag's samples padded or not.
 * Measured (bench/gain-set/bitmap_or): a locked OR at the end of an if, a
 * locked AND at the end of its else, 41% of all samples at the join,
 * dropped as ambiguous before; 20% with the words padded apart. */
static bool join_is_fall_through(const struct func_code *f, uint32_t off)
{
	for (unsigned e = first_edge_to(f, off); e < f->n_edges && f->edges[e].target == off; e++) {
		const struct branch_edge *b = &f->edges[e];
		uint32_t next;
		struct insn_info ii;
		unsigned src;

		if (!insn_index(f, b->source, &src))
			return false;
		next = src + 1 < f->n_insn ? f->insn[src + 1] : (uint32_t)(f->end - f->start);
		if (!decoder_insn(f->dec, f->bytes + b->source, next - b->source,
				  f->start + b->source, &ii))
			return false;
		if (b->source >= off && !ends_out_of_line_block(f, src, off))
			return false;
		if (ii.falls_through && (src == 0 || insn_touches_memory(f, src - 1)))
			return false;   /* a jcc fused with a compare that may wait */
	}
	return true;
}

/* Whether off, reached by falling from poff, is the test of a rotated
 * loop -- gcc's -O2 shape "jmp test; body: ...; test: ...; jcc body" --
 * entered once by unconditional jumps from before the body and on every
 * pass by the fall-through from the body's last instruction at poff.  A
 * sample there is the body's: "addq $1,cfg+8(%rip)" then the test's
 * "mov stop(%rip),%eax" got 6118 of a writer's samples at the mov, none at
 * the addq.  Jumps into off must all come from before it; some back edge
 * from off or after must enter the body between the last such jump and
 * poff. */
static bool is_rotated_loop_test(const struct func_code *f, uint32_t off, uint32_t poff)
{
	uint32_t entry = 0;

	for (unsigned e = first_edge_to(f, off); e < f->n_edges && f->edges[e].target == off; e++) {
		const struct branch_edge *b = &f->edges[e];
		struct insn_info ii;
		unsigned src;

		if (b->source >= off || !insn_index(f, b->source, &src))
			return false;
		if (!decoder_insn(f->dec, f->bytes + b->source, f->insn[src + 1] - b->source,
				  f->start + b->source, &ii) || ii.falls_through)
			return false;   /* a conditional jump: an if, both paths hot */
		entry = b->source > entry ? b->source : entry;
	}
	for (unsigned e = first_edge_from(f, entry + 1);
	     e < f->n_edges && f->edges[e].target <= poff; e++)
		if (f->edges[e].source >= off)
			return true;
	return false;
}

/* The instruction that retired just before the one at insn[idx], when
 * that is certain: idx is not a branch target and its predecessor falls
 * through.  A conditional jump is looked through once: cmp/test + jcc
 * macro-fuse into one operation, so a stall on "cmp %rsi,(%rdi)" is
 * sampled after the jcc (measured: 88% of is_subtype_of's samples), and
 * the jcc changes no register.  A fence is looked through the same way:
 * after a volatile store HotSpot emits "lock addl $0,(%rsp)", which waits
 * for the store to drain, so the store's stall is sampled after the fence. */
static enum decode_status predecessor_access(struct soft *s, struct func_code *f,
					     unsigned idx, const struct regs *regs,
					     struct decoded_access *acc, uint64_t *at)
{
	enum decode_status st;
	struct insn_info ii;
	uint32_t poff, ioff = f->insn[idx];
	bool join;

	if (idx == 0)
		return DECODE__COUNT;
	poff = f->insn[idx - 1];
	join = is_branch_target(f, ioff) && !is_rotated_loop_test(f, ioff, poff);
	if (join && !join_is_fall_through(f, ioff))
		return DECODE__COUNT;   /* ambiguous: reached by a jump */
	if (!decoder_insn(f->dec, f->bytes + poff, ioff - poff, f->start + poff, &ii) ||
	    !ii.falls_through || ii.is_call)
		return DECODE__COUNT;
	*at = f->start + poff;
	st = decoder_access(f->dec, f->bytes + poff, ioff - poff, *at, regs, true, acc);
	if (join)   /* only a locked RMW outwaits the branches' paths */
		return st == DECODE_OK && acc->kind == ACCESS_ATOMIC ? st : DECODE__COUNT;
	if (((st == DECODE_NO_MEMORY && ii.has_target) || ii.is_fence) && idx >= 2 &&
	    !is_branch_target(f, poff)) {
		uint32_t ppoff = f->insn[idx - 2];
		enum decode_status st2;
		*at = f->start + ppoff;
		st2 = decoder_access(f->dec, f->bytes + ppoff, poff - ppoff, *at, regs, true, acc);
		if (st2 != DECODE_NO_MEMORY)
			return st2;
	}
	return st;
}

/* Is the store at `at` fenced: does the next instruction order memory
 * (HotSpot's volatile store, "mov; lock addl $0,(%rsp)")?  Uncontended
 * it still waits for the store to drain, which the gain model prices.
 * The function's sweep noted its fences: no decoding per sample. */
static bool store_is_fenced(const struct func_code *f, uint64_t at)
{
	unsigned idx;

	if (!f || !f->ok || at < f->start || at >= f->end)
		return false;
	return insn_index(f, (uint32_t)(at - f->start), &idx) && idx + 1 < f->n_insn &&
	       u32_find(f->fences, f->n_fences, f->insn[idx + 1], NULL);
}

/* The goroutine Go code ran on, as a tid (common/access.h): numbered in
 * order of first sight per (pid, g), at most GOROUTINE_MAX of them (a
 * server's goroutines come and go: later ones share numbers by hash,
 * which may merge two, never split one).  0 if the g register was not
 * sampled or holds no pointer. */
#define GOROUTINE_MAX (1u << 16)
static uint32_t goroutine_tid(struct soft *s, const struct func_code *f,
			      const struct perf_sample *ps)
{
	int reg = decoder_arch(f->dec)->perf_go_g;
	uint64_t key[2];
	void *known;

	if (!(ps->regs.mask & (1ULL << reg)) || ps->regs.val[reg] < 4096)
		return 0;
	key[0] = ps->regs.val[reg];
	key[1] = ps->pid;
	known = hashmap_get(&s->goroutines, key);
	if (known)
		return GOROUTINE_TID_BASE + (uint32_t)(uintptr_t)known - 1;
	if (s->n_goroutines >= GOROUTINE_MAX)
		return GOROUTINE_TID_BASE + (uint32_t)(hash_u64(key[0] ^ key[1] << 48) % GOROUTINE_MAX);
	hashmap_put(&s->goroutines, &key, (void *)(uintptr_t)(++s->n_goroutines));
	return GOROUTINE_TID_BASE + s->n_goroutines - 1;
}

/* Failures that mean "this instruction does touch memory, we just cannot
 * say where (or it is private)": they decide the drop reason. */
static bool is_memory_failure(enum decode_status st)
{
	return st != DECODE_OK && st != DECODE_NO_MEMORY && st != DECODE_INVALID &&
	       st != DECODE__COUNT;
}

bool soft_access(struct soft *s, const struct perf_sample *ps, struct access_sample *out)
{
	struct func_info fi;
	struct func_code *f = NULL;
	struct decoded_access acc;
	struct decoder *dec = NULL;   /* that decoded the access */
	enum decode_status prev_st = DECODE__COUNT, ip_st;
	uint64_t at = 0;
	unsigned idx;
	uint8_t tmp[DECODE_MAX_INSN];
	const uint8_t *ip_bytes = NULL;
	size_t ip_len = 0;

	s->seen++;
	if (ps->regs_abi == PERF_SAMPLE_REGS_ABI_NONE || !ps->regs.mask) {
		s->drops[DROP_NO_REGS]++;
		return false;
	}
	if (symbolizer_function(s->sym, ps->pid, ps->ip, &fi) && fi.end > fi.start &&
	    ps->ip >= fi.start && ps->ip < fi.end)
		f = func_code_get(s, ps->pid, &fi);
	if (f && f->ok && insn_index(f, (uint32_t)(ps->ip - f->start), &idx)) {
		prev_st = predecessor_access(s, f, idx, &ps->regs, &acc, &at);
		dec = f->dec;
		ip_bytes = f->bytes + f->insn[idx];
		ip_len = f->end - ps->ip;
	}
	if (prev_st != DECODE_OK) {
		dec = f && f->dec ? f->dec :
		      decoder_set_get(&s->decs, symbolizer_machine(s->sym, ps->pid, ps->ip));
		if (!dec) {
			s->drops[DROP_NO_DECODER]++;
			return false;
		}
		if (!ip_bytes) {
			ip_len = symbolizer_read(s->sym, ps->pid, ps->ip, tmp, sizeof(tmp));
			ip_bytes = tmp;
		}
		if (!ip_len) {
			s->drops[DROP_CODE_UNREADABLE]++;
			return false;
		}
		at = ps->ip;
		ip_st = decoder_access(dec, ip_bytes, ip_len, ps->ip, &ps->regs, false, &acc);
		if (ip_st != DECODE_OK) {
			enum decode_status why = is_memory_failure(prev_st) ? prev_st : ip_st;
			s->drops[DROP_DECODE + why]++;
			return false;
		}
	}
	if (!decode_user_address(decoder_arch(dec), acc.addr)) {
		s->drops[DROP_BAD_ADDRESS]++;
		return false;
	}
	access_sample_from_perf(out, ps, at, acc.addr);
	if (f && f->go) {
		uint32_t g = goroutine_tid(s, f, ps);

		out->tid = g ? g : out->tid;
	}
	out->size = acc.size ? acc.size : 1;
	out->kind = acc.kind;
	if (access_kind_writes(acc.kind) && acc.kind != ACCESS_ATOMIC && store_is_fenced(f, at))
		out->flags |= ACCESS_SAMPLE_FENCED;
	out->base_reg = acc.base_reg;
	out->base_off = acc.base_off;
	s->decoded++;
	return true;
}

uint64_t soft_samples_seen(const struct soft *s) { return s->seen; }
uint64_t soft_samples_decoded(const struct soft *s) { return s->decoded; }

static const char *drop_name(unsigned i)
{
	switch (i) {
	case DROP_NO_REGS: return "no user registers";
	case DROP_NO_DECODER: return "no decoder for the code's architecture";
	case DROP_BAD_ADDRESS: return "address outside user space";
	case DROP_CODE_UNREADABLE: return "code unreadable";
	}
	return decode_status_name((enum decode_status)(i - DROP_DECODE));
}

static int cmp_count(const void *a, const void *b)
{
	const struct named_count *x = a, *y = b;
	return x->n < y->n ? 1 : x->n > y->n ? -1 : 0;
}

unsigned soft_drop_counts(const struct soft *s, struct named_count **out)
{
	unsigned n = named_counts_collect(s->drops, DROP__COUNT, drop_name, out);

	sort_items(*out, n, sizeof(**out), cmp_count);
	return n;
}
