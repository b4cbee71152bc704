#include <asm/perf_regs.h>
#include <unistd.h>

#include "symbolize/symbolizer.h"
#include "symbolize/unwind.h"
#include "tap.h"
#include "common/util.h"

#define SP0 0x7ffd0000ULL
#define REG_BIT(r) (1ULL << PERF_REG_X86_##r)

/* A stack of 64 words at SP0 and registers pointing into it. */
struct fake {
	uint64_t words[64];
	struct regs regs;
};

static void fake_init(struct fake *f, uint64_t bp)
{
	memset(f, 0, sizeof(*f));
	f->regs.val[PERF_REG_X86_SP] = SP0;
	f->regs.val[PERF_REG_X86_BP] = bp;
	f->regs.mask = REG_BIT(SP) | REG_BIT(BP) | REG_BIT(IP);
}

/* The frame record at word w: the caller's rbp, then the return address. */
static void frame(struct fake *f, unsigned w, uint64_t next_bp, uint64_t ret)
{
	f->words[w] = next_bp;
	f->words[w + 1] = ret;
}

static unsigned walk(const struct fake *f, uint64_t *pcs, unsigned max)
{
	return unwind_frame_pointers(&f->regs, (const uint8_t *)f->words,
				     sizeof(f->words), pcs, max);
}

static void test_frame_pointers(void)
{
	struct fake f;
	uint64_t pcs[8];
	unsigned n;

	fake_init(&f, SP0 + 0x20);
	frame(&f, 4, SP0 + 0x60, 0x401235);
	frame(&f, 12, SP0 + 0xa0, 0x402346);
	frame(&f, 20, SP0 + 0x100, 0x403457);
	frame(&f, 32, 0, 0);                    /* the outermost frame */
	n = walk(&f, pcs, 8);
	CHECK_EQ_U64(n, 3, "frames");
	CHECK_EQ_U64(pcs[0], 0x401234, "call site = return address - 1");
	CHECK_EQ_U64(pcs[1], 0x402345, "second caller");
	CHECK_EQ_U64(pcs[2], 0x403456, "third caller");
	CHECK_EQ_U64(walk(&f, pcs, 2), 2, "max frames");

	frame(&f, 12, SP0 + 0x1000, 0x402346);  /* past the copy */
	CHECK_EQ_U64(walk(&f, pcs, 8), 2, "stops where the copy ends");
	frame(&f, 12, SP0 + 0x20, 0x402346);    /* back down: a loop */
	CHECK_EQ_U64(walk(&f, pcs, 8), 2, "stops on a frame that does not go up");

	fake_init(&f, SP0 + 0x21);
	frame(&f, 4, SP0 + 0x60, 0x401235);
	CHECK_EQ_U64(walk(&f, pcs, 8), 0, "misaligned rbp");
	fake_init(&f, SP0 - 0x10);
	CHECK_EQ_U64(walk(&f, pcs, 8), 0, "rbp below sp");
	fake_init(&f, SP0 + 0x20);
	frame(&f, 4, SP0 + 0x60, 0x401235);
	f.regs.mask &= ~REG_BIT(BP);
	CHECK_EQ_U64(walk(&f, pcs, 8), 0, "no rbp sampled");
}

/* ------------------------------------------------------------------ */
/* CFI, on our own stack */

/* Functions that must stay frames of their own, under their names. */
#ifdef __clang__
#define FRAME __attribute__((noinline))
#else
#define FRAME __attribute__((noinline, noclone))
#endif

struct captured {
	struct regs regs;
	uint8_t stack[16384] __attribute__((aligned(8)));
	size_t size;
};

static struct symbolizer *sym;

/* The registers the unwinder starts from, and the stack above them, as
 * PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER would give them.  The
 * copy reads other frames' redzones: no AddressSanitizer checks here. */
static FRAME __attribute__((no_sanitize_address)) void capture(struct captured *c)
{
	uint64_t *v = c->regs.val;
	const struct mapping *m;
	const volatile uint64_t *from;
	uint64_t sp, *to = (uint64_t *)c->stack;

	asm volatile("lea 0(%%rip), %%rax\n\t"
		     "mov %%rax, %c[ip](%0)\n\t"
		     "mov %%rsp, %c[sp](%0)\n\t"
		     "mov %%rbp, %c[bp](%0)\n\t"
		     "mov %%rbx, %c[bx](%0)\n\t"
		     "mov %%r12, %c[r12](%0)\n\t"
		     "mov %%r13, %c[r13](%0)\n\t"
		     "mov %%r14, %c[r14](%0)\n\t"
		     "mov %%r15, %c[r15](%0)\n\t"
		     : : "r"(v), [ip] "i"(8 * PERF_REG_X86_IP), [sp] "i"(8 * PERF_REG_X86_SP),
		       [bp] "i"(8 * PERF_REG_X86_BP), [bx] "i"(8 * PERF_REG_X86_BX),
		       [r12] "i"(8 * PERF_REG_X86_R12), [r13] "i"(8 * PERF_REG_X86_R13),
		       [r14] "i"(8 * PERF_REG_X86_R14), [r15] "i"(8 * PERF_REG_X86_R15)
		     : "rax", "memory");
	c->regs.mask = REG_BIT(IP) | REG_BIT(SP) | REG_BIT(BP) | REG_BIT(BX) |
		       REG_BIT(R12) | REG_BIT(R13) | REG_BIT(R14) | REG_BIT(R15);
	sp = v[PERF_REG_X86_SP];
	m = symbolizer_find_mapping(sym, getpid(), sp);
	c->size = m && m->end - sp < sizeof(c->stack) ? m->end - sp : sizeof(c->stack);
	from = (const volatile uint64_t *)sp;
	for (size_t i = 0; i < c->size / 8; i++)
		to[i] = from[i];
}

/* The returns after the calls keep them from being tail calls. */
static FRAME size_t level2(struct captured *c)
{
	capture(c);
	return c->size + 1;
}

static FRAME size_t level1(struct captured *c)
{
	return level2(c) + 1;
}

static const char *function_at(uint64_t pc)
{
	struct func_info fi;

	return symbolizer_function(sym, getpid(), pc, &fi) ? fi.name : NULL;
}

static FRAME void test_cfi(unsigned method)
{
	static struct captured c;
	struct unwinder *u = unwinder_new(sym, method);
	uint64_t pcs[64], again[64];
	struct unwind_stats st;
	char *summary;
	unsigned n, n2;

	printf("# method %s\n", unwind_method_name(method));
	level1(&c);
	n = unwind_callers(u, getpid(), &c.regs, c.stack, c.size, pcs, 64);
	CHECK(n >= 3, "callers: %u", n);
	if (n >= 3) {
		CHECK_STR(function_at(pcs[0]), "level2", "caller of capture");
		CHECK_STR(function_at(pcs[1]), "level1", "its caller");
		CHECK_STR(function_at(pcs[2]), "test_cfi", "and its caller");
	}
	/* the session (one attach per pid) serves the next sample too */
	n2 = unwind_callers(u, getpid(), &c.regs, c.stack, c.size, again, 64);
	CHECK(n2 == n && !memcmp(pcs, again, n * sizeof(*pcs)), "same chain again");
	CHECK_EQ_U64(unwind_callers(u, getpid(), &c.regs, c.stack, c.size, pcs, 2), 2,
		     "max frames");
	unwinder_stats(u, &st);
	CHECK_EQ_U64(st.by_cfi, 3, "unwound by CFI");
	CHECK_EQ_U64(st.by_frame_pointers, 0, "no frame-pointer fallback");
	CHECK_EQ_U64(st.samples, 3, "samples counted");
	CHECK(st.frames >= 2 * 3 + 2, "frames counted: %" PRIu64, st.frames);
	summary = unwinder_summary(u);
	CHECK(summary && strstr(summary, "3 of 3 samples unwound (0 by frame pointers)"),
	      "summary: %s", summary ? summary : "(none)");
	free(summary);
	unwinder_free(u);
}

/* Code without a module (JIT) falls back to frame pointers, cut at the
 * first address that is not code. */
static void test_fallback(unsigned method)
{
	struct unwinder *u = unwinder_new(sym, method);
	struct unwind_stats st;
	uint64_t pcs[8];

	CHECK(!unwinder_summary(u), "no summary before a sample");
	struct fake f;
	unsigned n;

	fake_init(&f, SP0 + 0x20);
	f.regs.val[PERF_REG_X86_IP] = 0x1000;   /* nothing mapped there */
	frame(&f, 4, SP0 + 0x60, (uintptr_t)level1 + 1);
	frame(&f, 12, SP0 + 0xa0, (uintptr_t)level2 + 1);
	frame(&f, 20, SP0 + 0x100, (uintptr_t)&f + 1);  /* data, not code */
	frame(&f, 32, SP0 + 0x140, (uintptr_t)level2 + 1);
	n = unwind_callers(u, getpid(), &f.regs, (const uint8_t *)f.words,
			   sizeof(f.words), pcs, 8);
	CHECK_EQ_U64(n, 2, "frames up to the first non-code address");
	CHECK_EQ_U64(pcs[0], (uintptr_t)level1, "first caller");
	unwinder_stats(u, &st);
	CHECK_EQ_U64(st.by_frame_pointers, 1, "frame-pointer fallback used");
	CHECK_EQ_U64(unwind_callers(u, getpid(), &f.regs, NULL, 0, pcs, 8), 0, "no stack");
	unwinder_free(u);
}

int main(void)
{
	sym = symbolizer_new();
	if (symbolizer_load_proc_maps(sym, getpid()) < 0)
		return test_skip("cannot read /proc/self/maps");
	test_frame_pointers();
	CHECK_EQ_U64(unwind_method_find("dwarf"), 0, "dwarf is the default");
	CHECK(unwind_method_find("libunwind") > 0, "libunwind is a method");
	CHECK(unwind_method_find("fp") < 0, "no such method");
	for (unsigned m = 0; unwind_method_name(m); m++) {
		test_cfi(m);
		test_fallback(m);
	}
	symbolizer_free(sym);
	return test_done();
}
