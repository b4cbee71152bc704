/* test_soft_join.c - which instruction a timer sample at a join belongs to.
 *
 * A timer sample lands on the instruction after the one that stalled.
 * Where that instruction is also a branch target, soft_access() takes the
 * fall-through predecessor only when no branch into it can have stalled
 * and none is a loop's back edge (detector/soft.c, join_is_fall_through),
 * or when it is a rotated loop's test (is_rotated_loop_test).
 * The functions below are written in assembly so that the layout the
 * rule reads (and the instruction before the join: only a locked RMW
 * outwaits the other paths) is exactly the one asserted on: each is sampled at its join
 * with r9 pointing at `word`.  x86-64 only.
 */
#include <asm/perf_regs.h>
#include <stdint.h>
#include <unistd.h>

#include "common/access.h"
#include "common/util.h"
#include "detector/soft.h"
#include "symbolize/symbolizer.h"
#include "tests/tap.h"

#if defined(__x86_64__)

/* if/else, the else laid out after the function's ret (as gcc does when it
 * moves a block out of a loop): the locked AND falls into the join, the
 * locked OR's block jumps back to it. */
void join_out_of_line(void);
extern const char join_out_of_line_at[];
/* the pre-loop locked OR falls into the loop's head, its back edge jumps
 * to it: samples there are the loop's */
void join_loop_head(void);
extern const char join_loop_head_at[];
/* a forward jcc fused with a compare that reads memory: a stall on that
 * compare is sampled at the join too */
void join_after_memory_compare(void);
extern const char join_after_memory_compare_at[];
/* if without else: the forward jcc's compare reads registers only */
void join_if(void);
extern const char join_if_at[];
/* the same if around a plain store: a store does not hold retirement, so
 * the join's samples may be anyone's */
void join_after_store(void);
extern const char join_after_store_at[];
/* gcc -O2's rotated loop, "jmp test; body: addq; test: mov; jcc body":
 * the test is entered once by the jump and every pass from the body */
void join_rotated_loop(void);
extern const char join_rotated_loop_at[];
/* a volatile store as HotSpot emits it, the store then a fence on the
 * stack: the store's stall is sampled after the fence */
void store_then_fence(void);
extern const char store_then_fence_at[];
void store_then_mfence(void);
extern const char store_then_mfence_at[];
/* the same layout entered by a conditional jump: an if, both paths hot */
void join_rotated_if(void);
extern const char join_rotated_if_at[];

__asm__(
	".text\n"
	".globl join_out_of_line\n.type join_out_of_line,@function\n"
	"join_out_of_line:\n"
	"	test %rdx,%rdx\n"
	"	js 1f\n"
	"	lock andq %rax,(%r9)\n"
	".globl join_out_of_line_at\njoin_out_of_line_at:\n"
	"2:	add $1,%r8\n"
	"	ret\n"
	"1:	lock orq %rax,(%r9)\n"
	"	add $1,%rbx\n"
	"	jmp 2b\n"
	".size join_out_of_line,.-join_out_of_line\n"

	".globl join_loop_head\n.type join_loop_head,@function\n"
	"join_loop_head:\n"
	"	lock orq %rax,(%r9)\n"
	".globl join_loop_head_at\njoin_loop_head_at:\n"
	"3:	add $1,%r8\n"
	"	cmp %r8,%r10\n"
	"	jne 3b\n"
	"	ret\n"
	".size join_loop_head,.-join_loop_head\n"

	".globl join_after_memory_compare\n.type join_after_memory_compare,@function\n"
	"join_after_memory_compare:\n"
	"	cmpq $0,(%rsi)\n"
	"	je 4f\n"
	"	lock orq %rax,(%r9)\n"
	".globl join_after_memory_compare_at\njoin_after_memory_compare_at:\n"
	"4:	add $1,%r8\n"
	"	ret\n"
	".size join_after_memory_compare,.-join_after_memory_compare\n"

	".globl join_if\n.type join_if,@function\n"
	"join_if:\n"
	"	test %rdx,%rdx\n"
	"	je 5f\n"
	"	lock orq %rax,(%r9)\n"
	".globl join_if_at\njoin_if_at:\n"
	"5:	add $1,%r8\n"
	"	ret\n"
	".size join_if,.-join_if\n"

	".globl join_after_store\n.type join_after_store,@function\n"
	"join_after_store:\n"
	"	test %rdx,%rdx\n"
	"	je 6f\n"
	"	movq %rax,(%r9)\n"
	".globl join_after_store_at\njoin_after_store_at:\n"
	"6:	add $1,%r8\n"
	"	ret\n"
	".size join_after_store,.-join_after_store\n"

	".globl join_rotated_loop\n.type join_rotated_loop,@function\n"
	"join_rotated_loop:\n"
	"	jmp 7f\n"
	"8:	addq $1,(%r9)\n"
	".globl join_rotated_loop_at\njoin_rotated_loop_at:\n"
	"7:	mov (%rsi),%eax\n"
	"	test %eax,%eax\n"
	"	je 8b\n"
	"	ret\n"
	".size join_rotated_loop,.-join_rotated_loop\n"

	".globl store_then_fence\n.type store_then_fence,@function\n"
	"store_then_fence:\n"
	"	mov %rax,0x10(%r9)\n"
	"	lock addl $0,(%rsp)\n"
	".globl store_then_fence_at\nstore_then_fence_at:\n"
	"	add $1,%r8\n"
	"	ret\n"
	".size store_then_fence,.-store_then_fence\n"

	".globl store_then_mfence\n.type store_then_mfence,@function\n"
	"store_then_mfence:\n"
	"	mov %rax,0x18(%r9)\n"
	"	mfence\n"
	".globl store_then_mfence_at\nstore_then_mfence_at:\n"
	"	add $1,%r8\n"
	"	ret\n"
	".size store_then_mfence,.-store_then_mfence\n"

	".globl join_rotated_if\n.type join_rotated_if,@function\n"
	"join_rotated_if:\n"
	"	test %rdx,%rdx\n"
	"	je 9f\n"
	"10:	addq $1,(%r9)\n"
	".globl join_rotated_if_at\njoin_rotated_if_at:\n"
	"9:	mov (%rsi),%eax\n"
	"	test %eax,%eax\n"
	"	je 10b\n"
	"	ret\n"
	".size join_rotated_if,.-join_rotated_if\n");

static unsigned long word[8];
static unsigned long other[8];

static bool sample_at(struct soft *soft, const char *ip, struct access_sample *out)
{
	struct perf_sample ps = {
		.ip = (uint64_t)(uintptr_t)ip,
		.pid = (uint32_t)getpid(),
		.tid = (uint32_t)getpid(),
		.regs_abi = PERF_SAMPLE_REGS_ABI_64,
	};

	ps.regs.val[PERF_REG_X86_R9] = (uint64_t)(uintptr_t)word;
	ps.regs.val[PERF_REG_X86_SI] = (uint64_t)(uintptr_t)other;
	ps.regs.val[PERF_REG_X86_IP] = ps.ip;
	ps.regs.mask = 1ull << PERF_REG_X86_R9 | 1ull << PERF_REG_X86_SI |
		       1ull << PERF_REG_X86_IP;
	return soft_access(soft, &ps, out);
}

int main(void)
{
	struct symbolizer *sym = symbolizer_new();
	struct soft *soft;
	struct access_sample a;

	if (symbolizer_load_proc_maps(sym, getpid()) < 0)
		die("cannot read /proc/self/maps");
	soft = soft_new(sym);

	CHECK(sample_at(soft, join_out_of_line_at, &a), "the else laid out of line: decoded");
	CHECK_EQ_U64(a.addr, (uintptr_t)word, "the locked AND's word");
	CHECK_EQ_U64(a.kind, ACCESS_ATOMIC, "a locked RMW");
	CHECK_EQ_U64(a.ip, (uintptr_t)join_out_of_line + 5, "the lock and's address");

	CHECK(sample_at(soft, join_if_at, &a), "an if's join: decoded");
	CHECK_EQ_U64(a.addr, (uintptr_t)word, "the locked OR's word");

	CHECK(!sample_at(soft, join_loop_head_at, &a),
	      "a loop's head is not the pre-loop locked OR's (got 0x%" PRIx64 ")", a.addr);
	CHECK(!sample_at(soft, join_after_memory_compare_at, &a),
	      "a join after a memory compare stays ambiguous (got 0x%" PRIx64 ")", a.addr);

	CHECK(!sample_at(soft, join_after_store_at, &a),
	      "a join after a plain store stays ambiguous (got 0x%" PRIx64 ")", a.addr);

	CHECK(sample_at(soft, join_rotated_loop_at, &a), "a rotated loop's test: decoded");
	CHECK_EQ_U64(a.addr, (uintptr_t)word, "the body's addq, not the test's load");
	CHECK_EQ_U64(a.ip, (uintptr_t)join_rotated_loop + 2, "the addq's address");
	CHECK(sample_at(soft, join_rotated_if_at, &a), "a conditional entry: decoded");
	CHECK_EQ_U64(a.addr, (uintptr_t)other, "entered by a jcc: the sampled load's own word");

	CHECK(sample_at(soft, store_then_fence_at, &a), "a store then a stack fence: decoded");
	CHECK_EQ_U64(a.addr, (uintptr_t)word + 0x10, "the store's word, not the stack");
	CHECK_EQ_U64(a.kind, ACCESS_STORE, "a plain store");
	CHECK_EQ_U64(a.flags, ACCESS_SAMPLE_FENCED, "fenced: fixed, it still drains the buffer");
	CHECK(sample_at(soft, store_then_mfence_at, &a), "a store then mfence: decoded");
	CHECK_EQ_U64(a.addr, (uintptr_t)word + 0x18, "the store's word");
	CHECK_EQ_U64(a.flags, ACCESS_SAMPLE_FENCED, "mfence fences it too");
	CHECK(sample_at(soft, join_rotated_loop_at, &a) && a.flags == 0,
	      "an addq followed by a load is not fenced");

	soft_free(soft);
	symbolizer_free(sym);
	return test_done();
}

#else

int main(void)
{
	return test_skip("x86-64 only");
}

#endif
